/* rseq(2) with raw syscall(): a registration (glibc usually holds one, so
 * the kernel refuses it), an unknown flag, an unregistration, a critical
 * section descriptor that reads and one that does not, lengths past the
 * original 32 bytes, a short length, an unaligned and a bad pointer.
 * The process is pinned to CPU 0 so that a registration the kernel accepts
 * writes the same cpu ids under every tracer.
 * tests/strace/strace72_rseq.rs compares every line with strace 7.2. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIG 0x53053053

/* struct rseq of the Linux 7.x uapi header, with what follows it. */
struct rs {
	uint32_t cpu_id_start, cpu_id;
	uint64_t rseq_cs;
	uint32_t flags, node_id, mm_cid, slice_ctrl, reserved, more[7];
} __attribute__((aligned(32)));

struct cs {
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));

static struct rs r;
static struct cs c = { 0, 0x5, 0x1000, 0x20, 0x2000 };

static long rseq(void *p, unsigned len, unsigned flags, unsigned sig)
{
	return syscall(SYS_rseq, p, len, flags, sig);
}

int main(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	r.cpu_id = (uint32_t)-1;
	rseq(&r, 32, 0, SIG);
	rseq(&r, 32, 0x2, SIG);
	rseq(&r, 32, 0x4, SIG);
	rseq(&r, 32, 1, SIG);

	r.cpu_id_start = 3;
	r.cpu_id = (uint32_t)-2;
	r.rseq_cs = (uintptr_t)&c;
	r.flags = 0x18;
	r.node_id = 1;
	r.mm_cid = 2;
	r.slice_ctrl = 0x00030201;
	r.reserved = 0x77;
	r.more[0] = 5;
	rseq(&r, 64, 0x4, SIG);
	rseq(&r, 33, 0, SIG);
	rseq(&r, 36, 0, SIG);
	rseq(&r, 20, 0, SIG);
	rseq((char *)&r + 8, 32, 0, SIG);
	r.rseq_cs = 8;
	r.cpu_id_start = (uint32_t)-1;
	r.cpu_id = 7;
	c.flags = 0x28;
	rseq(&r, 32, 1, SIG);
	r.rseq_cs = (uintptr_t)&c;
	rseq(&r, 32, 1, 0x12345678);
	rseq((void *)64, 32, 0, SIG);
	rseq(NULL, 32, 0, SIG);
	return 0;
}
