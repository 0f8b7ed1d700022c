/* rtrace watch test: parts of globals typed by DWARF (struct members, an
 * enum, an array element, a double, a signed short), each written once.
 */
#include <stdio.h>

enum color { RED, GREEN, BLUE };

struct point {
	int x;
	int y;
};

struct config {
	struct point origin;
	enum color color;
	short level;
	double scale;
};

volatile struct config config = { { 1, 2 }, RED, 3, 1.5 };
volatile int table[4] = { 10, 20, 30, 40 };

int main(void)
{
	config.origin.y = 5;
	config.color = BLUE;
	table[2] = 33;
	config.scale = 2.5;
	config.level = -7;
	printf("y %d color %d table %d scale %g level %d\n", config.origin.y, config.color, table[2],
	       config.scale, config.level);
	return 0;
}
