/* A program whose trace must reach the tracer's -o file while it runs
 * (tests/output_flush.rs).
 *
 * usage: flush_marks BASE [ROUNDS]
 * mark(K) adds K to the global `marks` (for watchpoints), is a function of
 * its own (for breakpoints), and opens the file "BASE.K", which does not
 * exist, with open() (a library call and an openat system call).
 * The program makes mark(1), mark(2), mark(3); then ROUNDS (default 0)
 * rounds of mark(100 + i) followed by a 10 ms nanosleep, so that events
 * keep coming; then prints "ready", and blocks reading stdin until end of
 * input; then prints "bye" and exits 0. The sleeps are the program's
 * behaviour under test (a program whose events come every 10 ms); the
 * test itself synchronises on "ready". */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

volatile long marks;
static const char *base;

__attribute__((noinline)) void mark(long k)
{
	char path[4096];

	marks += k;
	snprintf(path, sizeof path, "%s.%ld", base, k);
	if (open(path, O_RDONLY) >= 0)
		fprintf(stderr, "flush_marks: %s exists\n", path);
}

int main(int argc, char **argv)
{
	struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
	long rounds = 0;
	char buf[64];

	if (argc < 2) {
		fprintf(stderr, "usage: flush_marks BASE [ROUNDS]\n");
		return 2;
	}
	base = argv[1];
	if (argc > 2)
		sscanf(argv[2], "%ld", &rounds);
	for (long k = 1; k <= 3; k++)
		mark(k);
	for (long i = 0; i < rounds; i++) {
		mark(100 + i);
		nanosleep(&ten_ms, NULL);
	}
	puts("ready");
	fflush(stdout);
	while (read(0, buf, sizeof buf) > 0)
		;
	puts("bye");
	return 0;
}
