/* The scheduler calls: policies, parameters, affinity, sched_attr. */
#include "dec_sys.h"
#include <sched.h>
#include <stdint.h>

struct kattr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

static const char *policy(long p)
{
	switch (p) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	default: return "?";
	}
}

int main(void)
{
	long rc;
	int err;
	struct sched_param sp = { 0 };
	CALL(sched_setscheduler(0, SCHED_OTHER, &sp));
	printf("sched_setscheduler(0, SCHED_OTHER, [0]) = %s\n", RET);
	CALL(syscall(SYS_sched_setscheduler, 0, 0x40, &sp));
	printf("sched_setscheduler(0, 0x40 /* SCHED_??? */, [0]) = %s\n", RET);
	CALL(sched_getscheduler(0));
	printf("sched_getscheduler(0) = %s (%s)\n", RET, policy(rc));
	CALL(sched_getparam(0, &sp));
	printf("sched_getparam(0, [%d]) = %s\n", sp.sched_priority, RET);
	CALL(sched_setparam(0, &sp));
	printf("sched_setparam(0, [%d]) = %s\n", sp.sched_priority, RET);
	CALL(sched_getparam(-1, &sp));
	printf("sched_getparam(-1, %p) = %s\n", (void *)&sp, RET);
	CALL(sched_get_priority_max(SCHED_FIFO));
	printf("sched_get_priority_max(SCHED_FIFO) = %s\n", RET);
	CALL(sched_get_priority_min(SCHED_RR));
	printf("sched_get_priority_min(SCHED_RR) = %s\n", RET);
	struct timespec ts;
	CALL(sched_rr_get_interval(0, &ts));
	printf("sched_rr_get_interval(0, {tv_sec=%lld, tv_nsec=%ld}) = %s\n", (long long)ts.tv_sec,
	       ts.tv_nsec, RET);
	CALL(sched_yield());
	printf("sched_yield() = %s\n", RET);

	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(0, &cs);
	CALL(syscall(SYS_sched_setaffinity, 0, 8, &cs));
	printf("sched_setaffinity(0, 8, [0]) = %s\n", RET);
	CALL(syscall(SYS_sched_getaffinity, 0, 128, &cs));
	printf("sched_getaffinity(0, 128, [0]) = %s\n", RET);
	CALL(syscall(SYS_sched_getaffinity, 0, 1, &cs));
	printf("sched_getaffinity(0, 1, %p) = %s\n", (void *)&cs, RET);

	struct kattr a = { 0 };
	CALL(syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0));
	char attr[512];
	snprintf(attr, sizeof(attr),
		 "{size=%u, sched_policy=%s, sched_flags=0, sched_nice=%d, sched_priority=%u, "
		 "sched_runtime=%llu, sched_deadline=%llu, sched_period=%llu, sched_util_min=%u, "
		 "sched_util_max=%u}",
		 a.size, policy(a.sched_policy), a.sched_nice, a.sched_priority,
		 (unsigned long long)a.sched_runtime, (unsigned long long)a.sched_deadline,
		 (unsigned long long)a.sched_period, a.sched_util_min, a.sched_util_max);
	printf("sched_getattr(0, %s, %zu, 0) = %s\n", attr, sizeof(a), RET);
	CALL(syscall(SYS_sched_setattr, 0, &a, 0));
	printf("sched_setattr(0, %s, 0) = %s\n", attr, RET);
	CALL(syscall(SYS_sched_setattr, 0, 0, 0));
	printf("sched_setattr(0, NULL, 0) = %s\n", RET);
	CALL(syscall(SYS_sched_getattr, 0, &a, 8, 0));
	printf("sched_getattr(0, %p, 8, 0) = %s\n", (void *)&a, RET);
	a.size = 48;
	a.sched_policy = SCHED_BATCH;
	a.sched_flags = 1 | 0x100;
	a.sched_nice = -3;
	CALL(syscall(SYS_sched_setattr, 0, &a, 0));
	printf("sched_setattr(0, {size=48, sched_policy=SCHED_BATCH, "
	       "sched_flags=SCHED_FLAG_RESET_ON_FORK|0x100, sched_nice=-3, sched_priority=%u, "
	       "sched_runtime=%llu, sched_deadline=%llu, sched_period=%llu}, 0) = %s\n",
	       a.sched_priority, (unsigned long long)a.sched_runtime,
	       (unsigned long long)a.sched_deadline, (unsigned long long)a.sched_period, RET);
	return 0;
}
