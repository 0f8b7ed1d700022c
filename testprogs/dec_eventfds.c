/*
 * Event descriptors: eventfd2, signalfd4, timerfd_create/settime/gettime,
 * inotify_init1/add_watch/rm_watch and fanotify_init/mark (when the
 * process may use fanotify). Prints the line strace prints for each call
 * (see dec_common.h).
 */
#include "dec_common.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

static void events(void)
{
	int e = eventfd(7, EFD_CLOEXEC | EFD_NONBLOCK);
	expect("eventfd2(7, EFD_CLOEXEC|EFD_NONBLOCK) = %s", retfd(e));
	long r = syscall(SYS_eventfd2, 0, 0x10);
	expect("eventfd2(0, 0x10 /* EFD_??? */) = %s", retstr(r));
	close(e);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	int s = signalfd(-1, &set, SFD_CLOEXEC);
	expect("signalfd4(-1, [USR1 USR2], 8, SFD_CLOEXEC) = %s", retfd(s));
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	r = signalfd(s, &set, SFD_NONBLOCK);
	expect("signalfd4(%s, [INT], 8, SFD_NONBLOCK) = %s", fdstr(s), retfd(r));
	close(s);
}

static void timers(void)
{
	int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	expect("timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) = %s", retfd(t));
	struct itimerspec its = { { 0, 0 }, { 100, 5 } }, old;
	long r = timerfd_settime(t, 0, &its, &old);
	expect("timerfd_settime(%s, 0, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=100, "
	       "tv_nsec=5}}, {it_interval={tv_sec=%lld, tv_nsec=%ld}, it_value={tv_sec=%lld, "
	       "tv_nsec=%ld}}) = %s", fdstr(t), (long long) old.it_interval.tv_sec,
	       old.it_interval.tv_nsec, (long long) old.it_value.tv_sec, old.it_value.tv_nsec,
	       retstr(r));
	struct itimerspec cur;
	r = timerfd_gettime(t, &cur);
	expect("timerfd_gettime(%s, {it_interval={tv_sec=%lld, tv_nsec=%ld}, it_value={tv_sec=%lld, "
	       "tv_nsec=%ld}}) = %s", fdstr(t), (long long) cur.it_interval.tv_sec,
	       cur.it_interval.tv_nsec, (long long) cur.it_value.tv_sec, cur.it_value.tv_nsec,
	       retstr(r));
	close(t);
}

static void watches(const char *dir)
{
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	expect("inotify_init1(IN_NONBLOCK|IN_CLOEXEC) = %s", retfd(in));
	long w = inotify_add_watch(in, dir, IN_MODIFY | IN_CREATE | IN_DELETE | IN_ONLYDIR);
	expect("inotify_add_watch(%s, \"%s\", IN_MODIFY|IN_CREATE|IN_DELETE|IN_ONLYDIR) = %s",
	       fdstr(in), dir, retstr(w));
	long r = inotify_rm_watch(in, w);
	expect("inotify_rm_watch(%s, %ld) = %s", fdstr(in), w, retstr(r));
	r = inotify_rm_watch(in, 12345);
	expect("inotify_rm_watch(%s, 12345) = %s", fdstr(in), retstr(r));
	close(in);

	int f = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_CLOEXEC);
	expect("fanotify_init(FAN_CLASS_NOTIF|FAN_CLOEXEC|FAN_NONBLOCK, O_RDONLY|O_CLOEXEC) = %s",
	       retfd(f));
	if (f < 0) {
		expect("# fanotify not permitted here (%s)", strerror(errno));
		return;
	}
	r = fanotify_mark(f, FAN_MARK_ADD | FAN_MARK_ONLYDIR, FAN_OPEN | FAN_CLOSE_WRITE,
			  AT_FDCWD, dir);
	/* With -y, strace shows the working directory after AT_FDCWD. */
	char cwd[512] = "";
	if (dec_y && getcwd(cwd + 1, sizeof(cwd) - 2)) {
		cwd[0] = '<';
		strcat(cwd, ">");
	}
	expect("fanotify_mark(%s, FAN_MARK_ADD|FAN_MARK_ONLYDIR, FAN_CLOSE_WRITE|FAN_OPEN, "
	       "AT_FDCWD%s, \"%s\") = %s", fdstr(f), cwd, dir, retstr(r));
	r = fanotify_mark(f, FAN_MARK_REMOVE, FAN_OPEN, -1, dir);
	expect("fanotify_mark(%s, FAN_MARK_REMOVE, FAN_OPEN, FAN_NOFD, \"%s\") = %s", fdstr(f),
	       dir, retstr(r));
	close(f);
}

int main(int argc, char **argv)
{
	dec_init(argc, argv);
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/dec_eventfds.%d", getpid());
	mkdir(dir, 0700);
	events();
	timers();
	watches(dir);
	rmdir(dir);
	expect_flush();
	return 0;
}
