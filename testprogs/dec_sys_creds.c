/* User and group ids: set*id with -1 ("unchanged"), getres*id, group lists
 * (size 0 with and without a list, NULL, an unreadable list). Runs as root
 * (setting ids to their current values changes nothing). */
#include "dec_sys.h"
#include <grp.h>
#include <stdlib.h>

int main(void)
{
	long rc;
	int err;
	uid_t r, e, s;
	gid_t g[4], n[4];

	CALL(syscall(SYS_getresuid, &r, &e, &s));
	printf("getresuid([%u], [%u], [%u]) = %s\n", r, e, s, RET);
	CALL(syscall(SYS_getresgid, &r, &e, &s));
	printf("getresgid([%u], [%u], [%u]) = %s\n", r, e, s, RET);
	CALL(syscall(SYS_getresuid, NULL, &e, &s));
	printf("getresuid(NULL, %p, %p) = %s\n", (void *)&e, (void *)&s, RET);
	CALL(syscall(SYS_setresuid, -1, -1, -1));
	printf("setresuid(-1, -1, -1) = %s\n", RET);
	CALL(syscall(SYS_setreuid, -1, geteuid()));
	printf("setreuid(-1, %u) = %s\n", geteuid(), RET);
	CALL(syscall(SYS_setregid, getgid(), -1));
	printf("setregid(%u, -1) = %s\n", getgid(), RET);
	CALL(syscall(SYS_setuid, geteuid()));
	printf("setuid(%u) = %s\n", geteuid(), RET);
	CALL(syscall(SYS_setfsgid, -1));
	printf("setfsgid(-1) = %s\n", RET);

	int k = getgroups(4, g);
	if (k < 0 || k > 4)
		return 77;
	CALL(syscall(SYS_getgroups, 4, n));
	printf("getgroups(4, [");
	for (int i = 0; i < rc; i++)
		printf("%s%u", i ? ", " : "", n[i]);
	printf("]) = %s\n", RET);
	CALL(syscall(SYS_getgroups, 0, n));
	printf("getgroups(0, []) = %s\n", RET);
	CALL(syscall(SYS_getgroups, 0, NULL));
	printf("getgroups(0, NULL) = %s\n", RET);
	gid_t two[2] = {0, 4};
	CALL(syscall(SYS_setgroups, 2, two));
	printf("setgroups(2, [0, 4]) = %s\n", RET);
	CALL(syscall(SYS_getgroups, 4, (void *)8));
	printf("getgroups(4, 0x8) = %s\n", RET);
	CALL(syscall(SYS_getgroups, 4, n));
	printf("getgroups(4, [0, 4]) = %s\n", RET);
	CALL(syscall(SYS_setgroups, k, g));
	printf("setgroups(%d, [", k);
	for (int i = 0; i < k; i++)
		printf("%s%u", i ? ", " : "", g[i]);
	printf("]) = %s\n", RET);
	CALL(syscall(SYS_setgroups, 0, NULL));
	printf("setgroups(0, NULL) = %s\n", RET);
	CALL(syscall(SYS_setgroups, k, g));
	return 0;
}
