/*
 * file_ops: performs the file, stat and descriptor system calls in a fixed
 * order, on fixed names, sizes and modes, so that the traces of strace and
 * rstrace over it can be diffed line by line.
 *
 * Usage: file_ops [DIR]
 *   DIR (default "file_ops.dir" in the current directory) must not exist; it
 *   is created, used and removed. Give the same DIR to both tracers: paths
 *   printed by getcwd, chdir and mkdir then match.
 *
 * Syscalls exercised (legacy ones only where the ABI has them, e.g. x86_64):
 *   umask, mkdir, chdir, getcwd, open, openat, openat2, creat, write, writev,
 *   pwrite64, pwritev, pwritev2, fsync, fdatasync, fstat, stat, lstat,
 *   newfstatat, statx, statfs, fstatfs, close, read, readv, pread64, preadv,
 *   preadv2, lseek, fcntl (F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD,
 *   F_DUPFD_CLOEXEC, F_SETLK, F_SETLKW, F_GETLK, F_OFD_GETLK, F_GETOWN,
 *   F_SETOWN, F_GETSIG, F_SETSIG, F_GETLEASE, F_GETOWN_EX, F_GETPIPE_SZ,
 *   F_SETPIPE_SZ,
 *   F_ADD_SEALS, F_GET_SEALS), dup, dup2, dup3, close_range, flock,
 *   fadvise64, access, faccessat, faccessat2, ftruncate, truncate, fallocate,
 *   sync_file_range, sendfile, copy_file_range, pipe, pipe2, splice,
 *   memfd_create, link, linkat, symlink, symlinkat, readlink, readlinkat,
 *   rename, renameat, renameat2, chmod, fchmod, fchmodat, chown, lchown,
 *   fchown, fchownat, utimensat, mkdirat, mknod, mknodat, getdents64,
 *   fchdir, ioctl (FIONREAD, FIONBIO, FIOCLEX, TCGETS, TIOCGWINSZ, an unnamed
 *   _IOC request), chroot, unlink, unlinkat, rmdir; writev with more entries
 *   than the default -s 32 prints.
 * Error paths: ENOENT (open, access, stat, chroot, readlink), EBADF (read,
 * fstat, close), EACCES (faccessat), ENOTDIR (getdents64), ENOTTY (ioctl),
 * EEXIST (renameat2 with RENAME_NOREPLACE), EINVAL (lseek).
 *
 * Every call goes through syscall(2) when libc would substitute another
 * syscall (glibc implements stat with newfstatat, open with openat, ...).
 *
 * Deterministic between two runs on one machine, except: addresses (normalise
 * 0x... pointers), the umask line's return (the inherited umask, the same for
 * both tracers), statfs/fstatfs free-space counts, and under -v inode numbers,
 * st_blocks of directories and the timestamps the kernel sets. The results of
 * mknodat(S_IFCHR) and lchown/fchown to uid/gid 0 depend on privileges, and
 * fallocate on the file system, but not on the tracer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static char buf[4096];

static long sys(long nr, long a, long b, long c, long d, long e, long f)
{
	return syscall(nr, a, b, c, d, e, f);
}

#define S0(nr) sys(nr, 0, 0, 0, 0, 0, 0)
#define S1(nr, a) sys(nr, (long)(a), 0, 0, 0, 0, 0)
#define S2(nr, a, b) sys(nr, (long)(a), (long)(b), 0, 0, 0, 0)
#define S3(nr, a, b, c) sys(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define S4(nr, a, b, c, d) sys(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define S5(nr, a, b, c, d, e) \
	sys(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define S6(nr, a, b, c, d, e, f) \
	sys(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/* Writes and reads through one file. */
