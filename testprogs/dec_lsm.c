/* lsm_get_self_attr, lsm_set_self_attr and lsm_list_modules (Linux 6.8) for
 * tests/strace/strace72_diff.rs. Without arguments: real calls, valid and
 * invalid (NULL, short, unknown attributes and flags). With "inject" (traced
 * with -e inject=lsm_get_self_attr:retval=2): crafted struct lsm_ctx
 * sequences, a single one, short ones, a sequence running off its memory. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_lsm_get_self_attr 459
#define NR_lsm_set_self_attr 460
#define NR_lsm_list_modules 461

struct lsm_ctx { uint64_t id, flags, len, ctx_len; uint8_t ctx[]; };
struct ctx16 { struct lsm_ctx c; char s[16]; };

static union { struct lsm_ctx c; char b[4096]; } u;

static void real(void)
{
    uint64_t ids[16];
    uint32_t isz = sizeof ids;
    syscall(NR_lsm_list_modules, ids, &isz, 0);
    isz = 4;
    syscall(NR_lsm_list_modules, ids, &isz, 0);
    syscall(NR_lsm_list_modules, NULL, NULL, 1);
    isz = sizeof ids;
    syscall(NR_lsm_list_modules, ids, &isz, 3);
    syscall(NR_lsm_list_modules, ids, (void *)1, 0);

    uint32_t size = sizeof u;
    syscall(NR_lsm_get_self_attr, 100, &u, &size, 0);
    size = sizeof u;
    syscall(NR_lsm_get_self_attr, 1, &u, &size, 0);
    size = sizeof u;
    u.c.id = 104;
    syscall(NR_lsm_get_self_attr, 100, &u, &size, 1);
    size = sizeof u;
    syscall(NR_lsm_get_self_attr, 2, NULL, &size, 2);
    syscall(NR_lsm_get_self_attr, 0, NULL, NULL, 0);
    syscall(NR_lsm_get_self_attr, 100, NULL, &size, 1);

    struct ctx16 c = { { 104, 0, sizeof c, 16 }, "unconfined" };
    syscall(NR_lsm_set_self_attr, 100, &c, sizeof c, 0);
    syscall(NR_lsm_set_self_attr, 0x20, &c, sizeof c, 5);
    syscall(NR_lsm_set_self_attr, 100, NULL, 0, 0);
    syscall(NR_lsm_set_self_attr, 100, &c, 8, 0);
    syscall(NR_lsm_set_self_attr, 100, &c, 40, 0);
    c.c.id = 1000;
    c.c.flags = 3;
    syscall(NR_lsm_set_self_attr, 105, &c, sizeof c, 0);
    syscall(NR_lsm_set_self_attr, 100, (void *)1, sizeof c, 0);
}

static void injected(void)
{
    /* Three contexts of 48 bytes, then the sequence ends. */
    for (int i = 0; i < 3; i++) {
        struct ctx16 *c = (void *)(u.b + 48 * i);
        *c = (struct ctx16){ { 101 + i, i, 48, 16 }, "ctx" };
        c->s[15] = 'z';
    }
    uint32_t size = 48 * 3;
    syscall(NR_lsm_get_self_attr, 100, &u, &size, 0);
    size = 48 * 2 + 20;
    syscall(NR_lsm_get_self_attr, 101, &u, &size, 0);
    size = 40;
    syscall(NR_lsm_get_self_attr, 100, &u, &size, 0);
    size = 48;
    syscall(NR_lsm_get_self_attr, 100, &u, &size, 1);
    /* A length shorter than the header stops the sequence. */
    ((struct lsm_ctx *)u.b)->len = 8;
    size = 48 * 3;
    syscall(NR_lsm_get_self_attr, 100, &u, &size, 0);
    /* The sequence runs off the end of its memory. */
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + 4096, 4096);
    struct ctx16 *e = (void *)(p + 4096 - 48);
    *e = (struct ctx16){ { 110, 0, 48, 16 }, "last" };
    size = 96;
    syscall(NR_lsm_get_self_attr, 100, e, &size, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "inject"))
        injected();
    else
        real();
    return 0;
}
