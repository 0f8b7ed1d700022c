//! Message headers: sendmsg, recvmsg, sendmmsg, recvmmsg (strace's
//! `msghdr.c` and `mmsghdr.c`): `struct msghdr` with its address, iovec
//! (limited to the bytes transferred at exit) and control messages
//! (`SCM_RIGHTS` descriptors, `SCM_CREDENTIALS`, `SCM_SECURITY`, socket
//! timestamps, `IP_PKTINFO`/`IP_TTL`/`IP_TOS`/`IP_ORIGDSTADDR`).
//!
//! `recvmmsg` prints, at exit, the name lengths and timeout the caller
//! passed at entry; they are kept per thread between the two stops (a
//! thread has one syscall in flight), the only decoder state outside `Ctx`.

use crate::syscall::array::{array_at, iov_upto};
use crate::syscall::ctx::render_flags;
use crate::syscall::net::sockaddr::{ifindex_value, inet_addr_value, sockaddr_value};
use crate::syscall::printers::{id_value, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, StrVal, Value, NETLINK_DATA};
use rtrace_arch::xlat;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("sendmsg", sendmsg),
    ("recvmsg", recvmsg),
    ("sendmmsg", sendmmsg),
    ("recvmmsg", recvmmsg),
    ("recvmmsg_time64", recvmmsg64),
];

/// The fields of a `struct msghdr` of the tracee.
struct Msghdr {
    name: u64,
    namelen: u32,
    iov: u64,
    iovlen: u64,
    control: u64,
    controllen: u64,
    flags: u64,
}

/// `sizeof(struct msghdr)` for a word size.
fn msghdr_size(w: usize) -> usize {
    if w == 4 {
        28
    } else {
        56
    }
}

fn parse_msghdr(b: &[u8], w: usize) -> Msghdr {
    let word = |off: usize| if w == 4 { le32(b, off) } else { le64(b, off) };
    Msghdr {
        name: word(0),
        namelen: le32(b, w) as u32,
        iov: word(2 * w),
        iovlen: word(3 * w),
        control: word(4 * w),
        controllen: word(5 * w),
        flags: le32(b, 6 * w),
    }
}

fn fetch_msghdr(c: &mut Ctx, addr: u64) -> Option<Msghdr> {
    let w = c.arch.word_size();
    let b = c.read_bytes(addr, msghdr_size(w))?;
    Some(parse_msghdr(&b, w))
}

/// strace's `print_struct_msghdr`: `user_namelen` is the name length the
/// caller offered (recvmsg), `data` the bytes the call moved (`None`: all).
fn msghdr_value(c: &mut Ctx, m: &Msghdr, user_namelen: Option<i32>, data: Option<u64>) -> Value {
    let namelen = m.namelen as i32;
    let eff = match user_namelen {
        Some(u) if namelen > u => u,
        _ => namelen,
    };
    let mut nl_name = false;
    let name = if eff < 2 {
        Value::Ptr(m.name)
    } else if m.name == 0 {
        Value::Ptr(0)
    } else {
        match c.read_bytes(m.name, (eff as usize).min(128)) {
            Some(b) => {
                nl_name = u16::from_le_bytes([b[0], b[1]]) == libc::AF_NETLINK as u16;
                let mut v = sockaddr_value(c, &b);
                c.field_id(&mut v, "nl_pid", crate::syscall::ctx::PidKind::Tgid);
                v
            }
            None => Value::Unreadable(m.name),
        }
    };
    let namelen_v = match user_namelen {
        Some(u) if u != namelen => Value::Changed(
            Box::new(Value::Int(u as i64)),
            Box::new(Value::Int(namelen as i64)),
        ),
        _ => Value::Int(namelen as i64),
    };
    // strace decodes the iovec as netlink messages when the name is an
    // AF_NETLINK address; the protocol is the descriptor's (the first
    // argument of every msghdr call).
    let proto = if nl_name && m.iov != 0 && m.iovlen != 0 {
        let nl = &NETLINK_DATA;
        Some((nl.protocol)(c, c.arg_int(0) as i64).unwrap_or(nl.unknown_protocol))
    } else {
        None
    };
    let mut f = vec![
        Field::new("msg_name", name),
        Field::new("msg_namelen", namelen_v),
        Field::new(
            "msg_iov",
            iov_upto(c, m.iov, m.iovlen, data, |c, b, n| match proto {
                Some(p) if b != 0 => (NETLINK_DATA.messages)(c, p, b, n),
                _ => c.buf_value(b, n),
            }),
        ),
        Field::new("msg_iovlen", Value::UInt(m.iovlen)),
    ];
    if m.controllen != 0 {
        f.push(Field::new(
            "msg_control",
            control_value(c, m.control, m.controllen),
        ));
    }
    f.push(Field::new("msg_controllen", Value::UInt(m.controllen)));
    f.push(Field::new(
        "msg_flags",
        xflags(c, m.flags, &xlat::MSG_FLAGS, "MSG_???"),
    ));
    Value::structure(f)
}

