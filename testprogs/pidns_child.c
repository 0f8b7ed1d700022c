/* --pidns-translation (tests/strace_pidns.rs): the program moves its
 * children into a new PID namespace (unshare(CLONE_NEWPID), adding a user
 * namespace when not root) and forks: the child is pid 1 there. It makes
 * itself a session leader, asks for its ids and forks pid 2, which asks
 * for its ids (its parent is pid 1) and tells pid 1 through a pipe; pid 1
 * then moves it to its own process group and signals it (kill, tgkill,
 * kill of the group), and lets it exit. Every step waits for the one
 * before, so the trace is in a fixed order. The parent prints the child's
 * pid as it sees it (the number the comments must show) and waits with
 * waitid, which the test does not trace. Exits 77 when no namespace can
 * be made. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void ids(void)
{
	syscall(SYS_getpid);
	syscall(SYS_gettid);
	syscall(SYS_getppid);
	syscall(SYS_getpgrp);
	syscall(SYS_getsid, 0);
}

static void in_namespace(void)
{
	int ready[2], done[2];
	char b;
	syscall(SYS_setsid);
	ids();
	if (pipe(ready) != 0 || pipe(done) != 0)
		_exit(1);
	pid_t g = fork();
	if (g < 0)
		_exit(1);
	if (g == 0) {
		close(ready[0]);
		close(done[1]);
		ids();
		close(ready[1]);
		/* EOF once pid 1 is done with it. */
		while (read(done[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(done[0]);
	while (read(ready[0], &b, 1) > 0)
		;
	syscall(SYS_setpgid, g, g);
	syscall(SYS_kill, g, 0);
	syscall(SYS_tgkill, g, g, 0);
	syscall(SYS_kill, -g, 0);
	close(done[1]);
	siginfo_t si;
	if (waitid(P_PID, g, &si, WEXITED) != 0)
		_exit(1);
	_exit(si.si_status);
}

int main(void)
{
	if (unshare(CLONE_NEWPID) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0)
		return 77;
	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		in_namespace();
	printf("%d\n", child);
	fflush(stdout);
	siginfo_t si;
	if (waitid(P_PID, child, &si, WEXITED) != 0)
		return 1;
	return si.si_status;
}
