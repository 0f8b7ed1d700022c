/* longjmp out of nested probed calls: return probes must stay correct for
 * the frames that do return. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

__attribute__((noinline)) long dive(long n)
{
    if (n == 0)
        longjmp(env, 1);
    return dive(n - 1) + 1;
}

__attribute__((noinline)) long leaf(long n)
{
    return n * 2;
}

int main(void)
{
    long sum = 0;
    for (int i = 0; i < 3; i++) {
        if (setjmp(env) == 0)
            dive(4);
        sum += leaf(i);
    }
    printf("sum %ld\n", sum);
    return 0;
}
