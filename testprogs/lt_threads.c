/* 4 threads x 10,000 library calls each, all at once (a barrier starts
 * them together): abs(-K) for K = thread * 100000 + i, so every call and
 * its result can be checked in the trace. Exit status 0 when every result
 * was right. */
#include <pthread.h>
#include <stdlib.h>

#define THREADS 4
#define CALLS 10000

static pthread_barrier_t start;

static void *worker(void *arg)
{
    long t = (long)arg;
    long bad = 0;
    pthread_barrier_wait(&start);
    for (int i = 0; i < CALLS; i++) {
        int k = (int)(t * 100000 + i);
        if (abs(-k) != k)
            bad++;
    }
    return (void *)bad;
}

int main(void)
{
    pthread_t th[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(t + 1));
    long bad = 0;
    for (int t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad += (long)r;
    }
    return bad != 0;
}
