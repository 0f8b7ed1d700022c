/* mount, umount2 and the new mount API; every call that could change the
 * mount table targets a path that does not exist. */
#include "dec_sys.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mount.h>

/* struct mount_attr (linux/mount.h conflicts with sys/mount.h). */
struct kmount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

int main(void)
{
	long rc;
	int err;
	const char *nx = "/nonexistent/rtrace-dec-mount";

	CALL(mount("none", nx, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m"));
	printf("mount(\"none\", \"%s\", \"tmpfs\", MS_NOSUID|MS_NODEV, \"size=1m\") = %s\n", nx, RET);
	CALL(mount("/a", nx, "ignored", MS_BIND | MS_REC, "ignored"));
	printf("mount(\"/a\", \"%s\", %p, MS_BIND|MS_REC, %p) = %s\n", nx, "ignored", "ignored", RET);
	CALL(mount(NULL, nx, NULL, MS_REMOUNT | MS_RDONLY, "ro"));
	printf("mount(NULL, \"%s\", NULL, MS_RDONLY|MS_REMOUNT, \"ro\") = %s\n", nx, RET);
	CALL(mount("x", nx, "ext4", 0xC0ED0000 | MS_RDONLY, NULL));
	printf("mount(\"x\", \"%s\", \"ext4\", MS_MGC_VAL|MS_RDONLY, NULL) = %s\n", nx, RET);
	CALL(mount("x", nx, "ext4", 0, NULL));
	printf("mount(\"x\", \"%s\", \"ext4\", 0, NULL) = %s\n", nx, RET);
	CALL(mount(NULL, nx, NULL, MS_PRIVATE, NULL));
	printf("mount(NULL, \"%s\", NULL, MS_PRIVATE, NULL) = %s\n", nx, RET);
	CALL(umount2(nx, MNT_DETACH | UMOUNT_NOFOLLOW));
	printf("umount2(\"%s\", MNT_DETACH|UMOUNT_NOFOLLOW) = %s\n", nx, RET);
	CALL(umount2(nx, 0x100));
	printf("umount2(\"%s\", 0x100 /* MNT_??? */) = %s\n", nx, RET);

	CALL(syscall(SYS_fsopen, "tmpfs", 1));
	int fs = rc;
	printf("fsopen(\"tmpfs\", FSOPEN_CLOEXEC) = %s\n", RET);
	CALL(syscall(SYS_fsopen, "tmpfs", 0x10));
	printf("fsopen(\"tmpfs\", 0x10 /* FSOPEN_??? */) = %s\n", RET);
	CALL(syscall(SYS_fsconfig, fs, 1, "source", "rtrace", 0));
	printf("fsconfig(%d, FSCONFIG_SET_STRING, \"source\", \"rtrace\", 0) = %s\n", fs, RET);
	CALL(syscall(SYS_fsconfig, fs, 0, "ro", NULL, 0));
	printf("fsconfig(%d, FSCONFIG_SET_FLAG, \"ro\", NULL, 0) = %s\n", fs, RET);
	CALL(syscall(SYS_fsconfig, -1, 3, "path", nx, AT_FDCWD));
	printf("fsconfig(-1, FSCONFIG_SET_PATH, \"path\", \"%s\", AT_FDCWD) = %s\n", nx, RET);
	CALL(syscall(SYS_fsconfig, -1, 5, "fd", NULL, 0));
	printf("fsconfig(-1, FSCONFIG_SET_FD, \"fd\", NULL, 0) = %s\n", RET);
	CALL(syscall(SYS_fsconfig, -1, 7, NULL, NULL, 0));
	printf("fsconfig(-1, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) = %s\n", RET);
	CALL(syscall(SYS_fsconfig, -1, 99, NULL, NULL, 0));
	printf("fsconfig(-1, 0x63 /* FSCONFIG_??? */, NULL, NULL, 0) = %s\n", RET);
	CALL(syscall(SYS_fsmount, -1, 1, 0x2 | 0x10));
	printf("fsmount(-1, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID|MOUNT_ATTR_NOATIME) = %s\n", RET);
	CALL(syscall(SYS_fspick, AT_FDCWD, nx, 1 | 8));
	printf("fspick(AT_FDCWD, \"%s\", FSPICK_CLOEXEC|FSPICK_EMPTY_PATH) = %s\n", nx, RET);
	CALL(syscall(SYS_move_mount, -1, "", AT_FDCWD, nx, 4));
	printf("move_mount(-1, \"\", AT_FDCWD, \"%s\", MOVE_MOUNT_F_EMPTY_PATH) = %s\n", nx, RET);
	CALL(syscall(SYS_open_tree, AT_FDCWD, nx, 1 | O_CLOEXEC | 0x8000));
	printf("open_tree(AT_FDCWD, \"%s\", OPEN_TREE_CLONE|OPEN_TREE_CLOEXEC|AT_RECURSIVE) = %s\n",
	       nx, RET);
	struct kmount_attr a = { 0x1 | 0x2, 0x8, MS_PRIVATE, 0 };
	CALL(syscall(SYS_mount_setattr, AT_FDCWD, nx, AT_RECURSIVE, &a, sizeof(a)));
	printf("mount_setattr(AT_FDCWD, \"%s\", AT_RECURSIVE, {attr_set=MOUNT_ATTR_RDONLY|"
	       "MOUNT_ATTR_NOSUID, attr_clr=MOUNT_ATTR_NOEXEC, propagation=MS_PRIVATE, userns_fd=0}, "
	       "32) = %s\n", nx, RET);
	a.attr_set = 0x100000;
	a.propagation = 0;
	a.userns_fd = 5;
	CALL(syscall(SYS_mount_setattr, -1, "", AT_EMPTY_PATH, &a, sizeof(a)));
	printf("mount_setattr(-1, \"\", AT_EMPTY_PATH, {attr_set=MOUNT_ATTR_IDMAP, "
	       "attr_clr=MOUNT_ATTR_NOEXEC, propagation=0 /* MS_??? */, userns_fd=5}, 32) = %s\n", RET);
	CALL(syscall(SYS_mount_setattr, -1, "", 0, &a, 8));
	printf("mount_setattr(-1, \"\", 0, %p, 8) = %s\n", (void *)&a, RET);
	if (fs >= 0)
		close(fs);
	return 0;
}
