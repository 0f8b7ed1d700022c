/* A traced call left by longjmp (qsort's comparator jumps out), then more
 * calls: each must still be reported with its own return value. */
#include <setjmp.h>
#include <stdlib.h>

static jmp_buf env;

static int cmp_jump(const void *a, const void *b)
{
    (void)a;
    (void)b;
    longjmp(env, 1);
}

int main(void)
{
    int v[3] = {3, 1, 2};
    volatile long r = 0;
    if (!setjmp(env))
        qsort(v, 3, sizeof v[0], cmp_jump);
    r += labs(-5);
    if (!setjmp(env))
        qsort(v, 3, sizeof v[0], cmp_jump);
    r += labs(-6);
    return r == 11 ? 0 : 1;
}
