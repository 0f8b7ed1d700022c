/* Calls lt_outlib.c's functions (see there); built and linked by
 * tests/ltrace_diff.rs with lt_outparam.conf's prototypes. */
#include <stdio.h>

int k_out(int a, int *out, void (*cb)(void));
int k_only(int *out, void (*cb)(void));
int k_arr(const int *v, int n);

static void cb(void)
{
    puts("in callback");
}

int main(void)
{
    int x = 0, y = 0, v[7] = {1, 2, 3, 4, 5, 6, 7};
    int r = k_out(3, &x, cb);
    r += k_only(&y, cb);
    r += k_arr(v, 7) + k_arr(v, 2);
    return r + x + y == 15 + 28 + 3 ? 0 : 1;
}
