/* io_uring_setup/enter/register with values newer than Linux 6.1, made
 * with raw syscall() so the calls are decoded whether or not this kernel
 * knows them: setup flags up to IORING_SETUP_SQ_REWIND, the features and
 * sq_off/cq_off user_addr a ring answers with, io_uring_enter's
 * IORING_ENTER_EXT_ARG argument (struct io_uring_getevents_arg) and the
 * newer enter flags, and the newer register opcodes.
 * tests/strace/strace72_uring.rs compares every line with strace 7.2. */
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Newer than this machine's linux/io_uring.h may be (values from the
 * Linux 7.x uapi header). */
#define SETUP_NO_MMAP (1U << 14)
#define SETUP_REGISTERED_FD_ONLY (1U << 15)
#define SETUP_NO_SQARRAY (1U << 16)
#define SETUP_HYBRID_IOPOLL (1U << 17)
#define SETUP_CQE_MIXED (1U << 18)
#define SETUP_SQE_MIXED (1U << 19)
#define SETUP_SQ_REWIND (1U << 20)
#define ENTER_ABS_TIMER (1U << 5)
#define ENTER_NO_IOWAIT (1U << 7)
#define REGISTER_USE_REGISTERED_RING (1U << 31)

/* The register opcodes' arguments, as the Linux 7.x uapi header lays
 * them out. */
struct sync_cancel_reg {
	uint64_t addr;
	int32_t fd;
	uint32_t flags;
	struct __kernel_timespec timeout;
	uint8_t opcode;
	uint8_t pad[7];
	uint64_t pad2[3];
};
struct file_index_range {
	uint32_t off, len;
	uint64_t resv;
};
struct buf_status {
	uint32_t buf_group, head, resv[8];
};
struct napi {
	uint32_t busy_poll_to;
	uint8_t prefer_busy_poll, opcode, pad[2];
	uint32_t op_param, resv;
};
struct clock_register {
	uint32_t clockid, resv[3];
};
struct clone_buffers {
	uint32_t src_fd, flags, src_off, dst_off, nr, pad[3];
};
struct mem_region_reg {
	uint64_t region_uptr, flags, resv[2];
};
/* linux/io_uring/zcrx.h and query.h. */
struct zcrx_ifq_reg {
	uint32_t if_idx, if_rxq, rq_entries, flags;
	uint64_t area_ptr, region_ptr;
	uint32_t head, tail, rqes, resv2;
	uint64_t resv[2];
	uint32_t zcrx_id, rx_buf_len;
	uint64_t event_desc, resv3[2];
};
struct zcrx_ctrl {
	uint32_t zcrx_id, op;
	uint64_t resv[2];
	uint32_t u[12];
};
struct query_hdr {
	uint64_t next_entry, query_data;
	uint32_t query_op, size;
	int32_t result;
	uint32_t resv[3];
};

/* struct io_uring_getevents_arg with min_wait_usec (Linux 6.12). */
struct getevents_arg {
	uint64_t sigmask;
	uint32_t sigmask_sz;
	uint32_t min_wait_usec;
	uint64_t ts;
};

static long setup(unsigned entries, struct io_uring_params *p)
{
	return syscall(SYS_io_uring_setup, entries, p);
}

static long enter(int fd, unsigned sub, unsigned min, unsigned flags, void *arg, size_t sz)
{
	return syscall(SYS_io_uring_enter, fd, sub, min, flags, arg, sz);
}

static long reg(int fd, unsigned op, void *arg, unsigned n)
{
	return syscall(SYS_io_uring_register, fd, op, arg, n);
}

/* IORING_REGISTER_ZCRX_IFQ, ZCRX_CTRL and QUERY (opcodes 32, 36, 35):
 * their structures with known and unknown values, reserved fields set,
 * the wrong count, NULL and unreadable addresses. The query headers are
 * filled again before each call, as the kernel answers in them. */
