/* bpf(2): one call per common command with a filled `union bpf_attr`, made
 * with raw syscall() whatever the kernel answers (strace decodes the attr at
 * entry even when the call fails). tests/decode_bpf_perf_uring.rs compares
 * rstrace's lines with strace 6.1's. */
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return syscall(SYS_bpf, cmd, attr, size);
}

#define PTR(p) ((uint64_t)(uintptr_t)(p))

int main(void)
{
	union bpf_attr a;
	uint32_t key = 0, next = 0;
	uint64_t val = 42;
	char log[64] = "";
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	/* BPF_MAP_CREATE, full strace 6.1 size (72 bytes). */
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 4;
	a.map_flags = BPF_F_RDONLY_PROG;
	strcpy(a.map_name, "rtrace_map");
	int map = sys_bpf(BPF_MAP_CREATE, &a, 72);
	/* Short sizes stop the structure early. */
	sys_bpf(BPF_MAP_CREATE, &a, 16);
	sys_bpf(BPF_MAP_CREATE, &a, 20);
	a.map_flags = BPF_F_NUMA_NODE | BPF_F_NO_PREALLOC;
	a.numa_node = 0;
	sys_bpf(BPF_MAP_CREATE, &a, 48);
	a.numa_node = -1;
	a.map_ifindex = 1;
	a.btf_fd = 1;
	a.map_extra = 0x1234;
	sys_bpf(BPF_MAP_CREATE, &a, 80);
	a.map_type = 0x1234;
	a.map_flags = 0x40000000;
	sys_bpf(BPF_MAP_CREATE, &a, 28);

	/* Element operations on the map. */
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = PTR(&key);
	a.value = PTR(&val);
	a.flags = BPF_ANY;
	sys_bpf(BPF_MAP_UPDATE_ELEM, &a, 32);
	a.flags = BPF_EXIST;
	sys_bpf(BPF_MAP_UPDATE_ELEM, &a, 32);
	a.flags = 0;
	sys_bpf(BPF_MAP_LOOKUP_ELEM, &a, 32);
	a.flags = BPF_F_LOCK;
	sys_bpf(BPF_MAP_LOOKUP_ELEM, &a, 32);
	sys_bpf(BPF_MAP_LOOKUP_ELEM, &a, 24);
	sys_bpf(BPF_MAP_DELETE_ELEM, &a, 16);
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = PTR(&key);
	a.next_key = PTR(&next);
	sys_bpf(BPF_MAP_GET_NEXT_KEY, &a, 24);
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	sys_bpf(BPF_MAP_FREEZE, &a, 4);

	/* BPF_PROG_LOAD: a two-instruction socket filter. */
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insn_cnt = 2;
	a.insns = PTR(insns);
	a.license = PTR("GPL");
	a.kern_version = (5 << 16) | (10 << 8) | 3;
	strcpy(a.prog_name, "rtrace_prog");
	int prog = sys_bpf(BPF_PROG_LOAD, &a, 72);
	/* A log buffer too small for the verifier's log: ENOSPC. */
	a.log_level = 1;
	a.log_size = sizeof(log);
	a.log_buf = PTR(log);
	a.prog_flags = BPF_F_STRICT_ALIGNMENT;
	sys_bpf(BPF_PROG_LOAD, &a, 72);
	sys_bpf(BPF_PROG_LOAD, &a, 48);
	a.kern_version = 0;
	sys_bpf(BPF_PROG_LOAD, &a, 40);
	a.log_level = 0;
	a.log_size = 0;
	a.log_buf = 0;
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.expected_attach_type = BPF_XDP;
	sys_bpf(BPF_PROG_LOAD, &a, 128);

	/* Pinning: a path that does not exist on bpffs. */
	memset(&a, 0, sizeof(a));
	a.pathname = PTR("/sys/fs/bpf/rtrace-no-such-dir/x");
	a.bpf_fd = map;
	sys_bpf(BPF_OBJ_PIN, &a, 16);
	a.bpf_fd = 0;
	a.file_flags = BPF_F_RDONLY;
	sys_bpf(BPF_OBJ_GET, &a, 16);

	/* Attach/detach to a descriptor that is no cgroup. */
	memset(&a, 0, sizeof(a));
	a.target_fd = 0;
	a.attach_bpf_fd = prog;
	a.attach_type = BPF_CGROUP_INET_INGRESS;
	a.attach_flags = BPF_F_ALLOW_MULTI;
	sys_bpf(BPF_PROG_ATTACH, &a, 16);
	sys_bpf(BPF_PROG_ATTACH, &a, 20);
	sys_bpf(BPF_PROG_DETACH, &a, 16);

	/* Test run with data in and out. */
	char pkt[64] = { 1, 2, 3 };
	char out[64];
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = prog;
	a.test.data_size_in = sizeof(pkt);
	a.test.data_size_out = sizeof(out);
	a.test.data_in = PTR(pkt);
	a.test.data_out = PTR(out);
	a.test.repeat = 1;
	sys_bpf(BPF_PROG_TEST_RUN, &a, 40);
	a.test.duration = 0; /* the kernel writes the run time back */
	sys_bpf(BPF_PROG_TEST_RUN, &a, 72);
	a.test.duration = 0;
	sys_bpf(BPF_PROG_TEST_RUN, &a, 80);

	/* Ids and descriptors by id. */
	memset(&a, 0, sizeof(a));
	sys_bpf(BPF_PROG_GET_NEXT_ID, &a, 8);
	a.start_id = 0xfffffff0;
	sys_bpf(BPF_MAP_GET_NEXT_ID, &a, 8);
	memset(&a, 0, sizeof(a));
	sys_bpf(BPF_BTF_GET_NEXT_ID, &a, 8);
	sys_bpf(BPF_LINK_GET_NEXT_ID, &a, 8);
	a.prog_id = 0xfffffff0;
	sys_bpf(BPF_PROG_GET_FD_BY_ID, &a, 4);
	a.map_id = 0xfffffff0;
	a.open_flags = BPF_F_RDONLY;
	sys_bpf(BPF_MAP_GET_FD_BY_ID, &a, 12);
	sys_bpf(BPF_MAP_GET_FD_BY_ID, &a, 4);
	a.btf_id = 0xfffffff0;
	sys_bpf(BPF_BTF_GET_FD_BY_ID, &a, 4);
	a.link_id = 0xfffffff0;
	sys_bpf(BPF_LINK_GET_FD_BY_ID, &a, 4);

	/* Object info (the info pointer's contents are not decoded without -v). */
	struct bpf_map_info mi;
	memset(&mi, 0, sizeof(mi));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = map;
	a.info.info_len = sizeof(mi);
	a.info.info = PTR(&mi);
	sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, 16);

	/* BTF load of garbage. */
	char btf[8] = "\x9f\xeb\x01";
	memset(&a, 0, sizeof(a));
	a.btf = PTR(btf);
	a.btf_size = sizeof(btf);
	a.btf_log_buf = PTR(log);
	a.btf_log_size = sizeof(log);
	a.btf_log_level = 1;
	sys_bpf(BPF_BTF_LOAD, &a, 28);

	/* Links, raw tracepoints, stats, iterators. */
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.target_fd = 0;
	a.link_create.attach_type = BPF_CGROUP_INET_EGRESS;
	a.link_create.flags = 0;
	sys_bpf(BPF_LINK_CREATE, &a, 16);
	a.link_create.target_btf_id = 7;
	sys_bpf(BPF_LINK_CREATE, &a, 20);
	memset(&a, 0, sizeof(a));
	a.link_update.link_fd = 0;
	a.link_update.new_prog_fd = prog;
	a.link_update.flags = BPF_F_REPLACE;
	a.link_update.old_prog_fd = 1;
	sys_bpf(BPF_LINK_UPDATE, &a, 16);
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = PTR("sys_enter");
	a.raw_tracepoint.prog_fd = prog;
	sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a, 16);
	memset(&a, 0, sizeof(a));
	a.enable_stats.type = BPF_STATS_RUN_TIME;
	sys_bpf(BPF_ENABLE_STATS, &a, 4);
	memset(&a, 0, sizeof(a));
	a.iter_create.link_fd = 0;
	sys_bpf(BPF_ITER_CREATE, &a, 8);
	memset(&a, 0, sizeof(a));
	a.link_detach.link_fd = 0;
	sys_bpf(BPF_LINK_DETACH, &a, 4);
	memset(&a, 0, sizeof(a));
	a.prog_bind_map.prog_fd = prog;
	a.prog_bind_map.map_fd = map;
	sys_bpf(BPF_PROG_BIND_MAP, &a, 12);

	/* Odd calls: NULL attr, zero size, unknown command, unreadable attr. */
	sys_bpf(BPF_MAP_CREATE, NULL, 72);
	sys_bpf(BPF_MAP_CREATE, &a, 0);
	sys_bpf(0x7f, &a, 16);
	sys_bpf(BPF_MAP_CREATE, (void *)8, 16);
	/* Extra non-zero bytes past what strace knows print "...". */
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	((unsigned char *)&a)[100] = 1;
	sys_bpf(BPF_MAP_DELETE_ELEM, &a, 104);
	return 0;
}
