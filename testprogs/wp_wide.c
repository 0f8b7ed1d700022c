/* Watches wider than 8 bytes (`rtrace watch arr`: several debug
 * registers): a 32-byte array and a 24-byte struct, written element by
 * element, member by member, and once 16 bytes at a time across two
 * registers' pieces. Every write changes the object (gdb reports only
 * changes). Prints "arr A0 A1 A2 A3 rec ID TAG TOTAL" at the end. */
#include <stdio.h>
#include <string.h>

long arr[4];

struct rec {
	int id;
	short tag;
	short flags[3];
	long total;
} rec;

__attribute__((noinline)) void put(long *p, long v)
{
	*p = v;
}

__attribute__((noinline)) void fill(struct rec *r)
{
	r->id = 7;
	r->tag = 3;
	r->flags[1] = -2;
	r->total = 1000;
	r->flags[2] = 9;
}

int main(void)
{
	long two[2] = {11, 12};
	put(&arr[0], 1);
	put(&arr[2], 5);
	put(&arr[3], -7);
	arr[1] = arr[2] + 1;
	memcpy(&arr[1], two, sizeof two);
	fill(&rec);
	printf("arr %ld %ld %ld %ld rec %d %d %ld\n", arr[0], arr[1], arr[2], arr[3],
	       rec.id, rec.tag, rec.total);
	return 0;
}
