/* Ten calls of step(i, &acc), i = 0..9, for hit limits and printed
 * expressions: `--max-hits`, `--tbreak`, `--ignore`, `--print` against
 * gdb's `enable count`, `tbreak`, `ignore` and `dprintf` on the same
 * breakpoint. step() keeps a running total in a struct the caller owns.
 * Prints the final total (45).
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noipa))

struct acc {
	int total;
	int last;
};

NOINLINE int step(int i, struct acc *a)
{
	a->total += i;
	a->last = i;
	return a->total;
}

int main(void)
{
	struct acc a = { 0, 0 };

	for (int i = 0; i < 10; i++)
		step(i, &a);
	printf("%d\n", a.total);
	return 0;
}
