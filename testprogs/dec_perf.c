/* perf_event_open(2): `struct perf_event_attr` of each type and size, made
 * with raw syscall() (the calls may fail; strace decodes the attr at entry).
 * tests/decode_bpf_perf_uring.rs compares rstrace's lines with strace 6.1's. */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long peo(struct perf_event_attr *a, int pid, int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

int main(void)
{
	static uint64_t big[32];
	struct perf_event_attr *a = (struct perf_event_attr *)big;

	/* Hardware counter, self, any cpu, the usual bits. */
	memset(big, 0, sizeof(big));
	a->type = PERF_TYPE_HARDWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	int fd = peo(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	/* Software clock, sampling by frequency, sample_type flags. */
	memset(big, 0, sizeof(big));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = PERF_ATTR_SIZE_VER5;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->freq = 1;
	a->sample_freq = 4000;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	a->inherit = 1;
	a->mmap = 1;
	a->comm = 1;
	a->watermark = 1;
	a->wakeup_watermark = 4096;
	a->precise_ip = 2;
	a->sample_id_all = 1;
	a->exclude_callchain_user = 1;
	a->sample_max_stack = 127;
	int fd2 = peo(a, 0, -1, fd, PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT);

	/* Hardware cache event: (id) | (op << 8) | (result << 16). */
	memset(big, 0, sizeof(big));
	a->type = PERF_TYPE_HW_CACHE;
	a->size = PERF_ATTR_SIZE_VER0;
	a->config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	a->sample_period = 100000;
	peo(a, 0, -1, -1, 0);

	/* Tracepoint and raw configs print in hex. */
	memset(big, 0, sizeof(big));
	a->type = PERF_TYPE_TRACEPOINT;
	a->size = PERF_ATTR_SIZE_VER1;
	a->config = 0x123;
	a->enable_on_exec = 1;
	a->task = 1;
	a->mmap_data = 1;
	a->config1 = 0xdead;
	peo(a, -1, 0, -1, 0);
	a->type = PERF_TYPE_RAW;
	a->size = PERF_ATTR_SIZE_VER2;
	a->config = 0x1c2;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	peo(a, 0, -1, -1, 0);

	/* Breakpoint: bp_type, bp_addr, bp_len. */
	memset(big, 0, sizeof(big));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = PERF_ATTR_SIZE_VER3;
	a->bp_type = HW_BREAKPOINT_W | HW_BREAKPOINT_R;
	a->bp_addr = (uint64_t)(uintptr_t)big;
	a->bp_len = HW_BREAKPOINT_LEN_8;
	a->sample_period = 1;
	a->sample_regs_user = 0xff;
	a->sample_stack_user = 8192;
	a->exclude_kernel = 1;
	int fd3 = peo(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	/* Newer sizes, clockid and aux fields. */
	memset(big, 0, sizeof(big));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = PERF_ATTR_SIZE_VER7;
	a->config = PERF_COUNT_SW_DUMMY;
	a->use_clockid = 1;
	a->clockid = 1;
	a->context_switch = 1;
	a->namespaces = 1;
	a->ksymbol = 1;
	a->bpf_event = 1;
	a->cgroup = 1;
	a->text_poke = 1;
	a->build_id = 1;
	a->sigtrap = 1;
	a->sig_data = 0xbeef;
	a->aux_watermark = 10;
	a->sample_regs_intr = 3;
	peo(a, 0, -1, -1, 0);

	/* Unknown type and size, unknown flags, NULL and unreadable attrs. */
	memset(big, 0, sizeof(big));
	a->type = 0x77;
	a->size = 12345;
	a->config = 0x77;
	peo(a, 0, -1, -1, 0x100);
	a->type = PERF_TYPE_HARDWARE;
	a->size = 0;
	a->config = 0xabcdef;
	peo(a, 0, -1, -1, 0);
	a->size = 72;
	peo(a, 0, -1, -1, 0);
	a->type = PERF_TYPE_SOFTWARE;
	a->size = 128;
	a->config = 42;
	big[15] = 1; /* non-zero bytes past what strace knows */
	peo(a, 0, -1, -1, 0);
	peo(NULL, 0, -1, -1, 0);
	peo((void *)8, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	if (fd3 >= 0)
		close(fd3);
	return 0;
}
