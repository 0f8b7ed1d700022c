/* Calls labs() argv[1] times (default 100000) through the PLT: the rltrace
 * benchmark's workload. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000, sum = 0;
    for (long i = 0; i < n; i++)
        sum += labs(-i);
    printf("sum %ld\n", sum);
    return 0;
}
