/*
 * AF_UNIX sockets: stream and datagram socketpairs, descriptors and
 * credentials passed with sendmsg/recvmsg (SCM_RIGHTS, SCM_CREDENTIALS),
 * named and abstract addresses (bind, sendto/recvfrom, getsockname),
 * shutdown and SOL_SOCKET options. Prints the line strace prints for each
 * call (see dec_common.h); run with -y for descriptor paths.
 */
#include "dec_common.h"

#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

/* `{sa_family=AF_UNIX, sun_path="..."}` of an address of `len` bytes. */
static const char *unix_addr(const struct sockaddr_un *a, socklen_t len)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];
	size_t path_len = len - offsetof(struct sockaddr_un, sun_path);
	if (a->sun_path[0])
		snprintf(b, 512, "{sa_family=AF_UNIX, sun_path=%s}",
			 quote(a->sun_path, strnlen(a->sun_path, path_len)));
	else
		snprintf(b, 512, "{sa_family=AF_UNIX, sun_path=@%s}",
			 quote(a->sun_path + 1, path_len - 1));
	return b;
}

static void pass_rights(int s0, int s1)
{
	int nul = open("/dev/null", O_RDONLY);
	char data[] = "hello";
	struct iovec iov = { data, 5 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_len = CMSG_LEN(sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(c), &nul, sizeof(int));
	long r = sendmsg(s0, &m, 0);
	expect("sendmsg(%s, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hello\", "
	       "iov_len=5}], msg_iovlen=1, msg_control=[{cmsg_len=%zu, cmsg_level=SOL_SOCKET, "
	       "cmsg_type=SCM_RIGHTS, cmsg_data=[%s]}], msg_controllen=%zu, msg_flags=0}, 0) = %s",
	       fdstr(s0), (size_t) c->cmsg_len, fdstr(nul), (size_t) m.msg_controllen, retstr(r));

	char in[16];
	struct iovec iov2 = { in, sizeof(in) };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u2;
	memset(&u2, 0, sizeof(u2));
	struct msghdr m2 = { .msg_iov = &iov2, .msg_iovlen = 1,
			     .msg_control = u2.buf, .msg_controllen = sizeof(u2.buf) };
	r = recvmsg(s1, &m2, 0);
	int got;
	struct cmsghdr *c2 = CMSG_FIRSTHDR(&m2);
	memcpy(&got, CMSG_DATA(c2), sizeof(int));
	expect("recvmsg(%s, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=%s, iov_len=%zu}], "
	       "msg_iovlen=1, msg_control=[{cmsg_len=%zu, cmsg_level=SOL_SOCKET, "
	       "cmsg_type=SCM_RIGHTS, cmsg_data=[%s]}], msg_controllen=%zu, msg_flags=0}, 0) = %s",
	       fdstr(s1), quote(in, r), sizeof(in), (size_t) c2->cmsg_len, fdstr(got),
	       (size_t) m2.msg_controllen, retstr(r));
	close(got);
	close(nul);
}

static void pass_credentials(int s0, int s1)
{
	int one = 1;
	long r = setsockopt(s1, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	expect("setsockopt(%s, SOL_SOCKET, SO_PASSCRED, [1], 4) = %s", fdstr(s1), retstr(r));

	struct ucred cr = { getpid(), getuid(), getgid() };
	char data[] = "cred";
	struct iovec iov = { data, 4 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(cr))]; } u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_len = CMSG_LEN(sizeof(cr));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	memcpy(CMSG_DATA(c), &cr, sizeof(cr));
	r = sendmsg(s0, &m, MSG_DONTWAIT);
	expect("sendmsg(%s, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"cred\", "
	       "iov_len=4}], msg_iovlen=1, msg_control=[{cmsg_len=%zu, cmsg_level=SOL_SOCKET, "
	       "cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=%d, uid=%u, gid=%u}}], "
	       "msg_controllen=%zu, msg_flags=0}, MSG_DONTWAIT) = %s",
	       fdstr(s0), (size_t) c->cmsg_len, cr.pid, cr.uid, cr.gid,
	       (size_t) m.msg_controllen, retstr(r));

	char in[8];
	struct iovec iov2 = { in, sizeof(in) };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(cr))]; } u2;
	memset(&u2, 0, sizeof(u2));
	struct msghdr m2 = { .msg_iov = &iov2, .msg_iovlen = 1,
			     .msg_control = u2.buf, .msg_controllen = sizeof(u2.buf) };
	r = recvmsg(s1, &m2, 0);
	struct ucred got;
	struct cmsghdr *c2 = CMSG_FIRSTHDR(&m2);
	memcpy(&got, CMSG_DATA(c2), sizeof(got));
	expect("recvmsg(%s, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=%s, iov_len=%zu}], "
	       "msg_iovlen=1, msg_control=[{cmsg_len=%zu, cmsg_level=SOL_SOCKET, "
	       "cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=%d, uid=%u, gid=%u}}], "
	       "msg_controllen=%zu, msg_flags=0}, 0) = %s",
	       fdstr(s1), quote(in, r), sizeof(in), (size_t) c2->cmsg_len, got.pid, got.uid,
	       got.gid, (size_t) m2.msg_controllen, retstr(r));
}

