/* printf-family calls whose formats have no floating-point conversion, for
 * rltrace's kernel backend (tests/ltrace/ltrace_kprintf.rs): integer, char,
 * string and pointer conversions, flags, widths and precisions, arguments
 * on the stack (a %s among them), and the output buffers of sprintf and
 * snprintf (truncated, and of size 0). Built with -DWITH_FLOAT, it also
 * holds a %f format, which keeps printf on a ptrace breakpoint. With an
 * argument, it makes a format at run time from it ("%" ARG "\n") and
 * prints 2.5 with it. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char buf[64], small[8], made[8];
	const char *name = "world";

	printf("%d %u %x %ld %c %s %p %p %%\n", -42, 3000000000u, 0xbeefu,
	       -1234567890123L, 'q', name, (void *)0x1234, (void *)0);
	printf("[%5d|%-5d|%05d|%.3d|%+d|% d|%X|%#x|%#o]\n", 42, 42, -42, 7, 5,
	       5, 255u, 255u, 8u);
	printf("[%10s|%-8s|%.2s|%.*s|%*d]\n", "abc", "ab", "hello", 3, "world",
	       6, 9);
	/* Apart: ltrace 0.7.3 limits a %s after a %*d to the %d's value. */
	printf("%s\n", "a string longer than thirty-two characters");
	/* That limit (the value of the argument before the %s). */
	printf("%*d %s|%-*d|%s|%*d %.9s\n", 3, 42, "hello", 4, 3, "abcdefgh", 1,
	       2, "hello");
	sprintf(buf, "%s-%d-%c-%x-%5.2s|", name, 17, 'z', 0xabcu, "xyz");
	puts(buf);
	snprintf(small, sizeof small, "%s:%05d", "truncated", 12);
	snprintf(buf, sizeof buf, "%lu/%lld/%-4d|%hhd|%hu", 18446744073709551615ul,
		 -5LL, 3, 300, 70000);
	puts(buf);
	snprintf(NULL, 0, "%d", 12345);
	fprintf(stdout, "%s=%d %s %s %s %s\n", "key", 1, "s3", "s4", "s5",
		"s6");
#ifdef WITH_FLOAT
	printf("%f %d\n", 1.5, 3);
#endif
	if (argc > 1) {
		snprintf(made, sizeof made, "%%%s\n", argv[1]);
		printf(made, 2.5);
	}
	fflush(stdout);
	return 0;
}
