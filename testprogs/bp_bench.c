/* Calls hit() argv[1] times (default 200000) in a loop: the breakpoint
 * benchmark's workload. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long hit(long i)
{
    return i ^ 0x5a;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000, sum = 0;
    for (long i = 0; i < n; i++)
        sum += hit(i);
    printf("sum %ld\n", sum);
    return 0;
}
