/* Writes the Sig* lines of its own /proc/self/status (blocked, ignored,
 * caught) to the file named by argv[1]: what a tracer passed on to the
 * command it launched. `report` is a breakpoint target, `touched` a
 * watchpoint target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int touched;

void report(const char *out)
{
    FILE *in = fopen("/proc/self/status", "r");
    FILE *o = fopen(out, "w");
    char line[256];
    if (!in || !o)
        exit(1);
    while (fgets(line, sizeof line, in))
        if (!strncmp(line, "SigBlk:", 7) || !strncmp(line, "SigIgn:", 7) ||
            !strncmp(line, "SigCgt:", 7))
            fputs(line, o);
    fclose(o);
    fclose(in);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    touched = atoi("7");
    report(argv[1]);
    return 0;
}
