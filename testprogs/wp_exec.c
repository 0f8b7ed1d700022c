/* rtrace watch --exec test: `target` runs three times; the instruction at
 * .Lwp_exec_insn (inside `target`) runs three times too.
 */
#include <stdio.h>

#include "wp_labels.h"

volatile int sink;

__attribute__((noipa)) void target(int v)
{
	sink = v;
	__asm__ volatile(".Lwp_exec_insn:\n\t"
			 "nop\n");
}

int main(void)
{
	printf("addr target %p\n", (void *)target);
	printf("addr insn %p\n", LABEL_ADDR(".Lwp_exec_insn"));
	fflush(stdout);
	for (int i = 1; i <= 3; i++)
		target(i);
	printf("sink %d\n", sink);
	return 0;
}
