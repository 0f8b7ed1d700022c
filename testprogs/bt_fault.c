/* A fault at the first instruction of a function (at -O2), handled on an
 * alternate signal stack; the handler stops the process (SIGSTOP).
 *
 *   main -> caller -> faulty (SIGSEGV) -> on_segv (on the sigaltstack)
 *     -> stop_here -> raise(SIGSTOP)
 *
 * The frame the signal interrupted must be looked up at its exact pc (not
 * pc - 1, which would fall into the previous function), and the unwinder
 * must cross from the alternate stack back to the thread's stack.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))

static volatile int sink;
static char altstack[64 * 1024];

NOINLINE void stop_here(int why)
{
	sink += why;
	raise(SIGSTOP);
	sink++;
}

NOINLINE void on_segv(int sig)
{
	stop_here(sig);
	_exit(0);
}

NOINLINE int before_faulty(int x)
{
	return x * 7 + sink;
}

NOINLINE int faulty(volatile int *p)
{
	return *p;
}

NOINLINE int caller(volatile int *p)
{
	return faulty(p) + before_faulty(1);
}

int main(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	struct sigaction sa = { 0 };

	sigaltstack(&ss, NULL);
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	return caller(NULL);
}
