/* A child blocked in read(2) on a pipe is SIGKILLed by its parent while
 * inside the syscall. Prints "child killed by 9". */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    int ready[2], block[2];
    pipe(ready);
    pipe(block);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        write(ready[1], "r", 1);
        read(block[0], &c, 1); /* never returns */
        _exit(0);
    }
    char c;
    read(ready[0], &c, 1);
    /* The child is in (or about to enter) read(); either way it dies there. */
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        printf("child killed by %d\n", WTERMSIG(st));
    return 0;
}
