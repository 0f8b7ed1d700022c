/* Runs a command and prints its peak resident set size.
 *
 * usage: max_rss OUTFILE CMD [ARG...]
 * Forks and execs CMD (its stdin, stdout and stderr are max_rss's), waits
 * for it with wait4 and writes "max_rss_kib N" (ru_maxrss) into OUTFILE,
 * then exits with CMD's exit code (or 128+signal).
 * Why a program of its own: a child spawned by a large process (a test
 * binary running other tests in threads) counts its parent's memory in its
 * ru_maxrss, as exec records the old address space's high-water mark;
 * a child of this small program is measured alone. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: max_rss OUTFILE CMD [ARG...]\n");
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror("max_rss: OUTFILE");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("max_rss: fork");
		return 2;
	}
	if (pid == 0) {
		fclose(out);
		execvp(argv[2], argv + 2);
		perror("max_rss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("max_rss: wait4");
		return 2;
	}
	fprintf(out, "max_rss_kib %ld\n", ru.ru_maxrss);
	fclose(out);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
