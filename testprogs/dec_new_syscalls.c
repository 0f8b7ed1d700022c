/* Syscalls added since strace 6.1 (tests/strace/strace72_diff.rs): each is
 * called through syscall(2) with valid and invalid arguments, and strace 7.2
 * is the expectation. Numbers 451 on are shared by every architecture. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_cachestat 451
#define NR_fchmodat2 452
#define NR_map_shadow_stack 453
#define NR_futex_wake 454
#define NR_futex_wait 455
#define NR_futex_requeue 456
#define NR_mseal 462

struct cs_range { uint64_t off, len; };
struct cs { uint64_t cache, dirty, writeback, evicted, recently_evicted; };
struct fwaitv { uint64_t val, uaddr; uint32_t flags, reserved; };

int main(void)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    fsync(fd); /* no dirty pages: the same cachestat for both tracers */
    syscall(NR_fchmodat2, AT_FDCWD, "/nonexistent/x", 0644, 0);
    syscall(NR_fchmodat2, AT_FDCWD, "/nonexistent/x", 04755, AT_SYMLINK_NOFOLLOW);
    syscall(NR_fchmodat2, -1, "", 0777, 0x1000 | 0x1);

    struct cs_range r = { 0, 4096 };
    struct cs st;
    syscall(NR_cachestat, fd, &r, &st, 0);
    syscall(NR_cachestat, -1, &r, &st, 0);
    syscall(NR_cachestat, fd, &r, &st, 7);
    syscall(NR_cachestat, fd, (void *)0, (void *)0, 0);

    static uint32_t word = 5;
    syscall(NR_futex_wake, &word, 0xffffffffUL, 1, 0x82);
    syscall(NR_futex_wait, &word, 4, 0xffffffffUL, 0x2, (void *)0, 1);
    struct fwaitv w[2] = { { 5, (uintptr_t)&word, 0x82, 0 }, { 5, (uintptr_t)&word, 0x2, 0 } };
    syscall(NR_futex_requeue, w, 0, 1, 0);

    syscall(NR_mseal, 0, 0, 0);
    syscall(NR_mseal, 0x1000, 4096, 1);

    syscall(NR_map_shadow_stack, 0, 4096, 1);
    syscall(NR_map_shadow_stack, 0x10000, 4096, 3);
    return 0;
}
