/*
 * AF_NETLINK (socket, bind, getsockname), AF_PACKET (a real socket on "lo"
 * when the process may open one, else the address decoded from a call that
 * fails), and values strace prints as numbers: unknown families, types,
 * levels, option names and flags, short and unreadable addresses. Prints
 * the line strace prints for each call (see dec_common.h).
 */
#include "dec_common.h"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

static const char *nl_addr(const struct sockaddr_nl *a)
{
	static char b[2][256];
	static int next;
	char *p = b[next++ % 2];
	char groups[32];
	if (a->nl_groups)
		snprintf(groups, sizeof(groups), "%#08x", a->nl_groups);
	else
		snprintf(groups, sizeof(groups), "00000000");
	snprintf(p, 256, "{sa_family=AF_NETLINK, nl_pid=%d, nl_groups=%s}", (int) a->nl_pid,
		 groups);
	return p;
}

static void netlink(void)
{
	int n = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	expect("socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = %s", retfd(n));
	if (n < 0)
		return;
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	long r = bind(n, (void *) &a, sizeof(a));
	expect("bind(%s, %s, %zu) = %s", fdstr(n), nl_addr(&a), sizeof(a), retstr(r));
	socklen_t len = sizeof(a);
	r = getsockname(n, (void *) &a, &len);
	expect("getsockname(%s, %s, [%u]) = %s", fdstr(n), nl_addr(&a), len, retstr(r));
	int g = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT);
	expect("socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT) = %s", retfd(g));
	int s = socket(AF_NETLINK, SOCK_RAW, 99);
	expect("socket(AF_NETLINK, SOCK_RAW, 0x63 /* NETLINK_??? */) = %s", retfd(s));
	close(n);
	if (g >= 0)
		close(g);
}

/* `{sa_family=AF_PACKET, ...}` of a full sockaddr_ll on "lo". */
static const char *ll_addr(const struct sockaddr_ll *a, const char *proto,
			   const char *hatype)
{
	static char b[512];
	char addr[256] = "";
	if (a->sll_halen) {
		/* Zero bytes print as 00, others as 0x.. (strace's %#0*x). */
		char *p = addr + sprintf(addr, ", sll_addr=[");
		for (int i = 0; i < a->sll_halen; i++) {
			if (a->sll_addr[i])
				p += sprintf(p, "%s%#x", i ? ", " : "", a->sll_addr[i]);
			else
				p += sprintf(p, "%s00", i ? ", " : "");
		}
		strcat(addr, "]");
	}
	snprintf(b, sizeof(b), "{sa_family=AF_PACKET, sll_protocol=htons(%s), "
		 "sll_ifindex=if_nametoindex(\"lo\"), sll_hatype=%s, sll_pkttype=PACKET_HOST, "
		 "sll_halen=%u%s}", proto, hatype, a->sll_halen, addr);
	return b;
}

static void packet(void)
{
	int lo = if_nametoindex("lo");
	int p = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	expect("socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL)) = %s", retfd(p));
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
				 .sll_ifindex = lo, .sll_hatype = 1, .sll_halen = 6,
				 .sll_addr = { 0, 0x12, 0x34, 0, 0, 0xff } };
	int err = errno;
	/* A full address with a hardware address, decoded from a call that fails. */
	int u = socket(AF_UNIX, SOCK_DGRAM, 0);
	long r = connect(u, (void *) &a, sizeof(a));
	expect("connect(%s, %s, %zu) = %s", fdstr(u), ll_addr(&a, "ETH_P_IP", "ARPHRD_ETHER"),
	       sizeof(a), retstr(r));
	close(u);
	if (p < 0) {
		expect("# AF_PACKET sockets not permitted (%s): decoding only", strerror(err));
		return;
	}
	a.sll_halen = 0;
	memset(a.sll_addr, 0, sizeof(a.sll_addr));
	a.sll_hatype = 0;
	r = bind(p, (void *) &a, sizeof(a));
	expect("bind(%s, %s, %zu) = %s", fdstr(p), ll_addr(&a, "ETH_P_IP", "ARPHRD_NETROM"),
	       sizeof(a), retstr(r));
	struct sockaddr_ll got;
	socklen_t len = sizeof(got);
	r = getsockname(p, (void *) &got, &len);
	/* The kernel returns 12 + halen bytes: shorter than sockaddr_ll, raw. */
	if (len < sizeof(got))
		expect("getsockname(%s, {sa_family=AF_PACKET, sa_data=%s}, %s) = %s", fdstr(p),
		       quote((char *) &got + 2, len - 2), lens(sizeof(got), len), retstr(r));
	else
		expect("getsockname(%s, %s, %s) = %s", fdstr(p),
		       ll_addr(&got, "ETH_P_IP", "ARPHRD_LOOPBACK"), lens(sizeof(got), len),
		       retstr(r));
	close(p);
}

