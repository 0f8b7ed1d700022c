/* Programs for rstrace engine/option tests (tests/strace_engine_opts.rs);
 * the first argument picks one:
 *   writev   - writev(-1, …) of 32 short strings that end at a page end,
 *              the iovec array at the end of another page (string reads
 *              must cost one process_vm_readv per page);
 *   poke     - chdir(buf) and getcwd(buf2, 4096) on writable buffers
 *              (targets of poke_enter=/poke_exit=);
 *   restart  - nanosleep interrupted by an ignored SIGALRM (the kernel
 *              restarts it with restart_syscall);
 *   delay    - forks 2 children that each call getppid once;
 *   nosys    - calls syscall number 500 (no syscall has it). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* `size` bytes that end right before an unmapped page. */
static void *tail_alloc(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (size + page - 1) / page * page;
    char *p = mmap(NULL, len + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    munmap(p + len, page);
    return p + len - size;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "writev")) {
        enum { N = 32 };
        char *buf = tail_alloc(N);
        for (int i = 0; i < N; i++)
            buf[i] = 'a' + i % 26;
        struct iovec *io = tail_alloc(sizeof(*io) * N);
        for (int i = 0; i < N; i++) {
            io[i].iov_base = buf + N - i;
            io[i].iov_len = i;
        }
        return writev(-1, io, N) == -1 ? 0 : 1;
    }
    if (!strcmp(mode, "poke")) {
        char *dir = tail_alloc(4096);
        char *cwd = tail_alloc(4096);
        memset(dir, '/', 4096);
        dir[4095] = 0;
        chdir(dir);
        syscall(SYS_getcwd, cwd, 4096);
        return 0;
    }
    if (!strcmp(mode, "restart")) {
        struct sigaction sa = {.sa_handler = SIG_IGN};
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval itv = {.it_value.tv_usec = 100000};
        setitimer(ITIMER_REAL, &itv, NULL);
        struct timespec req = {.tv_nsec = 300000000}, rem;
        return nanosleep(&req, &rem) ? 1 : 0;
    }
    if (!strcmp(mode, "delay")) {
        for (int i = 0; i < 2; i++)
            if (fork() == 0) {
                getppid();
                _exit(0);
            }
        while (wait(NULL) > 0)
            ;
        return 0;
    }
    if (!strcmp(mode, "nosys"))
        return syscall(500, 1, 2, 3, 4, 5, 6) == -1 ? 0 : 1;
    fprintf(stderr, "usage: engine_opts writev|poke|restart|delay\n");
    return 2;
}
