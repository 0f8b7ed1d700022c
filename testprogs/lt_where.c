/* A call chain for rltrace -w: main -> outer -> middle -> inner -> labs.
 * Built -O0 and -O2 -fomit-frame-pointer by tests/ltrace/ltrace_where.rs:
 * the backtrace after labs' line must name inner, middle, outer, main in
 * that order on both (at -O2 the frames have no frame pointer). Prints 15. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long inner(long x)
{
	return labs(x) + 1;
}

__attribute__((noinline)) long middle(long x)
{
	return inner(x * 2) + 1;
}

__attribute__((noinline)) long outer(long x)
{
	return middle(x - 1) + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	long v = outer(-argc * 5);
	printf("%ld\n", v);
	return 0;
}
