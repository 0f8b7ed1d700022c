/* rltrace -S against ltrace -S: open/read/close/write/getpid through
 * libc, a fork whose child writes and exits, and a wait. SIGCHLD is
 * blocked until the child has been waited for, so that it is delivered at
 * a fixed place (the return of the unblocking rt_sigprocmask) instead of
 * wherever the child's exit happens to fall; the last line names both
 * pids so the test can normalise them. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    (void)argc;
    char buf[16];
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int fd = open(argv[0], O_RDONLY, 0);
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    write(1, "hi\n", 3);
    pid_t me = getpid();
    pid_t c = fork();
    if (c == 0) {
        write(1, "child\n", 6);
        _exit(0);
    }
    waitpid(c, NULL, 0);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    printf("pid %d child %d\n", (int)me, (int)c);
    return labs(n) > 100;
}
