/* Anonymous-inode descriptors whose details strace 7.2's --decode-fds
 * prints from their fdinfo: eventfds (counter, id, semaphore mode; a zero
 * and a large counter) and signalfds (an empty, a small and an almost
 * full mask), used by read, write and close.
 * tests/strace/strace72_options.rs compares the lines with strace 7.2. */
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

int main(void)
{
	int e = eventfd(5, EFD_NONBLOCK | EFD_SEMAPHORE);
	int z = eventfd(0, 0);
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGRTMIN + 2);
	int s = signalfd(-1, &m, SFD_CLOEXEC);
	sigemptyset(&m);
	int s0 = signalfd(-1, &m, 0);
	sigfillset(&m);
	sigdelset(&m, SIGINT);
	int sf = signalfd(-1, &m, 0);
	uint64_t v = 1;
	if (write(e, &v, 8) != 8 || read(e, &v, 8) != 8)
		return 1;
	v = 0xfffffffffffffffeULL;
	if (write(z, &v, 8) != 8)
		return 1;
	close(sf);
	close(s0);
	close(s);
	close(z);
	close(e);
	return 0;
}
