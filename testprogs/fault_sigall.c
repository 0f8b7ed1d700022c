/* Ignores every signal it can and blocks every signal: sets SIG_IGN for 1..64
 * (except SIGKILL/SIGSTOP and the two glibc-internal ones), then raises
 * SIGUSR1, SIGTERM and SIGHUP (ignored: discarded, though a tracer sees
 * them), then blocks everything with sigprocmask and raises SIGUSR2 and
 * SIGRTMIN+1 (blocked: left pending), checks they are pending, prints
 * "pending 2" and, with argument "wait", waits on stdin until EOF, then
 * prints "done" and exits 0. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int s = 1; s <= 64; s++) {
		if (s == SIGKILL || s == SIGSTOP || s == 32 || s == 33)
			continue;
		signal(s, SIG_IGN);
	}
	raise(SIGUSR1);
	raise(SIGTERM);
	raise(SIGHUP);
	sigset_t all, pend;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* Blocked and handled by default: pending until unblocked. */
	signal(SIGUSR2, SIG_DFL);
	signal(SIGRTMIN + 1, SIG_DFL);
	raise(SIGUSR2);
	raise(SIGRTMIN + 1);
	sigpending(&pend);
	printf("pending %d\n", sigismember(&pend, SIGUSR2) + sigismember(&pend, SIGRTMIN + 1));
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "wait") == 0) {
		char buf[64];
		while (read(0, buf, sizeof buf) > 0)
			;
	}
	printf("done\n");
	return 0;
}
