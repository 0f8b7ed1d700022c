/* A shared library the dlopen test loads at run time. */
__attribute__((noinline)) long bp_lib_func(long i)
{
    return i + 100;
}
