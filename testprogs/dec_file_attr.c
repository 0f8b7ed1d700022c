/* file_getattr and file_setattr (Linux 6.17) for
 * tests/strace/strace72_diff.rs: on a file of a fresh directory (relative
 * names) and invalid calls (short, larger, NULL and unreadable attributes,
 * every FS_XFLAG_* bit, unknown flags). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_file_getattr 468
#define NR_file_setattr 469

struct file_attr {
    uint64_t fa_xflags;
    uint32_t fa_extsize, fa_nextents, fa_projid, fa_cowextsize;
};
struct file_attr_big { struct file_attr a; uint64_t extra; };

int main(void)
{
    char dir[] = "/tmp/dec_file_attr.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir))
        return 1;
    int fd = open("f", O_RDWR | O_CREAT, 0644);
    struct file_attr a = { 0, 0, 0, 0, 0 };
    syscall(NR_file_getattr, AT_FDCWD, "f", &a, sizeof a, 0);
    syscall(NR_file_getattr, fd, "", &a, sizeof a, 0x1000);
    syscall(NR_file_setattr, AT_FDCWD, "f", &a, sizeof a, 0x100);
    struct file_attr_big big = { { 0, 1, 2, 3, 4 }, 0x55 };
    syscall(NR_file_getattr, AT_FDCWD, "f", &big, sizeof big, 0);
    big.extra = 0x55;
    syscall(NR_file_setattr, AT_FDCWD, "f", &big, sizeof big, 0);
    big.extra = 0;
    syscall(NR_file_setattr, AT_FDCWD, "f", &big, sizeof big, 0);
    syscall(NR_file_getattr, AT_FDCWD, "nonexistent", &a, sizeof a, 0);
    syscall(NR_file_getattr, AT_FDCWD, "f", &a, 16, 0);
    syscall(NR_file_getattr, AT_FDCWD, "f", &a, 8192, 0);
    syscall(NR_file_getattr, -1, NULL, NULL, sizeof a, 0xffff);
    syscall(NR_file_setattr, AT_FDCWD, "f", NULL, sizeof a, 0);
    syscall(NR_file_setattr, AT_FDCWD, "f", (void *)1, sizeof a, 0);
    syscall(NR_file_setattr, AT_FDCWD, "f", &a, 16, 0);
    syscall(NR_file_setattr, AT_FDCWD, "nonexistent", &a, sizeof a, 0xffff);
    for (int i = 0; i < 64; i += 3) {
        struct file_attr x = { (1ULL << i) | (1ULL << (i + 1)), 1, 2, 3, 4 };
        syscall(NR_file_setattr, AT_FDCWD, "nonexistent", &x, sizeof x, 0);
    }
    struct file_attr all = { ~0ULL, ~0U, ~0U, ~0U, ~0U };
    syscall(NR_file_setattr, AT_FDCWD, "nonexistent", &all, sizeof all, 0);
    close(fd);
    unlink("f");
    chdir("/");
    rmdir(dir);
    return 0;
}