/// `net.core.optmem_max` rounded up to 8 (strace's `get_optmem_max`): the
/// most control data decoded.
fn optmem_max() -> u64 {
    static MAX: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/net/core/optmem_max")
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .filter(|&v| v > 0)
            .map_or(8 * (2 * 1024 + 512), |v| (v as u64 + 7) & !7)
    })
}

/// strace's `decode_msg_control`: the control messages in `len` bytes at `addr`.
fn control_value(c: &mut Ctx, addr: u64, in_len: u64) -> Value {
    let w = c.arch.word_size();
    let hdr = if w == 4 { 12 } else { 16 };
    let control_len = in_len.min(optmem_max()) as usize;
    if control_len < hdr {
        return Value::Ptr(addr);
    }
    let Some(buf) = c.read_bytes(addr, control_len) else {
        return if addr == 0 {
            Value::Ptr(0)
        } else {
            Value::Unreadable(addr)
        };
    };
    let mut items = Vec::new();
    let mut pos = 0usize;
    let mut left = control_len;
    while left >= hdr {
        let b = &buf[pos..];
        let cmsg_len = if w == 4 { le32(b, 0) } else { le64(b, 0) };
        let level = le32(b, w) as u32 as i32;
        let ty = le32(b, w + 4) as u32 as i32;
        let len = (cmsg_len as usize).min(left);
        let data = &b[hdr..hdr + len.saturating_sub(hdr)];
        let mut f = vec![
            Field::new("cmsg_len", Value::UInt(cmsg_len)),
            Field::new(
                "cmsg_level",
                c.enum_value(level as u32 as u64, &xlat::SOCKET_LAYERS, "SOL_???"),
            ),
        ];
        cmsg_type_data(c, level, ty, data, &mut f);
        items.push(Value::structure(f));
        if len < hdr {
            left -= hdr;
            break;
        }
        let step = ((cmsg_len as usize).saturating_add(w - 1)) & !(w - 1);
        if step >= left {
            left = 0;
            break;
        }
        pos += step;
        left -= step;
    }
    if left > 0 {
        let at = format!("{:#x}", addr + (control_len - left) as u64);
        items.push(Value::Commented(
            Box::new(Value::sym("...")),
            Cow::Owned(at),
        ));
        return Value::Array(items, false);
    }
    Value::Array(items, (control_len as u64) < in_len)
}

