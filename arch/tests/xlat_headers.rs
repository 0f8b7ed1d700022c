//! Cross-checks every constant in `xlat/*.in` against the C headers of this machine.
//!
//! For each group of headers below, the test preprocesses the headers once to learn
//! which names exist as enumerators, then compiles and runs a C program that prints
//! `NAME VALUE SIZE` for every table name the headers define (as a macro, or as an
//! enumerator). Every printed value must equal the table's. Names the headers lack
//! (newer than the installed kernel headers) are counted and listed, and most names
//! must have been checked.
//!
//! Only on x86_64 (the aarch64 overrides cannot be checked against x86 headers);
//! skipped with a message when no C compiler is installed.

#![cfg(target_arch = "x86_64")]

use rtrace_arch::xlat::{self, Xlat};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A set of headers compiled together, and the tables checked against them.
struct Group {
    /// Macros defined before the includes: `NAME` (defined as 1) or `NAME=VALUE`.
    defines: &'static [&'static str],
    headers: &'static [&'static str],
    tables: &'static [&'static str],
}

/// Kernel UAPI headers first (they hold the values strace prints, e.g. O_LARGEFILE,
/// which glibc defines as 0 on x86_64); glibc headers for names only glibc has
/// (SCHED_OTHER, PTRACE_PEEKUSER, MNT_FORCE, AF_*). Headers that conflict with each
/// other (linux/mount.h vs sys/mount.h, linux/fcntl.h vs fcntl.h) are in different
/// groups.
const GROUPS: &[Group] = &[
    Group {
        defines: &[],
        headers: &["linux/audit.h"],
        tables: &["audit_arch"],
    },
    Group {
        defines: &[],
        headers: &["linux/capability.h"],
        tables: &["cap"],
    },
    Group {
        defines: &[],
        headers: &["linux/ioprio.h"],
        tables: &["ioprio_who", "ioprio_class"],
    },
    Group {
        defines: &[],
        headers: &["linux/mempolicy.h"],
        tables: &[
            "mpol_modes",
            "mpol_mode_flags",
            "mbind_flags",
            "get_mempolicy_flags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/futex.h"],
        tables: &["futex_bitset", "futex_wake_cmps", "futex_wake_ops"],
    },
    Group {
        defines: &[],
        headers: &["linux/membarrier.h"],
        tables: &["membarrier_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/elf.h"],
        tables: &["nt_types"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/mman.h"],
        tables: &["pkey_access"],
    },
    Group {
        defines: &[],
        headers: &["linux/prctl.h"],
        tables: &["pr_dumpable", "pr_set_vma"],
    },
    Group {
        defines: &[],
        headers: &["signal.h"],
        tables: &["sa_handler_values", "sigaltstack_flags", "sigprof_codes"],
    },
    Group {
        defines: &[],
        headers: &["linux/seccomp.h"],
        tables: &["seccomp_mode", "seccomp_ret_action"],
    },
    Group {
        defines: &[],
        headers: &["linux/fcntl.h"],
        tables: &[
            "open_access",
            "open_flags",
            "at_flags",
            "faccessat_flags",
            "unlinkat_flags",
            "at_statx_sync_types",
            "at_fdcwd",
            "fd_flags",
            "fcntl_cmds",
            "fcntl64_cmds",
            "seal_flags",
            "f_owner_types",
            "flock_ops",
            "lockf_cmds",
            "notify_flags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/fs.h"],
        tables: &[
            "whence",
            "renameat2_flags",
            "mount_flags",
            "rwf_flags",
            "sync_file_range_flags",
        ],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/mount.h"],
        tables: &["umount_flags", "mount_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/mman.h"],
        tables: &[
            "mmap_prot",
            "mmap_type",
            "mmap_flags",
            "mremap_flags",
            "msync_flags",
            "mlock_flags",
            "mlockall_flags",
            "madvise_advice",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/signal.h"],
        tables: &[
            "signals",
            "sa_flags",
            "sigprocmask_how",
            "signal_codes",
            "sigchld_codes",
            "sigsegv_codes",
            "sigill_codes",
            "sigfpe_codes",
            "sigbus_codes",
            "sigtrap_codes",
            "sigpoll_codes",
            "sigsys_codes",
            "sigev_notify",
        ],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["signal.h"],
        tables: &[
            "signals",
            "sa_flags",
            "sigprocmask_how",
            "signal_codes",
            "sigchld_codes",
            "sigsegv_codes",
            "sigill_codes",
            "sigfpe_codes",
            "sigbus_codes",
            "sigtrap_codes",
            "sigpoll_codes",
            "sigsys_codes",
            "sigev_notify",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/wait.h"],
        tables: &["wait4_options", "waitid_options", "waitid_types"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/wait.h"],
        tables: &["wait4_options", "waitid_options", "waitid_types"],
    },
    Group {
        defines: &[],
        headers: &["linux/resource.h"],
        tables: &["resources", "priorities", "rusage_who"],
    },
    Group {
        defines: &[],
        headers: &["linux/time.h"],
        tables: &["clocks", "timer_flags", "itimer_which"],
    },
    Group {
        defines: &[],
        headers: &["linux/stat.h"],
        tables: &["statx_masks", "statx_attrs", "modes_type"],
    },
    Group {
        defines: &[],
        headers: &["linux/prctl.h", "asm/prctl.h"],
        tables: &[
            "prctl_options",
            "arch_prctl_codes",
            // Kernel-internal: none of these names is in the UAPI headers.
            "x86_xfeature_bits",
            "x86_xfeatures",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/futex.h"],
        tables: &["futex_ops"],
    },
    Group {
        defines: &[],
        headers: &["linux/random.h"],
        tables: &["getrandom_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/personality.h"],
        tables: &["personality_types", "personality_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/sched.h"],
        tables: &[
            "clone_flags",
            "clone3_flags",
            "sched_flags",
            "sched_policies",
        ],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sched.h"],
        tables: &["sched_policies"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["dirent.h"],
        tables: &["dirent_types"],
    },
    Group {
        defines: &[],
        headers: &["linux/membarrier.h"],
        tables: &["membarrier_cmds"],
    },
    Group {
        defines: &[],
        headers: &["linux/close_range.h"],
        tables: &["close_range_flags"],
    },
    Group {
        // asm/poll.h casts to __poll_t without including the header that defines it.
        defines: &[],
        headers: &["linux/types.h", "linux/poll.h"],
        tables: &["poll_events"],
    },
    Group {
        defines: &[],
        headers: &["linux/eventpoll.h"],
        tables: &["epoll_ctl_ops", "epoll_events", "epoll_flags"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/eventfd.h", "sys/timerfd.h"],
        tables: &["eventfd_flags", "timerfd_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/inotify.h"],
        tables: &["inotify_flags", "inotify_init_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/memfd.h"],
        tables: &["memfd_create_flags"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/socket.h"],
        tables: &[
            "socket_families",
            "socket_types",
            "socket_type_flags",
            "shutdown_modes",
            "msg_flags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/xattr.h"],
        tables: &["xattr_flags"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["fcntl.h"],
        tables: &["splice_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/falloc.h"],
        tables: &["falloc_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/rseq.h"],
        tables: &["rseq_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/kcmp.h"],
        tables: &["kcmp_types"],
    },
    Group {
        defines: &[],
        headers: &["linux/ptrace.h"],
        tables: &["ptrace_requests", "ptrace_events", "ptrace_options"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/ptrace.h"],
        tables: &["ptrace_requests", "ptrace_events", "ptrace_options"],
    },
    Group {
        defines: &[],
        headers: &["linux/seccomp.h"],
        tables: &["seccomp_ops", "seccomp_filter_flags"],
    },
    Group {
        defines: &[],
        headers: &["unistd.h"],
        tables: &["access_modes"],
    },
    Group {
        defines: &[],
        headers: &["linux/fadvise.h"],
        tables: &["fadvise_advice"],
    },
    Group {
        defines: &[],
        headers: &["linux/openat2.h"],
        tables: &["open_resolve_flags"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/statvfs.h"],
        tables: &["statfs_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/ioctl.h"],
        tables: &["ioctl_dirs"],
    },
    Group {
        defines: &[],
        headers: &["linux/magic.h"],
        tables: &["fsmagic"],
    },
    Group {
        defines: &[],
        headers: &[
            "asm/termbits.h",
            "asm/ioctls.h",
            "linux/fs.h",
            "linux/btrfs.h",
        ],
        tables: &["ioctl_requests"],
    },
    Group {
        defines: &[],
        headers: &["linux/termios.h"],
        tables: &["tcflsh_queues", "tcxonc_actions"],
    },
    // The decsys decoders: terminals, loop devices, mounts, IPC, capabilities.
    Group {
        defines: &[],
        headers: &["asm/termbits.h", "asm/ioctls.h", "linux/loop.h"],
        tables: &[
            "ioctl_requests",
            "term_iflags",
            "term_oflags",
            "term_nldly",
            "term_crdly",
            "term_tabdly",
            "term_bsdly",
            "term_vtdly",
            "term_ffdly",
            "term_csize",
            "term_cflags",
            "term_lflags",
            "baud_options",
            "term_cc",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/tty.h"],
        tables: &["term_line_discs"],
    },
    Group {
        defines: &[],
        headers: &["linux/fcntl.h", "linux/mount.h"],
        tables: &[
            "fsopen_flags",
            "fsconfig_cmds",
            "fsmount_flags",
            "mount_attr_flags",
            "fsmount_attr_flags",
            "fspick_flags",
            "move_mount_flags",
            "open_tree_flags",
            "mount_setattr_flags",
            "mount_propagation",
            "mq_attr_flags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/ipc.h", "linux/msg.h", "linux/sem.h", "linux/shm.h"],
        tables: &[
            "ipc_resource_flags",
            "shm_resource_flags",
            "ipc_msg_flags",
            "semop_flags",
            "shm_flags",
            "msgctl_cmds",
            "semctl_cmds",
            "shmctl_cmds",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/capability.h"],
        tables: &["cap_version"],
    },
    Group {
        defines: &[],
        headers: &["linux/landlock.h"],
        tables: &[
            "landlock_access_fs",
            "landlock_create_ruleset_flags",
            "landlock_rule_types",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/keyctl.h"],
        tables: &[
            "keyctl_commands",
            "key_spec",
            "key_reqkeys",
            "key_perms",
            "keyctl_move_flags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/prctl.h", "linux/securebits.h"],
        tables: &[
            "pr_set_mm",
            "secbits",
            "pr_cap_ambient",
            "pr_spec_cmds",
            "pr_spec_flags",
            "pr_mce_kill",
            "pr_mce_kill_policy",
            "pr_fp_mode",
            "pr_tsc",
            "pr_sys_dispatch",
        ],
    },
    // Networking and event descriptors (the decnet decoders).
    Group {
        defines: &[],
        headers: &["linux/in.h", "linux/in6.h", "linux/tcp.h"],
        tables: &[
            "inet_protocols",
            "sock_ip_options",
            "sock_ipv6_options",
            "sock_tcp_options",
            "ip_cmsg_types",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/types.h", "linux/netfilter_ipv6/ip6_tables.h"],
        tables: &["getsock_ipv6_options", "setsock_ipv6_options"],
    },
    Group {
        defines: &[],
        headers: &[
            "linux/netlink.h",
            "linux/rtnetlink.h",
            "linux/if_addr.h",
            "linux/if.h",
            "linux/sock_diag.h",
            "linux/inet_diag.h",
        ],
        tables: &[
            "netlink_types",
            "netlink_flags",
            "netlink_get_flags",
            "netlink_new_flags",
            "netlink_delete_flags",
            "netlink_ack_flags",
            "nl_route_types",
            "nl_sock_diag_types",
            "routing_scopes",
            "ifaddrflags",
            "iffflags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/netlink.h"],
        tables: &["netlink_protocols", "sock_netlink_options"],
    },
    // Socket address families beyond INET/UNIX/NETLINK/PACKET
    // (src/syscall/sockaddr_other.rs).
    Group {
        defines: &[],
        headers: &[
            "sys/socket.h",
            "linux/if_alg.h",
            "linux/nfc.h",
            "linux/vm_sockets.h",
            "linux/qrtr.h",
            "linux/if_xdp.h",
            "linux/mctp.h",
        ],
        tables: &[
            "rxrpc_services",
            "ieee802154_addr_types",
            "ieee802154_pan_ids",
            "ieee802154_addrs",
            "alg_sockaddr_flags",
            "nfc_sockaddr_protocols",
            "nfc_saps",
            "vsock_cids",
            "vsock_ports",
            "vsock_flags",
            "qipcrtr_nodes",
            "qipcrtr_ports",
            "xdp_sockaddr_flags",
            "mctp_nets",
            "mctp_addrs",
        ],
    },
    // Netlink families and attributes (src/syscall/netlink*.rs).
    Group {
        defines: &[],
        headers: &[
            "linux/types.h",
            "linux/netlink.h",
            "linux/rtnetlink.h",
            "linux/if_link.h",
            "linux/if_packet.h",
            "linux/dcbnl.h",
            "linux/neighbour.h",
            "linux/fib_rules.h",
            "linux/lwtunnel.h",
            "linux/if_bridge.h",
            "linux/ip.h",
            "linux/netfilter/nfnetlink.h",
            "linux/netfilter/nfnetlink_acct.h",
            "linux/netfilter/nfnetlink_cthelper.h",
            "linux/netfilter/nfnetlink_conntrack.h",
            "linux/netfilter/nfnetlink_cttimeout.h",
            "linux/netfilter/nfnetlink_hook.h",
            "linux/netfilter/ipset/ip_set.h",
            "linux/netfilter/nf_tables_compat.h",
            "linux/netfilter/nf_tables.h",
            "linux/netfilter/nfnetlink_osf.h",
            "linux/netfilter/nfnetlink_queue.h",
            "linux/netfilter/nfnetlink_log.h",
            "linux/audit.h",
            "linux/cryptouser.h",
            "linux/selinux_netlink.h",
            "linux/xfrm.h",
            "linux/netlink_diag.h",
            "linux/packet_diag.h",
            "linux/smc_diag.h",
            "linux/nexthop.h",
            "linux/netconf.h",
            "linux/net_namespace.h",
            "linux/pkt_sched.h",
            "linux/pkt_cls.h",
            "linux/gen_stats.h",
            "linux/if_addrlabel.h",
            "linux/mroute.h",
            "linux/mroute6.h",
            "linux/tcp.h",
        ],
        tables: &[
            "af_packet_versions",
            "dcb_commands",
            "fdb_notify_flags",
            "fib_rule_actions",
            "fib_rule_flags",
            "ifstats_attrs",
            "ip_type_of_services",
            "lwtunnel_encap_types",
            "mdb_flags",
            "mdb_states",
            "multicast_router_types",
            "neighbor_cache_entry_ext_flags",
            "neighbor_cache_entry_flags",
            "neighbor_cache_entry_states",
            "netfilter_versions",
            "netlink_diag_attrs",
            "netlink_diag_show",
            "netlink_socket_flags",
            "netlink_states",
            "nf_acct_msg_types",
            "nf_cthelper_msg_types",
            "nf_ctnetlink_exp_msg_types",
            "nf_ctnetlink_msg_types",
            "nf_cttimeout_msg_types",
            "nf_hook_msg_types",
            "nf_ipset_msg_types",
            "nf_nft_compat_msg_types",
            "nf_nftables_msg_types",
            "nf_osf_msg_types",
            "nf_queue_msg_types",
            "nf_ulog_msg_types",
            "nl_audit_types",
            "nl_crypto_types",
            "nl_netfilter_msg_types",
            "nl_netfilter_subsys_ids",
            "nl_selinux_types",
            "nl_xfrm_types",
            "nlmsgerr_attrs",
            "packet_diag_attrs",
            "packet_diag_info_flags",
            "packet_diag_show",
            "route_nexthop_flags",
            "rtnl_addrlabel_attrs",
            "rtnl_dcb_attrs",
            "rtnl_family",
            "rtnl_ifla_brport_attrs",
            "rtnl_ifla_events",
            "rtnl_ifla_port_attrs",
            "rtnl_ifla_proto_down_reason_attrs",
            "rtnl_ifla_vf_info_attrs",
            "rtnl_ifla_vf_link_states",
            "rtnl_ifla_vf_port_attrs",
            "rtnl_ifla_vf_stats_attrs",
            "rtnl_ifla_vf_vlan_list_attrs",
            "rtnl_ifla_vfinfo_list_attrs",
            "rtnl_ip6mra_creport_attr",
            "rtnl_ip6mra_msg_types",
            "rtnl_ipmra_creport_attr",
            "rtnl_ipmra_msg_types",
            "rtnl_mdb_attrs",
            "rtnl_mdba_mdb_attrs",
            "rtnl_mdba_mdb_eattr_attrs",
            "rtnl_mdba_mdb_entry_attrs",
            "rtnl_mdba_router_attrs",
            "rtnl_mdba_router_pattr_attrs",
            "rtnl_neigh_attrs",
            "rtnl_neigh_fdb_ext_attrs",
            "rtnl_neightbl_attrs",
            "rtnl_neightbl_parms_attrs",
            "rtnl_netconf_attrs",
            "rtnl_nexthop_attrs",
            "rtnl_nexthop_grp_types",
            "rtnl_nha_res_bucket_attrs",
            "rtnl_nha_res_group_attrs",
            "rtnl_nsid_attrs",
            "rtnl_rta_metrics_attrs",
            "rtnl_rule_attrs",
            "rtnl_tc_action_attrs",
            "rtnl_tc_attrs",
            "rtnl_tca_act_flags",
            "rtnl_tca_act_hw_stats",
            "rtnl_tca_stab_attrs",
            "rtnl_tca_stats_attrs",
            "smc_diag_attrs",
            "smc_diag_mode",
            "smc_states",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/if_ether.h", "linux/if_arp.h", "linux/if_packet.h"],
        tables: &[
            "ethernet_protocols",
            "arp_hardware_types",
            "af_packet_types",
        ],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &[
            "sys/socket.h",
            "netinet/in.h",
            "netinet/tcp.h",
            "linux/can.h",
        ],
        tables: &["socket_layers", "scm_types"],
    },
    Group {
        defines: &[],
        headers: &["asm/socket.h"],
        tables: &[
            "sock_options",
            "getsock_options",
            "setsock_options",
            "scm_types",
        ],
    },
    Group {
        defines: &[],
        headers: &["sys/signalfd.h"],
        tables: &["signalfd_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/fanotify.h"],
        tables: &[
            "fan_classes",
            "fan_init_flags",
            "fan_mark_flags",
            "fan_event_flags",
        ],
    },
    // bpf, perf_event_open and io_uring (the decoders helper).
    Group {
        defines: &[],
        headers: &["linux/bpf.h"],
        tables: &[
            "bpf_commands",
            "bpf_map_types",
            "bpf_map_flags",
            "bpf_prog_types",
            "bpf_prog_flags",
            "bpf_attach_types",
            "bpf_attach_flags",
            "bpf_map_lookup_elem_flags",
            "bpf_map_update_elem_flags",
            "bpf_file_flags",
            "bpf_file_mode_flags",
            "bpf_test_run_flags",
            "ebpf_class",
            "ebpf_size",
            "ebpf_mode",
            "bpf_src",
            "ebpf_op_alu",
            "ebpf_op_jmp",
            "ebpf_regs",
            "bpf_numa_node",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/perf_event.h", "linux/hw_breakpoint.h"],
        tables: &[
            "perf_type_id",
            "perf_hw_id",
            "perf_sw_ids",
            "perf_hw_cache_id",
            "perf_hw_cache_op_id",
            "perf_hw_cache_op_result_id",
            "perf_event_sample_format",
            "perf_event_read_format",
            "perf_branch_sample_type",
            "perf_attr_size",
            "perf_event_open_flags",
            "hw_breakpoint_type",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/io_uring.h"],
        tables: &[
            "uring_setup_flags",
            "uring_enter_flags",
            "uring_register_opcodes",
            "uring_restriction_opcodes",
            "uring_ops",
            "uring_sqe_flags",
            "uring_features",
            "uring_op_flags",
            "uring_iowq_types",
            "uring_register_rsrc_flags",
            "uring_files_update_fds",
        ],
    },
    // sockio: socket options and ioctl families (sockopt.rs, ioctl_misc.rs).
    Group {
        defines: &[],
        headers: &["linux/if_packet.h"],
        tables: &["sock_packet_options", "packet_mreq_type"],
    },
    Group {
        defines: &[],
        headers: &["linux/icmp.h"],
        tables: &["sock_raw_options", "icmp_filter_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/socket.h"],
        tables: &["sockopt_txrehash_vals"],
    },
    Group {
        defines: &[],
        headers: &["linux/termios.h"],
        tables: &["modem_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/perf_event.h"],
        tables: &["perf_ioctl_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/fs.h"],
        tables: &["fs_xflags"],
    },
    Group {
        defines: &[],
        headers: &["linux/input.h"],
        tables: &["evdev_ev", "evdev_abs"],
    },
    Group {
        defines: &[],
        headers: &["linux/blkpg.h"],
        tables: &["blkpg_ops"],
    },
    Group {
        defines: &[],
        headers: &["linux/fs.h", "linux/fiemap.h"],
        tables: &["fs_ioc_flags", "fiemap_flags", "fiemap_extent_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/rtc.h"],
        tables: &[
            "rtc_params",
            "rtc_backup_switch_modes",
            "rtc_vl_flags",
            "rtc_features",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/ptp_clock.h"],
        tables: &["ptp_extts_flags", "ptp_perout_flags", "ptp_pin_funcs"],
    },
    Group {
        defines: &[],
        headers: &["linux/seccomp.h"],
        tables: &["seccomp_ioctl_resp_flags", "seccomp_ioctl_addfd_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/nbd.h"],
        tables: &["nbd_ioctl_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/lirc.h"],
        tables: &["lirc_features", "lirc_modes"],
    },
    Group {
        defines: &[],
        headers: &["linux/counter.h"],
        tables: &[
            "counter_ioctl_component_types",
            "counter_ioctl_scopes",
            "counter_ioctl_event_types",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/filter.h"],
        tables: &[
            "bpf_class",
            "bpf_size",
            "bpf_mode",
            "bpf_miscop",
            "bpf_op_alu",
            "bpf_op_jmp",
            "bpf_rval",
            "skf_ad",
        ],
    },
    // --- Netlink attribute tables (src/syscall/netlink_*.rs). The
    // inet_devconf_indices names are `IPV4_DEVCONF_X-1` and are not found
    // as such; the others are.
    Group {
        defines: &[],
        headers: &[
            "sys/socket.h",
            "netinet/in.h",
            "linux/rtnetlink.h",
            "linux/if_link.h",
            "linux/if_addr.h",
            "linux/ip.h",
            "linux/ipv6.h",
            "linux/snmp.h",
            "linux/sock_diag.h",
            "linux/inet_diag.h",
            "linux/unix_diag.h",
        ],
        tables: &[
            "rtnl_link_attrs",
            "rtnl_ifla_xdp_attrs",
            "rtnl_ifla_xdp_attached_mode",
            "rtnl_ifla_info_attrs",
            "rtnl_ifla_af_spec_inet_attrs",
            "rtnl_ifla_af_spec_inet6_attrs",
            "rtnl_ifla_ext_filter",
            "in6_addr_gen_mode",
            "inet6_if_flags",
            "xdp_flags",
            "inet_devconf_indices",
            "inet6_devconf_indices",
            "snmp_ip_stats",
            "snmp_icmp6_stats",
            "rtnl_addr_attrs",
            "rtnl_route_attrs",
            "routing_types",
            "routing_protocols",
            "routing_table_ids",
            "ip_route_flags",
            "inet_diag_attrs",
            "inet_diag_req_attrs",
            "unix_diag_attrs",
            "unix_diag_show",
            "netlink_sk_meminfo_indices",
        ],
    },
    Group {
        defines: &[],
        headers: &["netinet/tcp.h"],
        tables: &["tcp_states"],
    },
    // --- end of the netlink attribute tables.
    // The sys families of issue 6 (kernel_admin, pidfd, aio, timex, quotactl, prctl_ext).
    Group {
        defines: &[],
        headers: &["linux/reboot.h"],
        tables: &["reboot_magic1", "reboot_magic2", "reboot_cmds"],
    },
    Group {
        defines: &[],
        headers: &["linux/kexec.h"],
        tables: &["kexec_load_flags", "kexec_arch", "kexec_file_load_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/module.h"],
        tables: &["module_init_flags"],
    },
    Group {
        defines: &["_GNU_SOURCE"],
        headers: &["sys/swap.h", "fcntl.h"],
        tables: &["swap_flags", "delete_module_flags", "memfd_secret_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/aio_abi.h"],
        tables: &["aio_cmds", "aio_iocb_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/timex.h"],
        tables: &["adjtimex_modes", "adjtimex_status", "adjtimex_state"],
    },
    Group {
        defines: &[],
        headers: &["linux/quota.h", "linux/dqblk_xfs.h"],
        tables: &[
            "quotacmds",
            "quotatypes",
            "quota_formats",
            "if_dqblk_valid",
            "if_dqinfo_flags",
            "if_dqinfo_valid",
            "xfs_dqblk_flags",
            "xfs_quota_flags",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/prctl.h"],
        tables: &[
            "pr_sve_vl_flags",
            "pr_sme_vl_flags",
            "pr_pac_keys",
            "pr_pac_enabled_keys",
            "pr_sched_core_cmds",
            "pr_spec_set_flags",
            "pr_mte_tcf",
            "pr_unalign_flags",
            // Kernel-internal (include/linux/pid.h): not in any UAPI header.
            "pr_sched_core_pidtypes",
        ],
    },
    // Kernel-internal (include/linux/syslog.h, kern_levels.h): listed so every
    // table has a group; no installed header defines these names.
    Group {
        defines: &[],
        headers: &["sys/syslog.h"],
        tables: &["syslog_actions", "loglevels"],
    },
    Group {
        defines: &[],
        headers: &["linux/ptrace.h"],
        tables: &["ptrace_syscall_info_op"],
    },
    Group {
        defines: &[],
        headers: &["linux/sched.h", "linux/pidfd.h"],
        tables: &["setns_types", "pidfd_flags"],
    },
    Group {
        defines: &[],
        headers: &["linux/futex.h"],
        tables: &["futex_waiter_flags"],
    },
    // ioctl families (evdev, gpio, hdio, kd, loop, ubi, mtd, v4l2, sg).
    Group {
        defines: &[],
        headers: &["linux/input.h"],
        tables: &[
            "evdev_autorepeat",
            "evdev_ff_status",
            "evdev_ff_types",
            "evdev_keycode",
            "evdev_leds",
            "evdev_misc",
            "evdev_mtslots",
            "evdev_prop",
            "evdev_relative_axes",
            "evdev_snd",
            "evdev_switch",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/gpio.h"],
        tables: &[
            "gpio_line_flags",
            "gpio_handle_flags",
            "gpio_event_flags",
            "gpio_v2_line_flags",
            "gpio_v2_line_attr_ids",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/hdreg.h"],
        tables: &["hdio_drive_cmds", "hdio_busstates"],
    },
    Group {
        defines: &[],
        headers: &["linux/kd.h", "linux/keyboard.h"],
        tables: &[
            "kd_default_led_flags",
            "kd_font_flags",
            "kd_font_ops",
            "kd_kbd_modes",
            "kd_kbd_types",
            "kd_key_ascii_keys",
            "kd_key_brl_keys",
            "kd_key_cur_keys",
            "kd_key_dead_keys",
            "kd_key_fn_key_vals",
            "kd_key_fn_keys",
            "kd_key_lock_keys",
            "kd_key_pad_keys",
            "kd_key_shift_keys",
            "kd_key_slock_keys",
            "kd_key_spec_keys",
            "kd_key_tables",
            "kd_key_types",
            "kd_led_flags",
            "kd_meta_vals",
            "kd_modes",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/loop.h"],
        tables: &["loop_flags_options", "loop_crypt_type_options"],
    },
    Group {
        defines: &[],
        headers: &["linux/ioctl.h", "mtd/ubi-user.h"],
        tables: &[
            "ubi_volume_types",
            "ubi_volume_flags",
            "ubi_volume_props",
            "ubi_data_types",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/ioctl.h", "mtd/mtd-abi.h"],
        tables: &[
            "mtd_mode_options",
            "mtd_file_mode_options",
            "mtd_type_options",
            "mtd_flags_options",
            "mtd_otp_options",
            "mtd_nandecc_options",
        ],
    },
    Group {
        defines: &[],
        headers: &["linux/videodev2.h"],
        tables: &["v4l2_input_types"],
    },
    Group {
        defines: &[],
        headers: &["scsi/sg.h"],
        tables: &["sg_scsi_reset"],
    },
];

fn table(name: &str) -> &'static Xlat {
    xlat::by_name(name).unwrap_or_else(|| panic!("no xlat table {name}"))
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rtrace-arch-xlat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn prelude(g: &Group) -> String {
    let mut c = String::new();
    for d in g.defines {
        let (name, value) = d.split_once('=').unwrap_or((d, "1"));
        c.push_str(&format!("#define {name} {value}\n"));
    }
    for h in g.headers {
        c.push_str(&format!("#include <{h}>\n"));
    }
    c
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The identifiers of the preprocessed headers: a name found here but not defined
/// as a macro is an enumerator.
fn identifiers(dir: &Path, i: usize, g: &Group) -> HashSet<String> {
    let src = dir.join(format!("ids{i}.c"));
    std::fs::write(&src, prelude(g)).unwrap();
    let text = run(Command::new("cc").arg("-E").arg(&src));
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// `name -> (value, sizeof)` for every table name the group's headers define.
fn header_values(dir: &Path, i: usize, g: &Group) -> BTreeMap<String, (i64, usize)> {
    let ids = identifiers(dir, i, g);
    let mut c = prelude(g);
    c.push_str("#include <stdio.h>\n");
    c.push_str(
        "#define P(n) printf(\"%s %lld %zu\\n\", #n, (long long)(n), sizeof(n))\nint main(void) {\n",
    );
    let mut names = BTreeSet::new();
    for t in g.tables {
        for &(_, n) in table(t).entries {
            names.insert(n);
        }
    }
    for n in names {
        c.push_str(&format!("#ifdef {n}\n  P({n});\n"));
        if ids.contains(n) {
            c.push_str(&format!("#else\n  P({n});\n"));
        }
        c.push_str("#endif\n");
    }
    c.push_str("  return 0;\n}\n");
    let src = dir.join(format!("values{i}.c"));
    let exe = dir.join(format!("values{i}"));
    std::fs::write(&src, c).unwrap();
    run(Command::new("cc").arg("-w").arg("-o").arg(&exe).arg(&src));
    run(&mut Command::new(&exe))
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace();
            let n = it.next().unwrap().to_string();
            let v: i64 = it.next().unwrap().parse().unwrap();
            let size: usize = it.next().unwrap().parse().unwrap();
            (n, (v, size))
        })
        .collect()
}

#[test]
fn xlat_values_match_system_headers() {
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("skip: no C compiler (cc) to read the system headers with");
        return;
    }
    // Every table is covered by some group, so a new table cannot go unchecked.
    for t in xlat::ALL {
        assert!(
            GROUPS.iter().any(|g| g.tables.contains(&t.name)),
            "xlat table {} is not cross-checked against any header: add it to GROUPS",
            t.name
        );
    }

    let dir = scratch_dir();
    let mut checked: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut mismatches = Vec::new();
    for (i, g) in GROUPS.iter().enumerate() {
        let values = header_values(&dir, i, g);
        for &t in g.tables {
            for &(v, n) in table(t).entries {
                let Some(&(hv, size)) = values.get(n) else {
                    continue;
                };
                // A 32-bit C constant compares in 32 bits: (1<<31) is negative as an
                // int, and SI_QUEUE's -1 is 0xffffffff.
                let mask = if size < 8 {
                    (1u64 << (size * 8)) - 1
                } else {
                    u64::MAX
                };
                if v & mask != (hv as u64) & mask {
                    mismatches.push(format!(
                        "{t}: {n} is {:#x} in xlat/{t}.in but {:#x} in <{}>",
                        v & mask,
                        hv as u64 & mask,
                        g.headers.join(">, <")
                    ));
                }
                checked.insert((t, n));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));

    let mut total = 0;
    let mut missing = Vec::new();
    for t in xlat::ALL {
        for &(_, n) in t.entries {
            total += 1;
            if !checked.contains(&(t.name, n)) {
                missing.push(format!("{}:{n}", t.name));
            }
        }
    }
    eprintln!(
        "checked {} of {total} names; not in this machine's headers: {}",
        total - missing.len(),
        missing.join(" ")
    );
    assert!(
        (total - missing.len()) * 100 >= total * 85,
        "only {} of {total} xlat names were found in the headers",
        total - missing.len()
    );
}
