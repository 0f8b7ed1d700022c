/* Conditional watchpoints (`rtrace watch 'x if x > 5'`, gdb's `watch x if
 * x > 5`): the global `x` takes the values of `seq` in turn, each write
 * changing it (gdb reports only changes); the last writes go through
 * set_shadowed(), whose parameter is also named `x`, so a condition read
 * in the writing function's scope would differ from one read in the
 * global scope (gdb's). `limit` is a second global a condition can read.
 * Prints "x X" at the end. */
#include <stdio.h>

int x;
int limit = 5;
static int *const px = &x;
static const int seq[] = {3, 7, 2, 9, 6, 1, 12, 5, 8};

__attribute__((noinline)) void set(int v)
{
	x = v;
}

/* Writes x + 1 into the global: the parameter is one less than it. */
__attribute__((noinline)) void set_shadowed(int x)
{
	*px = x + 1;
}

int main(void)
{
	for (unsigned i = 0; i < sizeof seq / sizeof seq[0]; i++)
		set(seq[i]);
	limit = 7;
	set_shadowed(5);
	set_shadowed(2);
	set_shadowed(7);
	printf("x %d\n", x);
	return 0;
}
