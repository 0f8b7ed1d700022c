/* Differential test workload for the process, signal, memory, time and futex
 * decoders: a fixed sequence of calls whose strace output (traced without -f)
 * is deterministic once pids, addresses and times are normalised.
 *
 * usage: proc_signal
 * Sequence: rt_sigaction (handler, two-signal mask, SA_RESTART),
 * rt_sigprocmask blocking SIGCHLD, kill self with SIGUSR1 (handled),
 * sigaltstack, fork + wait4 of a child that exits 3, fork + wait4 of a child
 * that kills itself with tgkill(SIGTERM), unblocking SIGCHLD (its one
 * pending SIGCHLD is delivered there, so the line is always in the same
 * place), clock_gettime, clock_getres, gettimeofday, nanosleep 1 ms,
 * mmap/mprotect/madvise/munmap of 64 KiB, setrlimit/getrlimit, prlimit64,
 * uname, the getpid family, a futex wake on a private word, getrandom of
 * zero bytes, setitimer arm and disarm. Prints "ok" and exits 0; a failed
 * check exits 99.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "proc_signal: %s failed\n", what);
	return 99;
}

int main(void)
{
	struct sigaction sa;
	sigset_t set, old;
	int status;
	pid_t child;

	/* Signals: a handler with a two-signal mask; SIGCHLD blocked until the
	 * children are reaped. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL))
		return fail("sigaction");
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old))
		return fail("sigprocmask block");
	if (kill(getpid(), SIGUSR1) || !got_usr1)
		return fail("kill");

	/* An alternate signal stack of a fixed size. */
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0 };
	if (sigaltstack(&ss, NULL))
		return fail("sigaltstack");

	/* A child that exits 3, reaped with wait4. */
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0)
		_exit(3);
	if (wait4(child, &status, 0, NULL) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 3)
		return fail("wait4");

	/* A child that kills itself with SIGTERM. */
	child = fork();
	if (child < 0)
		return fail("fork 2");
	if (child == 0) {
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGTERM);
		_exit(4);
	}
	struct rusage ru;
	if (wait4(child, &status, 0, &ru) != child || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGTERM)
		return fail("wait4 2");
	if (sigprocmask(SIG_SETMASK, &old, NULL))
		return fail("sigprocmask setmask");

	/* Time, through the syscalls rather than the vDSO. */
	struct timespec ts, req = { 0, 1000000 };
	struct timeval tv;
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts))
		return fail("clock_gettime");
	if (syscall(SYS_clock_getres, CLOCK_REALTIME, &ts))
		return fail("clock_getres");
	if (syscall(SYS_gettimeofday, &tv, NULL))
		return fail("gettimeofday");
	if (syscall(SYS_nanosleep, &req, NULL))
		return fail("nanosleep");

	/* Memory: 64 KiB anonymous mapping. */
	size_t len = 65536;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	p[0] = 1;
	if (mprotect(p, len, PROT_READ))
		return fail("mprotect");
	if (madvise(p, len, MADV_DONTNEED))
		return fail("madvise");
	if (munmap(p, len))
		return fail("munmap");

	/* Resource limits, set to known values before they are read back. */
	struct rlimit rl = { 64, 64 };
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return fail("setrlimit");
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur != 64)
		return fail("getrlimit");
	struct rlimit newrl = { 8192 * 1024, RLIM_INFINITY }, oldrl;
	if (prlimit(0, RLIMIT_CORE, &newrl, NULL))
		return fail("prlimit set");
	if (prlimit(0, RLIMIT_CORE, NULL, &oldrl) || oldrl.rlim_cur != 8192 * 1024)
		return fail("prlimit get");

	/* Identity. */
	struct utsname u;
	if (uname(&u))
		return fail("uname");
	getppid();
	getuid();
	geteuid();
	getgid();
	getegid();
	syscall(SYS_gettid);

	/* A futex wake on a private word nobody waits on. */
	static uint32_t word;
	if (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) != 0)
		return fail("futex");

	/* getrandom of nothing: the call without random output. */
	unsigned char rnd[1];
	if (getrandom(rnd, 0, GRND_NONBLOCK) != 0)
		return fail("getrandom");

	/* An interval timer, armed and disarmed. */
	struct itimerval it = { { 0, 0 }, { 100, 0 } };
	if (setitimer(ITIMER_REAL, &it, NULL))
		return fail("setitimer");
	memset(&it, 0, sizeof(it));
	if (setitimer(ITIMER_REAL, &it, NULL))
		return fail("setitimer 2");

	printf("ok\n");
	fflush(stdout);
	return 0;
}