static void io_calls(void)
{
	static const char hello[] = "hello world\n";
	static const char longs[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEF";
	char r1[4], r2[6];
	struct iovec wv[2] = { { (void *)"abc", 3 }, { (void *)"defgh", 5 } };
	struct iovec rv[2] = { { r1, sizeof r1 }, { r2, sizeof r2 } };
	struct stat st;
	int fd;

#ifdef SYS_open
	fd = S3(SYS_open, "a.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
#else
	fd = S4(SYS_openat, AT_FDCWD, "a.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
#endif
	S3(SYS_write, fd, hello, 12);
	S3(SYS_writev, fd, wv, 2);
	S4(SYS_pwrite64, fd, "XY", 2, 1);
	S5(SYS_pwritev, fd, wv, 2, 20, 0);
	S6(SYS_pwritev2, fd, wv, 1, 30, 0, RWF_DSYNC);
	S3(SYS_write, fd, longs, sizeof longs - 1);
	S3(SYS_write, fd, "\1\2\3\377\n\t\"\\", 8);
	S1(SYS_fsync, fd);
	S1(SYS_fdatasync, fd);
	S2(SYS_fstat, fd, &st);
	S1(SYS_close, fd);

	fd = S4(SYS_openat, AT_FDCWD, "a.txt", O_RDONLY | O_CLOEXEC, 0);
	S3(SYS_read, fd, buf, 5);
	S3(SYS_readv, fd, rv, 2);
	S4(SYS_pread64, fd, buf, 4, 2);
	S5(SYS_preadv, fd, rv, 2, 0, 0);
	S6(SYS_preadv2, fd, rv, 1, 3, 0, 0);
	S3(SYS_lseek, fd, 0, SEEK_END);
	S3(SYS_lseek, fd, 3, SEEK_SET);
	S3(SYS_lseek, fd, 1, SEEK_CUR);
	S3(SYS_lseek, fd, -100, SEEK_SET);
	S3(SYS_read, fd, buf, 64);
	S3(SYS_read, fd, buf, 16);
	S3(SYS_read, -1, buf, 16);
	S2(SYS_fstat, -1, &st);
	S1(SYS_close, fd);
	S1(SYS_close, 1000);
}

/* fcntl commands, dup family, close_range, flock, fadvise64. */
static void fcntl_calls(void)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 10 };
	struct flock wl = { .l_type = F_WRLCK, .l_whence = SEEK_CUR,
			    .l_start = 2, .l_len = 0 };
	int fd = S4(SYS_openat, AT_FDCWD, "a.txt", O_RDWR, 0);
	int p[2], d, d10, d20;

	S2(SYS_fcntl, fd, F_GETFD);
	S3(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC);
	S2(SYS_fcntl, fd, F_GETFD);
	S2(SYS_fcntl, fd, F_GETFL);
	S3(SYS_fcntl, fd, F_SETFL, O_NONBLOCK | O_APPEND);
	S2(SYS_fcntl, fd, F_GETFL);
	d10 = S3(SYS_fcntl, fd, F_DUPFD, 10);
	d20 = S3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 20);
	S3(SYS_fcntl, fd, F_SETLK, &fl);
	S3(SYS_fcntl, fd, F_SETLKW, &wl);
	S3(SYS_fcntl, fd, F_GETLK, &fl);
	fl.l_pid = 0;
	S3(SYS_fcntl, fd, F_OFD_GETLK, &fl);
	S2(SYS_fcntl, fd, F_GETOWN);
	S3(SYS_fcntl, fd, F_SETOWN, 0);
	S2(SYS_fcntl, fd, F_GETSIG);
	S3(SYS_fcntl, fd, F_SETSIG, 0);
	S2(SYS_fcntl, fd, F_GETLEASE);
	S3(SYS_fcntl, fd, F_GETOWN_EX, buf);
	S1(SYS_close, d10);
	S1(SYS_close, d20);

	d = S1(SYS_dup, fd);
#ifdef SYS_dup2
	S2(SYS_dup2, fd, 30);
#endif
	S3(SYS_dup3, fd, 31, O_CLOEXEC);
	S3(SYS_close_range, 30, 31, 0);
	S3(SYS_close_range, 100, ~0U, CLOSE_RANGE_CLOEXEC);
	S2(SYS_flock, fd, LOCK_SH);
	S2(SYS_flock, fd, LOCK_EX | LOCK_NB);
	S2(SYS_flock, fd, LOCK_UN);
#ifdef SYS_fadvise64
	S4(SYS_fadvise64, fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	S4(SYS_fadvise64, fd, 4, 100, POSIX_FADV_DONTNEED);
#endif
	S1(SYS_close, fd);
	S1(SYS_close, d);

#ifdef SYS_pipe
	S1(SYS_pipe, p);
#else
	S2(SYS_pipe2, p, 0);
#endif
	S2(SYS_fcntl, p[0], F_GETPIPE_SZ);
	S3(SYS_fcntl, p[0], F_SETPIPE_SZ, 65536);
	S1(SYS_close, p[0]);
	S1(SYS_close, p[1]);

	fd = S2(SYS_memfd_create, "rtrace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	S3(SYS_fcntl, fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	S2(SYS_fcntl, fd, F_GET_SEALS);
	S1(SYS_close, fd);
}

/* stat family, statfs, access. */
static void stat_calls(void)
{
	struct stat st;
	struct statx stx;
	struct statfs sfs;
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
	int fd;

#ifdef SYS_stat
	S2(SYS_stat, "a.txt", &st);
	S2(SYS_stat, "missing", &st);
	S2(SYS_lstat, "a.txt", &st);
#endif
	S4(SYS_newfstatat, AT_FDCWD, "a.txt", &st, 0);
	S4(SYS_newfstatat, AT_FDCWD, "a.txt", &st, AT_SYMLINK_NOFOLLOW);
	S5(SYS_statx, AT_FDCWD, "a.txt", 0, STATX_BASIC_STATS, &stx);
	S5(SYS_statx, AT_FDCWD, "a.txt", AT_STATX_SYNC_AS_STAT | AT_SYMLINK_NOFOLLOW,
	   STATX_TYPE | STATX_SIZE, &stx);
	S5(SYS_statx, AT_FDCWD, "missing", 0, STATX_ALL, &stx);
	S2(SYS_statfs, ".", &sfs);

	fd = S4(SYS_openat2, AT_FDCWD, "a.txt", &how, sizeof how);
	S2(SYS_fstatfs, fd, &sfs);
	S5(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_MODE, &stx);
	S4(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
	S1(SYS_close, fd);
	how.flags = O_WRONLY | O_CREAT | O_EXCL;
	how.mode = 0600;
	how.resolve = 0;
	fd = S4(SYS_openat2, AT_FDCWD, "h.txt", &how, sizeof how);
	S1(SYS_close, fd);

#ifdef SYS_access
	S2(SYS_access, "a.txt", R_OK | W_OK);
	S2(SYS_access, "missing", F_OK);
#endif
	S3(SYS_faccessat, AT_FDCWD, "a.txt", X_OK);
	S4(SYS_faccessat2, AT_FDCWD, "a.txt", R_OK, AT_EACCESS);
}

/* Truncation, preallocation, copies between descriptors, pipes. */
static void copy_calls(void)
{
	loff_t off = 2, off_in = 1;
	struct iovec many[33];
	int in, out, p[2], one = 1;

#ifdef SYS_creat
	out = S2(SYS_creat, "b.txt", 0600);
#else
	out = S4(SYS_openat, AT_FDCWD, "b.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
#endif
	S2(SYS_ftruncate, out, 100);
	S2(SYS_truncate, "b.txt", 50);
	S4(SYS_fallocate, out, 0, 0, 4096);
	S4(SYS_fallocate, out, FALLOC_FL_KEEP_SIZE, 4096, 4096);
	S4(SYS_sync_file_range, out, 0, 0, SYNC_FILE_RANGE_WRITE);
	in = S4(SYS_openat, AT_FDCWD, "a.txt", O_RDONLY, 0);
	S4(SYS_sendfile, out, in, &off, 5);
	S4(SYS_sendfile, out, in, NULL, 3);
	S6(SYS_copy_file_range, in, &off_in, out, NULL, 5, 0);
	S2(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK);
	off = 0;
	S6(SYS_splice, in, &off, p[1], NULL, 5, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	S3(SYS_ioctl, p[0], FIONREAD, &off_in);
	S3(SYS_ioctl, p[0], FIONBIO, &one);
	S3(SYS_ioctl, p[0], FIOCLEX, 0);
	S3(SYS_ioctl, in, TCGETS, buf);
	S3(SYS_ioctl, in, TIOCGWINSZ, buf);
	S3(SYS_ioctl, in, _IOC(_IOC_READ, 0x7a, 1, 4), buf);
	for (int i = 0; i < 33; i++) {
		many[i].iov_base = (void *)"x";
		many[i].iov_len = 1;
	}
	S3(SYS_writev, out, many, 33);
	S1(SYS_close, p[0]);
	S1(SYS_close, p[1]);
	S1(SYS_close, in);
	S1(SYS_close, out);
}

/* Names: links, renames, modes, owners, times, nodes, directories. */
static void name_calls(void)
{
	struct timespec ts[2] = { { 1700000000, 123456789 }, { 1700000001, 0 } };
	struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	int fd, dfd;
	long n;

#ifdef SYS_link
	S2(SYS_link, "a.txt", "c.txt");
	S2(SYS_symlink, "a.txt", "s1");
	S3(SYS_readlink, "s1", buf, 64);
	S3(SYS_readlink, "s1", buf, 3);
	S3(SYS_readlink, "missing", buf, 64);
	S2(SYS_rename, "c.txt", "e.txt");
#else
	S5(SYS_linkat, AT_FDCWD, "a.txt", AT_FDCWD, "e.txt", 0);
	S3(SYS_symlinkat, "a.txt", AT_FDCWD, "s1");
#endif
	S5(SYS_linkat, AT_FDCWD, "a.txt", AT_FDCWD, "d.txt", 0);
	S3(SYS_symlinkat, "a.txt", AT_FDCWD, "s2");
	S4(SYS_readlinkat, AT_FDCWD, "s2", buf, 64);
	S4(SYS_renameat, AT_FDCWD, "e.txt", AT_FDCWD, "f.txt");
	S5(SYS_renameat2, AT_FDCWD, "f.txt", AT_FDCWD, "d.txt", RENAME_NOREPLACE);
	S5(SYS_renameat2, AT_FDCWD, "f.txt", AT_FDCWD, "g.txt", 0);

	fd = S4(SYS_openat, AT_FDCWD, "a.txt", O_RDONLY, 0);
#ifdef SYS_chmod
	S2(SYS_chmod, "a.txt", 0600);
#endif
	S2(SYS_fchmod, fd, 0640);
	S4(SYS_fchmodat, AT_FDCWD, "a.txt", 04755, 0);
	S4(SYS_fchmodat, AT_FDCWD, "a.txt", 0644, 0);
#ifdef SYS_chown
	S3(SYS_chown, "a.txt", -1, -1);
	S3(SYS_lchown, "s1", 0, -1);
#endif
	S3(SYS_fchown, fd, -1, 0);
	S5(SYS_fchownat, AT_FDCWD, "s2", -1, -1, AT_SYMLINK_NOFOLLOW);
	S4(SYS_utimensat, AT_FDCWD, "a.txt", ts, 0);
	S4(SYS_utimensat, AT_FDCWD, "s1", now, AT_SYMLINK_NOFOLLOW);
	S4(SYS_utimensat, fd, NULL, NULL, 0);
	S1(SYS_close, fd);

#ifdef SYS_mkdir
	S2(SYS_mkdir, "sub", 0755);
#else
	S3(SYS_mkdirat, AT_FDCWD, "sub", 0755);
#endif
	S3(SYS_mkdirat, AT_FDCWD, "sub2", 0700);
#ifdef SYS_mknod
	S3(SYS_mknod, "fifo", S_IFIFO | 0644, 0);
#endif
	S4(SYS_mknodat, AT_FDCWD, "fifo2", S_IFIFO | 0600, 0);
	S4(SYS_mknodat, AT_FDCWD, "null2", S_IFCHR | 0600, makedev(1, 3));
	S4(SYS_newfstatat, AT_FDCWD, "null2", buf, 0);

	dfd = S4(SYS_openat, AT_FDCWD, "sub", O_RDONLY | O_DIRECTORY, 0);
	S3(SYS_getdents64, dfd, buf, sizeof buf);
	S1(SYS_close, dfd);
	dfd = S4(SYS_openat, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
	do
		n = S3(SYS_getdents64, dfd, buf, sizeof buf);
	while (n > 0);
	fd = S4(SYS_openat, AT_FDCWD, "a.txt", O_RDONLY, 0);
	S3(SYS_getdents64, fd, buf, sizeof buf);
	S1(SYS_close, fd);
	S1(SYS_chdir, "sub");
	S1(SYS_fchdir, dfd);
	S1(SYS_close, dfd);
	S1(SYS_chroot, "missing");
}

/* Removes what name_calls and the others created. */
static void cleanup(void)
{
	static const char *const files[] = {
		"a.txt", "b.txt", "d.txt", "g.txt", "h.txt", "s1", "s2",
		"fifo", "fifo2", "null2",
	};

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
#ifdef SYS_unlink
		S1(SYS_unlink, files[i]);
#else
		S3(SYS_unlinkat, AT_FDCWD, files[i], 0);
#endif
	S3(SYS_unlinkat, AT_FDCWD, "sub", AT_REMOVEDIR);
#ifdef SYS_rmdir
	S1(SYS_rmdir, "sub2");
#else
	S3(SYS_unlinkat, AT_FDCWD, "sub2", AT_REMOVEDIR);
#endif
	S1(SYS_chdir, "..");
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "file_ops.dir";

	/* Start from a known descriptor table whatever the harness left open. */
	S3(SYS_close_range, 3, ~0U, 0);
	S1(SYS_umask, 022);
#ifdef SYS_mkdir
	if (S2(SYS_mkdir, dir, 0755) < 0)
#else
	if (S3(SYS_mkdirat, AT_FDCWD, dir, 0755) < 0)
#endif
		return 1;
	if (S1(SYS_chdir, dir) < 0)
		return 1;
	S2(SYS_getcwd, buf, sizeof buf);
	io_calls();
	fcntl_calls();
	stat_calls();
	copy_calls();
	name_calls();
	cleanup();
#ifdef SYS_rmdir
	S1(SYS_rmdir, dir);
#else
	S3(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
#endif
	return 0;
}
