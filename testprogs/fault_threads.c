/* 1,000 short-lived threads, at most 50 alive at once: each calls
 * getppid() exactly 3 times and work() once, then exits. Prints
 * "threads 1000 calls 3000". Usage: fault_threads [N]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(long i)
{
	sink += i;
}

static void *body(void *arg)
{
	long calls = 0;
	for (int i = 0; i < 3; i++)
		calls += getppid() > 0;
	work((long)arg);
	return (void *)calls;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long calls = 0;
	pthread_t t[50];
	for (int done = 0; done < n; ) {
		int batch = n - done < 50 ? n - done : 50;
		for (int i = 0; i < batch; i++)
			if (pthread_create(&t[i], NULL, body, (void *)(long)(done + i)))
				return 2;
		for (int i = 0; i < batch; i++) {
			void *r;
			pthread_join(t[i], &r);
			calls += (long)r;
		}
		done += batch;
	}
	printf("threads %d calls %ld\n", n, calls);
	return 0;
}