static void zcrx(int fd)
{
	struct zcrx_ifq_reg ifq = {
		.if_idx = 2, .if_rxq = 3, .rq_entries = 64, .flags = 1,
		.area_ptr = 0x1000, .region_ptr = 0x5000,
		.head = 9, .tail = 8, .rqes = 7, .zcrx_id = 3, .rx_buf_len = 4096,
	};
	reg(fd, 32, &ifq, 1);
	ifq.flags = 0xff;
	ifq.resv2 = 6;
	ifq.resv[1] = 4;
	ifq.event_desc = 0x77;
	ifq.resv3[0] = 1;
	reg(fd, 32, &ifq, 1);
	ifq.flags = 2;
	reg(fd, 32, &ifq, 1);
	reg(fd, 32, &ifq, 0);
	reg(fd, 32, NULL, 1);
	reg(fd, 32, (void *)8, 1);

	struct zcrx_ctrl ctl;
	for (unsigned op = 0; op < 4; op++) {
		memset(&ctl, 0, sizeof(ctl));
		ctl.zcrx_id = op;
		ctl.op = op;
		reg(fd, 36, &ctl, 1);
		ctl.u[0] = op;
		ctl.u[2] = 5;
		ctl.resv[1] = 3;
		reg(fd, 36, &ctl, 1);
	}
	ctl.op = 2;
	ctl.u[0] = 1;
	ctl.u[11] = 6;
	reg(fd, 36, &ctl, 1);
	reg(fd, 36, &ctl, 0);
	reg(fd, 36, NULL, 1);
	reg(fd, 36, (void *)8, 1);

	uint64_t d1[8], d2[8];
	for (unsigned i = 0; i < 8; i++) {
		d1[i] = 0x0101010101010101ULL * (i + 1);
		d2[i] = 0;
	}
	d2[0] = 64;
	d2[1] = 8;
	struct query_hdr q2, q1;
	for (unsigned op = 0; op < 6; op++) {
		memset(&q1, 0, sizeof(q1));
		q1.query_data = (uint64_t)(uintptr_t)d1;
		q1.query_op = op;
		q1.size = 48;
		reg(-1, 35, &q1, 0);
	}
	memset(&q2, 0, sizeof(q2));
	q2.query_data = (uint64_t)(uintptr_t)d2;
	q2.query_op = 2;
	q2.size = 16;
	memset(&q1, 0, sizeof(q1));
	q1.next_entry = (uint64_t)(uintptr_t)&q2;
	q1.query_data = (uint64_t)(uintptr_t)d1;
	q1.size = 8;
	q1.result = 5;
	q1.resv[0] = 1;
	q1.resv[2] = 3;
	reg(-1, 35, &q1, 0);
	q1.size = 0;
	reg(-1, 35, &q1, 0);
	q1.size = 48;
	q1.query_data = 8;
	reg(-1, 35, &q1, 0);
	q1.query_data = 0;
	reg(-1, 35, &q1, 0);
	q1.next_entry = 8;
	reg(-1, 35, &q1, 0);
	/* A chain that loops: cut at the string limit. */
	q1.next_entry = (uint64_t)(uintptr_t)&q1;
	q1.query_op = 9;
	q1.size = 0;
	reg(-1, 35, &q1, 0);
	reg(-1, 35, &q1, 1);
	reg(-1, 35, NULL, 0);
	reg(-1, 35, (void *)8, 0);
}

