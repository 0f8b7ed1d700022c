/* Calls func1 of libltnest1.so three times; prints the sum (9). */
#include <stdio.h>

int func1(int);

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += func1(i);
	printf("%d\n", s);
	return 0;
}
