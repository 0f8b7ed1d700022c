/* Fault-injection target: `inject_open N [threads]` makes N open(2) calls
 * of /dev/null through syscall(SYS_open) (the C library and the dynamic
 * linker use openat, so `-e inject=open` counts only these), printing one
 * line per call: "I:ok", "I:42" (an injected return value) or "I:err=E";
 * with "threads", two threads in turn make N calls each (prefixes a/b).
 * SIGUSR1 is caught and counted; the last line is "usr1=COUNT". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t usr1;
static int calls;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void *run(void *prefix)
{
	for (int i = 0; i < calls; i++) {
		long fd = syscall(SYS_open, "/dev/null", O_RDONLY);
		int e = errno;
		if (fd < 0)
			printf("%s%d:err=%d\n", (char *)prefix, i, e);
		else if (fd == 42)
			printf("%s%d:42\n", (char *)prefix, i);
		else {
			printf("%s%d:ok\n", (char *)prefix, i);
			close(fd);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	calls = argc > 1 ? atoi(argv[1]) : 5;
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGUSR1, on_usr1);
	if (argc > 2 && strcmp(argv[2], "threads") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, "a") || pthread_join(t, NULL))
			return 2;
		if (pthread_create(&t, NULL, run, "b") || pthread_join(t, NULL))
			return 2;
	} else {
		run("");
	}
	printf("usr1=%d\n", (int)usr1);
	return 0;
}
