/* Calls compute(i, "k_calls") argv[1] times (default 5) and prints the sum
 * of the results; compute returns n * 3 - 7 + strlen(s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long compute(int n, const char *s) {
    return (long)n * 3 - 7 + (long)strlen(s);
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 5;
    long sum = 0;
    for (int i = 0; i < count; i++)
        sum += compute(i, "k_calls");
    printf("sum=%ld\n", sum);
    return 0;
}
