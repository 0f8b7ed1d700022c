/* Linked against bp_globlib (built by the test): calls globlib_leaf 1000
 * times and globlib_outer 500 times, each through this program's PLT
 * stubs (globlib_leaf@plt, globlib_outer@plt); globlib_outer calls
 * globlib_leaf through the library's PLT. Prints the library's count of
 * globlib_leaf calls and the calls of each function. */
#include <stdio.h>

long globlib_leaf(long x);
long globlib_outer(long x);
extern long globlib_calls;

int main(void)
{
    long sum = 0;
    for (long i = 0; i < 1000; i++)
        sum += globlib_leaf(i);
    for (long i = 0; i < 500; i++)
        sum += globlib_outer(i);
    printf("globlib_leaf %ld globlib_outer 500 sum %ld\n", globlib_calls, sum);
    return 0;
}
