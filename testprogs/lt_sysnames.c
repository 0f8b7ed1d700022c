/* Every system call number from 0 to LAST, each refused by a seccomp
 * filter with ENOSYS before it runs (a tracer still sees its entry and
 * its return), so `-S` shows the name a tracer gives each number without
 * any call having an effect. Only exit_group passes, and it is
 * made last; see skipped() for the two calls left out. Built 64-bit and
 * 32-bit (-m32) by the tests. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LAST 470

/* x86-64's uretprobe (335) and uprobe (336) calls pass any seccomp filter
 * and raise SIGILL outside a probe trampoline: they are not made. */
static int skipped(long nr)
{
#ifdef __x86_64__
	return nr == 335 || nr == 336;
#else
	(void)nr;
	return 0;
#endif
}

int main(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 38),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };

	fflush(stdout);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		perror("seccomp");
		return 1;
	}
	for (long nr = 0; nr <= LAST; nr++)
		if (nr != SYS_exit_group && !skipped(nr))
			syscall(nr, 0, 0, 0, 0, 0, 0);
	syscall(SYS_exit_group, 0);
	return 0;
}
