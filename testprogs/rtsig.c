/* Real-time signals: a handler for SIGRTMIN+1 (glibc: SIGRT_3, signal 35) installed with an alternate
 * signal stack; 50 signals queued with values 0..49 from a second thread.
 * Prints "rtsig sum 1225 count 50" when every signal arrived intact. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t count, sum;

static void handler(int sig, siginfo_t *si, void *uc) {
    (void)sig; (void)uc;
    count++;
    sum += si->si_value.sival_int;
}

static void *sender(void *arg) {
    pid_t pid = getpid();
    (void)arg;
    for (int i = 0; i < 50; i++) {
        union sigval v = {.sival_int = i};
        sigqueue(pid, SIGRTMIN + 1, v);
    }
    return NULL;
}

int main(void) {
    stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGRTMIN + 1, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 1);
    /* Block while sending so all 50 queue, then take them in one go. */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_t t;
    pthread_create(&t, NULL, sender, NULL);
    pthread_join(t, NULL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    printf("rtsig sum %d count %d\n", (int)sum, (int)count);
    return 0;
}
