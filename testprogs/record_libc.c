/* rtrace record --libcalls test program: a few libc calls with known
 * arguments and results, then an exit status chosen on the command line.
 *
 * usage: record_libc WORD NUMBER
 *   strlen(WORD), atoi(NUMBER), getenv("RTRACE_RECORD_UNSET") (NULL),
 *   puts(WORD); exits with atoi(NUMBER) + strlen(WORD).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t n;
	int v;

	if (argc < 3)
		return 99;
	n = strlen(argv[1]);
	v = atoi(argv[2]);
	if (getenv("RTRACE_RECORD_UNSET") != NULL)
		return 98;
	puts(argv[1]);
	fflush(stdout);
	return v + (int)n;
}