/// `cmsg_type=…` and, for the types strace decodes, `cmsg_data=…`.
fn cmsg_type_data(c: &mut Ctx, level: i32, ty: i32, d: &[u8], f: &mut Vec<Field>) {
    let uty = ty as u32 as u64;
    let data = match level {
        libc::SOL_SOCKET => {
            f.push(Field::new(
                "cmsg_type",
                c.enum_value(uty, &xlat::SCM_TYPES, "SCM_???"),
            ));
            match ty {
                libc::SCM_RIGHTS if d.len() >= 4 => {
                    let lim = if c.opts.verbose {
                        usize::MAX
                    } else {
                        c.opts.string_limit
                    };
                    let n = d.len() / 4;
                    Some(Value::Array(
                        d.chunks_exact(4)
                            .take(lim)
                            .map(|x| c.fd_value(le32(x, 0) as u32 as i32 as i64))
                            .collect(),
                        n > lim,
                    ))
                }
                libc::SCM_CREDENTIALS if d.len() >= 12 => Some(Value::structure(vec![
                    Field::new("pid", c.pid_value(le32(d, 0) as u32 as i32 as i64)),
                    Field::new("uid", id_value(le32(d, 4) as u32)),
                    Field::new("gid", id_value(le32(d, 8) as u32)),
                ])),
                3 if !d.is_empty() => Some(quoted(d)),
                29 if !d.is_empty() => Some(time_pair(c, d, "tv_usec")),
                35 if !d.is_empty() => Some(time_pair(c, d, "tv_nsec")),
                // SO_TIMESTAMPING_OLD: three native timespecs.
                37 if !d.is_empty() => Some(time_triple(d, c.arch.word_size())),
                // SO_TIMESTAMP_NEW, SO_TIMESTAMPNS_NEW: 64-bit timeval/timespec.
                63 if !d.is_empty() => Some(time_pair_64(d, "tv_usec")),
                64 if !d.is_empty() => Some(time_pair_64(d, "tv_nsec")),
                // SO_TIMESTAMPING_NEW: three 64-bit timespecs.
                65 if !d.is_empty() => Some(time_triple(d, 8)),
                _ => None,
            }
        }
        libc::SOL_IP => {
            f.push(Field::new(
                "cmsg_type",
                c.enum_value(uty, &xlat::IP_CMSG_TYPES, "IP_???"),
            ));
            match ty {
                libc::IP_PKTINFO if d.len() >= 12 => Some(Value::structure(vec![
                    Field::new("ipi_ifindex", ifindex_value(c, le32(d, 0) as u32)),
                    Field::new("ipi_spec_dst", inet_addr_value(c, &d[4..8])),
                    Field::new("ipi_addr", inet_addr_value(c, &d[8..12])),
                ])),
                libc::IP_TTL | libc::IP_CHECKSUM if d.len() >= 4 => Some(Value::Array(
                    d.chunks_exact(4).map(|x| Value::UInt(le32(x, 0))).collect(),
                    false,
                )),
                libc::IP_TOS | libc::IP_RECVOPTS | libc::IP_RETOPTS if !d.is_empty() => {
                    let lim = if c.opts.verbose {
                        usize::MAX
                    } else {
                        c.opts.string_limit
                    };
                    Some(Value::Array(
                        d.iter().take(lim).map(|&x| xint(x as u64)).collect(),
                        d.len() > lim,
                    ))
                }
                // IP_RECVERR: struct sock_extended_err and the offender.
                11 if d.len() >= 32 => Some(Value::structure(vec![
                    Field::new("ee_errno", Value::UInt(le32(d, 0))),
                    Field::new("ee_origin", Value::UInt(d[4] as u64)),
                    Field::new("ee_type", Value::UInt(d[5] as u64)),
                    Field::new("ee_code", Value::UInt(d[6] as u64)),
                    Field::new("ee_info", Value::UInt(le32(d, 8))),
                    Field::new("ee_data", Value::UInt(le32(d, 12))),
                    Field::new("offender", sockaddr_value(c, &d[16..32])),
                ])),
                libc::IP_ORIGDSTADDR if d.len() >= 16 => {
                    Some(sockaddr_value(c, &d[..d.len().min(128)]))
                }
                3 if !d.is_empty() => Some(quoted(d)),
                _ => None,
            }
        }
        _ => {
            f.push(Field::new("cmsg_type", xint(uty)));
            None
        }
    };
    if let Some(v) = data {
        f.push(Field::new("cmsg_data", v));
    }
}

fn quoted(d: &[u8]) -> Value {
    Value::Str(StrVal {
        bytes: d.to_vec(),
        truncated: false,
        c_string: false,
    })
}

