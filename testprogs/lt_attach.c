/* A long-running program for rltrace -p, driven through its stdin: prints
 * "ready PID", then for each line "go N" calls labs() N times and prints
 * "sum S"; end of input ends it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    char line[64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ready %d\n", getpid());
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "go ", 3) == 0) {
            long n = atol(line + 3), sum = 0;
            for (long i = 0; i < n; i++)
                sum += labs(-i);
            printf("sum %ld\n", sum);
        }
    }
    printf("bye\n");
    return 0;
}
