/* rtrace watch --rw test: reads, writes and a read-modify-write of
 * `counter`, each by one instruction between local labels
 * (.Lwp_read_insn/.Lwp_read_next, .Lwp_put_insn/.Lwp_put_next,
 * .Lwp_rmw_insn/.Lwp_rmw_next). No other code touches `counter`.
 * Expected accesses: read 5, write 5->15, read-write 15->16, read 16.
 */
#include <stdio.h>

#include "wp_labels.h"

volatile int counter = 5;

__attribute__((noipa)) int get(void)
{
	int v;
	__asm__ volatile(".Lwp_read_insn:\n\t"
			 "movl %1, %0\n"
			 ".Lwp_read_next:\n"
			 : "=r"(v)
			 : "m"(counter));
	return v;
}

__attribute__((noipa)) void put(int v)
{
	__asm__ volatile(".Lwp_put_insn:\n\t"
			 "movl %1, %0\n"
			 ".Lwp_put_next:\n"
			 : "=m"(counter)
			 : "r"(v));
}

__attribute__((noipa)) void incr(void)
{
	__asm__ volatile(".Lwp_rmw_insn:\n\t"
			 "addl $1, %0\n"
			 ".Lwp_rmw_next:\n"
			 : "+m"(counter));
}

int main(void)
{
	printf("addr counter %p\n", (void *)&counter);
	printf("addr read %p %p\n", LABEL_ADDR(".Lwp_read_insn"), LABEL_ADDR(".Lwp_read_next"));
	printf("addr put %p %p\n", LABEL_ADDR(".Lwp_put_insn"), LABEL_ADDR(".Lwp_put_next"));
	printf("addr rmw %p %p\n", LABEL_ADDR(".Lwp_rmw_insn"), LABEL_ADDR(".Lwp_rmw_next"));
	fflush(stdout);
	int a = get();
	put(a + 10);
	incr();
	int b = get();
	printf("values %d %d\n", a, b);
	return 0;
}
