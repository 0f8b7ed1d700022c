/*
 * Waiting on descriptors: poll, ppoll, select, pselect6 (with timeouts, the
 * time left and the ready sets strace shows after the return value) and
 * epoll_create1/ctl/wait/pwait/pwait2. Prints the line strace prints for
 * each call (see dec_common.h). select, ppoll, pselect6 and epoll_pwait2
 * are made with syscall(2), so the kernel updates this program's own
 * timeout (glibc's wrappers may pass a copy).
 */
#include "dec_common.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>

/* poll revents in strace's order (asm-generic/poll.h names). */
static const char *pollflags(unsigned v)
{
	static const struct { unsigned bit; const char *name; } t[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" }, { POLLOUT, "POLLOUT" },
		{ POLLERR, "POLLERR" }, { POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
		{ POLLRDNORM, "POLLRDNORM" }, { POLLRDBAND, "POLLRDBAND" },
		{ POLLWRNORM, "POLLWRNORM" }, { POLLWRBAND, "POLLWRBAND" },
	};
	static char bufs[8][256];
	static int next;
	char *b = bufs[next++ % 8];
	b[0] = 0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (v & t[i].bit) {
			if (b[0])
				strcat(b, "|");
			strcat(b, t[i].name);
		}
	return b;
}

/* "[3 5]": the members below nfds of a set. */
static const char *fdset(const fd_set *s, int nfds)
{
	static char bufs[8][256];
	static int next;
	char *b = bufs[next++ % 8], *p = b;
	p += sprintf(p, "[");
	for (int i = 0, first = 1; i < nfds; i++)
		if (FD_ISSET(i, s)) {
			p += sprintf(p, "%s%s", first ? "" : " ", fdstr(i));
			first = 0;
		}
	sprintf(p, "]");
	return b;
}

/* "[3 5]" without paths (the ready sets after the return value). */
static const char *readyset(const fd_set *s, int nfds)
{
	int y = dec_y;
	dec_y = 0;
	const char *r = fdset(s, nfds);
	dec_y = y;
	return r;
}

static void do_poll(int sock, int rd)
{
	struct pollfd p[3] = { { sock, POLLIN | POLLOUT, 0 }, { -1, POLLIN, 0 }, { rd, POLLIN, 0 } };
	long r = poll(p, 3, 100);
	expect("poll([{fd=%s, events=POLLIN|POLLOUT}, {fd=-1}, {fd=%s, events=POLLIN}], 3, 100) = "
	       "%s ([{fd=%d, revents=%s}, {fd=%d, revents=%s}])", fdstr(sock), fdstr(rd),
	       retstr(r), sock, pollflags(p[0].revents), rd, pollflags(p[2].revents));
	struct pollfd q = { sock, POLLIN, 0 };
	r = poll(&q, 1, 0);
	expect("poll([{fd=%s, events=POLLIN}], 1, 0) = %s (Timeout)", fdstr(sock), retstr(r));

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	struct timespec ts = { 1, 500 };
	struct pollfd w = { rd, POLLIN | POLLPRI, 0 };
	r = syscall(SYS_ppoll, &w, 1, &ts, &mask, 8);
	expect("ppoll([{fd=%s, events=POLLIN|POLLPRI}], 1, {tv_sec=1, tv_nsec=500}, [USR1], 8) = "
	       "%s ([{fd=%d, revents=%s}], left {tv_sec=%lld, tv_nsec=%ld})", fdstr(rd), retstr(r),
	       rd, pollflags(w.revents), (long long) ts.tv_sec, ts.tv_nsec);
	struct timespec zero = { 0, 0 };
	r = syscall(SYS_ppoll, &q, 1, &zero, NULL, 8);
	expect("ppoll([{fd=%s, events=POLLIN}], 1, {tv_sec=0, tv_nsec=0}, NULL, 8) = %s (Timeout)",
	       fdstr(sock), retstr(r));
	r = syscall(SYS_ppoll, NULL, 0, &zero, NULL, 8);
	expect("ppoll(NULL, 0, {tv_sec=0, tv_nsec=0}, NULL, 8) = %s (Timeout)", retstr(r));
}

static void do_select(int sock, int rd)
{
	int nfds = (sock > rd ? sock : rd) + 1;
	fd_set in, out;
	FD_ZERO(&in);
	FD_ZERO(&out);
	FD_SET(sock, &in);
	FD_SET(rd, &in);
	FD_SET(sock, &out);
	const char *in_s = fdset(&in, nfds), *out_s = fdset(&out, nfds);
	struct timeval tv = { 2, 0 };
	long r = syscall(SYS_select, nfds, &in, &out, NULL, &tv);
	expect("select(%d, %s, %s, NULL, {tv_sec=2, tv_usec=0}) = %s (in %s, out %s, left "
	       "{tv_sec=%lld, tv_usec=%ld})", nfds, in_s, out_s, retstr(r), readyset(&in, nfds),
	       readyset(&out, nfds), (long long) tv.tv_sec, (long) tv.tv_usec);
	FD_ZERO(&in);
	FD_SET(sock, &in);
	in_s = fdset(&in, nfds);
	r = syscall(SYS_select, nfds, &in, NULL, NULL, NULL);
	/* No timeout: blocks until ready; here sock has data (written below). */
	expect("select(%d, %s, NULL, NULL, NULL) = %s (in %s)", nfds, in_s, retstr(r),
	       readyset(&in, nfds));
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	FD_ZERO(&out);
	r = syscall(SYS_select, nfds, NULL, &out, NULL, &tv);
	expect("select(%d, NULL, [], NULL, {tv_sec=0, tv_usec=0}) = %s (Timeout)", nfds,
	       retstr(r));

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	struct { const sigset_t *ss; size_t len; } sig = { &mask, 8 };
	struct timespec ts = { 3, 0 };
	FD_ZERO(&in);
	FD_SET(rd, &in);
	in_s = fdset(&in, nfds);
	r = syscall(SYS_pselect6, nfds, &in, NULL, NULL, &ts, &sig);
	expect("pselect6(%d, %s, NULL, NULL, {tv_sec=3, tv_nsec=0}, {sigmask=[USR1], "
	       "sigsetsize=8}) = %s (in %s, left {tv_sec=%lld, tv_nsec=%ld})", nfds, in_s,
	       retstr(r), readyset(&in, nfds), (long long) ts.tv_sec, ts.tv_nsec);
	FD_ZERO(&in);
	FD_SET(sock, &in);
	in_s = fdset(&in, nfds);
	struct timespec zero = { 0, 0 };
	r = syscall(SYS_pselect6, nfds, &in, NULL, NULL, &zero, NULL);
	expect("pselect6(%d, %s, NULL, NULL, {tv_sec=0, tv_nsec=0}, NULL) = %s (in %s, left "
	       "{tv_sec=0, tv_nsec=0})", nfds, in_s, retstr(r), readyset(&in, nfds));
}

static void do_epoll(int rd)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	expect("epoll_create1(EPOLL_CLOEXEC) = %s", retfd(ep));
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = rd };
	long r = epoll_ctl(ep, EPOLL_CTL_ADD, rd, &ev);
	expect("epoll_ctl(%s, EPOLL_CTL_ADD, %s, {events=EPOLLIN|EPOLLET, data={u32=%d, u64=%d}}) "
	       "= %s", fdstr(ep), fdstr(rd), rd, rd, retstr(r));
	ev.events = EPOLLIN | EPOLLRDHUP;
	ev.data.u64 = 0x100000001ULL;
	r = epoll_ctl(ep, EPOLL_CTL_MOD, rd, &ev);
	expect("epoll_ctl(%s, EPOLL_CTL_MOD, %s, {events=EPOLLIN|EPOLLRDHUP, data={u32=1, "
	       "u64=4294967297}}) = %s", fdstr(ep), fdstr(rd), retstr(r));
	r = epoll_ctl(ep, 9, rd, &ev);
	expect("epoll_ctl(%s, 0x9 /* EPOLL_CTL_??? */, %s, {events=EPOLLIN|EPOLLRDHUP, data={u32=1, "
	       "u64=4294967297}}) = %s", fdstr(ep), fdstr(rd), retstr(r));

	struct epoll_event out[4];
	r = epoll_wait(ep, out, 4, 100);
	expect("epoll_wait(%s, [{events=EPOLLIN, data={u32=1, u64=4294967297}}], 4, 100) = %s",
	       fdstr(ep), retstr(r));
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	r = epoll_pwait(ep, out, 4, 0, &mask);
	expect("epoll_pwait(%s, [{events=EPOLLIN, data={u32=1, u64=4294967297}}], 4, 0, [USR2], 8) "
	       "= %s", fdstr(ep), retstr(r));
	struct timespec ts = { 0, 1000 };
	r = syscall(SYS_epoll_pwait2, ep, out, 4, &ts, NULL, 8);
	if (r < 0 && errno == ENOSYS)
		expect("# epoll_pwait2: %s", strerror(errno));
	else
		expect("epoll_pwait2(%s, [{events=EPOLLIN, data={u32=1, u64=4294967297}}], 4, "
		       "{tv_sec=0, tv_nsec=1000}, NULL, 8) = %s", fdstr(ep), retstr(r));
	int neg = -1;
	r = syscall(SYS_epoll_wait, ep, out, neg, 0);
	expect("epoll_wait(%s, %p, -1, 0) = %s", fdstr(ep), (void *) out, retstr(r));
	r = epoll_ctl(ep, EPOLL_CTL_DEL, rd, NULL);
	expect("epoll_ctl(%s, EPOLL_CTL_DEL, %s, NULL) = %s", fdstr(ep), fdstr(rd), retstr(r));
	r = epoll_wait(ep, out, 4, 0);
	expect("epoll_wait(%s, [], 4, 0) = %s", fdstr(ep), retstr(r));
	close(ep);
}

int main(int argc, char **argv)
{
	dec_init(argc, argv);
	int sv[2], pfd[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(pfd))
		return 1;
	if (write(pfd[1], "r", 1) != 1)
		return 1;
	do_poll(sv[0], pfd[0]);
	if (write(sv[1], "s", 1) != 1)
		return 1;
	do_select(sv[0], pfd[0]);
	do_epoll(pfd[0]);
	expect_flush();
	return 0;
}
