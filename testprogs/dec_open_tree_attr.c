/* open_tree_attr (Linux 6.15) for tests/strace/strace72_diff.rs: a detached
 * copy of /tmp with attributes, without attributes, and invalid calls (short,
 * larger, unreadable attributes, unknown flags). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_open_tree_attr 467

struct mount_attr { uint64_t attr_set, attr_clr, propagation, userns_fd; };
struct mount_attr_big { struct mount_attr a; uint64_t extra; };

int main(void)
{
    struct mount_attr a = { 0x1, 0x2, 0x40000, 0 };
    int fd = syscall(NR_open_tree_attr, AT_FDCWD, "/tmp", 0x1 | 0x80000, &a, sizeof a);
    if (fd >= 0)
        close(fd);
    fd = syscall(NR_open_tree_attr, AT_FDCWD, "/tmp", 0x1 | 0x80000, NULL, 0);
    if (fd >= 0)
        close(fd);
    syscall(NR_open_tree_attr, -1, "/nonexistent", 0x8000, &a, 16);
    struct mount_attr_big b = { { 0x100000, 0, 0, 0 }, 9 };
    syscall(NR_open_tree_attr, AT_FDCWD, "/tmp", 0x1, &b, sizeof b);
    syscall(NR_open_tree_attr, AT_FDCWD, "/tmp", 0xffffff, (void *)1, sizeof a);
    struct mount_attr u = { ~0ULL, 0x200000, 0x123, 7 };
    syscall(NR_open_tree_attr, AT_FDCWD, "/nonexistent", 0x2 | 0x1000, &u, sizeof u);
    syscall(NR_open_tree_attr, AT_FDCWD, NULL, 0, NULL, sizeof a);
    return 0;
}
