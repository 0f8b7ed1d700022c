/*
 * opt_prog: the workload of the rstrace option tests (tests/strace_options.rs).
 * Each mode makes a fixed sequence of system calls, on fixed names and sizes,
 * so that strace and rstrace, run with the same options, print the same lines
 * once pids, addresses, inode numbers and times are normalised.
 *
 * usage: opt_prog basic [DIR]
 *   One process, no fork. DIR (default: the current directory) is where a
 *   file "opt.data" and a symlink "opt.link" to /etc/hostname are created and
 *   removed again (for -P with relative paths and symlinks). Calls, in order:
 *   getpid, getuid, geteuid (%pure, %creds); openat/read/fstat/lseek/close of
 *   /etc/hostname (%file, %desc, %fstat); a failing openat (ENOENT) and
 *   close(100) (EBADF) for -z/-Z/status=; stat, lstat, newfstatat, statfs,
 *   fstatfs (%stat, %lstat, %%stat, %statfs); mmap/mprotect/munmap (%memory);
 *   rt_sigaction, kill self with SIGUSR1 (a signal line), rt_sigprocmask
 *   (%signal); clock_gettime, clock_getres (%clock); pipe2 and a write to
 *   it (fd paths with -y); chdir(DIR), then open/write/close "opt.data" and readlink,
 *   open, read, close of "opt.link" by relative names; unlink of both; a write
 *   to stdout of a string with tabs, non-ASCII bytes and more than 32 bytes
 *   (for -s, -x, -xx); exit_group(0).
 * usage: opt_prog netipc
 *   socket(AF_UNIX, SOCK_STREAM) and close (%network), a shmget that fails
 *   with EINVAL (%ipc), exit 0.
 * usage: opt_prog fork
 *   SIGCHLD blocked; fork; the child calls getpid, writes "child\n" to stdout
 *   and exits 3; the parent waits for it with wait4, calls getppid and
 *   exits 0.
 * usage: opt_prog env NAME...
 *   Writes "NAME=VALUE\n" (or "NAME unset\n") to stdout for each NAME (for
 *   -E), then getuid/getgid/geteuid/getegid (for -u).
 * usage: opt_prog exec
 *   fork; the child executes "opt_prog env OPT_PROG" (by /proc/self/exe)
 *   and the parent waits for it (for -b execve).
 *
 * Exits 0 (the fork child 3); a failed check exits 99.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
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
	fprintf(stderr, "opt_prog: %s failed\n", what);
	return 99;
}

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		_exit(99);
}

static int basic(const char *dir)
{
	char buf[256];
	struct stat st;
	struct statfs sfs;
	struct timespec ts;
	struct sigaction sa;
	sigset_t set;
	int fd, pfd[2];
	void *p;

	syscall(SYS_getpid);
	syscall(SYS_getuid);
	syscall(SYS_geteuid);

	fd = syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY, 0);
	if (fd < 0)
		return fail("open /etc/hostname");
	if (syscall(SYS_read, fd, buf, sizeof(buf)) < 0)
		return fail("read");
	syscall(SYS_fstat, fd, &st);
	syscall(SYS_lseek, fd, 0, SEEK_SET);
	syscall(SYS_close, fd);
	syscall(SYS_openat, AT_FDCWD, "/nonexistent/opt_prog", O_RDONLY, 0);
	syscall(SYS_close, 100);

	syscall(SYS_stat, "/etc/hostname", &st);
	syscall(SYS_lstat, "/etc/hostname", &st);
	syscall(SYS_newfstatat, AT_FDCWD, "/etc/hostname", &st, 0);
	syscall(SYS_statfs, "/", &sfs);
	fd = syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0);
	syscall(SYS_fstatfs, fd, &sfs);
	syscall(SYS_close, fd);

	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	mprotect(p, 4096, PROT_READ);
	munmap(p, 8192);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL))
		return fail("sigaction");
	kill(getpid(), SIGUSR1);
	if (!got_usr1)
		return fail("SIGUSR1");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	syscall(SYS_clock_getres, CLOCK_MONOTONIC, &ts);

	if (pipe2(pfd, O_CLOEXEC))
		return fail("pipe2");
	put(pfd[1], "through the pipe\n");
	close(pfd[0]);
	close(pfd[1]);

	if (chdir(dir))
		return fail("chdir");
	fd = open("opt.data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("open opt.data");
	put(fd, "data\n");
	close(fd);
	unlink("opt.link");
	if (symlink("/etc/hostname", "opt.link"))
		return fail("symlink");
	if (readlink("opt.link", buf, sizeof(buf)) < 0)
		return fail("readlink");
	fd = open("opt.link", O_RDONLY);
	if (fd < 0)
		return fail("open opt.link");
	if (read(fd, buf, sizeof(buf)) < 0)
		return fail("read opt.link");
	close(fd);
	unlink("opt.link");
	unlink("opt.data");

	put(1, "tab\there, w\xc3\xb6rld \x01\x7f and more than thirty-two bytes\n");
	return 0;
}

static int netipc(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		return fail("socket");
	close(fd);
	shmget(IPC_PRIVATE, 0, 0600);
	return 0;
}

static int forker(void)
{
	sigset_t set;
	pid_t child;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0) {
		syscall(SYS_getpid);
		put(1, "child\n");
		_exit(3);
	}
	if (wait4(child, &status, 0, NULL) != child)
		return fail("wait4");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 3)
		return fail("child status");
	syscall(SYS_getppid);
	return 0;
}

static int env(int argc, char **argv)
{
	char line[512];

	for (int i = 2; i < argc; i++) {
		const char *v = getenv(argv[i]);
		if (v)
			snprintf(line, sizeof(line), "%s=%s\n", argv[i], v);
		else
			snprintf(line, sizeof(line), "%s unset\n", argv[i]);
		put(1, line);
	}
	syscall(SYS_getuid);
	syscall(SYS_getgid);
	syscall(SYS_geteuid);
	syscall(SYS_getegid);
	return 0;
}

static int execer(void)
{
	sigset_t set;
	pid_t child;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0) {
		char *args[] = {"opt_prog", "env", "OPT_PROG", NULL};
		execv("/proc/self/exe", args);
		_exit(98);
	}
	if (wait4(child, &status, 0, NULL) != child)
		return fail("wait4");
	syscall(SYS_getppid);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";

	if (!strcmp(mode, "basic"))
		return basic(argc > 2 ? argv[2] : ".");
	if (!strcmp(mode, "netipc"))
		return netipc();
	if (!strcmp(mode, "fork"))
		return forker();
	if (!strcmp(mode, "env"))
		return env(argc, argv);
	if (!strcmp(mode, "exec"))
		return execer();
	return fail("mode");
}
