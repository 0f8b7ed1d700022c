/* vfork + exec, 3 times: each child execs "/bin/sh -c 'exit K'" (K = 1..3)
 * while the parent is suspended; the parent checks each status and prints
 * "vforked 3 sum 6", exit 0. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int sum = 0, n = 0;
	for (int k = 1; k <= 3; k++) {
		char code[32];
		snprintf(code, sizeof code, "exit %d", k);
		pid_t p = vfork();
		if (p == 0) {
			execl("/bin/sh", "sh", "-c", code, (char *)NULL);
			_exit(127);
		}
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
			return 2;
		sum += WEXITSTATUS(st);
		n++;
	}
	printf("vforked %d sum %d\n", n, sum);
	return 0;
}
