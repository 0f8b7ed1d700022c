// rtrace record --probe target (tests/record_probe.rs).
//
// rec_probe N: the main thread calls probe_me(i, "main") for i = 0..N-1,
// then a second thread calls probe_me(1000 + i, "thread") N times; each
// call makes one getpid syscall. Prints "calls MAIN THREAD tid TID" (the
// second thread's tid) and "code intact" / "code changed N" (see below).
//
// rec_probe loop: calls probe_me until SIGINT (each call sleeps 2 ms
// inside the function, so at the interrupt the thread is most likely
// inside it, with its return address swapped by a return probe); prints
// "started" after 5 calls. After SIGINT (rtrace has detached by then) it
// calls probe_me 10 more times, checks every result, and compares every
// file-backed executable mapping with the file it maps: a breakpoint byte
// left behind shows as a difference. It also counts executable anonymous
// mappings (an out-of-line page left behind). Prints "after N calls ok",
// "code intact" or "code changed N", "anon exec N".
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static int slow;

__attribute__((noinline)) int probe_me(int i, const char *tag) {
    long pid = syscall(SYS_getpid);
    if (slow) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return (int)(i * 3 + 1 + (pid < 0) + (tag[0] == 0));
}

static int n_calls;
static pid_t thread_tid;

static void *worker(void *arg) {
    (void)arg;
    thread_tid = (pid_t)syscall(SYS_gettid);
    for (int i = 0; i < n_calls; i++)
        if (probe_me(1000 + i, "thread") != (1000 + i) * 3 + 1)
            abort();
    return NULL;
}

static void on_int(int sig) {
    (void)sig;
    stop = 1;
}

// Bytes of file-backed executable mappings that differ from their file;
// executable anonymous mappings (vdso and vsyscall aside) in *anon.
static long code_changes(int *anon) {
    FILE *m = fopen("/proc/self/maps", "r");
    char line[4096];
    long diff = 0;
    *anon = 0;
    if (!m)
        return -1;
    while (fgets(line, sizeof line, m)) {
        unsigned long lo, hi, off;
        char perms[8], path[4000] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %3999[^\n]", &lo, &hi, perms, &off, path) < 4)
            continue;
        if (perms[2] != 'x')
            continue;
        if (path[0] != '/') {
            if (strcmp(path, "[vdso]") && strcmp(path, "[vsyscall]"))
                (*anon)++;
            continue;
        }
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            return -1;
        size_t len = hi - lo;
        unsigned char *buf = malloc(len);
        ssize_t got = pread(fd, buf, len, (off_t)off);
        close(fd);
        const unsigned char *mem = (const unsigned char *)lo;
        for (ssize_t k = 0; k < got; k++)
            diff += mem[k] != buf[k];
        free(buf);
    }
    fclose(m);
    return diff;
}

static void report_code(void) {
    int anon;
    long d = code_changes(&anon);
    if (d == 0)
        printf("code intact\n");
    else
        printf("code changed %ld\n", d);
    printf("anon exec %d\n", anon);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "loop") == 0) {
        signal(SIGINT, on_int);
        slow = 1;
        long k = 0;
        while (!stop) {
            if (probe_me((int)(k % 1000), "loop") != (int)(k % 1000) * 3 + 1)
                abort();
            if (++k == 5) {
                printf("started\n");
                fflush(stdout);
            }
        }
        slow = 0;
        for (int i = 0; i < 10; i++)
            if (probe_me(i, "after") != i * 3 + 1)
                abort();
        printf("after %ld calls ok\n", k);
        report_code();
        return 0;
    }
    n_calls = argc > 1 ? atoi(argv[1]) : 5;
    int sum = 0;
    for (int i = 0; i < n_calls; i++)
        sum += probe_me(i, "main");
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("calls %d %d tid %d sum %d\n", n_calls, n_calls, (int)thread_tid, sum);
    report_code();
    return 0;
}
