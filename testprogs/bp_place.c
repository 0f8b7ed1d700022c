/* Functions of several shapes, for where `break FUNC` goes compared with
 * gdb's `break FUNC` at several optimisation levels: no parameters or
 * locals, a one-line function, parameters, locals only, a loop. Built
 * with -DFLAT only bare() and main() remain: a compilation unit without
 * location lists even at -O2. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;

NOINLINE void bare(void)
{
	sink++;
}

#ifndef FLAT
NOINLINE void oneline(int v) { sink += v; }

NOINLINE int params(int a, int b)
{
	sink += a;
	return a * b + sink;
}

NOINLINE int locals(void)
{
	int i, t = 0;

	for (i = 0; i < sink + 3; i++)
		t += i * sink;
	return t;
}

NOINLINE long mixed(const char *s, long n)
{
	long sum = 0;

	while (*s)
		sum += *s++ * n;
	return sum;
}
#endif

int main(void)
{
	bare();
#ifndef FLAT
	oneline(sink + 1);
	sink = params(sink, 3);
	sink += locals();
	sink += mixed("abc", 2);
#endif
	printf("%d\n", sink);
	return 0;
}
