/* Watching a local (`rtrace watch accumulate:total`, gdb's `break
 * accumulate`, `run`, `watch total`): accumulate() changes its local
 * `total` several times and is called twice from main; each return leaves
 * the block in which `total` is valid, and main resumes mid-line. scrub()
 * runs at the same depth before each call and zeroes the stack below its
 * frame, so the uninitialized `total` reads 0 under any tracer (gdb's
 * first "Old value" is whatever the slot held). Every write changes the
 * value (gdb reports only changes). Prints "sum S". */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) void scrub(void)
{
	volatile char pad[512];
	memset((char *)pad, 0, sizeof pad);
}

__attribute__((noinline)) int accumulate(int n)
{
	int total;
	total = n * 10;
	for (int i = 1; i <= n; i++)
		total += i;
	total = total * 2;
	return total;
}

int main(void)
{
	int sum = 0;
	scrub();
	sum += accumulate(3);
	scrub();
	sum += accumulate(2);
	printf("sum %d\n", sum);
	return 0;
}
