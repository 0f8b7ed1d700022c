/* Reparenting: the first process forks a child that forks a grandchild and
 * exits at once; the first process then exits too. The grandchild, now an
 * orphan, waits until its first parent is gone (EOF on a pipe), checks that
 * getppid() changed, calls getppid() 5 times, prints "orphan reparented 5"
 * and exits 5. The first process exits 0. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int gate[2];
	if (pipe(gate))
		return 2;
	pid_t child = fork();
	if (child == 0) {
		pid_t me = getpid();
		if (fork() == 0) {
			char c;
			close(gate[1]);
			while (read(gate[0], &c, 1) > 0)
				;
			int n = 0;
			for (int i = 0; i < 5; i++)
				n += getppid() != me;
			printf("orphan reparented %d\n", n);
			fflush(stdout);
			_exit(5);
		}
		_exit(0);
	}
	close(gate[0]);
	waitpid(child, NULL, 0);
	return 0;
}
