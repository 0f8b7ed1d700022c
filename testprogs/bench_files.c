/* Benchmark workload: file-heavy work with many openat calls.
 *
 * usage: bench_files [FILES [EXIT_CODE]]
 * In a fresh directory under $TMPDIR (default /tmp) creates FILES (default
 * 3000) files, and for each one: openat/write/close, stat, openat/fstat/
 * read/close, a failing openat of a missing name; then unlinks them all and
 * removes the directory. About 11 syscalls per file, 3 of them openat.
 * Prints one "ok" line on stdout and exits with EXIT_CODE (default 0); any
 * failed check exits 99.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "bench_files: %s %s: %s\n", what, path, strerror(errno));
	return 99;
}

int main(int argc, char **argv)
{
	long files = argc > 1 ? atol(argv[1]) : 3000;
	int exit_code = argc > 2 ? atoi(argv[2]) : 0;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200], missing[4200];
	char data[256], back[sizeof(data)];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/rtrace-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return fail("mkdtemp", dir);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)('a' + i % 26);

	for (long i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/file-%ld", dir, i);
		snprintf(missing, sizeof(missing), "%s/missing-%ld", dir, i);
		int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return fail("create", path);
		if (write(fd, data, sizeof(data)) != (ssize_t)sizeof(data))
			return fail("write", path);
		close(fd);
		if (stat(path, &st) != 0 || st.st_size != (off_t)sizeof(data))
			return fail("stat", path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail("open", path);
		if (fstat(fd, &st) != 0)
			return fail("fstat", path);
		if (read(fd, back, sizeof(back)) != (ssize_t)sizeof(back) ||
		    memcmp(data, back, sizeof(data)) != 0)
			return fail("read", path);
		close(fd);
		if (open(missing, O_RDONLY | O_CLOEXEC) >= 0 || errno != ENOENT)
			return fail("open missing", missing);
	}
	for (long i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/file-%ld", dir, i);
		if (unlink(path) != 0)
			return fail("unlink", path);
	}
	if (rmdir(dir) != 0)
		return fail("rmdir", dir);
	printf("bench_files ok %ld\n", files);
	return exit_code;
}
