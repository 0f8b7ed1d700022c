/* Replay target: `inject_conf [--fork] CONFIG` reads its configuration
 * file and fails when it cannot: "inject_conf: cannot open CONFIG: MSG" on
 * stderr and exit status 3; otherwise it prints "setting=LINE" (the first
 * line) and exits 0. Before that it opens /dev/null twice (so the config's
 * openat is not the process's first). With --fork the work is done in the
 * second of two children (the first only opens /dev/null and exits 0); the
 * parent exits with the second child's status. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int read_config(const char *path)
{
	for (int i = 0; i < 2; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "inject_conf: cannot open %s: %s\n", path, strerror(errno));
		return 3;
	}
	char line[256] = "";
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	printf("setting=%s\n", line);
	return 0;
}

static int run_child(int (*fn)(const char *), const char *arg)
{
	fflush(NULL);
	pid_t p = fork();
	if (p < 0)
		return 2;
	if (p == 0)
		_exit(fn(arg));
	int st;
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}

static int idle(const char *unused)
{
	(void)unused;
	int fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 3 && strcmp(argv[1], "--fork") == 0) {
		if (run_child(idle, NULL) != 0)
			return 2;
		return run_child(read_config, argv[2]);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: inject_conf [--fork] CONFIG\n");
		return 2;
	}
	return read_config(argv[1]);
}
