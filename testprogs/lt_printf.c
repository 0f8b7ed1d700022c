/* printf formats whose width and precision decide what ltrace shows of a
 * %s argument (ltrace's own parameters test has %10s, %.s and %.*s), and
 * a '*' before it in another conversion (%*d %s):
 * tests/ltrace/ltrace_printf.rs compares rltrace with ltrace 0.7.3. */
#include <stdio.h>

int main(void)
{
	printf("%10s|%-5d|%.2s|%.*s|%5.1s\n", "abc", 42, "hello", 3, "world", "xyz");
	printf("[%.s][%5.3s][%-*.*s][%*d][%.0s][%3.10s]\n", "abc", "hello", 6, 2,
	       "world", 4, 7, "zz", "ab");
	printf("%2s|%2.4s|%6.2s|%.1s|%-2s\n", "hello", "hello", "hello", "hello",
	       "hello");
	printf("%*s|%.*s|%5.*s|%*.3s|%*.0s\n", 2, "hello", 0, "hello", 2, "hello",
	       6, "hello", 6, "hello");
	printf("%-.2s|%0.2s|%12.2s|%1.2s|%3.s|%2.2s\n", "hello", "hello", "hello",
	       "hello", "hello", "hello");
	printf("%*.*s|%*.*s\n", 1, 4, "hello", 4, 0, "hello");
	printf("%x %o %#x %lu %c %%\n", 255u, 8u, 16u, 123456789ul, 'A');
	/* A '*' of another conversion limits the next %s to the value of the
	 * argument before it, whatever that %s's own width or precision. */
	printf("%*d %s|%-*d|%s|%*x %.9s\n", 3, 42, "hello", 4, 3, "abcdefgh", 3,
	       2u, "hello");
	printf("%*d %p %s|%*d %s %s|%*d %5.3s|%*d %.0s\n", 3, 42, (void *)3,
	       "hello", 2, 1, "hello", "world", 1, 4, "hello", 1, 2, "hello");
	printf("%*d %f %s|%*d %f %s\n", 3, 42, 0.0, "hello", 3, 42, 2.5, "hello");
	return 0;
}
