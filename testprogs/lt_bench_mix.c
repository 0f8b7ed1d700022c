/* snprintf, atoi, malloc and free argv[1] times (default 20000) through
 * the PLT: the rltrace benchmark's mixed workload (benches/ltrace.rs
 * --workload mix), a printf-family call among plain ones. Built with
 * -DFLOAT_FORMAT (--workload mix-float) it also holds a %f format, which
 * keeps its printf-family calls on ptrace breakpoints under the kernel
 * backend. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000, sum = 0;
    char buf[32];
    for (long i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%ld", i);
        sum += atoi(buf);
        char *p = malloc(16 + (i & 7));
        free(p);
    }
    printf("sum %ld\n", sum);
#ifdef FLOAT_FORMAT
    if (argc > 2)
        printf("%f\n", (double)sum);
#endif
    return 0;
}
