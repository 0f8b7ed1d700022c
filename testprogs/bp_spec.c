/* For refused breakpoint specs: creates the file named in argv[1] first
 * thing (so a test sees whether the program ran at all); with a second
 * argument prints "ready" and waits for a line on stdin (to be attached
 * to); then calls work(i) and bump() 10 times each. */
#include <stdio.h>

static long total;

long work(long n)
{
    long twice = n * 2;
    total += twice;
    return twice;
}

void bump(void)
{
    total++;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (f)
            fclose(f);
    }
    if (argc > 2) {
        char line[16];
        printf("ready\n");
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin))
            return 1;
    }
    for (long i = 0; i < 10; i++) {
        work(i);
        bump();
    }
    printf("total %ld\n", total);
    return 0;
}
