/* Expected-output helpers for rltrace test programs: format ltrace lines
 * without calling libc (so the formatting itself is not traced) and write
 * them to stdout with a raw write system call. */
#ifndef LT_EXPECT_H
#define LT_EXPECT_H

static char lt_buf[8192];
static unsigned long lt_len;

static void lt_s(const char *s)
{
    while (*s && lt_len < sizeof lt_buf)
        lt_buf[lt_len++] = *s++;
}

static void lt_u(unsigned long v, int base)
{
    char tmp[32];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (base == 16)
        lt_s("0x");
    while (n)
        lt_buf[lt_len++] = tmp[--n];
}

static void lt_d(long v)
{
    if (v < 0) {
        lt_s("-");
        lt_u((unsigned long)-v, 10);
    } else {
        lt_u((unsigned long)v, 10);
    }
}

static void lt_p(const void *p) { lt_u((unsigned long)p, 16); }

/* Writes what was formatted to stdout. */
static void lt_flush(void)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(1L), "D"(1L), "S"(lt_buf), "d"(lt_len)
                     : "rcx", "r11", "memory");
    (void)ret;
    lt_len = 0;
}

#endif
