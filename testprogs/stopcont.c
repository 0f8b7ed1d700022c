/* Job control under a tracer: the child stops itself with SIGSTOP; the
 * parent must see it stopped (WIFSTOPPED via WUNTRACED) and it must stay
 * stopped until the parent sends SIGCONT. After SIGCONT the child waits on
 * a pipe until the parent has seen it continue, so the order of events is
 * the same every run. Prints "stopped 19", "still stopped", "continued",
 * "child exited 7". */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    int go[2];
    pipe(go);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        raise(SIGSTOP);
        read(go[0], &c, 1); /* until the parent saw us continue */
        _exit(7);
    }
    close(go[0]);
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
    fflush(stdout);
    write(go[1], "g", 1);
    waitpid(pid, &st, 0);
    if (WIFEXITED(st))
        printf("child exited %d\n", WEXITSTATUS(st));
    return 0;
}
