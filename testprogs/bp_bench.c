/* Calls hit() argv[1] times (default 200000) in a loop and stores each
 * index in the global `last`: the breakpoint and watchpoint benchmarks'
 * workload. With argv[2] "thread" the loop runs in a second thread (hits
 * in a thread that is not the main one). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long last;

__attribute__((noinline)) long hit(long i)
{
    return i ^ 0x5a;
}

static long n = 200000, sum;

static void *loop(void *arg)
{
    for (long i = 0; i < n; i++) {
        sum += hit(i);
        last = i;
    }
    return arg;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atol(argv[1]);
    if (argc > 2 && strcmp(argv[2], "thread") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, loop, NULL) || pthread_join(t, NULL))
            return 1;
    } else {
        loop(NULL);
    }
    printf("sum %ld\n", sum);
    return 0;
}
