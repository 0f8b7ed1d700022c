/* rtrace watch --count test: THREADS threads (created after the watch was
 * set) each add 1 to `counter` ITERS times with one atomic instruction;
 * every add is a write the watchpoint must count, exactly.
 * Usage: wp_many [THREADS [ITERS]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile int counter = 0;
static int iters = 1000;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < iters; i++)
		__atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2)
		iters = atoi(argv[2]);
	pthread_t t[64];
	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 2;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("counter %d\n", counter);
	return 0;
}
