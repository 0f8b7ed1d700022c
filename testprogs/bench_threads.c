/* Benchmark workload: system calls from many threads, some created late,
 * with real-time signals delivered along the way.
 *
 * usage: bench_threads [PER_THREAD [EXIT_CODE]]
 * Wave 1: 4 threads each make PER_THREAD (default 50000) getppid() calls.
 * When every wave-1 thread is halfway (a barrier, no sleeps), the main
 * thread starts wave 2: 4 more threads of PER_THREAD/2 calls each, so a
 * tracer must pick up new threads while others run. Every SIGNAL_EVERY
 * calls a thread sends itself a signal (SIGUSR1, SIGRTMIN, SIGRTMIN+7 or
 * SIGRTMAX); the handlers count them and the total is checked at the end,
 * so a tracer that drops or mangles signals makes the check fail.
 * Prints one "ok" line and exits with EXIT_CODE (default 0); a failed
 * check exits 99.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WAVE 4
#define SIGNAL_EVERY 1000

struct worker {
	pthread_t thread;
	long calls;
	int sig;
	int wait_at_half;
	long sent;
	int failed;
};

static pthread_barrier_t half;
static atomic_long received;
static pid_t parent;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&received, 1);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	pid_t pid = getpid();
	pid_t tid = (pid_t)syscall(SYS_gettid);

	for (long i = 0; i < w->calls; i++) {
		if (w->wait_at_half && i == w->calls / 2)
			pthread_barrier_wait(&half);
		if (i % SIGNAL_EVERY == SIGNAL_EVERY - 1) {
			/* Delivered to this thread before tgkill returns. */
			if (syscall(SYS_tgkill, pid, tid, w->sig) != 0)
				w->failed = 1;
			w->sent++;
		} else if (syscall(SYS_getppid) != parent) {
			w->failed = 1;
		}
	}
	return NULL;
}

static int start(struct worker *w, long calls, int sig, int wait_at_half)
{
	memset(w, 0, sizeof(*w));
	w->calls = calls;
	w->sig = sig;
	w->wait_at_half = wait_at_half;
	return pthread_create(&w->thread, NULL, work, w);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 50000;
	int exit_code = argc > 2 ? atoi(argv[2]) : 0;
	int sigs[] = { SIGUSR1, SIGRTMIN, SIGRTMIN + 7, SIGRTMAX };
	struct worker workers[2 * WAVE];
	struct sigaction sa;
	long sent = 0;
	int failed = 0;

	if (calls < 2) {
		fprintf(stderr, "bench_threads: PER_THREAD must be at least 2\n");
		return 99;
	}
	parent = getppid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, NULL);
	pthread_barrier_init(&half, NULL, WAVE + 1);

	for (int i = 0; i < WAVE; i++)
		if (start(&workers[i], calls, sigs[i % 4], 1) != 0)
			return 99;
	pthread_barrier_wait(&half);
	for (int i = WAVE; i < 2 * WAVE; i++)
		if (start(&workers[i], calls / 2, sigs[i % 4], 0) != 0)
			return 99;
	for (int i = 0; i < 2 * WAVE; i++) {
		pthread_join(workers[i].thread, NULL);
		sent += workers[i].sent;
		failed |= workers[i].failed;
	}
	if (failed || atomic_load(&received) != sent) {
		fprintf(stderr, "bench_threads: failed=%d signals sent %ld received %ld\n",
			failed, sent, atomic_load(&received));
		return 99;
	}
	printf("bench_threads ok %ld threads=%d signals=%ld\n", calls, 2 * WAVE, sent);
	return exit_code;
}
