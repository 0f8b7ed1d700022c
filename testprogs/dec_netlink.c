/*
 * Netlink traffic for tests/decode_netlink.rs: a NETLINK_ROUTE socket sends
 * an RTM_GETLINK dump (sendto) and reads the replies (recvfrom, recvmsg)
 * up to NLMSG_DONE; then an NLMSG_NOOP with NLM_F_ACK (acknowledged by an
 * NLMSG_ERROR with error 0 and the capped request) and an unknown message
 * type (NLMSG_ERROR with -EOPNOTSUPP and the whole request echoed).
 */
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

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

int main(void)
{
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
	close(s);
	return 0;
}
