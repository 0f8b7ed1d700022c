/* Constants the kernel uapi headers gained since Linux 6.1
 * (tests/strace/strace72_consts.rs): each call passes a new value through
 * syscall(2) with the numbers written out, so this builds against the old
 * headers, and strace 7.2 is the expectation. The calls fail (or do nothing)
 * on this machine's kernel. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <unistd.h>

#define NR_openat2 437
#define NR_landlock_create_ruleset 444

struct map_create { uint32_t map_type, key_size, value_size, max_entries, map_flags; };
struct prog_load { uint32_t prog_type, insn_cnt; uint64_t insns, license; };
struct link_create { uint32_t prog_fd, target_fd, attach_type, flags; };
struct sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};
struct open_how { uint64_t flags, mode, resolve; };
struct ruleset_attr { uint64_t handled_access_fs; };

int main(void)
{
    for (uint32_t t = 0x1f; t <= 0x24; t++) {
        struct map_create m = { t, 4, 4, 1, 0 };
        syscall(__NR_bpf, 0 /* BPF_MAP_CREATE */, &m, sizeof(m));
    }
    struct prog_load p = { 0x20 /* BPF_PROG_TYPE_NETFILTER */, 0, 0, 0 };
    syscall(__NR_bpf, 5 /* BPF_PROG_LOAD */, &p, 8);
    for (uint32_t t = 0x2b; t <= 0x3e; t++) {
        struct link_create l = { -1, -1, t, 0 };
        syscall(__NR_bpf, 28 /* BPF_LINK_CREATE */, &l, sizeof(l));
    }
    for (int cmd = 0x24; cmd <= 0x27; cmd++)
        syscall(__NR_bpf, cmd, (void *)0, 0);

    struct sched_attr sa = { sizeof(sa), 7 /* SCHED_EXT */ };
    syscall(__NR_sched_setattr, 0, &sa, 0);

    for (int op = 0x4f; op <= 0x52; op++)
        syscall(__NR_prctl, op, 0, 0, 0, 0);

    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    for (int opt = 0x4b; opt <= 0x55; opt++)
        setsockopt(s, SOL_SOCKET, opt, &one, sizeof(one));
    /* 0x26 (TCP_AO_ADD_KEY) is left out: strace 7.2 decodes its struct. */
    for (int opt = 0x27; opt <= 0x2f; opt++)
        setsockopt(s, IPPROTO_TCP, opt, &one, sizeof(one));

    int fd = open("/dev/null", O_RDONLY);
    char buf[256];
    /* FS_IOC_SHUTDOWN and FS_IOC_GETFSUUID are left out: strace 7.2
     * decodes their arguments. */
    syscall(__NR_ioctl, fd, 0x80811501UL /* FS_IOC_GETFSSYSFSPATH */, buf);
    syscall(__NR_ioctl, fd, 0xc0101502UL /* FS_IOC_GETLBMD_CAP */, buf);

    void *a = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int adv = 102; adv <= 104; adv++)
        syscall(__NR_madvise, a, 4096, adv);
    syscall(__NR_mmap, 0, 4096, PROT_READ, 0x8 /* MAP_DROPPABLE */ | MAP_ANONYMOUS, -1, 0);

    struct open_how how = { (1ULL << 32) /* OPENAT2_REGULAR */, 0, 0 };
    syscall(NR_openat2, AT_FDCWD, "/nonexistent", &how, sizeof(how));

    struct ruleset_attr ra = { 0x1c000 };
    syscall(NR_landlock_create_ruleset, &ra, sizeof(ra), 0);

    for (int op = 0x1a; op <= 0x26; op++)
        syscall(__NR_io_uring_register, -1, op, (void *)0, 0);
    syscall(__NR_io_uring_enter, -1, 0, 0, 0x20 | 0x40 | 0x80 | 0x100, (void *)0, 0);

    struct clone_args { uint64_t flags, pidfd, child_tid, parent_tid, exit_signal,
                        stack, stack_size, tls, set_tid, set_tid_size, cgroup; } ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = 0x3c00000000ULL; /* CLONE_AUTOREAP|CLONE_NNP|CLONE_PIDFD_AUTOKILL|CLONE_EMPTY_MNTNS */
    syscall(__NR_clone3, &ca, sizeof(ca));

    char stx[256];
    syscall(__NR_statx, AT_FDCWD, "/nonexistent", 0, 0x3c000 | 0x80000, stx);

    syscall(__NR_fcntl, fd, 0x403 /* F_DUPFD_QUERY */, fd);
    syscall(__NR_fcntl, fd, 0x404 /* F_CREATED_QUERY */);
    syscall(__NR_fcntl, fd, 0x40f /* F_GETDELEG */, 0);

    syscall(__NR_preadv2, fd, (void *)0, 0, 0, 0x20 | 0x40 | 0x80 | 0x100 | 0x200);
    syscall(__NR_memfd_create, "x", 0x8 /* MFD_NOEXEC_SEAL */ | 0x40);
    syscall(__NR_set_mempolicy, 6 /* MPOL_WEIGHTED_INTERLEAVE */, (void *)0, 0);
    syscall(__NR_set_mempolicy, 7, (void *)0, 0);
    syscall(__NR_fanotify_init, 0x2000 | 0x4000 /* FAN_REPORT_FD_ERROR|FAN_REPORT_MNT */, 0);
    syscall(__NR_fanotify_mark, -1, 1 /* FAN_MARK_ADD */,
            0x100000ULL | 0x1000000ULL | 0x2000000ULL, AT_FDCWD, "/");
    syscall(__NR_socket, AF_INET, SOCK_RAW, 0x90 /* IPPROTO_AGGFRAG */);
    return 0;
}
