/*
 * Netlink traffic for tests/decode_netlink.rs: a NETLINK_ROUTE socket sends
 * an RTM_GETLINK dump (sendto) and reads the replies (recvfrom, recvmsg)
 * up to NLMSG_DONE; then an NLMSG_NOOP with NLM_F_ACK (acknowledged by an
 * NLMSG_ERROR with error 0 and the capped request) and an unknown message
 * type (NLMSG_ERROR with -EOPNOTSUPP and the whole request echoed).
 *
 * Then crafted messages with attribute lists, sent without NLM_F_REQUEST
 * (the kernel drops those silently, tracers decode them as they decode
 * replies): RTM_NEWLINK (IFLA_*: strings, integers, MAC addresses, stats,
 * nested LINKINFO/XDP/AF_SPEC, short and unknown attributes), RTM_NEWADDR
 * (IFA_* for AF_INET and AF_INET6), RTM_NEWROUTE (rtmsg, RTA_*), a list
 * longer than -s, and on a NETLINK_SOCK_DIAG socket inet_diag_msg and
 * unix_diag_msg replies with their attributes.
 *
 * `dec_netlink dumps` (run in a network namespace of its own, with the
 * tracer: `unshare -n strace … dec_netlink dumps`, so that only its own
 * sockets are listed and the tracer can ask about them) makes real
 * sock_diag dumps of a TCP listener, a UDP socket and a UNIX socket pair it
 * opened (SOCK_DIAG_BY_FAMILY requests and replies).
 *
 * `dec_netlink loop N` only sends N NLMSG_NOOP messages on one socket (the
 * per-call cost test).
 */
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <stdlib.h>
#include <stdint.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/inet_diag.h>
#include <linux/unix_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <arpa/inet.h>

static char buf[65536];

/* Reads replies until NLMSG_DONE or NLMSG_ERROR, alternating recvfrom and recvmsg. */
static void drain(int s)
{
	for (int i = 0; i < 1000; i++) {
		ssize_t n;
		if (i % 2 == 0) {
			struct sockaddr_nl from;
			socklen_t flen = sizeof(from);
			n = recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *) &from, &flen);
		} else {
			struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
			struct sockaddr_nl from;
			struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
					    .msg_iov = &iov, .msg_iovlen = 1 };
			n = recvmsg(s, &m, 0);
		}
		if (n <= 0)
			return;
		for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, (size_t) n);
		     h = NLMSG_NEXT(h, n))
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				return;
	}
}


/* A message being built: header, fixed part, attributes. */
static char msg[8192];
static size_t msg_len;

static void msg_begin(unsigned short type, const void *fixed, size_t len)
{
	memset(msg, 0, sizeof(msg));
	struct nlmsghdr *h = (struct nlmsghdr *) msg;
	h->nlmsg_type = type;
	h->nlmsg_flags = 0;
	h->nlmsg_seq = 100;
	memcpy(msg + NLMSG_HDRLEN, fixed, len);
	msg_len = NLMSG_HDRLEN + NLMSG_ALIGN(len);
}

/* Appends an attribute whose nla_len is `len` + 4 (or `nla_len` when non-zero). */
static size_t attr_raw(unsigned short type, const void *data, size_t len, size_t nla_len)
{
	size_t at = msg_len;
	struct nlattr *a = (struct nlattr *) (msg + at);
	a->nla_type = type;
	a->nla_len = nla_len ? nla_len : NLA_HDRLEN + len;
	if (data)
		memcpy(msg + at + NLA_HDRLEN, data, len);
	msg_len += NLA_ALIGN(NLA_HDRLEN + len);
	return at;
}

static void attr(unsigned short type, const void *data, size_t len)
{
	attr_raw(type, data, len, 0);
}

static void attr_u32(unsigned short type, uint32_t v) { attr(type, &v, 4); }
static void attr_u8(unsigned short type, uint8_t v) { attr(type, &v, 1); }
static void attr_str(unsigned short type, const char *s) { attr(type, s, strlen(s) + 1); }

/* Opens a nested attribute; nest_end fixes its length. */
static size_t nest_begin(unsigned short type) { return attr_raw(type, NULL, 0, 0); }
static void nest_end(size_t at)
{
	((struct nlattr *) (msg + at))->nla_len = msg_len - at;
}

