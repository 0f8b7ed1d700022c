/* fork, vfork+exec, and a thread (clone3 in current glibc). Prints one line
 * per child outcome. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *a) { (void)a; getppid(); return NULL; }

int main(void) {
    int st;
    pid_t p = fork();
    if (p == 0)
        _exit(3);
    waitpid(p, &st, 0);
    printf("fork child exited %d\n", WEXITSTATUS(st));
    fflush(stdout);
    p = vfork();
    if (p == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    waitpid(p, &st, 0);
    printf("vfork child exited %d\n", WEXITSTATUS(st));
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("thread joined\n");
    return 0;
}
