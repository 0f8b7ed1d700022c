/* A 1,000-deep recursion that calls `bottom` at its deepest point:
 * a backtrace there has 1,003 frames (bottom, 1,001 x descend, main), all
 * of which gdb's `bt` prints. The calls are not in tail position, so every
 * level keeps its frame. Prints the sum of the levels.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE long bottom(long n)
{
	sink += n;
	return sink;
}

NOINLINE long descend(long n)
{
	if (n == 0)
		return bottom(n);
	return descend(n - 1) + n;
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 1000;

	printf("%ld\n", descend(depth));
	return 0;
}
