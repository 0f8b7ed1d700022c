/* Extended attributes: set/get/list/remove by path, link and descriptor. */
#include "dec_sys.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/xattr.h>

int main(void)
{
	long rc;
	int err;
	char path[] = "/tmp/rtrace-dec-xattr-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 77;
	char buf[256];

	CALL(setxattr(path, "user.foo", "bar", 3, XATTR_CREATE));
	printf("setxattr(\"%s\", \"user.foo\", \"bar\", 3, XATTR_CREATE) = %s\n", path, RET);
	CALL(lsetxattr(path, "user.nul", "ab\0", 3, 0));
	printf("lsetxattr(\"%s\", \"user.nul\", \"ab\", 3, 0) = %s\n", path, RET);
	CALL(fsetxattr(fd, "user.long", "0123456789012345678901234567890123456789", 40,
		       XATTR_REPLACE));
	printf("fsetxattr(%d, \"user.long\", \"01234567890123456789012345678901\"..., 40, "
	       "XATTR_REPLACE) = %s\n", fd, RET);
	CALL(fsetxattr(-1, "user.a", "b", 1, 4));
	printf("fsetxattr(-1, \"user.a\", \"b\", 1, 0x4 /* XATTR_??? */) = %s\n", RET);

	CALL(getxattr(path, "user.foo", buf, sizeof(buf)));
	if (rc >= 0)
		printf("getxattr(\"%s\", \"user.foo\", \"%.*s\", 256) = %s\n", path, (int)rc, buf, RET);
	else
		printf("getxattr(\"%s\", \"user.foo\", %p, 256) = %s\n", path, (void *)buf, RET);
	CALL(lgetxattr(path, "user.none", buf, 10));
	printf("lgetxattr(\"%s\", \"user.none\", %p, 10) = %s\n", path, (void *)buf, RET);
	CALL(fgetxattr(-1, "user.a", buf, 1));
	printf("fgetxattr(-1, \"user.a\", %p, 1) = %s\n", (void *)buf, RET);
	CALL(getxattr(path, "user.foo", NULL, 0));
	printf("getxattr(\"%s\", \"user.foo\", NULL, 0) = %s\n", path, RET);

	CALL(listxattr(path, buf, sizeof(buf)));
	if (rc > 0) {
		printf("listxattr(\"%s\", \"", path);
		for (long i = 0; i < rc && i < 32; i++) {
			if (buf[i])
				putchar(buf[i]);
			else
				printf("\\0");
		}
		printf("\"%s, 256) = %s\n", rc > 32 ? "..." : "", RET);
	}
	CALL(llistxattr(path, NULL, 0));
	printf("llistxattr(\"%s\", NULL, 0) = %s\n", path, RET);
	CALL(flistxattr(-1, buf, 10));
	printf("flistxattr(-1, %p, 10) = %s\n", (void *)buf, RET);

	CALL(removexattr(path, "user.foo"));
	printf("removexattr(\"%s\", \"user.foo\") = %s\n", path, RET);
	CALL(lremovexattr("/nonexistent", "user.q"));
	printf("lremovexattr(\"/nonexistent\", \"user.q\") = %s\n", RET);
	CALL(fremovexattr(-1, "user.r"));
	printf("fremovexattr(-1, \"user.r\") = %s\n", RET);
	unlink(path);
	return 0;
}
