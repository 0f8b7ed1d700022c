/* -O2 backtraces (gcc -O2 -g): f() tail-calls g(), so f's frame is gone
 * when g runs and gdb synthesizes it from DW_TAG_call_site with
 * DW_AT_call_tail_call; g's argument n is dead after its last use, so gdb
 * prints it from the caller's call-site value (DW_OP_entry_value): `n=n@entry=5`
 * while still in its register; lost()'s x, whose call site has no value,
 * is `x=<optimized out>` once clobbered. */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) void use(int v)
{
	sink += v;
}

__attribute__((noinline)) int g(int n)
{
	use(n);
	use(sink);
	return sink + 1;
}

__attribute__((noinline)) int f(int n)
{
	use(sink);
	return g(n);
}

/* x comes from a volatile load: the call site has no value for it, so
 * once dead it is <optimized out>. */
__attribute__((noinline)) int lost(int x)
{
	use(x);
	use(1);
	return 0;
}

__attribute__((noinline)) int h(int k)
{
	int r = f(k + 2);
	use(k);
	return r + 1;
}

int main(void)
{
	int r = h(3);
	lost(sink);
	printf("r %d\n", r);
	return 0;
}
