/* Descriptors of many kinds for -yy: a UNIX stream pair, a UNIX datagram
 * pair, a listening UNIX socket bound to a path (argv[1]), a TCP listener,
 * client and accepted connection on 127.0.0.1, a UDP socket on [::1] (when
 * IPv6 works), a bound NETLINK_ROUTE socket and /dev/null; then one
 * fstat() of each, in that order, and the path is removed. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fds[16], n = 0, sp[2];
	struct stat st;
	if (argc < 2 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return 2;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		return 3;
	fds[n++] = sp[0];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp))
		return 3;
	fds[n++] = sp[0];
	int us = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	strcpy(un.sun_path, argv[1]);
	if (bind(us, (struct sockaddr *)&un, sizeof un) || listen(us, 1))
		return 4;
	fds[n++] = us;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof in;
	if (bind(l, (struct sockaddr *)&in, sizeof in) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&in, &len))
		return 5;
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&in, sizeof in))
		return 5;
	int a = accept(l, NULL, NULL);
	fds[n++] = l;
	fds[n++] = c;
	fds[n++] = a;
	int u = socket(AF_INET6, SOCK_DGRAM, 0);
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	if (u >= 0 && bind(u, (struct sockaddr *)&in6, sizeof in6) == 0)
		fds[n++] = u;
	int nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	struct sockaddr_nl snl = {.nl_family = AF_NETLINK};
	if (nl >= 0 && bind(nl, (struct sockaddr *)&snl, sizeof snl) == 0)
		fds[n++] = nl;
	fds[n++] = open("/dev/null", O_RDONLY);
	for (int i = 0; i < n; i++)
		fstat(fds[i], &st);
	unlink(argv[1]);
	return 0;
}
