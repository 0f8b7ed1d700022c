/* What a program sees of its CPU affinity, for the CPU-pinning tests of
 * the breakpoint tools (rtrace break/watch, rltrace's ptrace backend).
 *
 * Without arguments: prints the mask sched_getaffinity returns (raw
 * syscall: byte count and bytes; glibc's wrapper: CPU count) in the main
 * thread, in a new thread, in a forked child, and in a thread that first
 * sets its own affinity to its lowest CPU; each also calls tick() (a
 * library call through the PLT and a write of `counter`). Traced, the
 * output must be the untraced one. On stderr, "real WHO LIST": the mask
 * the kernel applies (/proc/thread-self/status), which the tests use to
 * see that the pinning happened.
 *
 * "attach": prints "ready PID" and runs a second thread; each stdin line
 * "go N" calls tick() N times and prints "sum S"; end of input ends it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long counter;

__attribute__((noinline)) long tick(long i)
{
    counter += labs(-i);
    return counter;
}

static void real(const char *who)
{
    char line[256];
    FILE *f = fopen("/proc/thread-self/status", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            fprintf(stderr, "real %s %s", who, line + 18 + strspn(line + 18, " \t"));
    fclose(f);
}

static void show(const char *who)
{
    unsigned char raw[128];
    cpu_set_t set;
    memset(raw, 0, sizeof raw);
    long n = syscall(SYS_sched_getaffinity, 0, sizeof raw, raw);
    printf("%s: raw %ld", who, n);
    for (long i = 0; i < n; i++)
        printf(" %02x", raw[i]);
    CPU_ZERO(&set);
    int r = sched_getaffinity(0, sizeof set, &set);
    printf(" glibc %d count %d\n", r, r == 0 ? CPU_COUNT(&set) : -1);
    fflush(stdout);
    tick(1);
    real(who);
}

static void *thread_main(void *arg)
{
    show("thread");
    return arg;
}

static void *own_main(void *arg)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    int lowest = 0;
    while (!CPU_ISSET(lowest, &set))
        lowest++;
    CPU_ZERO(&set);
    CPU_SET(lowest, &set);
    printf("own: set cpu %d = %d\n", lowest, sched_setaffinity(0, sizeof set, &set));
    show("own");
    return arg;
}

static void *idle_main(void *arg)
{
    /* Blocks until the program ends: a second thread to attach to. */
    int *fds = arg;
    char c;
    while (read(fds[0], &c, 1) < 0)
        ;
    return NULL;
}

static int attach_mode(void)
{
    static int fds[2];
    pthread_t t;
    char line[64];
    if (pipe(fds) || pthread_create(&t, NULL, idle_main, fds))
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ready %d\n", getpid());
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "go ", 3) == 0) {
            long n = atol(line + 3);
            counter = 0;
            for (long i = 0; i < n; i++)
                tick(i);
            printf("sum %ld\n", counter);
        }
    }
    close(fds[1]);
    pthread_join(t, NULL);
    printf("bye\n");
    return 0;
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (argc > 1 && strcmp(argv[1], "attach") == 0)
        return attach_mode();
    show("main");
    pthread_create(&t, NULL, thread_main, NULL);
    pthread_join(t, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        show("child");
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    pthread_create(&t, NULL, own_main, NULL);
    pthread_join(t, NULL);
    show("main again");
    printf("child status %d counter %ld\n", st, counter);
    return 0;
}
