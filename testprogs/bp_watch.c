/* Breakpoints and a watchpoint in one session: a two-thread program driven
 * through stdin. Prints "ready PID TICK TOTAL" (the addresses of tick() and
 * of the global `total`); for each line "go N" the worker thread (started
 * before anything attaches) runs `total += tick(i)` for i < N — one call
 * and one write of `total` per iteration — and main prints "total T";
 * "quit" (or end of input) prints "bye" and exits 0. No sleeps. A debug
 * register or INT3 left behind by a tracer would raise SIGTRAP and kill
 * the program.
 *
 * Built with -DTICK_GETPPID it is also the target of the tool fault tests
 * (tests/fault_tool.rs), which attach to it and interrupt the tracer: each
 * tick() then makes one getppid() library call and syscall too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long total;
static int to_worker[2], from_worker[2];

__attribute__((noinline)) long tick(long i)
{
#ifdef TICK_GETPPID
	return i % 7 + (getppid() < 0);
#else
	return i % 7;
#endif
}

static void *worker(void *arg)
{
	long n;
	(void)arg;
	while (read(to_worker[0], &n, sizeof n) == sizeof n) {
		for (long i = 0; i < n; i++)
			total += tick(i);
		if (write(from_worker[1], &n, sizeof n) != sizeof n)
			exit(3);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	char line[64];
	if (pipe(to_worker) || pipe(from_worker) || pthread_create(&t, NULL, worker, NULL))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d %p %p\n", getpid(), (void *)tick, (void *)&total);
	while (fgets(line, sizeof line, stdin)) {
		if (strncmp(line, "go ", 3) == 0) {
			long n = atol(line + 3);
			if (write(to_worker[1], &n, sizeof n) != sizeof n ||
			    read(from_worker[0], &n, sizeof n) != sizeof n)
				return 2;
			printf("total %ld\n", total);
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		}
	}
	printf("bye\n");
	return 0;
}
