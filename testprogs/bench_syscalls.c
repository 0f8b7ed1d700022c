/* Benchmark workload: a tight loop of cheap system calls.
 *
 * usage: bench_syscalls [COUNT [EXIT_CODE]]
 * Makes COUNT (default 200000) system calls, alternating getppid() and a
 * one-byte write() to /dev/null, checks every result, prints one "ok" line
 * on stdout and exits with EXIT_CODE (default 0). Any failed check exits 99.
 * Used by benches/overhead.rs to measure the per-syscall cost of a tracer.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 200000;
	int exit_code = argc > 2 ? atoi(argv[2]) : 0;
	pid_t parent = getppid();
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("bench_syscalls: open /dev/null");
		return 99;
	}
	for (long i = 0; i < count; i++) {
		if (i % 2 == 0) {
			/* syscall() so that no libc cache can answer instead. */
			if (syscall(SYS_getppid) != parent) {
				fprintf(stderr, "bench_syscalls: getppid changed\n");
				return 99;
			}
		} else if (write(fd, "x", 1) != 1) {
			perror("bench_syscalls: write");
			return 99;
		}
	}
	close(fd);
	printf("bench_syscalls ok %ld\n", count);
	return exit_code;
}
