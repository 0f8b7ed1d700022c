/* rtrace record/report test program: one of everything a report shows.
 *
 * usage: record_ci DIR EXIT|term [nofork]
 *   1. openat("/nonexistent/rtrace-record-missing") fails with ENOENT;
 *   2. creates DIR/out.txt and writes "hello\n" (6 bytes) to it;
 *   3. (unless "nofork") forks a child that execs this program as
 *      "record_ci child" (which exits with 5), and forks a second child that
 *      exits with 7 without exec; both are reaped and checked;
 *   4. raises SIGUSR1 (handled);
 *   5. connect() of an AF_UNIX socket to "/nonexistent/rtrace-record.sock"
 *      fails with ENOENT;
 *   6. exits with EXIT, or kills itself with SIGTERM for "term".
 * A failed check exits 99.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_usr1(int sig) { (void)sig; }

static int reap(pid_t pid, int code)
{
	int status;
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == code;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sigaction act = { .sa_handler = on_usr1 };
	int fd, s;

	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return 5;
	if (argc < 3)
		return 99;
	if (open("/nonexistent/rtrace-record-missing", O_RDONLY) != -1)
		return 99;
	snprintf(path, sizeof path, "%s/out.txt", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "hello\n", 6) != 6 || close(fd) != 0)
		return 99;
	if (argc < 4 || strcmp(argv[3], "nofork") != 0) {
		pid_t a = fork(), b;
		if (a == 0) {
			execl("/proc/self/exe", "record_ci", "child", (char *)NULL);
			_exit(98);
		}
		if (a < 0 || !reap(a, 5))
			return 99;
		b = fork();
		if (b == 0)
			_exit(7);
		if (b < 0 || !reap(b, 7))
			return 99;
	}
	sigaction(SIGUSR1, &act, NULL);
	raise(SIGUSR1);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sa.sun_path, "/nonexistent/rtrace-record.sock");
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) != -1)
		return 99;
	close(s);
	if (strcmp(argv[2], "term") == 0) {
		kill(getpid(), SIGTERM);
		return 99;
	}
	return atoi(argv[2]);
}
