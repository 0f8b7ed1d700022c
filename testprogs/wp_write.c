/* rtrace watch test: writes to watched globals.
 *
 * Prints the addresses the test needs ("addr NAME 0x..."), then writes
 * `counter` three times through an instruction with local labels around it
 * (.Lwp_write_insn / .Lwp_write_next: the writing instruction and the pc after
 * it), then once with plain C (the line marked WP_C_WRITE), then `wide`
 * (8 bytes) once. Output lines are what the test compares with the trace.
 */
#include <stdint.h>
#include <stdio.h>

#include "wp_labels.h"

volatile int counter = 41;
volatile uint64_t wide = 0x1122334455667788ull;

__attribute__((noipa)) void bump(int v)
{
	__asm__ volatile(".Lwp_write_insn:\n\t"
			 "movl %1, %0\n"
			 ".Lwp_write_next:\n"
			 : "=m"(counter)
			 : "r"(v));
}

__attribute__((noipa)) void set_c(int v)
{
	counter = v; /* WP_C_WRITE */
}

__attribute__((noipa)) void set_wide(uint64_t v)
{
	wide = v; /* WP_WIDE_WRITE */
}

int main(void)
{
	printf("addr counter %p\n", (void *)&counter);
	printf("addr wide %p\n", (void *)&wide);
	printf("addr insn %p\n", LABEL_ADDR(".Lwp_write_insn"));
	printf("addr next %p\n", LABEL_ADDR(".Lwp_write_next"));
	fflush(stdout);
	bump(42);
	bump(42);
	bump(7);
	set_c(1000);
	set_wide(0xdeadbeefcafef00dull);
	printf("counter %d wide %#llx\n", counter, (unsigned long long)wide);
	return 0;
}
