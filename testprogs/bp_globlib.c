/* A small shared library for bp_glob: globlib_outer calls globlib_leaf,
 * which (built -fPIC, exported) goes through this library's own PLT stub
 * globlib_leaf@plt, as sqlite3 calls its own sqlite3_mutex_enter. */
long globlib_calls;

long globlib_leaf(long x)
{
    globlib_calls++;
    return x + 1;
}

long globlib_outer(long x)
{
    return globlib_leaf(x) * 2;
}