static void unknown(void)
{
	long r = socket(46, 0x10 | SOCK_NONBLOCK, 7);
	expect("socket(0x2e /* AF_??? */, SOCK_NONBLOCK|0x10, 7) = %s", retstr(r));
	r = socket(AF_UNIX, 9, 0);
	expect("socket(AF_UNIX, 0x9 /* SOCK_??? */, 0) = %s", retstr(r));
	r = socket(AF_UNIX, SOCK_DGRAM | 0x100000, 0);
	expect("socket(AF_UNIX, SOCK_DGRAM|0x100000 /* SOCK_??? */, 0) = %s", retstr(r));
	r = socket(AF_INET, SOCK_RAW, 253);
	expect("socket(AF_INET, SOCK_RAW, 0xfd /* IPPROTO_??? */) = %s", retfd(r));
	if (r >= 0)
		close(r);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	int one = 1;
	r = setsockopt(s, 999, 999, &one, sizeof(one));
	expect("setsockopt(%s, 0x3e7 /* SOL_?? */, 999, [1], 4) = %s", fdstr(s), retstr(r));
	r = setsockopt(s, IPPROTO_TCP, 999, &one, sizeof(one));
	expect("setsockopt(%s, SOL_TCP, 0x3e7 /* TCP_??? */, [1], 4) = %s", fdstr(s), retstr(r));
	r = sendto(s, "", 0, 0x80000000 | MSG_OOB, NULL, 0);
	expect("sendto(%s, \"\", 0, MSG_OOB|MSG_CMSG_COMPAT, NULL, 0) = %s", fdstr(s), retstr(r));
	r = shutdown(s, 3);
	expect("shutdown(%s, 0x3 /* SHUT_??? */) = %s", fdstr(s), retstr(r));
	/* An address of a family with no decoder: its bytes. */
	struct { unsigned short fam; char data[6]; } odd = { 46, "ab\0cd" };
	r = connect(s, (void *) &odd, sizeof(odd));
	expect("connect(%s, {sa_family=0x2e /* AF_??? */, sa_data=%s}, %zu) = %s", fdstr(s),
	       quote(odd.data, 6), sizeof(odd), retstr(r));
	/* Lengths below 2 print the pointer; an unreadable address its value. */
	r = bind(s, (void *) &odd, 1);
	expect("bind(%s, %p, 1) = %s", fdstr(s), (void *) &odd, retstr(r));
	void *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 4096);
	r = connect(s, gone, 16);
	expect("connect(%s, %p, 16) = %s", fdstr(s), gone, retstr(r));
	r = sendmsg(s, gone, 0);
	expect("sendmsg(%s, %p, 0) = %s", fdstr(s), gone, retstr(r));
	r = sendmsg(s, NULL, MSG_DONTWAIT);
	expect("sendmsg(%s, NULL, MSG_DONTWAIT) = %s", fdstr(s), retstr(r));
	/* A message with a name and an unknown control message level. */
	struct sockaddr_un to = { .sun_family = AF_UNIX, .sun_path = "/nonexistent/dec_net" };
	char cbuf[CMSG_SPACE(4)];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = { "z", 1 };
	struct msghdr m = { .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_len = CMSG_LEN(4);
	c->cmsg_level = 1000;
	c->cmsg_type = 77;
	int u = socket(AF_UNIX, SOCK_DGRAM, 0);
	r = sendmsg(u, &m, 0);
	expect("sendmsg(%s, {msg_name={sa_family=AF_UNIX, sun_path=\"/nonexistent/dec_net\"}, "
	       "msg_namelen=%zu, msg_iov=[{iov_base=\"z\", iov_len=1}], msg_iovlen=1, "
	       "msg_control=[{cmsg_len=%zu, cmsg_level=0x3e8 /* SOL_??? */, cmsg_type=0x4d}], "
	       "msg_controllen=%zu, msg_flags=0}, 0) = %s", fdstr(u), sizeof(to),
	       (size_t) c->cmsg_len, sizeof(cbuf), retstr(r));
	close(u);
	close(s);
}

int main(int argc, char **argv)
{
	dec_init(argc, argv);
	netlink();
	packet();
	unknown();
	expect_flush();
	return 0;
}
