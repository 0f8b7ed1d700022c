/* statmount and listmount (Linux 6.8) for tests/strace/strace72_diff.rs.
 * Without arguments: real calls on this mount namespace (the root mount,
 * the first mounts listed) and invalid ones (NULL, short, unreadable and
 * larger requests, bad flags). With "inject" (traced with
 * -e inject=statmount:retval=0): crafted struct statmount answers, every
 * field and string kind, offsets outside the strings, short buffers. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_statmount 457
#define NR_listmount 458
#define LSMT_ROOT 0xffffffffffffffffULL
#define STATX_MNT_ID_UNIQUE 0x4000

struct mnt_id_req { uint32_t size, mnt_ns_fd; uint64_t mnt_id, param, mnt_ns_id; };
struct mnt_id_req_big { struct mnt_id_req r; uint64_t extra; };

struct sm {
    uint32_t size, mnt_opts;
    uint64_t mask;
    uint32_t sb_dev_major, sb_dev_minor;
    uint64_t sb_magic;
    uint32_t sb_flags, fs_type;
    uint64_t mnt_id, mnt_parent_id;
    uint32_t mnt_id_old, mnt_parent_id_old;
    uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master, propagate_from;
    uint32_t mnt_root, mnt_point;
    uint64_t mnt_ns_id;
    uint32_t fs_subtype, sb_source, opt_num, opt_array, opt_sec_num, opt_sec_array;
    uint64_t supported_mask;
    uint32_t uidmap_num, uidmap, gidmap_num, gidmap;
    uint64_t spare2[43];
    char str[];
};

static union { struct sm s; char b[8192]; } u;

static void real(void)
{
    uint64_t ids[4];
    struct mnt_id_req r = { 24, 0, LSMT_ROOT, 0, 0 };
    syscall(NR_listmount, &r, ids, 4, 0);
    struct mnt_id_req r1 = { 32, 0, LSMT_ROOT, 0, 0 };
    syscall(NR_listmount, &r1, ids, 2, 1);
    syscall(NR_listmount, &r1, ids, 0, 2);
    syscall(NR_listmount, &r1, ids, 4, 2);
    syscall(NR_listmount, NULL, ids, 4, 0);
    struct mnt_id_req rs = { 8, 0, 0, 0, 0 };
    syscall(NR_listmount, &rs, ids, 4, 0);
    struct mnt_id_req_big rb = { { 40, 0, LSMT_ROOT, 5, 0 }, 7 };
    syscall(NR_listmount, &rb, ids, 4, 0);

    struct statx stx;
    memset(&stx, 0, sizeof stx);
    statx(AT_FDCWD, "/", 0, STATX_MNT_ID_UNIQUE, &stx);
    struct mnt_id_req s = { 24, 0, stx.stx_mnt_id, 0xffff, 0 };
    syscall(NR_statmount, &s, &u, sizeof u, 0);
    s.param = 0x1 | 0x2 | 0x8 | 0x10 | 0x20;
    syscall(NR_statmount, &s, &u, sizeof u, 0);
    s.param = 0x80 | 0x400 | 0x1000;
    syscall(NR_statmount, &s, &u, sizeof u, 0);
    syscall(NR_statmount, &s, &u, 16, 0);
    syscall(NR_statmount, &s, &u, 600, 0);
    syscall(NR_statmount, &s, NULL, 0, 0);
    syscall(NR_statmount, &s, &u, 2, 0);
    syscall(NR_statmount, &s, &u, sizeof u, 5);
    syscall(NR_statmount, (void *)1, &u, sizeof u, 0);
    struct mnt_id_req s1 = { 32, 0, stx.stx_mnt_id, 0x1, 0 };
    syscall(NR_statmount, &s1, &u, sizeof u, 0);

    /* A request whose first bytes are readable and the rest not. */
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + 4096, 4096);
    struct mnt_id_req *e = (void *)(p + 4096 - 8);
    e->size = 24;
    syscall(NR_statmount, e, &u, sizeof u, 0);
    e->size = 4;
    syscall(NR_listmount, e, ids, 4, 0);
    e = (void *)(p + 4096 - 32);
    *e = (struct mnt_id_req){ 4000, 0, 1, 2, 3 };
    syscall(NR_listmount, e, ids, 4, 0);
}

static void injected(void)
{
    struct sm *s = &u.s;
    static const char strs[] =
        "opts\0type\0root\0point\0sub\0src\0a\0b\0sa\0sb\0u1\0u2\0g1";
    memcpy(s->str, strs, sizeof strs);
    s->size = sizeof(struct sm) + sizeof strs;
    s->mask = 0xffff;
    s->mnt_opts = 0; s->fs_type = 5; s->mnt_root = 10; s->mnt_point = 15;
    s->fs_subtype = 21; s->sb_source = 25;
    s->opt_num = 2; s->opt_array = 29; s->opt_sec_num = 2; s->opt_sec_array = 33;
    s->uidmap_num = 2; s->uidmap = 39; s->gidmap_num = 1; s->gidmap = 45;
    s->sb_dev_major = 8; s->sb_dev_minor = 1; s->sb_magic = 0x1234;
    s->sb_flags = 0x1 | 0x10 | 0x80 | 0x2000000 | 0x40;
    s->mnt_id = 0x80000001; s->mnt_parent_id = 0x80000000;
    s->mnt_id_old = 21; s->mnt_parent_id_old = 1;
    s->mnt_attr = 0x1 | 0x100000 | 0x400;
    s->mnt_propagation = 0x100000 | 0x80000;
    s->mnt_peer_group = 3; s->mnt_master = 4; s->propagate_from = 9; s->mnt_ns_id = 7;
    s->supported_mask = 0xffffffff;
    struct mnt_id_req r = { 24, 0, 5, 0xffff, 0 };
    syscall(NR_statmount, &r, s, sizeof u, 0);
    /* Sequences running past their strings, offsets outside them. */
    s->opt_num = 100; s->opt_sec_num = 1; s->uidmap = 9000; s->fs_type = 9000;
    s->mnt_propagation = 0x20000 | 0x40000 | 1; s->sb_magic = 0xef53; s->sb_flags = 0;
    syscall(NR_statmount, &r, s, sizeof u, 0);
    s->opt_num = 0; s->opt_sec_array = 9000;
    syscall(NR_statmount, &r, s, sizeof u, 0);
    /* A last string without its NUL. */
    s->size = sizeof(struct sm) + sizeof strs - 2;
    s->gidmap_num = 3; s->mnt_root = 46;
    syscall(NR_statmount, &r, s, sizeof u, 0);
    /* Strings not read: the answer is larger than the buffer. */
    s->size = 100;
    syscall(NR_statmount, &r, s, sizeof u, 0);
    s->size = 600; s->mask = 0x8 | 0x8000;
    syscall(NR_statmount, &r, s, 520, 0);
    s->mask = 0;
    syscall(NR_statmount, &r, s, sizeof u, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "inject"))
        injected();
    else
        real();
    return 0;
}
