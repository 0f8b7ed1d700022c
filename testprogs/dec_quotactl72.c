/* quotactl and quotactl_fd with every command family, against strace 7.2
 * (tests/strace/strace72_ptrace.rs): the VFS commands (Q_GETINFO,
 * Q_GETQUOTA, Q_GETNEXTQUOTA, Q_SETQUOTA, ...), the XFS ones (Q_XGETQSTAT,
 * Q_XGETQSTATV, Q_XGETQUOTA, Q_XQUOTAON, ...), the old v1/v2 numbers and
 * unknown commands and types, each with a filled structure, NULL and an
 * unreadable address. There is no quota-enabled file system here, so the
 * calls fail, or, under `-e inject=quotactl:retval=0`, "succeed" so the
 * getters' structures (the bytes this program put there) print. The
 * numbers are written out so this builds without quota headers. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define QCMD(cmd, type) (((cmd) << 8) | ((type) & 0xff))
#define Q(cmd, special, id, addr) syscall(__NR_quotactl, (long)(cmd), (special), (long)(id), (addr))
#define QFD(fd, cmd, id, addr) syscall(443, (long)(fd), (long)(cmd), (long)(id), (addr))

static const unsigned vfs_cmds[] = {
	0x800001, 0x800002, 0x800003, 0x800004, 0x800005, 0x800006, 0x800007, 0x800008, 0x800009,
};
static const unsigned xfs_cmds[] = {
	0x5801, 0x5802, 0x5803, 0x5804, 0x5805, 0x5806, 0x5807, 0x5808, 0x5809,
};
static const unsigned old_cmds[] = {
	0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700, 0x800, 0x900,
	0xa00, 0xb00, 0xc00, 0xd00, 0xe00, 0xf00, 0x1000, 0x1100, 0x1200,
};

/* Large enough for every structure (fs_quota_statv is 160 bytes), filled
 * with a pattern so that each field is distinct. */
static union {
	unsigned char b[256];
	uint64_t q[32];
} buf;

static void fill(void)
{
	for (unsigned i = 0; i < sizeof(buf.b); i++)
		buf.b[i] = (unsigned char)(i * 7 + 1);
	/* Versions and flag words the decoders name. */
	buf.b[0] = 1;
	buf.b[1] = 0x7;
	buf.q[2] = 0x12345;
}

static void each(unsigned cmd, const char *special, void *addr)
{
	for (unsigned type = 0; type < 4; type++) {
		Q(QCMD(cmd, type), special, 1000, addr);
	}
	Q(QCMD(cmd, 0), special, -1, addr);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/bogus-quota72";
	void *bad = (void *)8;
	int fd = open(".", O_RDONLY);
	(void)argv;
	fill();
	for (unsigned k = 0; k < sizeof(vfs_cmds) / sizeof(vfs_cmds[0]); k++) {
		each(vfs_cmds[k], dev, buf.b);
		Q(QCMD(vfs_cmds[k], 0), dev, 2, NULL);
		Q(QCMD(vfs_cmds[k], 1), NULL, 3, bad);
		QFD(fd, QCMD(vfs_cmds[k], 2), 4, buf.b);
		QFD(-1, QCMD(vfs_cmds[k], 0), 5, NULL);
	}
	for (unsigned k = 0; k < sizeof(xfs_cmds) / sizeof(xfs_cmds[0]); k++) {
		each(xfs_cmds[k], dev, buf.b);
		Q(QCMD(xfs_cmds[k], 0), dev, 2, NULL);
		Q(QCMD(xfs_cmds[k], 1), NULL, 3, bad);
		QFD(fd, QCMD(xfs_cmds[k], 2), 4, buf.b);
	}
	for (unsigned k = 0; k < sizeof(old_cmds) / sizeof(old_cmds[0]); k++)
		Q(QCMD(old_cmds[k], 0), dev, 6, buf.b);
	/* Q_QUOTAON with each format id and an unknown one. */
	for (int f = 0; f < 7; f++)
		Q(QCMD(0x800002, 0), dev, f, "/quota.user");
	/* Q_GETFMT's answer: each format, none and an unknown one. */
	for (uint32_t f = 0; f < 7; f++) {
		uint32_t fmt = f;
		Q(QCMD(0x800004, 0), dev, 0, &fmt);
	}
	/* Unknown commands and types. */
	Q(QCMD(0xdead, 0), dev, 7, buf.b);
	Q(QCMD(0x800005, 9), dev, 7, buf.b);
	Q(0xffffffff, dev, 7, buf.b);
	Q(0, NULL, 0, NULL);
	QFD(fd, 0xbadc0ded, 8, buf.b);
	/* Structures cut by the end of the readable memory. */
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED && munmap(page + 4096, 4096) == 0) {
		char *end = page + 4096 - 8;
		Q(QCMD(0x800005, 0), dev, 0, end);
		Q(QCMD(0x800008, 0), dev, 0, end);
		Q(QCMD(0x5804, 0), dev, 0, end);
		Q(QCMD(0x5801, 0), dev, 0, page + 4096 - 2);
	}
	if (argc > 1) {
		memset(&buf, 0, sizeof(buf));
		Q(QCMD(0x5808, 0), dev, 0, buf.b);
		Q(QCMD(0x800007, 0), dev, 0, buf.b);
	}
	return 0;
}
