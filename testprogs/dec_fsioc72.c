/* File system ioctls strace 7.2 decodes and 6.1 does not:
 * FS_IOC_SHUTDOWN's flags (on a bad descriptor, never a real file system)
 * and FS_IOC_GETFSUUID's answer, with NULL and unreadable arguments.
 * tests/strace/strace72_decoders.rs compares every line with strace 7.2. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Newer than this machine's linux/fs.h may be. */
#define FS_IOC_SHUTDOWN_ 0x8004587dUL  /* _IOR('X', 125, __u32) */
#define FS_IOC_GETFSUUID_ 0x80111500UL /* _IOR(0x15, 0, struct fsuuid2) */

int main(void)
{
	uint32_t fl;
	for (fl = 0; fl < 4; fl++)
		ioctl(-1, FS_IOC_SHUTDOWN_, &fl);
	fl = 0x80000001;
	ioctl(-1, FS_IOC_SHUTDOWN_, &fl);
	ioctl(-1, FS_IOC_SHUTDOWN_, NULL);
	ioctl(-1, FS_IOC_SHUTDOWN_, (void *)8);

	unsigned char u[17] = { 4, 1, 2, 3 };
	int fd = open(".", O_RDONLY);
	ioctl(fd, FS_IOC_GETFSUUID_, u);
	ioctl(-1, FS_IOC_GETFSUUID_, u);
	ioctl(fd, FS_IOC_GETFSUUID_, NULL);
	ioctl(fd, FS_IOC_GETFSUUID_, (void *)8);
	/* /proc has no identifier. */
	int pfd = open("/proc", O_RDONLY);
	ioctl(pfd, FS_IOC_GETFSUUID_, u);
	return 0;
}
