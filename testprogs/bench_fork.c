/* Benchmark workload: many short-lived child processes.
 *
 * usage: bench_fork [CHILDREN [EXIT_CODE]]
 * First checks job control: a child stops itself with SIGSTOP, the parent
 * must see it stopped (waitpid WUNTRACED), resumes it with SIGCONT and
 * reaps it; a tracer that swallows the stop or resumes it early fails here.
 * Then forks CHILDREN (default 500) children one after another (every
 * fourth with vfork); each makes CALLS_PER_CHILD getppid() calls and exits
 * with a status the parent checks. Prints one "ok" line and exits with
 * EXIT_CODE (default 0); a failed check exits 99.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALLS_PER_CHILD 100

static int check_group_stop(void)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return 0;
	if (child == 0) {
		kill(getpid(), SIGSTOP);
		_exit(7);
	}
	if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGSTOP) {
		fprintf(stderr, "bench_fork: child did not stop (status %#x)\n", status);
		return 0;
	}
	kill(child, SIGCONT);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 7) {
		fprintf(stderr, "bench_fork: stopped child ended badly (status %#x)\n", status);
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	long children = argc > 1 ? atol(argv[1]) : 500;
	int exit_code = argc > 2 ? atoi(argv[2]) : 0;
	pid_t self = getpid();

	if (!check_group_stop())
		return 99;
	for (long i = 0; i < children; i++) {
		int status;
		int code = (int)(i % 7);
		pid_t child = i % 4 == 3 ? vfork() : fork();

		if (child < 0) {
			perror("bench_fork: fork");
			return 99;
		}
		if (child == 0) {
			/* Only syscalls here: safe after vfork too. */
			for (int j = 0; j < CALLS_PER_CHILD; j++)
				if (syscall(SYS_getppid) != self)
					_exit(100);
			_exit(code);
		}
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != code) {
			fprintf(stderr, "bench_fork: child %ld status %#x\n", i, status);
			return 99;
		}
	}
	printf("bench_fork ok %ld\n", children);
	return exit_code;
}
