/* Reads lines from stdin and writes "got <line>" to stdout for each; at
 * EOF prints "total <n>" and exits 0. Used for attach/detach tests: the
 * test drives it through a pipe, so no sleeps are needed. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    char buf[256];
    int n = 0;
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(buf, sizeof buf, stdin)) {
        n++;
        printf("got %s", buf);
    }
    printf("total %d\n", n);
    return 0;
}
