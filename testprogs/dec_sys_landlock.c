/* Landlock: ruleset creation, a path-beneath rule, and restrict_self on a
 * bad descriptor (the program never restricts itself). */
#include "dec_sys.h"
#include <fcntl.h>
#include <stdint.h>
#include <linux/landlock.h>

int main(void)
{
	long rc;
	int err;
	CALL(syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION));
	printf("landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) = %s\n", RET);
	if (rc < 0)
		return 77;
	struct {
		uint64_t fs;
	} attr = { LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
		   LANDLOCK_ACCESS_FS_READ_DIR };
	CALL(syscall(SYS_landlock_create_ruleset, &attr, 8, 0));
	int rs = rc;
	printf("landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE|"
	       "LANDLOCK_ACCESS_FS_READ_FILE|LANDLOCK_ACCESS_FS_READ_DIR}, 8, 0) = %s\n", RET);
	attr.fs = 1 | 0x40000000;
	CALL(syscall(SYS_landlock_create_ruleset, &attr, 8, 0));
	printf("landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE|0x40000000}, 8, 0)"
	       " = %s\n", RET);
	CALL(syscall(SYS_landlock_create_ruleset, &attr, 4, 0));
	printf("landlock_create_ruleset(%p, 4, 0) = %s\n", (void *)&attr, RET);
	int fd = open("/", O_PATH);
	struct __attribute__((packed)) {
		uint64_t allowed;
		int32_t fd;
	} pb = { LANDLOCK_ACCESS_FS_READ_FILE, fd };
	CALL(syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0));
	printf("landlock_add_rule(%d, LANDLOCK_RULE_PATH_BENEATH, {allowed_access="
	       "LANDLOCK_ACCESS_FS_READ_FILE, parent_fd=%d}, 0) = %s\n", rs, fd, RET);
	CALL(syscall(SYS_landlock_add_rule, rs, 5, &pb, 0));
	printf("landlock_add_rule(%d, 0x5 /* LANDLOCK_RULE_??? */, %p, 0) = %s\n", rs, (void *)&pb,
	       RET);
	CALL(syscall(SYS_landlock_add_rule, -1, LANDLOCK_RULE_PATH_BENEATH, NULL, 1));
	printf("landlock_add_rule(-1, LANDLOCK_RULE_PATH_BENEATH, NULL, 0x1) = %s\n", RET);
	CALL(syscall(SYS_landlock_restrict_self, -1, 0));
	printf("landlock_restrict_self(-1, 0) = %s\n", RET);
	return 0;
}