static void msg_send(int s, size_t trim)
{
	((struct nlmsghdr *) msg)->nlmsg_len = msg_len - trim;
	sendto(s, msg, msg_len - trim, MSG_DONTWAIT, NULL, 0);
}

static void route_messages(int s)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_type = 1, .ifi_index = 1,
				 .ifi_flags = 1, .ifi_change = 0xffffffff };
	msg_begin(RTM_NEWLINK, &ifi, sizeof(ifi));
	attr_str(IFLA_IFNAME, "eth7");
	attr(IFLA_IFNAME, "abc", 3);
	attr_str(IFLA_QDISC, "a-very-long-queueing-discipline-name-past-32");
	attr_u32(IFLA_MTU, 1500);
	attr(IFLA_MTU, "\1\2", 2);
	attr_u32(IFLA_TXQLEN, 1000);
	attr_u8(IFLA_OPERSTATE, 6);
	attr_u32(IFLA_EXT_MASK, 0x9);
	attr_u32(IFLA_EXT_MASK, 0x80);
	int32_t nsid = -1;
	attr(IFLA_LINK_NETNSID, &nsid, 4);
	attr_u32(IFLA_NET_NS_FD, 1);
	attr_u32(IFLA_NEW_IFINDEX, 1);
	attr_u32(IFLA_NEW_IFINDEX, 77777);
	attr(IFLA_ADDRESS, "\x02\xfc\x00\x00\x00\x01", 6);
	attr(IFLA_BROADCAST, "\xff\xff", 2);
	attr(IFLA_PERM_ADDRESS, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"
	     "\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21", 33);
	uint32_t st32[24];
	for (int i = 0; i < 24; i++)
		st32[i] = i * 3;
	attr(IFLA_STATS, st32, sizeof(st32));
	attr(IFLA_STATS, st32, 23 * 4);
	attr(IFLA_STATS, st32, 20);
	uint64_t st64[25];
	for (int i = 0; i < 25; i++)
		st64[i] = (uint64_t) i << 33;
	attr(IFLA_STATS64, st64, sizeof(st64));
	attr(IFLA_STATS64, st64, 24 * 8);
	attr(IFLA_STATS64, st64, 23 * 8);
	struct rtnl_link_ifmap map = { .mem_start = 0x1000, .mem_end = 0x2000, .base_addr = 0x300,
				      .irq = 5, .dma = 6, .port = 7 };
	attr(IFLA_MAP, &map, sizeof(map));
	size_t li = nest_begin(IFLA_LINKINFO);
	attr_str(IFLA_INFO_KIND, "veth");
	attr(IFLA_INFO_DATA, "\1\2\3\4", 4);
	attr_str(IFLA_INFO_SLAVE_KIND, "bond");
	nest_end(li);
	size_t xdp = nest_begin(IFLA_XDP | NLA_F_NESTED);
	attr_u8(IFLA_XDP_ATTACHED, 1);
	attr_u8(IFLA_XDP_ATTACHED, 9);
	attr_u32(IFLA_XDP_FLAGS, 0x12);
	attr_u32(IFLA_XDP_PROG_ID, 42);
	attr_u32(IFLA_XDP_FD, 2);
	nest_end(xdp);
	size_t af = nest_begin(IFLA_AF_SPEC);
	size_t in4 = nest_begin(AF_INET);
	int32_t conf4[35];
	for (int i = 0; i < 35; i++)
		conf4[i] = i - 2;
	attr(IFLA_INET_CONF, conf4, sizeof(conf4));
	nest_end(in4);
	size_t in6 = nest_begin(AF_INET6);
	attr_u32(IFLA_INET6_FLAGS, 0x80000010);
	uint32_t ci[4] = { 65535, 22, 30000, 1000 };
	attr(IFLA_INET6_CACHEINFO, ci, sizeof(ci));
	struct in6_addr tok;
	inet_pton(AF_INET6, "fe80::1:2", &tok);
	attr(IFLA_INET6_TOKEN, &tok, sizeof(tok));
	attr_u8(IFLA_INET6_ADDR_GEN_MODE, 1);
	uint64_t st6[3] = { 3, 100, 200 };
	attr(IFLA_INET6_STATS, st6, sizeof(st6));
	attr(IFLA_INET6_ICMP6STATS, st6, sizeof(st6));
	int32_t conf6[4] = { 0, 64, 1500, -1 };
	attr(IFLA_INET6_CONF, conf6, sizeof(conf6));
	nest_end(in6);
	size_t other = nest_begin(AF_PACKET);
	attr_u32(1, 5);
	nest_end(other);
	nest_end(af);
	attr(0x3f, "\1\2\3\4", 4);
	attr(IFLA_PROTINFO, NULL, 0);
	attr_raw(IFLA_GROUP, "\1\0\0\0", 4, 3);
	msg_send(s, 0);

	/* An attribute list cut short: the last attribute has two bytes. */
	msg_begin(RTM_NEWLINK, &ifi, sizeof(ifi));
	attr_u32(IFLA_MTU, 9000);
	msg_len += 2;
	msg_send(s, 0);

	/* More attributes than -s 32 shows. */
	msg_begin(RTM_GETLINK, &ifi, sizeof(ifi));
	for (int i = 0; i < 40; i++)
		attr_u32(IFLA_MTU, i);
	msg_send(s, 0);

	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = 24,
				 .ifa_flags = IFA_F_PERMANENT, .ifa_scope = RT_SCOPE_UNIVERSE,
				 .ifa_index = 1 };
	msg_begin(RTM_NEWADDR, &ifa, sizeof(ifa));
	struct in_addr a4;
	inet_pton(AF_INET, "192.0.2.7", &a4);
	attr(IFA_ADDRESS, &a4, 4);
	attr(IFA_LOCAL, &a4, 4);
	attr(IFA_BROADCAST, &a4, 3);
	attr_str(IFA_LABEL, "eth7:1");
	struct ifa_cacheinfo ic = { .ifa_prefered = 0xffffffff, .ifa_valid = 600,
				    .cstamp = 12, .tstamp = 34 };
	attr(IFA_CACHEINFO, &ic, sizeof(ic));
	attr_u32(IFA_FLAGS, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE | 0x10000000);
	attr_u32(IFA_RT_PRIORITY, 7);
	attr_u8(IFA_PROTO, 2);
	attr_u32(IFA_TARGET_NETNSID, 3);
	attr(IFA_CACHEINFO, &ic, 8);
	msg_send(s, 0);

	ifa.ifa_family = AF_INET6;
	ifa.ifa_prefixlen = 64;
	msg_begin(RTM_NEWADDR, &ifa, sizeof(ifa));
	struct in6_addr a6;
	inet_pton(AF_INET6, "2001:db8::7", &a6);
	attr(IFA_ADDRESS, &a6, 16);
	attr(IFA_MULTICAST, &a6, 16);
	attr(IFA_ANYCAST, &a6, 4);
	msg_send(s, 0);

	ifa.ifa_family = AF_PACKET;
	msg_begin(RTM_NEWADDR, &ifa, sizeof(ifa));
	attr(IFA_ADDRESS, &a6, 6);
	msg_send(s, 0);

	struct rtmsg rt = { .rtm_family = AF_INET, .rtm_dst_len = 24, .rtm_table = RT_TABLE_MAIN,
			    .rtm_protocol = RTPROT_KERNEL, .rtm_scope = RT_SCOPE_LINK,
			    .rtm_type = RTN_UNICAST, .rtm_flags = RTM_F_NOTIFY | 0x10000 };
	msg_begin(RTM_NEWROUTE, &rt, sizeof(rt));
	attr_u32(RTA_TABLE, RT_TABLE_MAIN);
	attr_u32(RTA_TABLE, 1000);
	attr(RTA_DST, &a4, 4);
	attr(RTA_GATEWAY, &a4, 4);
	attr(RTA_PREFSRC, &a4, 4);
	attr_u32(RTA_OIF, 1);
	attr_u32(RTA_IIF, 5555);
	attr_u32(RTA_PRIORITY, 256);
	attr_u32(RTA_MARK, 0x10);
	struct rta_cacheinfo rci = { .rta_clntref = 1, .rta_lastuse = 2, .rta_expires = 3,
				     .rta_error = 4, .rta_used = 5, .rta_id = 6, .rta_ts = 7,
				     .rta_tsage = 8 };
	attr(RTA_CACHEINFO, &rci, sizeof(rci));
	attr_u8(RTA_PREF, 1);
	attr_u32(RTA_FLOW, 0x10002);
	attr_u8(RTA_TTL_PROPAGATE, 1);
	attr_u8(RTA_IP_PROTO, IPPROTO_TCP);
	uint16_t port = htons(80);
	attr(RTA_SPORT, &port, 2);
	attr(RTA_DPORT, &port, 2);
	attr_u32(RTA_NH_ID, 9);
	uint64_t exp = 1234;
	attr(RTA_EXPIRES, &exp, 8);
	attr_u32(RTA_UID, 1000);
	msg_send(s, 0);

	rt.rtm_family = AF_INET6;
	rt.rtm_table = 7;
	rt.rtm_protocol = 77;
	rt.rtm_type = 99;
	rt.rtm_scope = 200;
	msg_begin(RTM_GETROUTE, &rt, sizeof(rt));
	attr(RTA_DST, &a6, 16);
	attr(RTA_SRC, &a6, 15);
	msg_send(s, 0);
}

