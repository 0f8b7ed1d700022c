/* Library calls a known number of times, for `rltrace -c --backend kernel`
 * (tests/ltrace_kcount.rs). Built -fno-builtin so every call below is a
 * real call through the PLT (or the GOT with -fno-plt).
 *
 * usage: ltk_calls N [THREADS [wait]]
 *   main calls labs() N times, abs() 3 times and strlen() 5 times; each of
 *   THREADS threads calls labs() N times and abs() once. Before exiting it
 *   prints, on stdout, the counts it made: "labs=.. abs=.. strlen=..".
 *   With "wait" it prints "ready" after the calls and waits for a signal.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long n;
static volatile long sink;

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        sink += labs(-i);
    sink += abs(-1);
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 1000;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    int wait = argc > 3 && strcmp(argv[3], "wait") == 0;
    pthread_t t[64];
    if (threads > 64)
        threads = 64;
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (long i = 0; i < n; i++)
        sink += labs(-i);
    for (int i = 0; i < 3; i++)
        sink += abs(-i);
    const char *words[5] = {"a", "bb", "ccc", "dddd", "eeeee"};
    for (int i = 0; i < 5; i++)
        sink += (long)strlen(words[i]);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("labs=%ld abs=%d strlen=5\n", n * (threads + 1), 3 + threads);
    fflush(stdout);
    if (wait) {
        puts("ready");
        fflush(stdout);
        for (;;)
            pause();
    }
    return 0;
}
