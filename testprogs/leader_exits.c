/* The thread-group leader calls pthread_exit() while a second thread goes on
 * working and then exits the process: the leader is a zombie meanwhile. The
 * worker joins the main thread, so it runs on only after the leader is gone
 * and the order of events is the same every run. Prints "worker done". */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_t leader;

static void *worker(void *a) {
    (void)a;
    pthread_join(leader, NULL); /* returns once the leader thread has exited */
    for (int i = 0; i < 5; i++)
        syscall(SYS_getppid);
    puts("worker done");
    fflush(stdout);
    return NULL;
}

int main(void) {
    leader = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_exit(NULL);
}
