/* Linked against wp_libvar (built by the test): watches on the library's
 * globals (`rtrace watch lib_total`). Adds 3, 4, 10 and 1 through the
 * library, each changing lib_total and one element of lib_hist, and
 * prints "sum S". With the argument "stdin" it is a target to attach to
 * instead: prints "ready PID", then for each line "add N" calls
 * lib_add(N) and prints "added N"; "q" (or end of input) prints "sum S". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lib_add(long v);
long lib_sum(void);

int main(int argc, char **argv)
{
	static const long add[] = {3, 4, 10, 1};
	char line[64];
	if (argc > 1 && strcmp(argv[1], "stdin") == 0) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		printf("ready %d\n", getpid());
		while (fgets(line, sizeof line, stdin) && strncmp(line, "add ", 4) == 0) {
			lib_add(atol(line + 4));
			printf("added %ld\n", atol(line + 4));
		}
	} else {
		for (unsigned i = 0; i < sizeof add / sizeof add[0]; i++)
			lib_add(add[i]);
	}
	printf("sum %ld\n", lib_sum());
	return 0;
}
