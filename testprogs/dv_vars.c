/* DWARF variables and types, for tests/dwarf_vars.rs.
 *
 * `inspect` stops the process with SIGSTOP sent by an inline `kill`
 * system call (no call into libc, so the stop is in `inspect` itself, frame
 * 0, at a known point after all its locals are set). The test reads its
 * arguments, locals and the globals with rtrace's DWARF reader and with gdb
 * at the same stop, and compares. `main`'s locals are read too, in the
 * caller's frame (registers recovered by the unwinder).
 *
 * With the argument `inline`, the stop is instead in `scale`, inlined
 * into `outer` (inlined-subroutine scopes).
 *
 * Covers: integers of every size and sign, char, _Bool, float, double, an
 * enum, `const char *`, a struct by value and by pointer, a union, an
 * array, a bitfield, nested structs, a lexical block, globals (a struct
 * with a nested struct, an array of long, a function pointer).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))

enum color { RED, GREEN = 5, BLUE };

struct point {
	int x;
	int y;
};

struct config {
	int limit;
	const char *name;
	struct point origin;
	enum color color;
	unsigned flags : 3;
	signed level : 4;
	double ratio;
};

union word {
	unsigned int u;
	unsigned char b[4];
};

typedef struct point point_t;

struct config config = { 42, "global-config", { 3, -4 }, BLUE, 5, -3, 0.25 };
int counter = 7;
long table[5] = { 10, -20, 30, -40, 50 };
unsigned long long big_global = 0xfedcba9876543210ULL;
const char *greeting = "hello, world: a string longer than thirty-two bytes";
int (*callback)(const char *) = puts;
volatile int sink;

/* SIGSTOP to ourselves with no libc frame on top. */
#if defined(__x86_64__)
#define STOP_HERE()                                                          \
	do {                                                                 \
		long pid_ = getpid(), r_;                                    \
		__asm__ volatile("syscall"                                   \
				 : "=a"(r_)                                  \
				 : "0"((long)SYS_kill), "D"(pid_),           \
				   "S"((long)SIGSTOP)                        \
				 : "rcx", "r11", "memory");                  \
		(void)r_;                                                    \
	} while (0)
#else
#define STOP_HERE() raise(SIGSTOP)
#endif

NOINLINE int inspect(int n, unsigned char c, short s, long long big,
		     const char *msg, struct point p, point_t *pp,
		     enum color col, double d, float f, _Bool ok)
{
	int local_sum = n + p.x + pp->y;
	unsigned int mask = 0xdeadbeefu;
	int arr[4] = { n, n * 2, n * 3, n * 4 };
	union word w = { .u = 0x01020304 };
	struct point *none = 0;
	{
		long inner = (long)local_sum * 1000 + c;
		sink = (int)inner;
		STOP_HERE();
		sink += arr[n & 3] + (int)w.b[1] + (none == 0);
	}
	sink += mask + s + (int)big + (msg[0] == 'x') + col + (int)d +
		(int)f + ok;
	return local_sum;
}

/* Inlined into `outer` at every optimization level: frame 0 at the stop is
 * this inlined subroutine, frame 1 (same registers) is `outer`. */
static inline __attribute__((always_inline)) int scale(int v, int k)
{
	int scaled = v * k;

	sink = scaled;
	STOP_HERE();
	return scaled + sink;
}

NOINLINE int outer(int a)
{
	int base = a + 1;

	return scale(base, 3) + base;
}

int main(int argc, char **argv)
{
	struct point origin = { 11, -12 };
	point_t other = { 100, 200 };
	int rounds = 3;
	int total = 0;

	if (argc > 1 && argv[1][0] == 'i') {
		printf("%d\n", outer(argc + 5));
		return 0;
	}
	for (int i = 0; i < rounds; i++) {
		if (i == 1)
			total += inspect(5, 'A', -300, -1234567890123LL,
					 "message", origin, &other, GREEN,
					 3.5, -0.5f, 1);
		else
			total += i;
	}
	printf("%d %d\n", total, (sink + counter) != 0 && callback != 0);
	return 0;
}
