/* Personality changes for rstrace's notices: `pers_exec PROG` forks; the
 * child calls getpid() then execs PROG (no arguments); the parent waits and
 * exits with the child's status. Built -m32 and run on a 64-bit PROG, the
 * trace shows a 32-bit process and a child that turns 64-bit at exec. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	pid_t p = fork();
	if (p == 0) {
		getpid();
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(p, &st, 0) != p)
		return 3;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 4;
}
