/*
 * AF_INET and AF_INET6 on loopback: a TCP connection (bind, listen,
 * getsockname, connect, accept4, getpeername, sendto/recvfrom), UDP over
 * IPv6 with addresses, sendmmsg/recvmmsg, and IP/IPv6/TCP options. Prints
 * the line strace prints for each call (see dec_common.h).
 */
#include "dec_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static const char *in4(const struct sockaddr_in *a)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
	snprintf(b, 256, "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%s\")}",
		 ntohs(a->sin_port), ip);
	return b;
}

static const char *in6(const struct sockaddr_in6 *a)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];
	char ip[INET6_ADDRSTRLEN];
	inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
	snprintf(b, 256, "{sa_family=AF_INET6, sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
		 "inet_pton(AF_INET6, \"%s\", &sin6_addr), sin6_scope_id=%u}",
		 ntohs(a->sin6_port), ntohl(a->sin6_flowinfo), ip, a->sin6_scope_id);
	return b;
}

static void tcp4(void)
{
	int l = socket(AF_INET, SOCK_STREAM, 0);
	expect("socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = %s", retfd(l));
	int one = 1;
	long r = setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	expect("setsockopt(%s, SOL_SOCKET, SO_REUSEADDR, [1], 4) = %s", fdstr(l), retstr(r));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	r = bind(l, (void *) &a, sizeof(a));
	expect("bind(%s, %s, 16) = %s", fdstr(l), in4(&a), retstr(r));
	r = listen(l, 5);
	expect("listen(%s, 5) = %s", fdstr(l), retstr(r));
	socklen_t len = sizeof(a);
	r = getsockname(l, (void *) &a, &len);
	expect("getsockname(%s, %s, [%u]) = %s", fdstr(l), in4(&a), len, retstr(r));

	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	expect("socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = %s", retfd(c));
	r = connect(c, (void *) &a, sizeof(a));
	expect("connect(%s, %s, 16) = %s", fdstr(c), in4(&a), retstr(r));
	struct sockaddr_storage ss;
	len = sizeof(ss);
	int s = accept4(l, (void *) &ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
	expect("accept4(%s, %s, [%zu => %u], SOCK_CLOEXEC|SOCK_NONBLOCK) = %s", fdstr(l),
	       in4((void *) &ss), sizeof(ss), len, retfd(s));
	struct sockaddr_in peer;
	len = sizeof(peer);
	r = getpeername(c, (void *) &peer, &len);
	expect("getpeername(%s, %s, [%u]) = %s", fdstr(c), in4(&peer), len, retstr(r));

	r = setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	expect("setsockopt(%s, SOL_TCP, TCP_NODELAY, [1], 4) = %s", fdstr(c), retstr(r));
	int v = 0;
	len = sizeof(v);
	r = getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, &len);
	expect("getsockopt(%s, SOL_TCP, TCP_NODELAY, [%d], [%u]) = %s", fdstr(c), v, len,
	       retstr(r));
	char cc[16] = "";
	len = sizeof(cc);
	r = getsockopt(c, IPPROTO_TCP, TCP_CONGESTION, cc, &len);
	expect("getsockopt(%s, SOL_TCP, TCP_CONGESTION, %s, %s) = %s", fdstr(c),
	       quote(cc, len), lens(sizeof(cc), len), retstr(r));
	int tos = 0x10;
	r = setsockopt(c, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	expect("setsockopt(%s, SOL_IP, IP_TOS, [16], 4) = %s", fdstr(c), retstr(r));

	r = sendto(c, "abc", 3, MSG_NOSIGNAL, NULL, 0);
	expect("sendto(%s, \"abc\", 3, MSG_NOSIGNAL, NULL, 0) = %s", fdstr(c), retstr(r));
	char in[16];
	/* A connected stream socket leaves the address empty: the pointer prints. */
	len = sizeof(ss);
	r = recvfrom(s, in, sizeof(in), 0, (void *) &ss, &len);
	expect("recvfrom(%s, %s, %zu, 0, %p, [%zu => %u]) = %s", fdstr(s), quote(in, r),
	       sizeof(in), (void *) &ss, sizeof(ss), len, retstr(r));
	r = recvfrom(s, in, sizeof(in), MSG_DONTWAIT, NULL, NULL);
	expect("recvfrom(%s, %p, %zu, MSG_DONTWAIT, NULL, NULL) = %s", fdstr(s), (void *) in,
	       sizeof(in), retstr(r));
	close(s);
	close(c);
	close(l);
}

static void udp6(void)
{
	int u = socket(AF_INET6, SOCK_DGRAM, IPPROTO_UDP);
	expect("socket(AF_INET6, SOCK_DGRAM, IPPROTO_UDP) = %s", retfd(u));
	if (u < 0) {
		expect("# no IPv6 here: %s", strerror(errno));
		return;
	}
	int one = 1;
	long r = setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	expect("setsockopt(%s, SOL_IPV6, IPV6_V6ONLY, [1], 4) = %s", fdstr(u), retstr(r));
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	r = bind(u, (void *) &a, sizeof(a));
	expect("bind(%s, %s, %zu) = %s", fdstr(u), in6(&a), sizeof(a), retstr(r));
	if (r < 0) {
		expect("# no IPv6 loopback here");
		return;
	}
	socklen_t len = sizeof(a);
	r = getsockname(u, (void *) &a, &len);
	expect("getsockname(%s, %s, [%u]) = %s", fdstr(u), in6(&a), len, retstr(r));

	int t = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	expect("socket(AF_INET6, SOCK_DGRAM|SOCK_NONBLOCK, IPPROTO_IP) = %s", retfd(t));
	r = sendto(t, "x\1", 2, 0, (void *) &a, sizeof(a));
	expect("sendto(%s, \"x\\1\", 2, 0, %s, %zu) = %s", fdstr(t), in6(&a), sizeof(a),
	       retstr(r));
	struct sockaddr_in6 from;
	len = sizeof(from);
	char in[8];
	r = recvfrom(u, in, sizeof(in), 0, (void *) &from, &len);
	expect("recvfrom(%s, %s, %zu, 0, %s, [%u]) = %s", fdstr(u), quote(in, r), sizeof(in),
	       in6(&from), len, retstr(r));

	/* Two messages at once each way. */
	r = connect(t, (void *) &a, sizeof(a));
	expect("connect(%s, %s, %zu) = %s", fdstr(t), in6(&a), sizeof(a), retstr(r));
	struct iovec iov[2] = { { "one", 3 }, { "two!", 4 } };
	struct mmsghdr mm[2];
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	r = sendmmsg(t, mm, 2, 0);
	expect("sendmmsg(%s, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"one\", "
	       "iov_len=3}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=%u}, "
	       "{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"two!\", iov_len=4}], "
	       "msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=%u}], 2, 0) = %s",
	       fdstr(t), mm[0].msg_len, mm[1].msg_len, retstr(r));

	char b0[8], b1[8];
	struct iovec riov[2] = { { b0, sizeof(b0) }, { b1, sizeof(b1) } };
	struct sockaddr_in6 src[2];
	struct mmsghdr rm[2];
	memset(rm, 0, sizeof(rm));
	for (int i = 0; i < 2; i++) {
		rm[i].msg_hdr.msg_name = &src[i];
		rm[i].msg_hdr.msg_namelen = sizeof(src[i]);
		rm[i].msg_hdr.msg_iov = &riov[i];
		rm[i].msg_hdr.msg_iovlen = 1;
	}
	struct timespec tmo = { 5, 0 };
	r = recvmmsg(u, rm, 2, MSG_WAITFORONE, &tmo);
	expect("recvmmsg(%s, [{msg_hdr={msg_name=%s, msg_namelen=%u, msg_iov=[{iov_base=%s, "
	       "iov_len=8}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=%u}, "
	       "{msg_hdr={msg_name=%s, msg_namelen=%u, msg_iov=[{iov_base=%s, iov_len=8}], "
	       "msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=%u}], 2, MSG_WAITFORONE, "
	       "{tv_sec=5, tv_nsec=0}) = %s (left {tv_sec=%lld, tv_nsec=%ld})",
	       fdstr(u), in6(&src[0]), rm[0].msg_hdr.msg_namelen, quote(b0, rm[0].msg_len),
	       rm[0].msg_len, in6(&src[1]), rm[1].msg_hdr.msg_namelen, quote(b1, rm[1].msg_len),
	       rm[1].msg_len, retstr(r), (long long) tmo.tv_sec, tmo.tv_nsec);
	close(t);
	close(u);
}

static void multicast(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	expect("socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = %s", retfd(s));
	struct ip_mreq mr = { .imr_multiaddr.s_addr = htonl(0xe0000001),
			      .imr_interface.s_addr = htonl(INADDR_LOOPBACK) };
	long r = setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
	expect("setsockopt(%s, SOL_IP, IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr(\"224.0.0.1\"), "
	       "imr_interface=inet_addr(\"127.0.0.1\")}, %zu) = %s", fdstr(s), sizeof(mr),
	       retstr(r));
	int ttl = 0;
	socklen_t len = sizeof(ttl);
	r = getsockopt(s, IPPROTO_IP, IP_TTL, &ttl, &len);
	expect("getsockopt(%s, SOL_IP, IP_TTL, [%d], [%u]) = %s", fdstr(s), ttl, len, retstr(r));
	/* Bytes that are not an address of the family print as sa_data. */
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(80),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	r = connect(s, (void *) &a, 8);
	expect("connect(%s, {sa_family=AF_INET, sa_data=%s}, 8) = %s", fdstr(s),
	       quote((char *) &a + 2, 6), retstr(r));
	close(s);
}

int main(int argc, char **argv)
{
	dec_init(argc, argv);
	tcp4();
	udp6();
	multicast();
	expect_flush();
	return 0;
}
