/* io_uring_register(-1, IORING_REGISTER_SEND_MSG_RING, sqe, 1) with SQEs
 * of every opcode strace 7.2 names and unknown ones, empty and with every
 * byte set, so each union member the opcode selects prints: the flags in
 * ioprio (accept, send/receive), nop/msg_ring/install_fd flags, the socket
 * command in off of IORING_OP_URING_CMD on a socket, attr_type_mask and
 * the protection information at attr_ptr of reads and writes, the command
 * bytes of 128-byte SQEs (also when they cannot be read). The kernel
 * rejects all of them (only IORING_OP_MSG_RING is accepted, and its target
 * is no ring), so nothing runs.
 * tests/strace/decode_bpf_perf_uring.rs compares every line with strace 7.2. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SEND_MSG_RING 31

static unsigned char sqe[128];

static long reg(void *arg, unsigned n)
{
	return syscall(SYS_io_uring_register, -1, SEND_MSG_RING, arg, n);
}

static void put64(unsigned off, uint64_t v)
{
	memcpy(sqe + off, &v, 8);
}

static void fill(unsigned op)
{
	for (unsigned i = 0; i < sizeof(sqe); i++)
		sqe[i] = i;
	sqe[0] = op;
}

int main(void)
{
	/* Every opcode up to past the last known one, zeroed and filled. */
	for (unsigned op = 0; op <= 66; op++) {
		memset(sqe, 0, sizeof(sqe));
		sqe[0] = op;
		reg(sqe, 1);
		fill(op);
		reg(sqe, 1);
	}
	memset(sqe, 0, sizeof(sqe));
	sqe[0] = 0xff;
	reg(sqe, 1);

	/* Each bit of the flags, ioprio of accept and send, the per-opcode
	 * flags word and attr_type_mask. */
	for (unsigned bit = 0; bit < 8; bit++) {
		memset(sqe, 0, sizeof(sqe));
		sqe[0] = 26; /* IORING_OP_SEND */
		sqe[1] = 1u << bit;
		sqe[2] = 1u << bit;
		reg(sqe, 1);
		sqe[0] = 13; /* IORING_OP_ACCEPT */
		reg(sqe, 1);
		for (unsigned op = 0; op <= 54; op += 54) { /* NOP, FIXED_FD_INSTALL */
			memset(sqe, 0, sizeof(sqe));
			sqe[0] = op;
			sqe[28] = 1u << bit;
			reg(sqe, 1);
		}
		memset(sqe, 0, sizeof(sqe));
		sqe[0] = 40; /* IORING_OP_MSG_RING */
		sqe[4] = 0xff, sqe[5] = 0xff, sqe[6] = 0xff, sqe[7] = 0xff;
		sqe[28] = 1u << bit;
		reg(sqe, 1);
		memset(sqe, 0, sizeof(sqe));
		sqe[0] = 23; /* IORING_OP_WRITE */
		put64(56, 1ull << (bit * 8));
		reg(sqe, 1);
	}

	/* IORING_OP_URING_CMD(128) on a socket, a pipe and no descriptor. */
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int p[2];
	if (pipe(p))
		return 1;
	for (unsigned cmd = 0; cmd <= 7; cmd++) {
		memset(sqe, 0, sizeof(sqe));
		sqe[0] = cmd & 1 ? 64 : 46;
		memcpy(sqe + 4, &s, 4);
		put64(8, cmd);
		reg(sqe, 1);
	}
	memcpy(sqe + 4, &p[0], 4);
	reg(sqe, 1);
	sqe[1] = 1; /* IOSQE_FIXED_FILE: fd is an index, still looked up */
	memcpy(sqe + 4, &s, 4);
	reg(sqe, 1);
	put64(8, 0x100000001ull);
	reg(sqe, 1);
	memset(sqe + 4, 0xff, 4);
	reg(sqe, 1);

	/* Reads and writes with protection information (and without). */
	static uint16_t pi[16] = { 0x11, 0x22, 0x33, 0, 0x44, 0, 0, 0, 0x55, 0, 0, 0, 0x66 };
	static const unsigned rw[] = { 1, 2, 4, 5, 9, 10, 13, 22, 23, 26, 27, 47, 49, 58, 60, 61 };
	for (unsigned i = 0; i < sizeof(rw) / sizeof(rw[0]); i++) {
		memset(sqe, 0, sizeof(sqe));
		sqe[0] = rw[i];
		memcpy(sqe + 4, &p[1], 4);
		put64(48, (uintptr_t)pi);
		put64(56, 1);
		reg(sqe, 1);
	}
	sqe[0] = 22;
	put64(56, 3);
	reg(sqe, 1);
	put64(56, 2);
	reg(sqe, 1);
	put64(56, 1);
	put64(48, 8);
	reg(sqe, 1);
	put64(48, 0);
	reg(sqe, 1);
	put64(56, 0);
	put64(48, 0x1234);
	reg(sqe, 1);
	sqe[1] = 0x20; /* IOSQE_BUFFER_SELECT: buf_index is the group */
	sqe[40] = 3;
	reg(sqe, 1);

	/* A 128-byte SQE whose command bytes are cut by an unmapped page,
	 * a 64-byte one at the end of the page, and one cut itself. */
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	munmap(m + pg, pg);
	for (unsigned tail = 64; tail <= 128; tail += 8) {
		unsigned char *q = m + pg - tail;
		fill(63);
		memcpy(q, sqe, tail);
		reg(q, 1);
	}
	reg(m + pg - 32, 1);

	/* Another count, NULL and an unreadable address. */
	fill(40);
	reg(sqe, 0);
	reg(sqe, 2);
	reg(NULL, 1);
	reg((void *)8, 1);
	close(s);
	return 0;
}
