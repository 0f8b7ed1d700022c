/* Library calls inside library calls, recursion and strings, for the
 * rltrace kernel-backend tests (tests/ltrace_kernel.rs): qsort's comparator
 * calls labs() (calls nested in qsort), a recursive function calls getenv
 * and strlen at each level, strchr/strrchr/getenv return strings (one
 * NULL), a long string is cut at -s, and a signal arrives in a call made
 * from its handler's program. Exits 0 when every result was right. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int cmp_plain(const void *a, const void *b)
{
    long x = labs(*(const long *)a), y = labs(*(const long *)b);
    return (x > y) - (x < y);
}

static int nested;

/* The first comparison sorts another array: qsort inside qsort. */
static int cmp(const void *a, const void *b)
{
    if (!nested++) {
        long w[2] = {7, -6};
        qsort(w, 2, sizeof w[0], cmp_plain);
    }
    return cmp_plain(a, b);
}

static volatile long hits;

static void on_usr1(int sig)
{
    hits += labs(-sig);
}

static long depth(int n)
{
    if (n == 0)
        return 0;
    const char *e = getenv("LTK_NESTED_UNSET_VARIABLE");
    return (e ? 100 : 0) + (long)strlen("abc") + depth(n - 1);
}

int main(void)
{
    long v[5] = {-5, 3, -1, 4, -2};
    qsort(v, 5, sizeof v[0], cmp);
    const char *s = "hello, world";
    char *p = strchr(s, 'w');
    char *q = strrchr(s, 'l');
    char *none = strchr(s, 'z');
    long d = depth(3);
    size_t n = strlen("a string longer than the default thirty-two characters");
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    int ok = v[0] == -1 && q - p == 3 && !none && d == 9 && n == 54 && hits == SIGUSR1;
    return ok ? 0 : 1;
}
