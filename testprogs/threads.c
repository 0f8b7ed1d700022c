/* Threads in two waves: 4 created at start, 4 more created after the first
 * wave finished, each calling getppid() N times and getpid() 10*N times.
 * A tracer filtering on getppid must count exactly 8*N calls, including
 * those of the threads created later. Prints "threads done <8*N>". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int n = 1000;

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < n; i++) {
        syscall(SYS_getppid);
        for (int j = 0; j < 10; j++)
            syscall(SYS_getpid);
    }
    return NULL;
}

static void wave(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
}

int main(int argc, char **argv) {
    if (argc > 1)
        n = atoi(argv[1]);
    wave();
    wave();
    printf("threads done %d\n", 8 * n);
    return 0;
}
