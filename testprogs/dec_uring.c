/* io_uring_setup/enter/register with raw syscall() (no liburing): a real
 * ring, then each register opcode with its argument, and bad calls.
 * tests/decode_bpf_perf_uring.rs compares rstrace's lines with strace 6.1's. */
#include <linux/io_uring.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static long setup(unsigned entries, struct io_uring_params *p)
{
	return syscall(SYS_io_uring_setup, entries, p);
}

static long enter(int fd, unsigned sub, unsigned min, unsigned flags, void *sig, size_t sz)
{
	return syscall(SYS_io_uring_enter, fd, sub, min, flags, sig, sz);
}

static long reg(int fd, unsigned op, void *arg, unsigned n)
{
	return syscall(SYS_io_uring_register, fd, op, arg, n);
}

int main(void)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	int fd = setup(4, &p);
	if (fd < 0) {
		perror("io_uring_setup");
		return 77;
	}
	/* Setup flags and a failing setup. */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
	p.cq_entries = 16;
	int fd2 = setup(2, &p);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF | 0x80000000;
	p.sq_thread_cpu = 1;
	p.sq_thread_idle = 100;
	p.resv[1] = 5;
	setup(1, &p);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ;
	p.wq_fd = 0;
	setup(0, &p);
	setup(1, NULL);
	setup(1, (void *)8);

	/* Enter with flags and a signal mask. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	enter(fd, 0, 0, 0, NULL, 0);
	enter(fd, 0, 0, IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP, &set, 8);
	enter(fd, 1, 1, IORING_ENTER_GETEVENTS | 0x100, NULL, 0);
	enter(-1, 2, 3, IORING_ENTER_SQ_WAIT, (void *)8, 8);
	struct io_uring_getevents_arg ga = { .sigmask = 0, .sigmask_sz = 8, .ts = 0 };
	enter(fd, 0, 0, IORING_ENTER_EXT_ARG, &ga, sizeof(ga));

	/* Register opcodes. */
	char buf1[16], buf2[32];
	struct iovec iov[2] = { { buf1, sizeof(buf1) }, { buf2, sizeof(buf2) } };
	reg(fd, IORING_REGISTER_BUFFERS, iov, 2);
	reg(fd, IORING_UNREGISTER_BUFFERS, NULL, 0);
	int fds[3] = { 0, 1, -1 };
	reg(fd, IORING_REGISTER_FILES, fds, 3);
	int upd[1] = { 2 };
	struct io_uring_files_update fu = { .offset = 1, .fds = (uint64_t)(uintptr_t)upd };
	reg(fd, IORING_REGISTER_FILES_UPDATE, &fu, 1);
	reg(fd, IORING_UNREGISTER_FILES, NULL, 0);
	int efd = 1;
	reg(fd, IORING_REGISTER_EVENTFD, &efd, 1);
	reg(fd, IORING_REGISTER_EVENTFD_ASYNC, &efd, 1);
	reg(fd, IORING_UNREGISTER_EVENTFD, NULL, 0);
	struct {
		struct io_uring_probe p;
		struct io_uring_probe_op ops[4];
	} probe;
	memset(&probe, 0, sizeof(probe));
	reg(fd, IORING_REGISTER_PROBE, &probe, 4);
	reg(fd, IORING_REGISTER_PERSONALITY, NULL, 0);
	reg(fd, IORING_UNREGISTER_PERSONALITY, NULL, 12345);
	struct io_uring_restriction res[2];
	memset(res, 0, sizeof(res));
	res[0].opcode = IORING_RESTRICTION_REGISTER_OP;
	res[0].register_op = IORING_REGISTER_PROBE;
	res[1].opcode = IORING_RESTRICTION_SQE_OP;
	res[1].sqe_op = 1;
	reg(fd2, IORING_REGISTER_RESTRICTIONS, res, 2);
	reg(fd2, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	unsigned int wq[2] = { 4, 8 };
	reg(fd, IORING_REGISTER_IOWQ_MAX_WORKERS, wq, 2);
	uint64_t mask = 3;
	reg(fd, IORING_REGISTER_IOWQ_AFF, &mask, sizeof(mask));
	reg(fd, IORING_UNREGISTER_IOWQ_AFF, NULL, 0);
	reg(fd, 0x77, (void *)8, 1);
	reg(-1, IORING_REGISTER_BUFFERS, (void *)8, 1);
	close(fd);
	if (fd2 >= 0)
		close(fd2);
	return 0;
}
