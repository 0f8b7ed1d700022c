/* Job control under a tracer: the child stops itself with SIGSTOP; the
 * parent must see it stopped (WIFSTOPPED via WUNTRACED) and it must stay
 * stopped until the parent sends SIGCONT. Prints "stopped 19",
 * "continued", "child exited 7". */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t pid = fork();
    if (pid == 0) {
        raise(SIGSTOP);
        _exit(7);
    }
    int st;
    waitpid(pid, &st, WUNTRACED);
    if (WIFSTOPPED(st))
        printf("stopped %d\n", WSTOPSIG(st));
    fflush(stdout);
    /* Still stopped: a non-blocking wait sees nothing new. */
    if (waitpid(pid, &st, WNOHANG | WCONTINUED) == 0)
        printf("still stopped\n");
    kill(pid, SIGCONT);
    waitpid(pid, &st, WCONTINUED);
    if (WIFCONTINUED(st))
        printf("continued\n");
    waitpid(pid, &st, 0);
    if (WIFEXITED(st))
        printf("child exited %d\n", WEXITSTATUS(st));
    return 0;
}
