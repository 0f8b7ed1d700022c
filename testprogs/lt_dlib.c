/* A library lt_dlopen loads at run time (built with -shared by the test). */
#include <string.h>

int lt_dl_add(int a, int b)
{
    return a + b + (int)strlen("xyz");
}
