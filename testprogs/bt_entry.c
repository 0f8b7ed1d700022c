/* Parameters of -O2 code (gcc -O2 -g) whose values come from the
 * caller's DWARF call sites (DW_OP_entry_value, DW_TAG_call_site_parameter):
 * at each stop in leaf(), gdb's `bt` shows its caller's parameter as
 *   same:    n=n@entry=5        (still the value it was called with)
 *   changed: n=20, n@entry=5    (reassigned; the call site still says 5)
 *   dead:    n=n@entry=7        (its register reused: only the entry value)
 *   lost:    n=33, then n=<optimized out> (the call site has no value)
 *   pair:    both forms at once, two parameters.
 * Each function is called with constants, so each call site has a value. */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) void leaf(int v)
{
	sink += v;
}

__attribute__((noinline)) int same(int n)
{
	leaf(n);
	return n + sink;
}

__attribute__((noinline)) int changed(int n)
{
	n = n * 3 + sink;
	leaf(n);
	return n + sink;
}

__attribute__((noinline)) int dead(int n)
{
	leaf(n);
	leaf(1);
	return 0;
}

/* n comes from a volatile load: the call site has no value for it. */
__attribute__((noinline)) int lost(int n)
{
	leaf(n);
	leaf(2);
	return 0;
}

__attribute__((noinline)) int pair(int a, int b)
{
	leaf(a);
	leaf(b + sink);
	return b;
}

int main(void)
{
	int r = same(5);
	r += changed(5);
	r += dead(7);
	r += lost(sink);
	r += pair(11, 12);
	printf("r %d\n", r);
	return 0;
}
