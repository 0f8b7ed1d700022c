/* prctl options strace 7.2 decodes and strace 6.1 printed in hex
 * (tests/strace/strace72_decoders.rs): PR_SET/GET_MDWE, the RISC-V vector
 * state and icache flush context, the PowerPC DEXCR aspects, the
 * securebits of Linux 6.14 and PR_SCHED_CORE's arg5, each with known,
 * combined and unknown values. The numbers are written out so this builds
 * against old headers; the calls fail on x86_64 (or, under
 * `-e inject=prctl:retval=N`, return N so the getters' return values
 * print). The MDWE values are ones the kernel refuses. */
#include <sys/syscall.h>
#include <unistd.h>

#define P(...) syscall(__NR_prctl, __VA_ARGS__)

int main(void)
{
	/* PR_SET_MDWE: no flag, unknown and mixed bits, extra arguments. */
	P(0x41, 0x4, 0, 0, 0);
	P(0x41, 0x6, 0, 0, 0);
	P(0x41, 0x2, 1, 2, 3);
	P(0x42, 0, 0, 0, 0);
	/* PR_RISCV_V_SET_CONTROL: every state, unknown state 3, bits above. */
	for (long v = 0; v <= 0x1f; v += 5)
		P(0x45, v, 0, 0, 0);
	P(0x45, 0x3f, 1, 2, 3);
	P(0x46, 0, 0, 0, 0);
	P(0x47, 0, 1, 0, 0);
	P(0x47, 1, 0, 7, 8);
	P(0x47, 5, 5, 0, 0);
	/* PR_PPC_GET/SET_DEXCR: each aspect, an unknown one, control bits. */
	for (long a = 0; a <= 4; a++)
		P(0x48, a, 0, 0, 0);
	P(0x49, 2, 0x11, 0, 0);
	P(0x49, 3, 0x3f, 1, 2);
	P(0x49, 9, 0x20, 0, 0);
	P(0x49, 0, 0, 0, 0);
	/* PR_SET_SECUREBITS: an exec bit of Linux 6.14 and an unknown one
	 * (whether the kernel takes them only matters to this process). */
	P(28, 0x101, 0, 0, 0);
	P(28, 0x1001, 0, 0, 0);
	/* PR_SCHED_CORE: arg5 is a pointer only for PR_SCHED_CORE_GET. */
	P(0x3e, 1, 0, 0, 0);
	P(0x3e, 2, 0, 1, 0x1000);
	P(0x3e, 0, 0, 2, 0);
	return 0;
}
