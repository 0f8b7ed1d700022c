/* Loads the library named by argv[1] with dlopen and calls lt_dl_add(2, 3)
 * in it (through a pointer from dlsym); exits with its result (8). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 100;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 101;
    }
    int (*add)(int, int) = (int (*)(int, int))dlsym(h, "lt_dl_add");
    if (!add)
        return 102;
    int r = add(2, 3);
    dlclose(h);
    return r;
}