/// A native timeval/timespec control message of exactly its size, else the
/// bytes' address-free placeholder strace prints for a short one.
fn time_pair(c: &Ctx, d: &[u8], sub: &'static str) -> Value {
    let w = c.arch.word_size();
    if d.len() != 2 * w {
        return Value::sym("???");
    }
    let (s, n) = if w == 4 {
        (le32(d, 0) as u32 as i32 as i64, le32(d, 4))
    } else {
        (le64(d, 0) as i64, le64(d, 8))
    };
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(s)),
        Field::new(sub, Value::UInt(n)),
    ])
}

/// A 64-bit `{tv_sec, tv_usec|tv_nsec}` of exactly 16 bytes, else `???`.
fn time_pair_64(d: &[u8], sub: &'static str) -> Value {
    if d.len() != 16 {
        return Value::sym("???");
    }
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(le64(d, 0) as i64)),
        Field::new(sub, Value::UInt(le64(d, 8))),
    ])
}

/// Three timespecs of `w`-byte members (`SO_TIMESTAMPING`), else `???`.
fn time_triple(d: &[u8], w: usize) -> Value {
    if d.len() != 6 * w {
        return Value::sym("???");
    }
    let get = |o: usize| {
        if w == 4 {
            le32(d, o) as u32 as i32 as i64
        } else {
            le64(d, o) as i64
        }
    };
    Value::Array(
        (0..3)
            .map(|i| {
                Value::structure(vec![
                    Field::new("tv_sec", Value::Int(get(2 * w * i))),
                    Field::new("tv_nsec", Value::UInt(get(2 * w * i + w) as u64)),
                ])
            })
            .collect(),
        false,
    )
}

/// A msghdr pointer: decoded, or the address.
fn msghdr_at(c: &mut Ctx, addr: u64, user: Option<i32>, data: Option<u64>) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match fetch_msghdr(c, addr) {
        Some(m) => msghdr_value(c, &m, user, data),
        None => Value::Unreadable(addr),
    }
}

/// `sendmsg(fd, msg, flags)`.
fn sendmsg(c: &mut Ctx) -> Step {
    c.fd(0);
    let v = msghdr_at(c, c.arg_ulong(1), None, None);
    c.push(v);
    let fl = xflags(c, c.arg(2) as u32 as u64, &xlat::MSG_FLAGS, "MSG_???");
    c.push(fl);
    Step::Done(RetFmt::Int)
}

/// `recvmsg(fd, msg, flags)`: the header at exit, with the name length the
/// caller offered.
fn recvmsg(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(1);
    if c.entering() {
        c.fd(0);
        if addr != 0 {
            if let Some(m) = fetch_msghdr(c, addr) {
                c.saved = m.namelen as u64;
                return Step::Exit;
            }
        }
        c.push(Value::Ptr(addr));
    } else if c.failed() {
        let user = c.saved as u32 as i32;
        c.push(Value::structure(vec![Field::new(
            "msg_namelen",
            Value::Int(user as i64),
        )]));
    } else {
        let user = c.saved as u32 as i32;
        let n = c.retval() as u64;
        let v = msghdr_at(c, addr, Some(user), Some(n));
        c.push(v);
    }
    let fl = xflags(c, c.arg(2) as u32 as u64, &xlat::MSG_FLAGS, "MSG_???");
    c.push(fl);
    Step::Done(RetFmt::Int)
}

/// `sizeof(struct mmsghdr)`.
fn mmsghdr_size(w: usize) -> usize {
    if w == 4 {
        32
    } else {
        64
    }
}

