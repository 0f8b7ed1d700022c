/* Kernel keys: add_key, request_key and the common keyctl commands on a
 * key in this process's own keyring. */
#include "dec_sys.h"
#include <linux/keyctl.h>

int main(void)
{
	long rc;
	int err;
	char buf[128];
	CALL(syscall(SYS_add_key, "user", "rtrace:test", "secret", 6, KEY_SPEC_PROCESS_KEYRING));
	long k = rc;
	printf("add_key(\"user\", \"rtrace:test\", \"secret\", 6, KEY_SPEC_PROCESS_KEYRING) = %s\n", RET);
	if (k < 0)
		return 77;
	CALL(syscall(SYS_add_key, "user", "x", NULL, 0, -100));
	printf("add_key(\"user\", \"x\", NULL, 0, -100) = %s\n", RET);
	CALL(syscall(SYS_request_key, "user", "rtrace:test", NULL, KEY_SPEC_PROCESS_KEYRING));
	printf("request_key(\"user\", \"rtrace:test\", NULL, KEY_SPEC_PROCESS_KEYRING) = %s\n", RET);
	CALL(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 0));
	printf("keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 0) = %s\n", RET);
	CALL(syscall(SYS_keyctl, KEYCTL_DESCRIBE, k, buf, sizeof(buf)));
	printf("keyctl(KEYCTL_DESCRIBE, %ld, \"%s\", 128) = %s\n", k, buf, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_READ, k, buf, sizeof(buf)));
	printf("keyctl(KEYCTL_READ, %ld, \"secret\", 128) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, "user", "rtrace:test", 0));
	printf("keyctl(KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, \"user\", \"rtrace:test\", 0) = %s\n",
	       RET);
	CALL(syscall(SYS_keyctl, KEYCTL_SETPERM, k, 0x3f010000));
	printf("keyctl(KEYCTL_SETPERM, %ld, KEY_POS_VIEW|KEY_POS_READ|KEY_POS_WRITE|KEY_POS_SEARCH|"
	       "KEY_POS_LINK|KEY_POS_SETATTR|KEY_USR_VIEW) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_UPDATE, k, "new", 3));
	printf("keyctl(KEYCTL_UPDATE, %ld, \"new\", 3) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, k, 100));
	printf("keyctl(KEYCTL_SET_TIMEOUT, %ld, 100) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_CHOWN, k, -1, -1));
	printf("keyctl(KEYCTL_CHOWN, %ld, -1, -1) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_LINK, k, KEY_SPEC_THREAD_KEYRING));
	printf("keyctl(KEYCTL_LINK, %ld, KEY_SPEC_THREAD_KEYRING) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_UNLINK, k, KEY_SPEC_PROCESS_KEYRING));
	printf("keyctl(KEYCTL_UNLINK, %ld, KEY_SPEC_PROCESS_KEYRING) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_SET_REQKEY_KEYRING, KEY_REQKEY_DEFL_NO_CHANGE));
	printf("keyctl(KEYCTL_SET_REQKEY_KEYRING, KEY_REQKEY_DEFL_NO_CHANGE) = %s\n", RET);
	CALL(syscall(SYS_keyctl, KEYCTL_REVOKE, k));
	printf("keyctl(KEYCTL_REVOKE, %ld) = %s\n", k, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_GET_SECURITY, k, buf, 10));
	printf("keyctl(KEYCTL_GET_SECURITY, %ld, %p, 10) = %s\n", k, (void *)buf, RET);
	CALL(syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_THREAD_KEYRING));
	printf("keyctl(KEYCTL_CLEAR, KEY_SPEC_THREAD_KEYRING) = %s\n", RET);
	CALL(syscall(SYS_keyctl, 9999, 1, 2, 3, 4));
	printf("keyctl(0x270f /* KEYCTL_??? */, 0x1, 0x2, 0x3, 0x4) = %s\n", RET);
	return 0;
}
