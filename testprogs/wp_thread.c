/* rtrace watch test: threads created after the watch was set write the
 * watched `counter` (through the instruction at .Lwp_write_insn); each
 * prints its thread id first, so the test can match hits to threads.
 * Threads run one after the other (joined in turn): values are ordered.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wp_labels.h"

volatile int counter = 0;

__attribute__((noipa)) void bump(int v)
{
	__asm__ volatile(".Lwp_write_insn:\n\t"
			 "movl %1, %0\n"
			 : "=m"(counter)
			 : "r"(v));
}

static void *worker(void *arg)
{
	int v = (int)(long)arg;
	printf("thread %ld writes %d\n", (long)syscall(SYS_gettid), v);
	fflush(stdout);
	bump(v);
	return NULL;
}

int main(void)
{
	printf("addr counter %p\n", (void *)&counter);
	printf("addr insn %p\n", LABEL_ADDR(".Lwp_write_insn"));
	printf("main %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (long i = 1; i <= 2; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)(i * 100)))
			return 2;
		pthread_join(t, NULL);
	}
	printf("counter %d\n", counter);
	return 0;
}
