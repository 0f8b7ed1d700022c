//! Syscall decoding: table-driven, one family of decoders per file.
//!
//! Each family file exports `DECODERS: &[(&str, Decoder)]`, a list of syscall
//! names and the function that decodes them. [`SyscallTable`] joins those with
//! the arch crate's tables (numbers, argument counts, trace classes) once per
//! personality. A syscall without a decoder is printed generically: its
//! arguments in hex, as many as the kernel defines.

mod aio;
mod array;
mod bpf;
mod cachestat;
mod caps;
mod creds;
pub mod ctx;
mod desc;
mod dirent;
mod eventfds;
mod fcntl;
mod fd_anon;
pub mod fd_cache;
pub mod fd_details;
mod file;
mod file_attr;
mod futex;
mod futex2;
mod generic;
mod io_uring;
mod io_uring_enter;
mod io_uring_register;
mod io_uring_register_newer;
mod io_uring_register_zcrx;
mod io_uring_sqe;
mod ioctl;
mod ioprio;
mod ipc;
mod kernel_admin;
mod keyctl;
mod landlock;
mod layout;
mod ldt;
mod listns;
mod lsm;
mod memory_calls;
mod misc_calls;
mod mount;
mod mseal_shadow;
mod net;
mod netlink;
mod numa;
mod perf_event;
mod pidfd;
mod poll;
mod prctl;
mod printers;
mod process;
pub(in crate::syscall) mod ptrace;
mod quotactl;
mod resource;
mod rseq;
mod sched;
mod seccomp_filter;
pub mod signal;
mod stat;
mod statmount;
#[cfg(test)]
mod testutil;
mod time;
mod timex;
mod xattr;

// decsys families
// bpf, perf_event_open and io_uring
// sys families (issue 6)

pub use crate::value::{Field, Ret, StrVal, Value};
pub use ctx::{Ctx, DecodeOpts, RetFmt, Step};

use rtrace_arch::tables::Classes;
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A syscall decoder: called at entry, and at exit when it returned [`Step::Exit`].
pub type Decoder = fn(&mut Ctx) -> Step;

/// netlink's printers for the socket calls of `net`: netlink decodes its
/// messages with net's address printers, so net reaches netlink only
/// through this table and the dependency goes one way (netlink on net).
const NETLINK_DATA: net::NetlinkData = net::NetlinkData {
    protocol: netlink::fd_protocol,
    unknown_protocol: netlink::UNKNOWN_PROTO,
    messages: netlink::netlink_value,
    sockbuf: netlink::sockbuf_value,
};

/// Everything known about one syscall number of one personality.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Name (`openat`), or `None` for an unknown number.
    pub name: Option<&'static str>,
    /// Arguments the kernel takes.
    pub nargs: u8,
    /// Trace classes (`%file`, `%desc`, …).
    pub classes: Classes,
    /// The decoder; `None` prints arguments in hex.
    pub decoder: Option<Decoder>,
}

const UNKNOWN: Entry = Entry {
    name: None,
    nargs: 6,
    classes: Classes(0),
    decoder: None,
};

/// The decoders of every family, by syscall name.
fn all_decoders() -> &'static HashMap<&'static str, Decoder> {
    static MAP: OnceLock<HashMap<&'static str, Decoder>> = OnceLock::new();
    MAP.get_or_init(|| {
        let families: &[&[(&str, Decoder)]] = &[
            file::DECODERS,
            desc::DECODERS,
            crate::syscall::desc::iov::DECODERS,
            stat::DECODERS,
            fcntl::DECODERS,
            dirent::DECODERS,
            process::DECODERS,
            resource::DECODERS,
            rseq::DECODERS,
            prctl::DECODERS,
            signal::DECODERS,
            memory_calls::DECODERS,
            time::DECODERS,
            futex::DECODERS,
            ldt::DECODERS,
            net::DECODERS,
            crate::syscall::net::msghdr::DECODERS,
            crate::syscall::net::sockopt::DECODERS,
            poll::DECODERS,
            eventfds::DECODERS,
            // decsys families
            ioctl::DECODERS,
            sched::DECODERS,
            xattr::DECODERS,
            mount::DECODERS,
            ipc::DECODERS,
            caps::DECODERS,
            creds::DECODERS,
            numa::DECODERS,
            ioprio::DECODERS,
            crate::syscall::ptrace::req::DECODERS,
            landlock::DECODERS,
            keyctl::DECODERS,
            bpf::DECODERS,
            perf_event::DECODERS,
            io_uring::DECODERS,
            aio::DECODERS,
            kernel_admin::DECODERS,
            misc_calls::DECODERS,
            mseal_shadow::DECODERS,
            futex2::DECODERS,
            cachestat::DECODERS,
            statmount::DECODERS,
            lsm::DECODERS,
            file_attr::DECODERS,
            listns::DECODERS,
            pidfd::DECODERS,
            quotactl::DECODERS,
            timex::DECODERS,
        ];
        let mut m = HashMap::new();
        for fam in families {
            for &(name, d) in *fam {
                let prev = m.insert(name, d);
                assert!(prev.is_none(), "two decoders for {name}");
            }
        }
        m
    })
}

