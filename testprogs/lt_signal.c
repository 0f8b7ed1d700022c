/* Calls, a handled signal, calls in the handler (nested in the trace under
 * raise), and a child process (for -f). Exits 0. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_usr1(int sig)
{
    (void)sig;
    volatile long r = labs(-11);
    (void)r;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    pid_t c = fork();
    if (c == 0) {
        volatile long r = labs(-22);
        (void)r;
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    volatile long r = labs(-33);
    (void)r;
    return 0;
}
