/* A fork bomb bounded to N processes (default 200), the first included:
 * each process, responsible for a subtree of n processes, forks two
 * children responsible for the rest, split in half, then waits for them.
 * Every process writes one byte into a pipe the first process drains;
 * the first prints "procs N" and every process exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int done_pipe[2];

static void grow(int n)
{
	int rest = n - 1, kids = 0;
	int share[2] = { rest / 2, rest - rest / 2 };
	for (int k = 0; k < 2; k++) {
		if (share[k] == 0)
			continue;
		pid_t p = fork();
		if (p < 0)
			_exit(2);
		if (p == 0) {
			grow(share[k]);
			if (write(done_pipe[1], "x", 1) != 1)
				_exit(3);
			_exit(0);
		}
		kids++;
	}
	while (kids-- > 0) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			exit(4);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	if (pipe(done_pipe))
		return 2;
	grow(n);
	close(done_pipe[1]);
	int seen = 1; /* this process */
	char c;
	while (read(done_pipe[0], &c, 1) == 1)
		seen++;
	printf("procs %d\n", seen);
	return seen == n ? 0 : 1;
}
