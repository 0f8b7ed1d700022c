/* prctl options whose arguments and return values strace decodes. */
#include "dec_sys.h"
#include <linux/prctl.h>
#include <sys/prctl.h>

static const char *secbits(long v)
{
	static const char *const n[] = {
		"SECBIT_NOROOT", "SECBIT_NOROOT_LOCKED", "SECBIT_NO_SETUID_FIXUP",
		"SECBIT_NO_SETUID_FIXUP_LOCKED", "SECBIT_KEEP_CAPS", "SECBIT_KEEP_CAPS_LOCKED",
		"SECBIT_NO_CAP_AMBIENT_RAISE", "SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED",
	};
	static char buf[512];
	buf[0] = 0;
	for (int i = 0; i < 8; i++)
		if (v & (1L << i))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? "|" : "", n[i]);
	return buf;
}

int main(void)
{
	long rc;
	int err;
	int v;
	CALL(prctl(PR_SET_MM, PR_SET_MM_START_CODE, 0, 0, 0));
	printf("prctl(PR_SET_MM, PR_SET_MM_START_CODE, 0, 0, 0) = %s\n", RET);
	CALL(prctl(PR_GET_SECUREBITS));
	if (rc > 0 && rc < 256)
		printf("prctl(PR_GET_SECUREBITS) = %#lx (%s)\n", rc, secbits(rc));
	else
		printf("prctl(PR_GET_SECUREBITS) = %s\n", RET);
	CALL(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 21, 0, 0));
	printf("prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_ADMIN, 0, 0) = %s\n", RET);
	CALL(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
	printf("prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) = %s\n", RET);
	CALL(prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0));
	printf("prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0) = %s\n", RET);
	CALL(prctl(PR_MCE_KILL_GET, 0, 0, 0, 0));
	if (rc == PR_MCE_KILL_EARLY)
		printf("prctl(PR_MCE_KILL_GET, 0, 0, 0, 0) = 1 (PR_MCE_KILL_EARLY)\n");
	CALL(prctl(PR_SET_TSC, PR_TSC_ENABLE));
	printf("prctl(PR_SET_TSC, PR_TSC_ENABLE) = %s\n", RET);
	CALL(prctl(PR_GET_TSC, &v));
	if (rc == 0 && v == PR_TSC_ENABLE)
		printf("prctl(PR_GET_TSC, [PR_TSC_ENABLE]) = 0\n");
	CALL(prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0));
	printf("prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, NULL) = %s\n", RET);
	CALL(prctl(PR_SET_DUMPABLE, 1));
	printf("prctl(PR_SET_DUMPABLE, SUID_DUMP_USER) = %s\n", RET);
	CALL(prctl(PR_SET_NAME, "rtrace-prctl"));
	printf("prctl(PR_SET_NAME, \"rtrace-prctl\") = %s\n", RET);
	CALL(prctl(PR_CAPBSET_READ, 21));
	printf("prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN) = %s\n", RET);
	return 0;
}
