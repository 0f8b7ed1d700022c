/* Calls whose prototypes ltrace 0.7.3 knows, in a lazily bound PIE where
 * ltrace works, for the differential test. Returns from main (ltrace
 * misreports exit()). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char buf[32];
    char *p = malloc(16);
    strcpy(p, "hello");
    size_t n = strlen(p);
    int c = strcmp(p, "help");
    memset(buf, 'z', 4);
    char *d = strdup("copy");
    int u = toupper('q');
    long l = labs(-5);
    char *s = strchr(p, 'l');
    int k = strncmp(p, "hex", 2);
    free(d);
    free(p);
    puts("ok");
    return (int)(n + c + u + l + k + (s != NULL) + buf[0]) & 1;
}
