/*
 * Helpers of the decoder test programs (dec_*.c): each program makes system
 * calls and prints, for each, the exact line strace prints for it, built
 * from the real descriptors, addresses and results (the way strace's own
 * tests/ programs do). The lines are collected and written at exit, so the
 * program's own output adds no system calls between the ones it checks.
 *
 * Run with "-y" as the first argument, descriptors print as strace -y
 * prints them: 3<socket:[12345]>, 4</dev/null>.
 */
#ifndef DEC_COMMON_H
#define DEC_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int dec_y;            /* -y: descriptors with their paths */
static char *dec_out;        /* the expected lines */
static size_t dec_len, dec_cap;

/* Appends one formatted expected line (a newline is added). */
static void expect(const char *fmt, ...)
{
	char line[16384];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t) n >= sizeof(line))
		abort();
	if (dec_len + n + 2 > dec_cap) {
		dec_cap = (dec_len + n + 2) * 2;
		dec_out = realloc(dec_out, dec_cap);
		if (!dec_out)
			abort();
	}
	memcpy(dec_out + dec_len, line, n);
	dec_len += n;
	dec_out[dec_len++] = '\n';
}

/* Writes the expected lines to stdout (call last). */
static void expect_flush(void)
{
	size_t off = 0;
	while (off < dec_len) {
		ssize_t w = write(1, dec_out + off, dec_len - off);
		if (w <= 0)
			break;
		off += w;
	}
}

static void dec_init(int argc, char **argv)
{
	dec_y = argc > 1 && !strcmp(argv[1], "-y");
}

/* A descriptor as strace prints it (with -y: 3<path>); rotating buffers. */
__attribute__((unused)) static const char *fdstr(int fd)
{
	static char bufs[16][512];
	static int next;
	char *b = bufs[next++ % 16];
	if (!dec_y || fd < 0) {
		snprintf(b, 512, "%d", fd);
		return b;
	}
	char link[64], path[400];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n < 0) {
		snprintf(b, 512, "%d", fd);
		return b;
	}
	path[n] = 0;
	snprintf(b, 512, "%d<%s>", fd, path);
	return b;
}

/* " = R" for a call that returned r (errno set when r is -1). */
__attribute__((unused)) static const char *retstr(long r)
{
	static char bufs[8][256];
	static int next;
	char *b = bufs[next++ % 8];
	if (r == -1)
		snprintf(b, 256, "-1 %s (%s)", strerrorname_np(errno), strerror(errno));
	else
		snprintf(b, 256, "%ld", r);
	return b;
}

/* A length the caller offered and the kernel returned: [U] or [U => R]. */
__attribute__((unused)) static const char *lens(unsigned int u, unsigned int r)
{
	static char bufs[8][64];
	static int next;
	char *b = bufs[next++ % 8];
	if (u == r)
		snprintf(b, 64, "[%u]", r);
	else
		snprintf(b, 64, "[%u => %u]", u, r);
	return b;
}

/* A returned descriptor (with -y, its path). */
__attribute__((unused)) static const char *retfd(long r)
{
	return r < 0 ? retstr(r) : fdstr((int) r);
}

/*
 * Bytes quoted as strace's string_quote quotes them (no -x): C escapes for
 * \t \n \v \f \r, octal for other non-printable bytes (shortest form unless
 * a digit follows).
 */
__attribute__((unused)) static const char *quote(const void *data, size_t len)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8], *p = b;
	const unsigned char *s = data;
	*p++ = '"';
	for (size_t i = 0; i < len && p < b + 4000; i++) {
		unsigned char c = s[i];
		switch (c) {
		case '"': case '\\': *p++ = '\\'; *p++ = c; break;
		case '\f': *p++ = '\\'; *p++ = 'f'; break;
		case '\n': *p++ = '\\'; *p++ = 'n'; break;
		case '\r': *p++ = '\\'; *p++ = 'r'; break;
		case '\t': *p++ = '\\'; *p++ = 't'; break;
		case '\v': *p++ = '\\'; *p++ = 'v'; break;
		default:
			if (c >= ' ' && c <= 0x7e) {
				*p++ = c;
			} else if (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7') {
				p += sprintf(p, "\\%03o", c);
			} else {
				p += sprintf(p, "\\%o", c);
			}
		}
	}
	*p++ = '"';
	*p = 0;
	return b;
}

#endif
