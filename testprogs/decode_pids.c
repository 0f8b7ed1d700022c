/* -Y / --decode-pids=comm (tests/strace_options.rs): calls that take or
 * return process ids. The child blocks reading a pipe until the parent,
 * done naming it, closes the write end, so it is alive for those calls;
 * then it exits 3. kill(99999) names no process. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	pid_t me = getpid();
	syscall(SYS_gettid);
	kill(me, 0);
	syscall(SYS_tgkill, me, me, 0);
	int alive[2];
	if (pipe(alive) != 0)
		return 1;
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(alive[1]);
		/* EOF once the parent closed its end. */
		while (read(alive[0], &b, 1) > 0)
			;
		_exit(3);
	}
	close(alive[0]);
	kill(c, 0);
	struct rlimit r;
	prlimit(c, RLIMIT_NOFILE, NULL, &r);
	getpgid(c);
	close(alive[1]);
	int st;
	waitpid(c, &st, 0);
	kill(99999, 0);
	return 0;
}
