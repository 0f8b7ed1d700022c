/* exec from a non-leader thread: main starts a thread that calls
 * execve("/bin/sh", {"sh", "-c", "echo exec from thread; exit 6"}) while
 * the leader blocks in pause(). The kernel kills the leader, gives the
 * thread the leader's pid and runs sh, which prints and exits 6. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *run(void *arg)
{
	char *argv[] = { "sh", "-c", "echo exec from thread; exit 6", NULL };
	char *envp[] = { "PATH=/bin:/usr/bin", NULL };
	(void)arg;
	execve("/bin/sh", argv, envp);
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, run, NULL))
		return 2;
	for (;;)
		pause();
}
