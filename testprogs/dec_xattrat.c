/* setxattrat, getxattrat, listxattrat and removexattrat (Linux 6.13), with
 * their struct xattr_args, for tests/strace/strace72_diff.rs: valid calls on
 * a file of a fresh directory (relative names, so both traces print the
 * same paths) and invalid ones (short, larger, NULL and unreadable args). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_setxattrat 463
#define NR_getxattrat 464
#define NR_listxattrat 465
#define NR_removexattrat 466

struct xattr_args { uint64_t value; uint32_t size, flags; };
struct xattr_args_big { struct xattr_args a; uint64_t extra; };

int main(void)
{
    char dir[] = "/tmp/dec_xattrat.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir))
        return 1;
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    char val[] = "bar";
    char buf[64];
    struct xattr_args set = { (uintptr_t)val, 3, 1 };
    struct xattr_args get = { (uintptr_t)buf, sizeof buf, 0 };
    struct xattr_args probe = { (uintptr_t)buf, 0, 0 };
    struct xattr_args_big big = { { (uintptr_t)val, 3, 2 }, 0x1234 };
    struct xattr_args_big big0 = { { (uintptr_t)val, 3, 0 }, 0 };

    syscall(NR_setxattrat, fd, "", 0x1000, "user.foo", &set, sizeof set);
    syscall(NR_setxattrat, AT_FDCWD, "f", 0, "user.foo", &set, sizeof set);
    syscall(NR_setxattrat, AT_FDCWD, "f", 0x100, "user.bar", &big, sizeof big);
    syscall(NR_setxattrat, AT_FDCWD, "f", 0x100, "user.bar", &big0, sizeof big0);
    syscall(NR_setxattrat, -1, "/nonexistent", 0x8000, "user.foo", &set, 8);
    syscall(NR_setxattrat, -1, NULL, 0, NULL, NULL, sizeof set);
    syscall(NR_setxattrat, AT_FDCWD, "f", 0x1001, "user.foo", (void *)1, sizeof set);

    syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.foo", &get, sizeof get);
    syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.foo", &probe, sizeof probe);
    syscall(NR_getxattrat, AT_FDCWD, "f", 0, "user.none", &get, sizeof get);
    syscall(NR_getxattrat, fd, "", 0x1100, "user.foo", NULL, sizeof get);
    syscall(NR_getxattrat, fd, "", 0x1000, "user.foo", &get, 4);
    syscall(NR_getxattrat, fd, "", 0x1000, "user.foo", (void *)1, sizeof get);

    syscall(NR_listxattrat, AT_FDCWD, "f", 0, buf, sizeof buf);
    syscall(NR_listxattrat, AT_FDCWD, "f", 0, NULL, 0);
    syscall(NR_listxattrat, fd, "", 0x1000, buf, 1);
    syscall(NR_listxattrat, -1, NULL, 2, NULL, 0);

    syscall(NR_removexattrat, AT_FDCWD, "f", 0, "user.foo");
    syscall(NR_removexattrat, AT_FDCWD, "f", 0x100, "user.bar");
    syscall(NR_removexattrat, -100, NULL, 3, NULL);

    close(fd);
    unlink("f");
    chdir("/");
    rmdir(dir);
    return 0;
}
