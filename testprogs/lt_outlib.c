/* Library for tests/ltrace_diff.rs's out-parameter, -A and @PROG checks:
 * functions with out-parameters that call back into the program (so a
 * traced call nests inside them), and one taking an array. */
int k_out(int a, int *out, void (*cb)(void))
{
    cb();
    *out = a + 2;
    return 1;
}

int k_only(int *out, void (*cb)(void))
{
    cb();
    *out = 7;
    return 2;
}

int k_arr(const int *v, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}
