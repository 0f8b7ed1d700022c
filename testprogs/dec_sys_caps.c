/* capget and capset: versions 1 and 3, unknown versions and bits, NULLs. */
#include "dec_sys.h"
#include <linux/capability.h>
#include <stdint.h>

static const char *const names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
	"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
	"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
	"CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};
#define NCAPS (sizeof(names) / sizeof(names[0]))

/* One 32-bit word as strace's printflags of `1<<CAP_X` names. */
static void word(char *out, uint32_t w, unsigned base)
{
	int n = 0;
	*out = 0;
	for (unsigned b = 0; b < 32; b++) {
		if ((w & (1u << b)) && base + b < NCAPS) {
			out += sprintf(out, "%s1<<%s", n++ ? "|" : "", names[base + b]);
			w &= ~(1u << b);
		}
	}
	if (!n)
		sprintf(out, w ? "%#x /* CAP_??? */" : "0", w);
	else if (w)
		sprintf(out, "|%#x", w);
}

static const char *bits(uint32_t lo, uint32_t hi)
{
	static char buf[3][2048];
	static int i;
	char *b = buf[i++ % 3];
	*b = 0;
	if (lo || !hi)
		word(b, lo, 0);
	if (hi) {
		if (lo)
			strcat(b, "|");
		word(b + strlen(b), hi, 32);
	}
	return b;
}

int main(void)
{
	long rc;
	int err;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	CALL(syscall(SYS_capget, &h, d));
	printf("capget({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=%s, permitted=%s, "
	       "inheritable=%s}) = %s\n", bits(d[0].effective, d[1].effective),
	       bits(d[0].permitted, d[1].permitted), bits(d[0].inheritable, d[1].inheritable), RET);
	h.version = _LINUX_CAPABILITY_VERSION_1;
	CALL(syscall(SYS_capget, &h, d));
	printf("capget({version=_LINUX_CAPABILITY_VERSION_1, pid=0}, {effective=%s, permitted=%s, "
	       "inheritable=%s}) = %s\n", bits(d[0].effective, 0), bits(d[0].permitted, 0),
	       bits(d[0].inheritable, 0), RET);
	h.version = 0;
	CALL(syscall(SYS_capget, &h, d));
	printf("capget({version=0 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}, %p) = %s\n",
	       (void *)d, RET);
	CALL(syscall(SYS_capget, NULL, NULL));
	printf("capget(NULL, NULL) = %s\n", RET);

	h.version = 0x1234;
	d[0].effective = d[0].permitted = 5;
	d[0].inheritable = 0;
	CALL(syscall(SYS_capset, &h, d));
	printf("capset({version=0x1234 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}, "
	       "{effective=1<<CAP_CHOWN|1<<CAP_DAC_READ_SEARCH, "
	       "permitted=1<<CAP_CHOWN|1<<CAP_DAC_READ_SEARCH, inheritable=0}) = %s\n", RET);
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = -1;
	d[1].effective = 0x300;
	d[1].permitted = 0x10000;
	d[1].inheritable = 0;
	CALL(syscall(SYS_capset, &h, d));
	printf("capset({version=_LINUX_CAPABILITY_VERSION_3, pid=-1}, "
	       "{effective=1<<CAP_CHOWN|1<<CAP_DAC_READ_SEARCH|1<<CAP_CHECKPOINT_RESTORE|0x200, "
	       "permitted=1<<CAP_CHOWN|1<<CAP_DAC_READ_SEARCH|0x10000 /* CAP_??? */, "
	       "inheritable=0}) = %s\n", RET);
	return 0;
}
