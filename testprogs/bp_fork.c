/* Calls work() 100 times, forks a child that calls it 1000 times and
 * prints its sum, then calls it 100 more times and prints its own sum.
 * An unfollowed child must run untouched (no breakpoint left in it). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long work(long i)
{
    return i + 1;
}

int main(void)
{
    long sum = 0;
    for (int i = 0; i < 100; i++)
        sum += work(i);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        long s = 0;
        for (int i = 0; i < 1000; i++)
            s += work(i);
        printf("child %ld\n", s);
        return 0;
    }
    int st;
    waitpid(c, &st, 0);
    for (int i = 0; i < 100; i++)
        sum += work(i);
    printf("parent %ld child-status %d\n", sum, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
