/* Built static, stripped or with corrupted debug info by the fault tests.
 * Calls work(i) for i < N (default 7), each doing one getppid() library
 * call and syscall and one store to the global `counter`; prints
 * "work ADDR counter N" with the address of work(). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long counter;

__attribute__((noinline)) void work(long i)
{
	counter += (getppid() > 0) + 0 * i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 7;
	for (long i = 0; i < n; i++)
		work(i);
	printf("work %p counter %ld\n", (void *)work, counter);
	return 0;
}