/// The per-personality syscall table, indexed by number.
pub struct SyscallTable {
    entries: Vec<Entry>,
}

impl SyscallTable {
    /// The table of `arch`, built once.
    pub fn get(arch: Arch) -> &'static SyscallTable {
        static TABLES: [OnceLock<SyscallTable>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let i = match arch {
            Arch::X86_64 => 0,
            Arch::I386 => 1,
            Arch::Aarch64 => 2,
        };
        TABLES[i].get_or_init(|| SyscallTable::build(arch))
    }

    fn build(arch: Arch) -> SyscallTable {
        let decoders = all_decoders();
        let mut entries = vec![UNKNOWN; arch.table_len()];
        for (nr, name) in arch.syscalls() {
            let info = arch.info(nr as u64);
            entries[nr as usize] = Entry {
                name: Some(name),
                nargs: info.map_or(6, |i| i.nargs),
                classes: info.map_or(Classes(0), |i| i.classes),
                decoder: decoders.get(name).copied(),
            };
        }
        SyscallTable { entries }
    }

    /// The entry of syscall `nr` (an "unknown" entry when out of range).
    pub fn entry(&self, nr: u64) -> &Entry {
        self.entries.get(nr as usize).unwrap_or(&UNKNOWN)
    }

    /// All entries with their numbers.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Entry)> {
        self.entries.iter().enumerate().map(|(i, e)| (i as u64, e))
    }
}

/// Decodes syscall entry: fills `ctx.entry_args`; returns what to do at exit.
pub fn decode_entry(entry: &Entry, ctx: &mut Ctx) -> Step {
    match entry.decoder {
        Some(d) if !ctx.opts.raw => d(ctx),
        _ => generic::decode(entry, ctx),
    }
}

/// Decodes syscall exit after [`decode_entry`] returned `step`; returns the
/// rendered return value.
pub fn decode_exit(entry: &Entry, ctx: &mut Ctx, step: Step) -> Ret {
    let fmt = match step {
        Step::Done(f) => f,
        Step::Exit => match entry.decoder {
            Some(d) if !ctx.opts.raw => match d(ctx) {
                Step::Done(f) => f,
                Step::Exit => RetFmt::Int,
            },
            _ => RetFmt::Int,
        },
    };
    make_ret(ctx, fmt)
}

/// Turns a raw return value into a [`Ret`] by format.
pub fn make_ret(ctx: &mut Ctx, fmt: RetFmt) -> Ret {
    let r = ctx.retval();
    if fmt == RetFmt::Unknown {
        return Ret::Unknown;
    }
    if ctx::is_error(r) {
        return Ret::Err { errno: (-r) as u64 };
    }
    if ctx.opts.raw {
        return Ret::Hex(r as u64);
    }
    match fmt {
        // strace's default RVAL_UDECIMAL: unsigned, 32 bits for i386.
        RetFmt::Int => Ret::UInt(ctx.arg_ulong_value(r as u64)),
        RetFmt::Hex => Ret::Hex(ctx.arg_ulong_value(r as u64)),
        RetFmt::Oct => Ret::Oct(r as u64),
        RetFmt::Fd => {
            let path = if ctx.opts.fd_paths {
                ctx.fds.fd_path(ctx.pid, r)
            } else {
                None
            };
            Ret::Fd(r, path)
        }
        RetFmt::Pid | RetFmt::Id(_) => {
            let kind = match fmt {
                RetFmt::Id(k) => k,
                _ => ctx::PidKind::Tgid,
            };
            let bare = |v: Value| match v {
                Value::Pid { pid, comm } => Ret::Pid(pid, comm),
                _ => Ret::Int(r),
            };
            match ctx.id_value(r, kind) {
                Value::Commented(v, c) => Ret::Commented(Box::new(bare(*v)), c),
                v => bare(v),
            }
        }
        RetFmt::Unknown => Ret::Unknown,
        RetFmt::Value(v) => v,
    }
}

impl Ctx<'_> {
    /// A word-sized value of the tracee (truncated to 32 bits for i386).
    pub fn arg_ulong_value(&self, v: u64) -> u64 {
        if self.arch.word_size() == 4 {
            v as u32 as u64
        } else {
            v
        }
    }
}

/// A raw `siginfo_t` as strace prints it after `--- SIGNAME `.
pub fn siginfo_value(arch: Arch, style: u8, info: &[u8; 128]) -> Value {
    signal::siginfo_value_styled(arch, style, info)
}
