/* Stops itself (SIGSTOP) deep in a call chain, for backtrace tests.
 *
 *   main -> run_sort -> qsort (libc) -> compare -> raise(SIGUSR1)
 *     -> on_usr1 (signal handler) -> relay (always_inline) -> stop_here
 *     -> raise(SIGSTOP)
 *
 * so the stack holds libc frames on top, an inlined frame, a signal frame,
 * a callback called from libc (with libc's qsort frames below it) and
 * frames of this program. Calls are kept out of tail position so every
 * level keeps its frame at -O2. Prints the sorted minimum when continued.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

static volatile int sink;
static volatile int stopped;

NOINLINE void stop_here(int why)
{
	sink += why;
	raise(SIGSTOP);
	sink++;
}

static inline __attribute__((always_inline)) void relay(int sig)
{
	sink += sig * 3;
	stop_here(sig);
	sink--;
}

NOINLINE void on_usr1(int sig)
{
	relay(sig);
	sink++;
}

NOINLINE int compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!stopped) {
		stopped = 1;
		raise(SIGUSR1);
	}
	return (x > y) - (x < y);
}

NOINLINE int run_sort(int *v, int n)
{
	qsort(v, n, sizeof *v, compare);
	return v[0] + sink * 0;
}

int main(void)
{
	struct sigaction sa = { 0 };
	int v[] = { 5, 3, 9, 1 };
	int r;

	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	r = run_sort(v, 4);
	printf("%d\n", r);
	return 0;
}
