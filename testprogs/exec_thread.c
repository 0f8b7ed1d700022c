/* exec from a non-leader thread: a second thread calls execve of argv[1]
 * (default /bin/true) while the leader is blocked in pause(). */
#include <pthread.h>
#include <unistd.h>

static char *prog = "/bin/true";

static void *worker(void *arg) {
    (void)arg;
    char *argv[] = {prog, "from-thread", NULL};
    execv(prog, argv);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1)
        prog = argv[1];
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pause();
    return 1;
}
