/* Arguments, locals and conditions on program variables for
 * tests/breakpoint.rs: `visit` is called 20 times with known arguments of
 * each kind (int, enum, char *, struct pointer); the test checks what
 * `rtrace break visit` prints at each call against these values, and exact
 * hit counts of conditions over them.
 *
 * Call i (0..19): n = i, m = i odd ? SLOW : FAST, s = names[i % 3],
 * p = &pts[i % 4] where pts[k] = { k, 10 * k }. The program prints the
 * address of pts, so the test can check the pointer's value.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noipa))

enum mode { FAST, SLOW = 3, BEST };

struct point {
	int x;
	int y;
};

volatile long sink;

NOINLINE int visit(int n, enum mode m, const char *s, struct point *p)
{
	int sum = n + p->x;
	long twice = 2L * sum + m;
	sink += twice + s[0]; /* LOCALS */
	return (int)twice;
}

static const char *names[3] = { "alpha", "beta", "a longer string" };
static struct point pts[4] = { { 0, 0 }, { 1, 10 }, { 2, 20 }, { 3, 30 } };

int main(void)
{
	long total = 0;
	printf("pts %p\n", (void *)pts);
	for (int i = 0; i < 20; i++)
		total += visit(i, i % 2 ? SLOW : FAST, names[i % 3], &pts[i % 4]);
	printf("total %ld\n", total);
	return 0;
}
