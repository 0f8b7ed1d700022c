/* listns (Linux 6.19) for tests/strace/strace72_diff.rs: requests of every
 * kind (namespace types, spare fields, LISTNS_CURRENT_USER, short, larger,
 * NULL and unreadable ones); a kernel without listns fails them with ENOSYS,
 * and the requests still print. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_listns 470

struct ns_id_req {
    uint32_t size, spare;
    uint64_t ns_id;
    uint32_t ns_type, spare2;
    uint64_t user_ns_id;
};
struct ns_id_req_big { struct ns_id_req r; uint64_t extra; };

int main(void)
{
    uint64_t ids[8];
    struct ns_id_req r = { 32, 0, 0, 0, 0, 0 };
    syscall(NR_listns, &r, ids, 8, 0);
    r.ns_type = 0x20000000 | 0x20000;
    syscall(NR_listns, &r, ids, 4, 0);
    r.ns_type = 0x80 | 0x40000000;
    r.user_ns_id = ~0ULL;
    syscall(NR_listns, &r, ids, 4, 0);
    r.ns_type = 0x1;
    r.user_ns_id = 0x1234;
    syscall(NR_listns, &r, ids, 4, 0);
    struct ns_id_req odd = { 32, 1, 5, 0xffffffff, 2, ~0ULL };
    syscall(NR_listns, &odd, ids, 4, 1);
    syscall(NR_listns, NULL, ids, 4, 0);
    struct ns_id_req small = { 8, 0, 0, 0, 0, 0 };
    syscall(NR_listns, &small, ids, 4, 0);
    struct ns_id_req_big big = { { 40, 0, 0, 0, 0, 0 }, 3 };
    syscall(NR_listns, &big, ids, 4, 0);
    r.ns_type = 0;
    r.user_ns_id = 0;
    syscall(NR_listns, &r, ids, 0, 0);
    syscall(NR_listns, &r, NULL, 4, 0);
    syscall(NR_listns, (void *)1, ids, 4, 0);

    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + 4096, 4096);
    struct ns_id_req *e = (void *)(p + 4096 - 8);
    e->size = 32;
    syscall(NR_listns, e, ids, 4, 0);
    return 0;
}
