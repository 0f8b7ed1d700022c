/* A signal handler that calls a function, reached two ways, for backtraces
 * through the kernel's signal frame (gdb's `<signal handler called>`):
 *
 *   bt_signal segv:  main -> trigger -> fault (SIGSEGV on a NULL store)
 *                      -> on_signal -> in_handler
 *   bt_signal raise: main -> trigger -> raise(SIGUSR1) (libc frames)
 *                      -> on_signal -> in_handler
 *
 * in_handler writes the global `seen` (a watchpoint target). The SIGSEGV
 * handler cannot return (the store would fault again): it exits 0. Prints
 * `handled SIG` either way.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int seen;

NOINLINE void in_handler(int sig)
{
	seen = sig;
}

NOINLINE void on_signal(int sig)
{
	in_handler(sig);
	if (sig == SIGSEGV) {
		printf("handled %d\n", sig);
		fflush(stdout);
		_exit(0);
	}
}

NOINLINE int fault(volatile int *p)
{
	*p = 1;
	return 0;
}

NOINLINE int trigger(int segv)
{
	int r = segv ? fault(NULL) : raise(SIGUSR1);
	return r + 1;
}

int main(int argc, char **argv)
{
	int segv = argc > 1 && strcmp(argv[1], "segv") == 0;

	signal(SIGSEGV, on_signal);
	signal(SIGUSR1, on_signal);
	trigger(segv);
	printf("handled %d\n", seen);
	return 0;
}
