/* seccomp operations (a filter that allows everything), memfd_create and
 * memfd_secret. */
#include "dec_sys.h"
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>

int main(void)
{
	long rc;
	int err;
	unsigned int act = SECCOMP_RET_LOG;
	CALL(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act));
	printf("seccomp(SECCOMP_GET_ACTION_AVAIL, 0, [SECCOMP_RET_LOG]) = %s\n", RET);
	struct seccomp_notif_sizes sz;
	CALL(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz));
	printf("seccomp(SECCOMP_GET_NOTIF_SIZES, 0, {seccomp_notif=%u, seccomp_notif_resp=%u, "
	       "seccomp_data=%u}) = %s\n", sz.seccomp_notif, sz.seccomp_notif_resp, sz.seccomp_data,
	       RET);
	CALL(syscall(SYS_seccomp, 7, 0, NULL));
	printf("seccomp(0x7 /* SECCOMP_SET_MODE_??? */, 0, NULL) = %s\n", RET);
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog fp = { 1, f };
	CALL(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	printf("prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) = %s\n", RET);
	CALL(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, &fp));
	printf("seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, {len=1, filter=%p}) = %s\n",
	       (void *)f, RET);
	CALL(prctl(PR_GET_SECCOMP));
	printf("prctl(PR_GET_SECCOMP) = %s\n", RET);

	CALL(memfd_create("rtrace", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	printf("memfd_create(\"rtrace\", MFD_CLOEXEC|MFD_ALLOW_SEALING) = %s\n", RET);
	CALL(syscall(SYS_memfd_create, "huge", MFD_HUGETLB | (21 << 26)));
	printf("memfd_create(\"huge\", MFD_HUGETLB|21<<MFD_HUGE_SHIFT) = %s\n", RET);
	CALL(syscall(SYS_memfd_create, NULL, 0x100));
	printf("memfd_create(NULL, 0x100 /* MFD_??? */) = %s\n", RET);
	CALL(syscall(SYS_memfd_secret, 1));
	printf("memfd_secret(0x1) = %s\n", RET);
	return 0;
}
