/* 8 threads x 10,000 calls of work(); prints the total, which a tracer
 * must not change. `rtrace break --count work` must report 80000 hits.
 * With argv[2] == "gate" it prints "ready" and starts the threads only
 * after reading a line from stdin (attach tests). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8

static int calls = 10000;

__attribute__((noinline)) long work(long i)
{
    return i * 3 + 1;
}

static void *run(void *arg)
{
    long id = (long)arg, sum = 0;
    for (int i = 0; i < calls; i++)
        sum += work(i + id);
    return (void *)sum;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        calls = atoi(argv[1]);
    if (argc > 2 && strcmp(argv[2], "gate") == 0) {
        char line[16];
        printf("ready\n");
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin))
            return 1;
    }
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, run, (void *)i);
    long total = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        total += (long)r;
    }
    printf("total %ld\n", total);
    return 0;
}
