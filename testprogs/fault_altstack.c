/* Real-time signals and sigaltstack: SIGRTMIN+2 and SIGUSR1 are handled on
 * an alternate stack (SA_ONSTACK|SA_SIGINFO). With both blocked, the
 * program queues 20 SIGRTMIN+2 with values 1..20 (sigqueue: all 20 stay
 * queued) and raises SIGUSR1 once, then unblocks. Each handler run checks
 * that a local lies inside the alternate stack and that si_value came
 * through. Prints "rt 20 sum 210 usr1 1 onstack 21". */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *alt;
static size_t alt_size = 1 << 16;
static volatile int rt, usr1, onstack;
static volatile long sum;

static void handler(int sig, siginfo_t *si, void *ctx)
{
	char here;
	(void)ctx;
	if (&here >= alt && &here < alt + alt_size)
		onstack++;
	if (sig == SIGUSR1) {
		usr1++;
	} else {
		rt++;
		sum += si->si_value.sival_int;
	}
}

int main(void)
{
	alt = malloc(alt_size);
	stack_t ss = { .ss_sp = alt, .ss_size = alt_size, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL))
		return 2;
	struct sigaction sa = { 0 };
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN + 2, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 2);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 1; i <= 20; i++) {
		union sigval v = { .sival_int = i };
		if (sigqueue(getpid(), SIGRTMIN + 2, v))
			return 3;
	}
	raise(SIGUSR1);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("rt %d sum %ld usr1 %d onstack %d\n", rt, sum, usr1, onstack);
	return 0;
}
