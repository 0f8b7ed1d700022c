/* ptrace requests on a child this program traces itself (the tracer under
 * test follows only this process): peeks, user-area offsets, options,
 * siginfo and the x86_64 register sets. */
#include "dec_sys.h"
#include <elf.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

static long word = 0x1234;

/* `%#lx` as strace prints a pointer-sized value read back: NULL for 0. */
static const char *ptr(unsigned long v)
{
	static char buf[4][32];
	static int i;
	char *b = buf[i++ % 4];
	if (v)
		snprintf(b, 32, "%#lx", v);
	else
		snprintf(b, 32, "NULL");
	return b;
}

int main(void)
{
	long rc;
	int err;
#ifndef __x86_64__
	return 77;
#endif
	pid_t c = fork();
	if (c == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	int st;
	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		return 77;

	errno = 0;
	rc = ptrace(PTRACE_PEEKDATA, c, &word, 0);
	printf("ptrace(PTRACE_PEEKDATA, %d, %p, [%s]) = 0\n", c, (void *)&word, ptr(rc));
	errno = 0;
	rc = ptrace(PTRACE_PEEKUSER, c, 8 * 16, 0);
	printf("ptrace(PTRACE_PEEKUSER, %d, 8*RIP, [%s]) = 0\n", c, ptr(rc));
	errno = 0;
	rc = ptrace(PTRACE_PEEKUSER, c, offsetof(struct user, u_debugreg) + 56, 0);
	printf("ptrace(PTRACE_PEEKUSER, %d, offsetof(struct user, u_debugreg)+56, [%s]) = 0\n", c,
	       ptr(rc));
	CALL(ptrace(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
	printf("ptrace(PTRACE_SETOPTIONS, %d, NULL, PTRACE_O_TRACESYSGOOD|PTRACE_O_EXITKILL) = %s\n",
	       c, RET);
	unsigned long msg = 7;
	CALL(ptrace(PTRACE_GETEVENTMSG, c, 0, &msg));
	printf("ptrace(PTRACE_GETEVENTMSG, %d, NULL, [%lu]) = %s\n", c, msg, RET);
	siginfo_t si;
	CALL(ptrace(PTRACE_GETSIGINFO, c, 0, &si));
	printf("ptrace(PTRACE_GETSIGINFO, %d, NULL, {si_signo=SIGSTOP, si_code=SI_TKILL, si_pid=%d, "
	       "si_uid=%d}) = %s\n", c, si.si_pid, si.si_uid, RET);

	struct user_regs_struct r;
	CALL(ptrace(PTRACE_GETREGS, c, 0, &r));
	unsigned long long *w = (unsigned long long *)&r;
	static const char *const names[] = {
		"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx",
		"rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base",
		"gs_base", "ds", "es", "fs", "gs",
	};
	char regs[2048] = "{";
	for (int i = 0; i < 27; i++)
		snprintf(regs + strlen(regs), sizeof(regs) - strlen(regs), "%s%s=%#llx",
			 i ? ", " : "", names[i], w[i]);
	strcat(regs, "}");
	printf("ptrace(PTRACE_GETREGS, %d, %s) = %s\n", c, regs, RET);
	CALL(ptrace(PTRACE_SETREGS, c, 0, &r));
	printf("ptrace(PTRACE_SETREGS, %d, %s) = %s\n", c, regs, RET);
	struct iovec io = { &r, 8 };
	CALL(ptrace(PTRACE_GETREGSET, c, NT_PRSTATUS, &io));
	printf("ptrace(PTRACE_GETREGSET, %d, NT_PRSTATUS, {iov_base={r15=%#llx}, iov_len=8}) = %s\n",
	       c, w[0], RET);
	CALL(ptrace(PTRACE_GETREGS, -1, 0, &r));
	printf("ptrace(PTRACE_GETREGS, -1, %p) = %s\n", (void *)&r, RET);
	CALL(ptrace(PTRACE_POKEDATA, c, &word, 5));
	printf("ptrace(PTRACE_POKEDATA, %d, %p, 0x5) = %s\n", c, (void *)&word, RET);
	CALL(ptrace(PTRACE_ATTACH, 0x7ffffff0, 0, 0));
	printf("ptrace(PTRACE_ATTACH, %d) = %s\n", 0x7ffffff0, RET);
	CALL(ptrace(0x4299, c, 0, 0));
	printf("ptrace(0x4299 /* PTRACE_??? */, %d, NULL, NULL) = %s\n", c, RET);
	CALL(ptrace(PTRACE_CONT, c, 0, SIGCONT));
	printf("ptrace(PTRACE_CONT, %d, NULL, SIGCONT) = %s\n", c, RET);
	waitpid(c, &st, 0);
	return 0;
}
