/* What a program's thread and children see of their CPU affinity, for the
 * test that a tracer's CPU pin does not leak to tasks it does not follow.
 *
 * Prints the mask sched_getaffinity returns (raw syscall: byte count and
 * bytes) in the main thread, in a new thread, in a forked child and in a
 * background child. The background child outlives the program: it closes
 * stdout and stderr, tells the program it is set up, and waits for the end
 * of its stdin before exiting; the program prints "bg PID" and returns
 * without waiting for it. On stderr, "real WHO LIST": the mask the kernel
 * applies (/proc/thread-self/status). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *who)
{
    unsigned char raw[128];
    char line[256];
    memset(raw, 0, sizeof raw);
    long n = syscall(SYS_sched_getaffinity, 0, sizeof raw, raw);
    printf("%s: raw %ld", who, n);
    for (long i = 0; i < n; i++)
        printf(" %02x", raw[i]);
    printf("\n");
    fflush(stdout);
    FILE *f = fopen("/proc/thread-self/status", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            fprintf(stderr, "real %s %s", who, line + 18 + strspn(line + 18, " \t"));
    fclose(f);
}

static void *thread_main(void *arg)
{
    show("thread");
    return arg;
}

int main(void)
{
    pthread_t t;
    int ready[2];
    show("main");
    pthread_create(&t, NULL, thread_main, NULL);
    pthread_join(t, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        show("child");
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    if (pipe(ready))
        return 1;
    pid = fork();
    if (pid == 0) {
        char c;
        show("background");
        close(1);
        close(2);
        close(ready[0]);
        close(ready[1]);
        while (read(0, &c, 1) > 0)
            ;
        _exit(0);
    }
    close(ready[1]);
    char c;
    /* EOF once the background child closed its end: it has printed. */
    while (read(ready[0], &c, 1) > 0)
        ;
    printf("bg %d\n", pid);
    return 0;
}