/// strace's `decode_mmsgvec`: `vlen` headers at `addr`; the first
/// `msg_len_n` show `msg_len`; `namelens` are the lengths offered at entry.
fn mmsgvec(c: &mut Ctx, addr: u64, vlen: u64, msg_len_n: u64, namelens: Option<&[i32]>) -> Value {
    let w = c.arch.word_size();
    let size = mmsghdr_size(w);
    let hsize = msghdr_size(w);
    let mut i = 0usize;
    let count = namelens.map_or(1024, |n| n.len().min(1024));
    let use_msg_len = namelens.is_some();
    if !c.opts.deref {
        // `-e verbose=` left this call out: the vector's address.
        return Value::Ptr(addr);
    }
    array_at(c, addr, vlen, size, |c, b| {
        if i >= count {
            return None;
        }
        let m = parse_msghdr(b, w);
        let msg_len = le32(b, hsize);
        let user = namelens.map(|n| n[i]);
        let data = use_msg_len.then_some(msg_len);
        let mut f = vec![Field::new("msg_hdr", msghdr_value(c, &m, user, data))];
        if (i as u64) < msg_len_n {
            f.push(Field::new("msg_len", Value::UInt(msg_len)));
        }
        i += 1;
        Some(Value::structure(f))
    })
    .with_more_if(i >= count && count < vlen as usize)
}

trait MoreIf {
    fn with_more_if(self, more: bool) -> Value;
}

impl MoreIf for Value {
    /// Marks an array as continued (`...`) when its printer stopped early.
    fn with_more_if(self, more: bool) -> Value {
        match self {
            Value::Array(items, m) => Value::Array(items, m || more),
            v => v,
        }
    }
}

/// `sendmmsg(fd, msgvec, vlen, flags)`: all at exit, `msg_len` for the
/// messages sent.
fn sendmmsg(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    let n = if c.failed() { 0 } else { c.retval() as u64 };
    let vlen = c.arg(2) as u32 as u64;
    let v = mmsgvec(c, c.arg_ulong(1), vlen, n, None);
    c.push(v);
    c.push(Value::UInt(vlen));
    let fl = xflags(c, c.arg(3) as u32 as u64, &xlat::MSG_FLAGS, "MSG_???");
    c.push(fl);
    Step::Done(RetFmt::Int)
}

/// What recvmmsg's entry saw: the name lengths offered and the timeout.
struct MmsgEntry {
    namelens: Vec<i32>,
    timeout: Value,
}

thread_local! {
    static PENDING: RefCell<HashMap<i32, MmsgEntry>> = RefCell::new(HashMap::new());
}

/// A timespec of `w`-byte fields at `addr` (`NULL`, the address, or the struct).
fn timespec_w(c: &mut Ctx, addr: u64, w: usize) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, 2 * w) {
        Some(b) => time_pair_w(&b, w),
        None => Value::Unreadable(addr),
    }
}

fn time_pair_w(b: &[u8], w: usize) -> Value {
    let (s, n) = if w == 4 {
        (le32(b, 0) as u32 as i32 as i64, le32(b, 4))
    } else {
        (le64(b, 0) as i64, le64(b, 8))
    };
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(s)),
        Field::new("tv_nsec", Value::UInt(n)),
    ])
}

/// `recvmmsg(fd, msgvec, vlen, flags, timeout)` with `w`-byte timespec fields.
fn do_recvmmsg(c: &mut Ctx, tw: usize) -> Step {
    let (addr, tmo) = (c.arg_ulong(1), c.arg_ulong(4));
    if c.entering() {
        c.fd(0);
        let w = c.arch.word_size();
        let vlen = (c.arg(2) as u32).min(1024) as u64;
        let mut namelens = Vec::new();
        let size = mmsghdr_size(w) as u64;
        for i in 0..vlen {
            match c.read_pod::<u32>(addr + i * size + w as u64) {
                Some(n) => namelens.push(n as i32),
                None => break,
            }
        }
        let timeout = timespec_w(c, tmo, tw);
        let pid = c.pid;
        PENDING.with(|p| p.borrow_mut().insert(pid, MmsgEntry { namelens, timeout }));
        return Step::Exit;
    }
    let pid = c.pid;
    let saved = PENDING.with(|p| p.borrow_mut().remove(&pid));
    let (namelens, timeout) = match saved {
        Some(e) => (e.namelens, e.timeout),
        None => (Vec::new(), Value::Ptr(tmo)),
    };
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        let n = c.retval() as u64;
        mmsgvec(c, addr, n, n, Some(&namelens))
    };
    c.push(v);
    c.push(Value::UInt(c.arg(2) as u32 as u64));
    let fl = xflags(c, c.arg(3) as u32 as u64, &xlat::MSG_FLAGS, "MSG_???");
    c.push(fl);
    c.push(timeout);
    if c.failed() {
        return Step::Done(RetFmt::Int);
    }
    let r = c.retval();
    let note = if r == 0 {
        "Timeout".to_string()
    } else if tmo != 0 && c.opts.deref {
        format!("left {}", render_flags(&timespec_w(c, tmo, tw)))
    } else {
        return Step::Done(RetFmt::Int);
    };
    Step::Done(RetFmt::Value(Ret::Annotated(
        Box::new(Ret::Int(r)),
        Cow::Owned(note),
    )))
}

