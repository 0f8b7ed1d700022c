/* -Y / --decode-pids=comm (tests/strace_options.rs): calls that take or
 * return process ids. The child sleeps briefly so it is alive when the
 * parent names it, then exits 3; kill(99999) names no process. */
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
	pid_t c = fork();
	if (c == 0) {
		usleep(200000);
		_exit(3);
	}
	kill(c, 0);
	struct rlimit r;
	prlimit(c, RLIMIT_NOFILE, NULL, &r);
	getpgid(c);
	int st;
	waitpid(c, &st, 0);
	kill(99999, 0);
	return 0;
}
