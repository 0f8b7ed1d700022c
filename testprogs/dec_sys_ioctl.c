/* ioctl: terminal requests on a pseudo-terminal, FIONREAD/FIONBIO, block and
 * loop requests on a bad descriptor, and _IOC() for unknown requests. */
#include "dec_sys.h"
#include <fcntl.h>
#include <stdlib.h>
#include <asm/termbits.h>
#include <asm/ioctls.h>
#include <linux/fs.h>
#include <linux/loop.h>

int ioctl(int, unsigned long, ...);

struct kwinsize {
	unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

struct ktermio {
	unsigned short c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[8];
};

int main(void)
{
	long rc;
	int err;
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return 77;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		return 77;

	struct termios t = { 0 };
	t.c_iflag = ICRNL | IXON;
	t.c_oflag = OPOST | ONLCR;
	t.c_cflag = B38400 | CS8 | CREAD;
	t.c_lflag = ISIG | ICANON | ECHO | IEXTEN;
	t.c_cc[VMIN] = 1;
	const char *tios = "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, "
		"c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|IEXTEN, ...}";
	CALL(ioctl(s, TCSETS, &t));
	printf("ioctl(%d, SNDCTL_TMR_START or TCSETS, %s) = %s\n", s, tios, RET);
	CALL(ioctl(s, TCSETSW, &t));
	printf("ioctl(%d, SNDCTL_TMR_STOP or TCSETSW, %s) = %s\n", s, tios, RET);
	struct termios g;
	CALL(ioctl(s, TCGETS, &g));
	if (g.c_iflag == t.c_iflag && g.c_oflag == t.c_oflag && g.c_cflag == t.c_cflag &&
	    g.c_lflag == t.c_lflag)
		printf("ioctl(%d, TCGETS, %s) = %s\n", s, tios, RET);

	struct termios z = { 0 };
	CALL(ioctl(-1, TCSETSF, &z));
	printf("ioctl(-1, SNDCTL_TMR_CONTINUE or TCSETSF, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, "
	       "c_cflag=B0|CS5|, c_lflag=, ...}) = %s\n", RET);
	z.c_oflag = NL1 | CR2 | TAB3 | BS1 | FF1 | 0x10000;
	z.c_cflag = B9600 | (B4800 << IBSHIFT) | CS7 | CSTOPB;
	z.c_lflag = TOSTOP | EXTPROC;
	CALL(ioctl(-1, TCSETS, &z));
	printf("ioctl(-1, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL1|CR2|XTABS|BS1|VT0|FF1|0x10000, "
	       "c_cflag=B9600|B4800<<IBSHIFT|CS7|CSTOPB, c_lflag=TOSTOP|EXTPROC, ...}) = %s\n", RET);

	struct ktermio o;
	CALL(ioctl(s, TCGETA, &o));
	if (o.c_iflag == t.c_iflag && o.c_oflag == t.c_oflag && o.c_cflag == t.c_cflag &&
	    o.c_lflag == t.c_lflag)
		printf("ioctl(%d, TCGETA, %s) = %s\n", s, tios, RET);
	CALL(ioctl(-1, TCGETS, 0));
	printf("ioctl(-1, TCGETS, NULL) = %s\n", RET);
	CALL(ioctl(-1, TCGETS2, &g));
	printf("ioctl(-1, TCGETS2, %p) = %s\n", (void *)&g, RET);

	struct kwinsize w = { 24, 80, 0, 0 };
	CALL(ioctl(s, TIOCSWINSZ, &w));
	printf("ioctl(%d, TIOCSWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = %s\n", s, RET);
	struct kwinsize w2;
	CALL(ioctl(s, TIOCGWINSZ, &w2));
	printf("ioctl(%d, TIOCGWINSZ, {ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}) = %s\n", s,
	       w2.ws_row, w2.ws_col, w2.ws_xpixel, w2.ws_ypixel, RET);

	if (write(m, "abc", 3) != 3)
		return 1;
	int n = -1;
	CALL(ioctl(s, FIONREAD, &n));
	printf("ioctl(%d, FIONREAD, [%d]) = %s\n", s, n, RET);
	n = 1;
	CALL(ioctl(s, FIONBIO, &n));
	printf("ioctl(%d, FIONBIO, [1]) = %s\n", s, RET);
	CALL(ioctl(s, TIOCOUTQ, &n));
	printf("ioctl(%d, TIOCOUTQ, [%d]) = %s\n", s, n, RET);
	unsigned int ptn;
	CALL(ioctl(m, TIOCGPTN, &ptn));
	printf("ioctl(%d, TIOCGPTN, [%u]) = %s\n", m, ptn, RET);
	CALL(ioctl(s, TIOCGPGRP, &n));
	if (rc == 0)
		printf("ioctl(%d, TIOCGPGRP, [%d]) = %s\n", s, n, RET);
	else
		printf("ioctl(%d, TIOCGPGRP, %p) = %s\n", s, (void *)&n, RET);
	CALL(ioctl(s, TCFLSH, TCIOFLUSH));
	printf("ioctl(%d, TCFLSH, TCIOFLUSH) = %s\n", s, RET);
	CALL(ioctl(s, TCXONC, TCOON));
	printf("ioctl(%d, TCXONC, TCOON) = %s\n", s, RET);
	CALL(ioctl(s, TCSBRK, 1));
	printf("ioctl(%d, TCSBRK, 1) = %s\n", s, RET);
	CALL(ioctl(s, TIOCSTI, "x"));
	printf("ioctl(%d, TIOCSTI, \"x\") = %s\n", s, RET);
	CALL(ioctl(s, FIOCLEX));
	printf("ioctl(%d, FIOCLEX) = %s\n", s, RET);

	unsigned long long sz;
	CALL(ioctl(-1, BLKGETSIZE64, &sz));
	printf("ioctl(-1, BLKGETSIZE64, %p) = %s\n", (void *)&sz, RET);
	CALL(ioctl(-1, BLKSSZGET, 0));
	printf("ioctl(-1, BLKSSZGET, NULL) = %s\n", RET);
	CALL(ioctl(-1, BLKRRPART));
	printf("ioctl(-1, BLKRRPART) = %s\n", RET);
	CALL(ioctl(-1, LOOP_SET_FD, 3));
	printf("ioctl(-1, LOOP_SET_FD, 3) = %s\n", RET);
	CALL(ioctl(-1, LOOP_CLR_FD));
	printf("ioctl(-1, LOOP_CLR_FD) = %s\n", RET);
	CALL(ioctl(-1, LOOP_CTL_GET_FREE));
	printf("ioctl(-1, LOOP_CTL_GET_FREE) = %s\n", RET);
	CALL(ioctl(-1, LOOP_GET_STATUS64, 0));
	printf("ioctl(-1, LOOP_GET_STATUS64, NULL) = %s\n", RET);

	CALL(ioctl(-1, _IOR('X', 3, int), 0));
	printf("ioctl(-1, _IOC(_IOC_READ, 0x58, 0x3, 0x4), 0) = %s\n", RET);
	CALL(ioctl(-1, _IOWR('Q', 0x12, struct kwinsize), 0x1000));
	printf("ioctl(-1, _IOC(_IOC_READ|_IOC_WRITE, 0x51, 0x12, 0x8), 0x1000) = %s\n", RET);
	CALL(ioctl(-1, 0x1234, 5));
	printf("ioctl(-1, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0x5) = %s\n", RET);
	return 0;
}
