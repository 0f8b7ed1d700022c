/* Data for -e read=/-e write= dumps: fixed bytes through a pipe (fds 3, 4)
 * and a socket pair (fds 5, 6), with plain, vectored, msghdr and mmsghdr
 * calls, a failed write (fd 9 is closed) and a buffer of 40 bytes that
 * spans three dump lines. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int main(void)
{
	char b[64];
	int p[2], s[2];
	if (pipe(p) || p[0] != 3 || socketpair(AF_UNIX, SOCK_DGRAM, 0, s) || s[0] != 5)
		return 2;
	const char *long_line = "0123456789abcdefghijklmnopqrstuvwxyz\t\x01\xff~";
	if (write(4, long_line, 40) != 40 || read(3, b, sizeof b) != 40)
		return 3;
	if (write(9, "bad", 3) != -1)
		return 4;
	struct iovec v[3] = {{"ab", 2}, {"", 0}, {"cdefghijklmnopqrstuvwxyz", 24}};
	if (writev(4, v, 3) != 26)
		return 5;
	struct iovec r[2] = {{b, 5}, {b + 5, 30}};
	if (readv(3, r, 2) != 26)
		return 6;
	struct iovec mv[2] = {{"msg-", 4}, {"data", 4}};
	struct msghdr m = {.msg_iov = mv, .msg_iovlen = 2};
	if (sendmsg(5, &m, 0) != 8)
		return 7;
	struct iovec rv[1] = {{b, sizeof b}};
	struct msghdr rm = {.msg_iov = rv, .msg_iovlen = 1};
	if (recvmsg(6, &rm, 0) != 8)
		return 8;
	struct iovec x[1] = {{"one", 3}}, y[1] = {{"second", 6}};
	struct mmsghdr mm[2] = {{.msg_hdr = {.msg_iov = x, .msg_iovlen = 1}},
				{.msg_hdr = {.msg_iov = y, .msg_iovlen = 1}}};
	if (sendmmsg(5, mm, 2, 0) != 2)
		return 9;
	char b1[16], b2[16];
	struct iovec rx[1] = {{b1, sizeof b1}}, ry[1] = {{b2, sizeof b2}};
	struct mmsghdr rmm[2] = {{.msg_hdr = {.msg_iov = rx, .msg_iovlen = 1}},
				 {.msg_hdr = {.msg_iov = ry, .msg_iovlen = 1}}};
	if (recvmmsg(6, rmm, 2, 0, NULL) != 2)
		return 10;
	return 0;
}
