/* A shared library for wp_libmain: its globals `lib_total` (a long) and
 * `lib_hist` (four ints, 16 bytes) are written only by its own code; the
 * program never names them, so they live in the library (no copy
 * relocation into the executable). */
long lib_total;
int lib_hist[4];

void lib_add(long v)
{
	lib_total += v;
	lib_hist[v & 3]++;
}

long lib_sum(void)
{
	return lib_total;
}