int main(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	int fd = setup(2, &p);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_SQE128 | IORING_SETUP_CQE32 | IORING_SETUP_SUBMIT_ALL |
		  IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	int fd2 = setup(2, &p);
	memset(&p, 0, sizeof(p));
	p.flags = SETUP_NO_MMAP | SETUP_REGISTERED_FD_ONLY | SETUP_NO_SQARRAY |
		  SETUP_HYBRID_IOPOLL | SETUP_CQE_MIXED | SETUP_SQE_MIXED | SETUP_SQ_REWIND |
		  0x400000;
	setup(1, &p);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 1000 };
	struct getevents_arg ga = {
		.sigmask = (uint64_t)(uintptr_t)&set,
		.sigmask_sz = 8,
		.min_wait_usec = 7,
		.ts = (uint64_t)(uintptr_t)&ts,
	};
	enter(fd, 0, 0, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ga, sizeof(ga));
	ga.sigmask = 0;
	ga.ts = 0;
	ga.min_wait_usec = 0;
	enter(fd, 0, 0, IORING_ENTER_EXT_ARG, &ga, sizeof(ga));
	enter(fd, 0, 0, IORING_ENTER_EXT_ARG, &ga, 16);
	enter(fd, 0, 0, IORING_ENTER_EXT_ARG | ENTER_ABS_TIMER, (void *)8, sizeof(ga));
	enter(fd, 0, 0, IORING_ENTER_EXT_ARG | ENTER_NO_IOWAIT, NULL, 0);
	enter(-1, 1, 2, IORING_ENTER_REGISTERED_RING | ENTER_NO_IOWAIT | 0x100, NULL, 0);

	for (unsigned op = 24; op <= 38; op++)
		reg(fd, op, NULL, 0);
	reg(fd, REGISTER_USE_REGISTERED_RING | IORING_REGISTER_PROBE, NULL, 0);

	/* Opcodes 24-34 with their structures (and reserved fields set,
	 * the wrong count, an unreadable address). */
	struct sync_cancel_reg sc = {
		.addr = 0x1234, .fd = 0, .flags = 0x3 | 0x80,
		.timeout = { .tv_sec = 1, .tv_nsec = 2 }, .opcode = 19,
	};
	reg(fd, 24, &sc, 1);
	sc.fd = -1;
	sc.pad[1] = 5;
	sc.pad2[2] = 9;
	sc.opcode = 0xfe;
	reg(fd, 24, &sc, 1);
	reg(fd, 24, &sc, 2);
	reg(fd, 24, (void *)8, 1);
	struct file_index_range fr = { .off = 1, .len = 2 };
	reg(fd, 25, &fr, 1);
	fr.resv = 0x10;
	reg(fd, 25, &fr, 1);
	reg(fd, 25, &fr, 0);
	struct buf_status bs = { .buf_group = 7, .head = 3 };
	reg(fd, 26, &bs, 1);
	bs.resv[7] = 1;
	reg(fd, 26, &bs, 1);
	reg(fd, 26, &bs, 2);
	struct napi na = { .busy_poll_to = 100, .prefer_busy_poll = 1, .opcode = 0, .op_param = 1 };
	reg(fd, 27, &na, 1);
	struct napi na2 = { .busy_poll_to = 5, .opcode = 1, .op_param = 0x33, .pad = { 1, 0 }, .resv = 4 };
	reg(fd, 27, &na2, 1);
	na2.opcode = 9;
	reg(fd, 27, &na2, 1);
	reg(fd, 27, &na2, 0);
	struct napi un = { .busy_poll_to = 1 };
	reg(fd, 28, &un, 1);
	reg(fd, 28, &un, 3);
	struct clock_register ck = { .clockid = 7 };
	reg(fd, 29, &ck, 0);
	ck.clockid = 1;
	ck.resv[1] = 2;
	reg(fd, 29, &ck, 0);
	ck.clockid = 77;
	reg(fd, 29, &ck, 0);
	reg(fd, 29, &ck, 1);
	struct clone_buffers cb = { .src_fd = 0, .flags = 0x3, .src_off = 1, .dst_off = 2, .nr = 3 };
	reg(fd, 30, &cb, 1);
	cb.flags = 0x10;
	cb.pad[0] = 6;
	reg(fd, 30, &cb, 1);
	reg(fd, 30, &cb, 0);
	struct mem_region_reg mr = { .region_uptr = 0x1000, .flags = 1 };
	reg(fd, 34, &mr, 1);
	mr.flags = 6;
	mr.resv[1] = 3;
	reg(fd, 34, &mr, 1);
	reg(fd, 34, (void *)8, 1);
	reg(fd, 34, &mr, 2);
	struct io_uring_params rp;
	memset(&rp, 0, sizeof(rp));
	rp.sq_entries = 4;
	rp.cq_entries = 8;
	rp.flags = IORING_SETUP_CQSIZE;
	reg(fd, 33, &rp, 1);
	/* sq_off.user_addr and cq_off.user_addr (named so only by newer
	 * headers). */
	uint64_t ua = 0x2000;
	memcpy((char *)&rp + 72, &ua, 8);
	ua = 0x3000;
	memcpy((char *)&rp + 112, &ua, 8);
	rp.resv[2] = 1;
	reg(fd, 33, &rp, 1);
	reg(fd, 33, &rp, 0);
	reg(fd, REGISTER_USE_REGISTERED_RING | 40, NULL, 0);
	zcrx(fd);

	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	return 0;
}