static void named_dgram(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX }, b = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/dec_net_unix.%d.a", getpid());
	snprintf(b.sun_path, sizeof(b.sun_path), "/tmp/dec_net_unix.%d.b", getpid());
	unlink(a.sun_path);
	unlink(b.sun_path);
	int ra = socket(AF_UNIX, SOCK_DGRAM, 0);
	expect("socket(AF_UNIX, SOCK_DGRAM, 0) = %s", retfd(ra));
	int rb = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	expect("socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0) = %s", retfd(rb));
	long r = bind(ra, (void *) &a, sizeof(a));
	expect("bind(%s, %s, %zu) = %s", fdstr(ra), unix_addr(&a, sizeof(a)), sizeof(a), retstr(r));
	socklen_t blen = offsetof(struct sockaddr_un, sun_path) + strlen(b.sun_path) + 1;
	r = bind(rb, (void *) &b, blen);
	expect("bind(%s, %s, %u) = %s", fdstr(rb), unix_addr(&b, blen), blen, retstr(r));

	r = sendto(rb, "ping", 4, 0, (void *) &a, sizeof(a));
	expect("sendto(%s, \"ping\", 4, 0, %s, %zu) = %s", fdstr(rb), unix_addr(&a, sizeof(a)),
	       sizeof(a), retstr(r));
	struct sockaddr_un from;
	socklen_t flen = sizeof(from);
	char in[64];
	r = recvfrom(ra, in, sizeof(in), 0, (void *) &from, &flen);
	expect("recvfrom(%s, %s, %zu, 0, %s, [%zu => %u]) = %s", fdstr(ra), quote(in, r),
	       sizeof(in), unix_addr(&from, flen), sizeof(from), flen, retstr(r));

	struct sockaddr_un self;
	socklen_t slen = sizeof(self);
	r = getsockname(rb, (void *) &self, &slen);
	expect("getsockname(%s, %s, [%zu => %u]) = %s", fdstr(rb), unix_addr(&self, slen),
	       sizeof(self), slen, retstr(r));

	/* An abstract name: a leading NUL, then bytes that are not a C string. */
	struct sockaddr_un ab = { .sun_family = AF_UNIX };
	int n = snprintf(ab.sun_path + 1, sizeof(ab.sun_path) - 1, "dec_net.%d", getpid());
	socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	int rc = socket(AF_UNIX, SOCK_STREAM, 0);
	expect("socket(AF_UNIX, SOCK_STREAM, 0) = %s", retfd(rc));
	r = bind(rc, (void *) &ab, alen);
	expect("bind(%s, %s, %u) = %s", fdstr(rc), unix_addr(&ab, alen), alen, retstr(r));
	r = listen(rc, 1);
	expect("listen(%s, 1) = %s", fdstr(rc), retstr(r));
	slen = sizeof(self);
	r = getsockname(rc, (void *) &self, &slen);
	expect("getsockname(%s, %s, [%zu => %u]) = %s", fdstr(rc), unix_addr(&self, slen),
	       sizeof(self), slen, retstr(r));
	/* Connecting to a path that does not exist fails. */
	struct sockaddr_un none = { .sun_family = AF_UNIX };
	snprintf(none.sun_path, sizeof(none.sun_path), "/tmp/dec_net_unix.%d.none", getpid());
	r = connect(ra, (void *) &none, sizeof(none));
	expect("connect(%s, %s, %zu) = %s", fdstr(ra), unix_addr(&none, sizeof(none)),
	       sizeof(none), retstr(r));
	unlink(a.sun_path);
	unlink(b.sun_path);
	close(ra);
	close(rb);
	close(rc);
}

