/* ptrace requests whose decoding strace 7.2 changed or added since 6.1
 * (tests/strace/strace72_ptrace.rs): a parent traces a child through its
 * signal, syscall-entry, syscall-exit and seccomp stops and, at each, asks
 * for and writes back the child's `struct ptrace_syscall_info`
 * (PTRACE_GET/SET_SYSCALL_INFO, whole and cut short), then reads its rseq
 * configuration, syscall user dispatch configuration, signal mask, seccomp
 * metadata and pending signals. Only the parent's ptrace calls are
 * compared. The request numbers are written out so this builds against old
 * headers. */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define P(req, pid, addr, data) syscall(__NR_ptrace, (long)(req), (long)(pid), (long)(addr), (long)(data))

enum {
	GETSIGMASK = 0x420a,
	SETSIGMASK = 0x420b,
	SECCOMP_GET_FILTER = 0x420c,
	SECCOMP_GET_METADATA = 0x420d,
	GET_SYSCALL_INFO = 0x420e,
	GET_RSEQ_CONFIGURATION = 0x420f,
	SET_SUD_CONFIG = 0x4210,
	GET_SUD_CONFIG = 0x4211,
	SET_SYSCALL_INFO = 0x4212,
};

/* `struct ptrace_syscall_info` as Linux 6.16 lays it out. */
struct info {
	uint8_t op;
	uint8_t reserved;
	uint16_t flags;
	uint32_t arch;
	uint64_t ip, sp;
	union {
		struct {
			uint64_t nr, args[6];
		} entry;
		struct {
			int64_t rval;
			uint8_t is_error;
		} exit;
		struct {
			uint64_t nr, args[6];
			uint32_t ret_data, reserved2;
		} seccomp;
	};
};

struct sud_config {
	uint64_t mode, selector, offset, len;
};

struct rseq_config {
	uint64_t ptr;
	uint32_t size, sig, flags, pad;
};

/* Every size PTRACE_GET_SYSCALL_INFO cuts the structure at, whole first. */
static const unsigned long sizes[] = { sizeof(struct info), 0, 1, 7, 8, 16, 24, 31, 32, 33, 40, 83, 84 };

/* Asks for the info at every size, then writes it back as it came, with a
 * bad op, with flags or reserved bytes set, and cut short. */
static void info_both_ways(pid_t c, struct info *i)
{
	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		memset(i, 0, sizeof(*i));
		P(GET_SYSCALL_INFO, c, sizes[k], i);
	}
	P(GET_SYSCALL_INFO, c, sizeof(*i), 0);
	P(GET_SYSCALL_INFO, c, sizeof(*i), i);
	struct info keep = *i;
	P(SET_SYSCALL_INFO, c, sizeof(*i), i);
	P(SET_SYSCALL_INFO, c, 24, i);
	P(SET_SYSCALL_INFO, c, sizeof(*i), 0);
	i->flags = 1;
	P(SET_SYSCALL_INFO, c, sizeof(*i), i);
	*i = keep;
	i->reserved = 2;
	P(SET_SYSCALL_INFO, c, sizeof(*i), i);
	*i = keep;
	i->op = 9;
	P(SET_SYSCALL_INFO, c, sizeof(*i), i);
	*i = keep;
}

int main(void)
{
#ifndef __x86_64__
	return 77;
#endif
	pid_t c = fork();
	if (c == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getpid, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 0x42),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(1);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(1);
		pid_t me = syscall(__NR_gettid);
		syscall(__NR_kill, me, SIGSTOP);
		syscall(__NR_getppid);
		syscall(__NR_getpid);
		_exit(0);
	}
	int st;
	struct info i;
	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		return 77;
	P(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL);

	/* Signal-delivery stop: op NONE. */
	info_both_ways(c, &i);

	/* The rest of the requests, at the same stop. */
	uint64_t mask = 0, newmask = 1u << (SIGUSR1 - 1);
	P(GETSIGMASK, c, 8, &mask);
	P(GETSIGMASK, c, 4, &mask);
	P(SETSIGMASK, c, 8, &newmask);
	P(SETSIGMASK, c, 8, &mask);
	P(SETSIGMASK, c, 8, 0);
	struct rseq_config rc;
	memset(&rc, 0, sizeof(rc));
	P(GET_RSEQ_CONFIGURATION, c, sizeof(rc), &rc);
	P(GET_RSEQ_CONFIGURATION, c, 8, &rc);
	P(GET_RSEQ_CONFIGURATION, c, sizeof(rc), 0);
	struct sud_config sud;
	memset(&sud, 0, sizeof(sud));
	P(GET_SUD_CONFIG, c, sizeof(sud), &sud);
	P(SET_SUD_CONFIG, c, sizeof(sud), &sud);
	sud.mode = 1;
	sud.offset = 0x1000;
	sud.len = 0x10;
	P(SET_SUD_CONFIG, c, sizeof(sud), &sud);
	P(GET_SUD_CONFIG, c, sizeof(sud), &sud);
	sud.mode = 7;
	P(SET_SUD_CONFIG, c, sizeof(sud), &sud);
	P(SET_SUD_CONFIG, c, 8, &sud);
	P(GET_SUD_CONFIG, c, sizeof(sud), 0);
	memset(&sud, 0, sizeof(sud));
	P(SET_SUD_CONFIG, c, sizeof(sud), &sud);
	uint64_t md[2] = { 0, 0 };
	P(SECCOMP_GET_METADATA, c, sizeof(md), md);
	md[0] = 5;
	P(SECCOMP_GET_METADATA, c, sizeof(md), md);
	struct sock_filter got[8];
	P(SECCOMP_GET_FILTER, c, 0, 0);
	P(SECCOMP_GET_FILTER, c, 0, got);
	P(SECCOMP_GET_FILTER, c, 3, got);
	P(0x4213, c, 0, 0);

	/* Syscall-entry stop (getppid), then its exit stop. */
	P(PTRACE_SYSCALL, c, 0, 0);
	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		return 1;
	info_both_ways(c, &i);
	P(PTRACE_SYSCALL, c, 0, 0);
	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		return 1;
	info_both_ways(c, &i);
	i.exit.is_error = 1;
	i.exit.rval = -38;
	P(SET_SYSCALL_INFO, c, sizeof(i), &i);

	/* Seccomp stop (getpid, SECCOMP_RET_TRACE with data 0x42). */
	P(PTRACE_CONT, c, 0, 0);
	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		return 1;
	info_both_ways(c, &i);
	P(PTRACE_KILL, c, 0, 0);
	waitpid(c, &st, 0);
	/* No tracee any more: the calls fail with ESRCH. */
	P(GET_SYSCALL_INFO, c, sizeof(i), &i);
	P(SET_SYSCALL_INFO, c, sizeof(i), &i);
	return 0;
}
