/* Linked against wp_libvar (built by the test): watches on the library's
 * globals (`rtrace watch lib_total`). Adds 3, 4, 10 and 1 through the
 * library, each changing lib_total and one element of lib_hist, and
 * prints "sum S". */
#include <stdio.h>

void lib_add(long v);
long lib_sum(void);

int main(void)
{
	static const long add[] = {3, 4, 10, 1};
	for (unsigned i = 0; i < sizeof add / sizeof add[0]; i++)
		lib_add(add[i]);
	printf("sum %ld\n", lib_sum());
	return 0;
}