static void diag_messages(void)
{
	int d = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (d < 0)
		return;
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	bind(d, (struct sockaddr *) &me, sizeof(me));
	struct inet_diag_msg m = { .idiag_family = AF_INET, .idiag_state = 10, .idiag_timer = 1,
				   .idiag_retrans = 2, .idiag_expires = 3, .idiag_rqueue = 4,
				   .idiag_wqueue = 5, .idiag_uid = 6, .idiag_inode = 7 };
	m.id.idiag_sport = htons(22);
	m.id.idiag_dport = htons(40000);
	inet_pton(AF_INET, "127.0.0.1", m.id.idiag_src);
	inet_pton(AF_INET, "127.0.0.2", m.id.idiag_dst);
	m.id.idiag_if = 1;
	m.id.idiag_cookie[0] = 5;
	msg_begin(SOCK_DIAG_BY_FAMILY, &m, sizeof(m));
	attr_u8(INET_DIAG_SHUTDOWN, 3);
	attr_u8(INET_DIAG_SHUTDOWN, 0);
	attr_u32(INET_DIAG_MARK, 0x55);
	uint64_t cg = 1234567890123ULL;
	attr(INET_DIAG_CGROUP_ID, &cg, 8);
	attr(INET_DIAG_SOCKOPT, "\x52\xf9", 2);
	attr(INET_DIAG_SOCKOPT, "\0\0", 2);
	struct inet_diag_meminfo mi = { 1, 2, 3, 4 };
	attr(INET_DIAG_MEMINFO, &mi, sizeof(mi));
	attr_str(INET_DIAG_CONG, "cubic");
	attr_u8(INET_DIAG_TOS, 0x10);
	attr_u8(INET_DIAG_TCLASS, 0x20);
	attr_u8(INET_DIAG_PROTOCOL, IPPROTO_TCP);
	attr_u8(INET_DIAG_SKV6ONLY, 1);
	attr_u32(INET_DIAG_CLASS_ID, 8);
	uint32_t skm[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	attr(INET_DIAG_SKMEMINFO, skm, sizeof(skm));
	attr(INET_DIAG_INFO, "\1\2\3", 3);
	msg_send(d, 0);

	m.idiag_family = AF_INET6;
	m.idiag_state = 77;
	inet_pton(AF_INET6, "::1", m.id.idiag_src);
	inet_pton(AF_INET6, "2001:db8::1", m.id.idiag_dst);
	msg_begin(SOCK_DIAG_BY_FAMILY, &m, sizeof(m));
	msg_send(d, 0);

	struct unix_diag_msg u = { .udiag_family = AF_UNIX, .udiag_type = SOCK_STREAM,
				   .udiag_state = 10, .udiag_ino = 1234,
				   .udiag_cookie = { 7, 0 } };
	msg_begin(SOCK_DIAG_BY_FAMILY, &u, sizeof(u));
	attr(UNIX_DIAG_NAME, "/tmp/sock", 9);
	attr(UNIX_DIAG_NAME, "\0abstract", 9);
	attr_u32(UNIX_DIAG_PEER, 4321);
	struct unix_diag_rqlen rq = { 1, 2 };
	attr(UNIX_DIAG_RQLEN, &rq, sizeof(rq));
	attr_u8(UNIX_DIAG_SHUTDOWN, 1);
	struct unix_diag_vfs vfs = { .udiag_vfs_ino = 99, .udiag_vfs_dev = 0x801 };
	attr(UNIX_DIAG_VFS, &vfs, sizeof(vfs));
	uint32_t icons[3] = { 11, 12, 13 };
	attr(UNIX_DIAG_ICONS, icons, sizeof(icons));
	attr_u32(UNIX_DIAG_UID, 1000);
	attr(UNIX_DIAG_MEMINFO, skm, sizeof(skm));
	msg_send(d, 0);

	u.udiag_type = SOCK_DGRAM;
	u.udiag_state = 7;
	msg_begin(SOCK_DIAG_BY_FAMILY, &u, sizeof(u));
	msg_send(d, 0);
	close(d);
}

/* Sends one sock_diag dump request of `len` bytes and reads the replies. */
static void diag_dump(int d, const void *req, size_t len)
{
	memset(msg, 0, sizeof(msg));
	struct nlmsghdr *h = (struct nlmsghdr *) msg;
	h->nlmsg_len = NLMSG_HDRLEN + len;
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = 200;
	memcpy(msg + NLMSG_HDRLEN, req, len);
	sendto(d, msg, h->nlmsg_len, 0, NULL, 0);
	drain(d);
}

/* Real dumps of the sockets opened here. */
static void netns_dumps(void)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(2222) };
	bind(l, (struct sockaddr *) &a, sizeof(a));
	listen(l, 5);
	int u = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(5353) };
	bind(u, (struct sockaddr *) &a6, sizeof(a6));
	int sp[2];
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp);
	int d = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	bind(d, (struct sockaddr *) &me, sizeof(me));
	struct inet_diag_req_v2 r = { .sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
				      .idiag_states = ~0U,
				      .idiag_ext = 1 << (INET_DIAG_MEMINFO - 1) };
	diag_dump(d, &r, sizeof(r));
	r.sdiag_family = AF_INET6;
	r.sdiag_protocol = IPPROTO_UDP;
	r.idiag_ext = 1 << (INET_DIAG_SKMEMINFO - 1);
	diag_dump(d, &r, sizeof(r));
	struct unix_diag_req ur = { .sdiag_family = AF_UNIX, .udiag_states = ~0U,
				    .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN };
	diag_dump(d, &ur, sizeof(ur));
	close(d);
	close(sp[0]);
	close(sp[1]);
	close(u);
	close(l);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "loop") == 0) {
		int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		struct sockaddr_nl me = { .nl_family = AF_NETLINK };
		bind(s, (struct sockaddr *) &me, sizeof(me));
		struct nlmsghdr h = { .nlmsg_len = sizeof(h), .nlmsg_type = NLMSG_NOOP };
		for (int i = atoi(argv[2]); i > 0; i--)
			sendto(s, &h, sizeof(h), MSG_DONTWAIT, NULL, 0);
		close(s);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "dumps") == 0) {
		netns_dumps();
		return 0;
	}
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0) {
		perror("socket");
		return 1;
	}
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.g = { .rtgen_family = AF_UNSPEC },
	};
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	sendto(s, &req, sizeof(req), 0, (struct sockaddr *) &to, sizeof(to));
	drain(s);

	struct {
		struct nlmsghdr h;
		unsigned int v;
	} noop = {
		.h = { .nlmsg_len = sizeof(noop), .nlmsg_type = NLMSG_NOOP,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 2 },
		.v = 0xdeadbeef,
	};
	struct iovec iov = { .iov_base = &noop, .iov_len = sizeof(noop) };
	struct msghdr m = { .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov, .msg_iovlen = 1 };
	sendmsg(s, &m, 0);
	drain(s);

	noop.h.nlmsg_type = 0x3ff;
	noop.h.nlmsg_seq = 3;
	sendto(s, &noop, sizeof(noop), 0, NULL, 0);
	drain(s);

	/* Two messages in one buffer, the second a short tail. */
	char two[sizeof(noop) + 8];
	memcpy(two, &noop, sizeof(noop));
	memset(two + sizeof(noop), 0x41, 8);
	sendto(s, two, sizeof(two), MSG_DONTWAIT, NULL, 0);
	drain(s);

	route_messages(s);
	close(s);
	diag_messages();
	return 0;
}