static void options(int s0, int s1)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	long r = getsockopt(s1, SOL_SOCKET, SO_PEERCRED, &cr, &len);
	expect("getsockopt(%s, SOL_SOCKET, SO_PEERCRED, {pid=%d, uid=%u, gid=%u}, [%u]) = %s",
	       fdstr(s1), cr.pid, cr.uid, cr.gid, len, retstr(r));
	int type;
	len = sizeof(type);
	r = getsockopt(s0, SOL_SOCKET, SO_TYPE, &type, &len);
	expect("getsockopt(%s, SOL_SOCKET, SO_TYPE, [%d], [%u]) = %s", fdstr(s0), type, len,
	       retstr(r));
	struct linger lg = { 1, 2 };
	r = setsockopt(s0, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	expect("setsockopt(%s, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=2}, %zu) = %s",
	       fdstr(s0), sizeof(lg), retstr(r));
	memset(&lg, 0, sizeof(lg));
	len = sizeof(lg);
	r = getsockopt(s0, SOL_SOCKET, SO_LINGER, &lg, &len);
	expect("getsockopt(%s, SOL_SOCKET, SO_LINGER, {l_onoff=%d, l_linger=%d}, [%u]) = %s",
	       fdstr(s0), lg.l_onoff, lg.l_linger, len, retstr(r));
	int err = -1;
	len = sizeof(err);
	r = getsockopt(s0, SOL_SOCKET, SO_ERROR, &err, &len);
	expect("getsockopt(%s, SOL_SOCKET, SO_ERROR, [%d], [%u]) = %s", fdstr(s0), err, len,
	       retstr(r));
	/* A larger buffer than the kernel fills: [16 => 4]. */
	int big[4] = { 0 };
	len = sizeof(big);
	r = getsockopt(s0, SOL_SOCKET, SO_SNDBUF, big, &len);
	expect("getsockopt(%s, SOL_SOCKET, SO_SNDBUF, [%d], [%zu => %u]) = %s", fdstr(s0),
	       big[0], sizeof(big), len, retstr(r));
	int v = 1;
	r = setsockopt(s0, SOL_SOCKET, 999, &v, sizeof(v));
	expect("setsockopt(%s, SOL_SOCKET, 0x3e7 /* SO_??? */, [1], 4) = %s", fdstr(s0),
	       retstr(r));
	/* An int-like option prints its first int whatever the length... */
	r = setsockopt(s0, SOL_SOCKET, SO_RCVLOWAT, "abcde", 5);
	memcpy(&v, "abcd", 4);
	expect("setsockopt(%s, SOL_SOCKET, SO_RCVLOWAT, [%d], 5) = %s", fdstr(s0), v, retstr(r));
	/* ... its address when shorter than one. */
	static const char two[2] = "ab";
	r = setsockopt(s0, SOL_SOCKET, SO_RCVLOWAT, two, 2);
	expect("setsockopt(%s, SOL_SOCKET, SO_RCVLOWAT, %p, 2) = %s", fdstr(s0), (void *) two,
	       retstr(r));
	/* Other options print their bytes as a string. */
	r = setsockopt(s0, SOL_SOCKET, SO_BINDTODEVICE, "", 1);
	expect("setsockopt(%s, SOL_SOCKET, SO_BINDTODEVICE, \"\\0\", 1) = %s", fdstr(s0),
	       retstr(r));
}

int main(int argc, char **argv)
{
	dec_init(argc, argv);
	int sv[2];
	long r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	expect("socketpair(AF_UNIX, SOCK_STREAM, 0, [%s, %s]) = %s", fdstr(sv[0]), fdstr(sv[1]),
	       retstr(r));
	pass_rights(sv[0], sv[1]);
	int dv[2];
	r = socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, dv);
	expect("socketpair(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0, [%s, %s]) = %s", fdstr(dv[0]),
	       fdstr(dv[1]), retstr(r));
	pass_credentials(dv[0], dv[1]);
	r = sendto(dv[0], "dgram\n", 6, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
	expect("sendto(%s, \"dgram\\n\", 6, MSG_DONTWAIT|MSG_NOSIGNAL, NULL, 0) = %s",
	       fdstr(dv[0]), retstr(r));
	char in[32];
	r = recvfrom(dv[1], in, sizeof(in), MSG_PEEK, NULL, NULL);
	expect("recvfrom(%s, %s, %zu, MSG_PEEK, NULL, NULL) = %s", fdstr(dv[1]), quote(in, r),
	       sizeof(in), retstr(r));
	named_dgram();
	options(sv[0], sv[1]);
	r = shutdown(sv[0], SHUT_WR);
	expect("shutdown(%s, SHUT_WR) = %s", fdstr(sv[0]), retstr(r));
	r = shutdown(sv[0], 7);
	expect("shutdown(%s, 0x7 /* SHUT_??? */) = %s", fdstr(sv[0]), retstr(r));
	expect_flush();
	return 0;
}
