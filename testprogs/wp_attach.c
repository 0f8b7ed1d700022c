/* rtrace watch -p test: a two-thread program driven through stdin.
 *
 * Prints "pid PID counter ADDR tid TID" (TID: the worker thread), then
 * for each command line: "w N" makes the worker thread write N to
 * `counter` (through the instruction at .Lwp_write_insn) and prints
 * "wrote N"; "s" makes the worker write 1, 2, 3, ... without pause and
 * prints "storming" once it has begun; "x" stops the storm and prints
 * "stopped"; "q" prints "final N" and exits 0. The worker waits on a pipe
 * or a flag: no sleeps anywhere. If a debug register were left enabled
 * after the tracer detached, a write would raise SIGTRAP and kill the
 * program.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wp_labels.h"

volatile int counter = 0;
static volatile int stop_storm;
static int to_worker[2], from_worker[2];

/* Command values the worker gets through its pipe (writes are >= 0). */
#define STORM (-1)

__attribute__((noipa)) void bump(int v)
{
	__asm__ volatile(".Lwp_write_insn:\n\t"
			 "movl %1, %0\n"
			 : "=m"(counter)
			 : "r"(v));
}

static void *worker(void *arg)
{
	(void)arg;
	long tid = syscall(SYS_gettid);
	if (write(from_worker[1], &tid, sizeof tid) != sizeof tid)
		exit(3);
	int v;
	while (read(to_worker[0], &v, sizeof v) == sizeof v) {
		if (v == STORM) {
			int i = 1;
			bump(i++);
			if (write(from_worker[1], &v, sizeof v) != sizeof v)
				exit(3);
			while (!stop_storm)
				bump(i++);
		} else {
			bump(v);
		}
		if (write(from_worker[1], &v, sizeof v) != sizeof v)
			exit(3);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	long tid;
	if (pipe(to_worker) || pipe(from_worker))
		return 2;
	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	if (read(from_worker[0], &tid, sizeof tid) != sizeof tid)
		return 2;
	printf("pid %d counter %p tid %ld insn %p\n", getpid(), (void *)&counter, tid,
	       LABEL_ADDR(".Lwp_write_insn"));
	fflush(stdout);
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		if (line[0] == 'q')
			break;
		int v = line[0] == 's' ? STORM : atoi(line + 2), back;
		if (line[0] == 'x') {
			stop_storm = 1;
			/* The worker acknowledges the end of the storm. */
			if (read(from_worker[0], &back, sizeof back) != sizeof back)
				return 2;
			printf("stopped\n");
			fflush(stdout);
			continue;
		}
		if (write(to_worker[1], &v, sizeof v) != sizeof v)
			return 2;
		if (read(from_worker[0], &back, sizeof back) != sizeof back)
			return 2;
		if (back == STORM)
			printf("storming\n");
		else
			printf("wrote %d\n", back);
		fflush(stdout);
	}
	printf("final %d\n", counter);
	return 0;
}
