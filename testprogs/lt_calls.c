/* A fixed sequence of libc calls with known arguments and results, for
 * rltrace. Built -fno-builtin so no call is inlined or turned into another
 * (printf -> puts), in four link variants. Before exiting it prints, on
 * stdout and without calling libc, the ltrace lines the sequence must give
 * (with the addresses and results it saw), so the test compares the trace
 * with what the program really did. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lt_expect.h"

int main(int argc, char **argv)
{
    (void)argv;
    char buf[64];
    size_t n = strlen("hello world");
    char *p = malloc(32);
    char *cp = strcpy(p, "abc");
    int c = strcmp(p, "abd");
    void *m = memset(buf, 'x', 8);
    buf[8] = 0;
    char *ch = strchr("hello", 'l');
    int up = toupper('a');
    long l = labs(-100000L * argc);
    int q = abs(-7 * argc);
    void *z = calloc(2, 8);
    free(z);
    free(p);
    int r = puts("done");
    fflush(stdout);

    lt_s("strlen(\"hello world\") = "); lt_d((long)n); lt_s("\n");
    lt_s("malloc(32) = "); lt_p(p); lt_s("\n");
    lt_s("strcpy("); lt_p(p); lt_s(", \"abc\") = "); lt_p(cp); lt_s("\n");
    lt_s("strcmp(\"abc\", \"abd\") = "); lt_d(c); lt_s("\n");
    lt_s("memset("); lt_p(buf); lt_s(", 'x', 8) = "); lt_p(m); lt_s("\n");
    lt_s("strchr(\"hello\", 'l') = \""); lt_s(ch); lt_s("\"\n");
    lt_s("toupper('a') = '"); char u[2] = {(char)up, 0}; lt_s(u); lt_s("'\n");
    lt_s("labs("); lt_d(-100000L * argc); lt_s(") = "); lt_d(l); lt_s("\n");
    lt_s("abs("); lt_d(-7 * argc); lt_s(") = "); lt_d(q); lt_s("\n");
    lt_s("calloc(2, 8) = "); lt_p(z); lt_s("\n");
    lt_s("free("); lt_p(z); lt_s(") = <void>\n");
    lt_s("free("); lt_p(p); lt_s(") = <void>\n");
    lt_s("puts(\"done\") = "); lt_d(r); lt_s("\n");
    lt_s("fflush("); lt_p(stdout); lt_s(") = 0\n");
    int status = n == 11 && c < 0 && q == 7 * argc ? 3 : 4;
    lt_s("exit("); lt_d(status); lt_s(" <no return ...>\n");
    lt_s("+++ exited (status "); lt_d(status); lt_s(") +++\n");
    lt_flush();
    exit(status);
}
