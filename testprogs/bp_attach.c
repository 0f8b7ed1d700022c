/* A long-running program for attach tests, driven through its stdin:
 * prints "ready PID ADDR" (ADDR: tick's address), then for each line
 * "go N" calls tick() N times and prints "sum S"; "quit" ends it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) long tick(long i)
{
    return i % 7;
}

int main(void)
{
    char line[64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ready %d %p\n", getpid(), (void *)tick);
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "go ", 3) == 0) {
            long n = atol(line + 3), sum = 0;
            for (long i = 0; i < n; i++)
                sum += tick(i);
            printf("sum %ld\n", sum);
        } else if (strncmp(line, "quit", 4) == 0) {
            break;
        }
    }
    printf("bye\n");
    return 0;
}
