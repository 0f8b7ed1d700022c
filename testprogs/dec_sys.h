/* Shared helpers of the dec_sys_* test programs: each program makes system
 * calls and prints, for each, the exact line strace 6.1 prints for it (the
 * way strace's own tests/ programs do); tests/decode_sys.rs checks that
 * rstrace's output (and the installed strace's) contains those lines. */
#ifndef DEC_SYS_H
#define DEC_SYS_H
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

/* The text after " = " for a call that returned `rc` with errno `err`. */
static inline const char *sret(long rc, int err)
{
	static char buf[8][200];
	static int i;
	char *b = buf[i++ % 8];
	if (rc == -1)
		snprintf(b, 200, "-1 %s (%s)", strerrorname_np(err), strerror(err));
	else
		snprintf(b, 200, "%ld", rc);
	return b;
}

/* Runs `expr`, keeping its result in `rc` and errno in `err`. */
#define CALL(expr) ((void)(errno = 0, rc = (long)(expr), err = errno))
/* The return text of the last CALL. */
#define RET sret(rc, err)

#endif
