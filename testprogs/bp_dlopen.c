/* Loads the library named in argv[1] with dlopen, then calls bp_lib_func
 * 500 times and getpid() 300 times; prints both results. */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    long (*f)(long) = (long (*)(long))dlsym(h, "bp_lib_func");
    long sum = 0;
    for (long i = 0; i < 500; i++)
        sum += f(i);
    long pids = 0;
    for (int i = 0; i < 300; i++)
        pids += getpid() == getpid();
    printf("sum %ld pids %ld\n", sum, pids);
    return 0;
}
