/* Target for the tool fault tests (tests/fault_tool.rs): a two-thread program
 * driven through stdin that a tracer attaches to and is then interrupted.
 * Prints "ready PID TICK TOTAL" (pid, address of tick(), address of the
 * global `total`). For each line "go N" the worker thread (started before
 * anything attaches) runs `total += tick(i)` for i < N — one call of tick(),
 * one getppid() library call and syscall, and one write of `total` per
 * iteration — and main prints "total T". End of input prints "bye", exit 0.
 * An INT3 byte or debug register left behind would kill it with SIGTRAP. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long total;
static int to_worker[2], from_worker[2];

__attribute__((noinline)) long tick(long i)
{
	return i % 7 + (getppid() < 0);
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
		}
	}
	printf("bye\n");
	return 0;
}
