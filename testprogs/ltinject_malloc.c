/* Calls malloc() argv[1] times (default 5) and prints what each call
 * returned ("malloc N: null" or "malloc N: ok"), then whether errno was
 * set to ENOMEM after a null result: the --inject tests compare this, the
 * program's own observation, with what rltrace reports. It ends with
 * exit(), a call that never returns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    for (int i = 1; i <= n; i++) {
        errno = 0;
        char *p = malloc(100 + i);
        int e = errno;
        if (p) {
            memset(p, 'x', 100 + i);
            printf("malloc %d: ok\n", i);
            free(p);
        } else {
            printf("malloc %d: null errno=%s\n", i, e == ENOMEM ? "ENOMEM" : e == 0 ? "0" : "other");
        }
    }
    fflush(stdout);
    exit(0);
}
