/* Recursive fib(n): return probes must nest and report fib's values. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long fib(long n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10;
    printf("fib(%ld) = %ld\n", n, fib(n));
    return 0;
}
