/* Calls puts("call 1") .. puts("call 3") and then reports, with write(2)
 * only (no stdio), the value each puts() returned: "ret 1: 7" ... An
 * injected puts() prints nothing and returns the injected value, which
 * shows the call was not run. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void say(const char *s)
{
    write(1, s, strlen(s));
}

static void num(long v)
{
    char b[24];
    int i = sizeof b;
    int neg = v < 0;
    unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;
    b[--i] = 0;
    do {
        b[--i] = '0' + u % 10;
        u /= 10;
    } while (u);
    if (neg)
        b[--i] = '-';
    say(b + i);
}

int main(void)
{
    int r[3];
    setvbuf(stdout, NULL, _IONBF, 0);
    r[0] = puts("call 1");
    r[1] = puts("call 2");
    r[2] = puts("call 3");
    for (int i = 0; i < 3; i++) {
        say("ret ");
        num(i + 1);
        say(": ");
        num(r[i]);
        say("\n");
    }
    return 0;
}