fn recvmmsg(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_recvmmsg(c, w)
}

fn recvmmsg64(c: &mut Ctx) -> Step {
    do_recvmmsg(c, 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    fn hdr(name: u64, namelen: u32, iov: u64, iovlen: u64, ctl: u64, ctllen: u64) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&name.to_le_bytes());
        v.extend_from_slice(&(namelen as u64).to_le_bytes());
        v.extend_from_slice(&iov.to_le_bytes());
        v.extend_from_slice(&iovlen.to_le_bytes());
        v.extend_from_slice(&ctl.to_le_bytes());
        v.extend_from_slice(&ctllen.to_le_bytes());
        v.extend_from_slice(&0u64.to_le_bytes());
        v
    }

    #[test]
    fn rights_and_credentials() {
        let mut m = FakeMemory::default();
        let data = m.put(b"hello");
        let mut iov = data.to_le_bytes().to_vec();
        iov.extend_from_slice(&5u64.to_le_bytes());
        let iov = m.put(&iov);
        let mut ctl = 20u64.to_le_bytes().to_vec();
        ctl.extend_from_slice(&1i32.to_le_bytes());
        ctl.extend_from_slice(&1i32.to_le_bytes());
        ctl.extend_from_slice(&7i32.to_le_bytes());
        ctl.extend_from_slice(&[0; 4]);
        ctl.extend_from_slice(&28u64.to_le_bytes());
        ctl.extend_from_slice(&1i32.to_le_bytes());
        ctl.extend_from_slice(&2i32.to_le_bytes());
        for v in [42u32, 0, u32::MAX] {
            ctl.extend_from_slice(&v.to_le_bytes());
        }
        ctl.extend_from_slice(&[0; 4]);
        let n = ctl.len() as u64;
        let ctl = m.put(&ctl);
        let msg = m.put(&hdr(0, 0, iov, 1, ctl, n));
        assert_eq!(
            run(sendmsg, "sendmsg", &[3, msg, 0x4000], 5, &mut m),
            "sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hello\", \
             iov_len=5}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, \
             cmsg_type=SCM_RIGHTS, cmsg_data=[7]}, {cmsg_len=28, cmsg_level=SOL_SOCKET, \
             cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=42, uid=0, gid=-1}}], \
             msg_controllen=56, msg_flags=0}, MSG_NOSIGNAL) = 5"
        );
        assert_eq!(
            run(recvmsg, "recvmsg", &[3, msg, 0], 2, &mut m),
            "recvmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"he\", \
             iov_len=5}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, \
             cmsg_type=SCM_RIGHTS, cmsg_data=[7]}, {cmsg_len=28, cmsg_level=SOL_SOCKET, \
             cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=42, uid=0, gid=-1}}], \
             msg_controllen=56, msg_flags=0}, 0) = 2"
        );
        assert_eq!(
            run(recvmsg, "recvmsg", &[3, msg, 0], -11, &mut m),
            "recvmsg(3, {msg_namelen=0}, 0) = -1 EAGAIN (Resource temporarily unavailable)"
        );
    }
}
