//! `-yy`: what a descriptor is, in strace's words. Sockets are asked about
//! through `NETLINK_SOCK_DIAG`, the way strace does it: the protocol comes
//! from the `system.sockprotoname` attribute of `/proc/PID/fd/N`, then
//!
//! - UNIX: `UNIX-STREAM:[INODE->PEER]`, `UNIX:[INODE,"/path"]` (unix_diag,
//!   looked up by inode);
//! - TCP, UDP (v4 and v6): `TCP:[127.0.0.1:5000->127.0.0.1:41234]`,
//!   `UDPv6:[[::1]:5353]` (inet_diag, a dump matched by inode);
//! - NETLINK: `NETLINK:[ROUTE:1234]` (netlink_diag, a dump matched by inode);
//!
//! and anything the kernel cannot describe as `PROTO:[INODE]`. Character and
//! block devices get their numbers: `/dev/null<char 1:3>`. Other paths are
//! what `-y` prints.
//!
//! The details are returned after a NUL byte (no path contains one): the
//! renderers escape the path before it and print the details as they are.

use crate::sys::net;
use crate::syscall::ctx::FdResolver;
use crate::syscall::fd_anon;
use std::ffi::CString;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStringExt;

/// The `--decode-fds` classes, as bits of [`DetailFdResolver`]'s set.
pub mod decode_set {
    /// Paths (`-y`).
    pub const PATH: u32 = 1;
    /// Socket details.
    pub const SOCKET: u32 = 2;
    /// Device numbers.
    pub const DEV: u32 = 4;
    /// The process a pidfd refers to (`<pid:1234>`).
    pub const PIDFD: u32 = 8;
    /// An eventfd's counter, id and mode.
    pub const EVENTFD: u32 = 16;
    /// A signalfd's signal mask.
    pub const SIGNALFD: u32 = 32;
    /// Everything (`-yy`).
    pub const ALL: u32 = PATH | SOCKET | DEV | PIDFD | EVENTFD | SIGNALFD;
}

/// `-yy` / `--decode-fds=SET` resolver: `-y`'s path, with socket, device,
/// pidfd, eventfd and signalfd details (the last three from the fdinfo,
/// `fd_anon.rs`), each only when its class is in the set (strace's
/// `printfd_pid`: a descriptor whose class is out of the set prints its
/// path only when paths are in the set, else the bare number).
///
/// Like strace, a socket's details are remembered by inode once found, so a
/// connection keeps its description after its peer went away.
pub struct DetailFdResolver {
    set: u32,
    /// The `-X` style of a signalfd's mask.
    style: u8,
    sockets: std::collections::HashMap<u32, String>,
}

impl Default for DetailFdResolver {
    fn default() -> Self {
        DetailFdResolver::with_set(decode_set::ALL)
    }
}

impl DetailFdResolver {
    /// A resolver printing the classes of `set` (bits of [`decode_set`]).
    pub fn with_set(set: u32) -> DetailFdResolver {
        DetailFdResolver {
            set,
            style: 0,
            sockets: std::collections::HashMap::new(),
        }
    }

    /// The resolver printing signal masks in `-X` style `style` (0
    /// abbrev, 1 raw, 2 verbose).
    pub fn with_style(mut self, style: u8) -> DetailFdResolver {
        self.style = style;
        self
    }

    /// `PROTO:[DETAILS]` of a socket, from the cache or sock_diag.
    fn socket(&mut self, proto: Option<&str>, ino: u32) -> String {
        let Some(proto) = proto else {
            return format!("socket:[{ino}]");
        };
        if let Some(s) = self.sockets.get(&ino) {
            return s.clone();
        }
        match socket_body(proto, ino) {
            Some(body) => {
                let s = format!("{proto}:[{body}]");
                self.sockets.insert(ino, s.clone());
                s
            }
            None => format!("{proto}:[{ino}]"),
        }
    }

    fn has(&self, bit: u32) -> bool {
        self.set & bit != 0
    }
}

impl FdResolver for DetailFdResolver {
    fn fd_path(&mut self, pid: i32, fd: i64) -> Option<Vec<u8>> {
        let link = match fd {
            // AT_FDCWD shows the directory only when paths are asked for.
            -100 if self.has(decode_set::PATH) => format!("/proc/{pid}/cwd"),
            f if f < 0 => return None,
            f => format!("/proc/{pid}/fd/{f}"),
        };
        let target = std::fs::read_link(&link).ok()?.into_os_string().into_vec();
        if self.has(decode_set::SOCKET) {
            if let Some(ino) = socket_inode(&target) {
                let proto = sock_proto_name(&link);
                let mut v = vec![0];
                v.extend_from_slice(self.socket(proto.as_deref(), ino).as_bytes());
                return Some(v);
            }
        }
        if self.has(decode_set::DEV) && target.starts_with(b"/") {
            if let Some(dev) = device(&link) {
                let mut v = target;
                v.push(0);
                v.extend_from_slice(dev.as_bytes());
                return Some(v);
            }
        }
        let anon = match target.as_slice() {
            b"anon_inode:[eventfd]" if self.has(decode_set::EVENTFD) => fd_anon::eventfd(pid, fd),
            b"anon_inode:[signalfd]" if self.has(decode_set::SIGNALFD) => {
                fd_anon::signalfd(pid, fd, self.style)
            }
            _ => None,
        };
        if let Some(d) = anon {
            let mut v = vec![0];
            v.extend_from_slice(d.as_bytes());
            return Some(v);
        }
        if self.has(decode_set::PIDFD) && target == b"anon_inode:[pidfd]" {
            if let Some(p) = fd_anon::pidfd_pid(pid, fd) {
                let mut v = vec![0];
                v.extend_from_slice(format!("pid:{p}").as_bytes());
                return Some(v);
            }
            return Some(target);
        }
        self.has(decode_set::PATH).then_some(target)
    }
}

/// The inode of a `socket:[INODE]` link.
fn socket_inode(target: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(target).ok()?;
    s.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
}

/// `<char MAJ:MIN>` / `<block MAJ:MIN>` for a device node.
fn device(link: &str) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let m = std::fs::metadata(link).ok()?;
    let kind = if m.file_type().is_char_device() {
        "char"
    } else if m.file_type().is_block_device() {
        "block"
    } else {
        return None;
    };
    let rdev = m.rdev();
    Some(format!(
        "<{kind} {}:{}>",
        libc::major(rdev),
        libc::minor(rdev)
    ))
}

/// The `system.sockprotoname` attribute (`TCP`, `UNIX-STREAM`, ...).
fn sock_proto_name(link: &str) -> Option<String> {
    let path = CString::new(link).ok()?;
    let mut buf = [0u8; 64];
    let n = crate::sys::net::getxattr(&path, c"system.sockprotoname", &mut buf)?;
    let b = &buf[..n];
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8(b[..end].to_vec()).ok()
}

/// strace's text for socket `ino` of protocol `proto`.
pub fn describe_socket(proto: Option<&str>, ino: u32) -> String {
    let Some(proto) = proto else {
        return format!("socket:[{ino}]");
    };
    match socket_body(proto, ino) {
        Some(body) => format!("{proto}:[{body}]"),
        None => format!("{proto}:[{ino}]"),
    }
}

/// What sock_diag knows of socket `ino` of protocol `proto`, or `None`.
fn socket_body(proto: &str, ino: u32) -> Option<String> {
    match proto {
        "UNIX" | "UNIX-STREAM" => unix(ino),
        "TCP" => inet(libc::AF_INET as u8, libc::IPPROTO_TCP as u8, ino),
        "UDP" => inet(libc::AF_INET as u8, libc::IPPROTO_UDP as u8, ino),
        "UDPLITE" => inet(libc::AF_INET as u8, libc::IPPROTO_UDPLITE as u8, ino),
        "TCPv6" => inet(libc::AF_INET6 as u8, libc::IPPROTO_TCP as u8, ino),
        "UDPv6" => inet(libc::AF_INET6 as u8, libc::IPPROTO_UDP as u8, ino),
        "UDPLITEv6" => inet(libc::AF_INET6 as u8, libc::IPPROTO_UDPLITE as u8, ino),
        "NETLINK" => netlink(ino),
        _ => None,
    }
}

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

/// Sends one sock_diag request and calls `each` with the payload of every
/// reply message until the end of the answer (or `each` returns a value).
fn query<T>(req: &[u8], dump: bool, mut each: impl FnMut(&[u8]) -> Option<T>) -> Option<T> {
    let sock = net::netlink(net::Netlink::SockDiag).ok()?;
    let fd = sock.as_fd();
    let flags = NLM_F_REQUEST | if dump { NLM_F_DUMP } else { 0 };
    let mut msg = Vec::with_capacity(16 + req.len());
    msg.extend_from_slice(&((16 + req.len()) as u32).to_ne_bytes());
    msg.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    msg.extend_from_slice(&flags.to_ne_bytes());
    msg.extend_from_slice(&1u32.to_ne_bytes());
    msg.extend_from_slice(&0u32.to_ne_bytes());
    msg.extend_from_slice(req);
    if net::send(fd, &msg) < 0 {
        return None;
    }
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let n = net::recv(fd, &mut buf);
        if n <= 0 {
            return None;
        }
        let mut rest = &buf[..n as usize];
        while rest.len() >= 16 {
            let len = u32::from_ne_bytes(rest[0..4].try_into().ok()?) as usize;
            let ty = u16::from_ne_bytes(rest[4..6].try_into().ok()?);
            if len < 16 || len > rest.len() {
                return None;
            }
            match ty {
                NLMSG_DONE | NLMSG_ERROR => return None,
                _ => {
                    if let Some(v) = each(&rest[16..len]) {
                        return Some(v);
                    }
                }
            }
            if !dump {
                return None;
            }
            rest = &rest[(len + 3) & !3..];
        }
    }
}

/// The attributes after a fixed header of `head` bytes: (type, payload).
fn attrs(msg: &[u8], head: usize) -> Vec<(u16, &[u8])> {
    let mut out = Vec::new();
    let mut rest = msg.get(head..).unwrap_or(&[]);
    while rest.len() >= 4 {
        let len = u16::from_ne_bytes([rest[0], rest[1]]) as usize;
        let ty = u16::from_ne_bytes([rest[2], rest[3]]);
        if len < 4 || len > rest.len() {
            break;
        }
        out.push((ty, &rest[4..len]));
        rest = &rest[((len + 3) & !3).min(rest.len())..];
    }
    out
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(off..off + 4)?.try_into().ok()?))
}

/// unix_diag by inode: `INODE[->PEER][,"PATH"]`.
fn unix(ino: u32) -> Option<String> {
    const UDIAG_SHOW_NAME: u32 = 1;
    const UDIAG_SHOW_PEER: u32 = 4;
    let mut req = vec![libc::AF_UNIX as u8, 0, 0, 0];
    req.extend_from_slice(&u32::MAX.to_ne_bytes()); // all states
    req.extend_from_slice(&ino.to_ne_bytes());
    req.extend_from_slice(&(UDIAG_SHOW_NAME | UDIAG_SHOW_PEER).to_ne_bytes());
    req.extend_from_slice(&[0xff; 8]); // no cookie
    query(&req, false, |m| {
        if u32_at(m, 4)? != ino {
            return None;
        }
        let mut s = ino.to_string();
        let a = attrs(m, 16);
        // strace: a socket with neither a peer nor a name is "not found".
        let peer = a
            .iter()
            .find(|(t, _)| *t == 2)
            .and_then(|(_, p)| u32_at(p, 0))
            .unwrap_or(0);
        let named = a.iter().find(|(t, p)| *t == 0 && !p.is_empty());
        if peer == 0 && named.is_none() {
            return Some(None);
        }
        if peer != 0 {
            s += &format!("->{peer}");
        }
        if let Some((_, name)) = named {
            // An abstract name: `@` before the quoted rest.
            let name = match name.first() {
                Some(0) => {
                    s += ",@\"";
                    name[1..].split(|&c| c == 0).next().unwrap_or(&[]).to_vec()
                }
                _ => {
                    s += ",\"";
                    name.split(|&c| c == 0).next().unwrap_or(&[]).to_vec()
                }
            };
            for &c in &name {
                match c {
                    b'"' | b'\\' => {
                        s.push('\\');
                        s.push(c as char);
                    }
                    0x20..=0x7e => s.push(c as char),
                    _ => s += &format!("\\{c:o}"),
                }
            }
            s.push('"');
        }
        Some(Some(s))
    })
    .flatten()
}

/// inet_diag dump of one family/protocol, matched by inode:
/// `SRC:PORT[->DST:PORT]`.
fn inet(family: u8, proto: u8, ino: u32) -> Option<String> {
    let mut req = vec![family, proto, 0, 0];
    // Every state but TCP_BOUND_INACTIVE (13): newer kernels list bound,
    // not yet listening sockets, which strace 6.1's kernels did not.
    req.extend_from_slice(&(!(1u32 << 13)).to_ne_bytes());
    req.extend_from_slice(&[0u8; 48]); // any socket id
    query(&req, true, |m| {
        if u32_at(m, 68)? != ino {
            return None;
        }
        let port = |off: usize| u16::from_be_bytes([m[off], m[off + 1]]);
        let addr = |off: usize| -> String {
            if family == libc::AF_INET as u8 {
                Ipv4Addr::new(m[off], m[off + 1], m[off + 2], m[off + 3]).to_string()
            } else {
                let mut b = [0u8; 16];
                b.copy_from_slice(&m[off..off + 16]);
                format!("[{}]", Ipv6Addr::from(b))
            }
        };
        // struct inet_diag_sockid at 4: sport, dport, src[16], dst[16].
        let src = format!("{}:{}", addr(8), port(4));
        let dst_zero = m[24..40].iter().all(|&b| b == 0) && port(6) == 0;
        Some(if dst_zero {
            src
        } else {
            format!("{src}->{}:{}", addr(24), port(6))
        })
    })
}

/// strace's names of netlink protocols (`NETLINK_` stripped).
fn netlink_proto(p: u8) -> Option<&'static str> {
    Some(match p {
        0 => "ROUTE",
        1 => "UNUSED",
        2 => "USERSOCK",
        3 => "FIREWALL",
        4 => "SOCK_DIAG",
        5 => "NFLOG",
        6 => "XFRM",
        7 => "SELINUX",
        8 => "ISCSI",
        9 => "AUDIT",
        10 => "FIB_LOOKUP",
        11 => "CONNECTOR",
        12 => "NETFILTER",
        13 => "IP6_FW",
        14 => "DNRTMSG",
        15 => "KOBJECT_UEVENT",
        16 => "GENERIC",
        18 => "SCSITRANSPORT",
        19 => "ECRYPTFS",
        20 => "RDMA",
        21 => "CRYPTO",
        22 => "SMC",
        _ => return None,
    })
}

/// netlink_diag dump matched by inode: `PROTO:PORTID`.
fn netlink(ino: u32) -> Option<String> {
    const NDIAG_PROTO_ALL: u8 = 255;
    let mut req = vec![libc::AF_NETLINK as u8, NDIAG_PROTO_ALL, 0, 0];
    req.extend_from_slice(&ino.to_ne_bytes());
    req.extend_from_slice(&0u32.to_ne_bytes()); // show nothing more
    req.extend_from_slice(&[0xff; 8]);
    query(&req, true, |m| {
        if u32_at(m, 16)? != ino {
            return None;
        }
        let portid = u32_at(m, 4)?;
        Some(match netlink_proto(m[2]) {
            Some(name) => format!("{name}:{portid}"),
            None => format!("{}:{portid}", m[2]),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::io::AsRawFd;

    fn details(fd: i32) -> String {
        let pid = std::process::id() as i32;
        let v = DetailFdResolver::default().fd_path(pid, fd as i64).unwrap();
        let mut out = String::new();
        let fd = crate::syscall::Value::Fd {
            fd: fd as i64,
            path: Some(v),
        };
        crate::value::text::render_value(&mut out, &fd, &Default::default());
        // "FD<...>" -> "..."
        out.split_once('<')
            .unwrap()
            .1
            .strip_suffix('>')
            .unwrap()
            .to_string()
    }

    fn inode(fd: i32) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(format!("/proc/self/fd/{fd}"))
            .unwrap()
            .ino()
    }

    #[test]
    fn unix_pair_and_tcp_connection() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let (ia, ib) = (inode(a.as_raw_fd()), inode(b.as_raw_fd()));
        assert_eq!(details(a.as_raw_fd()), format!("UNIX-STREAM:[{ia}->{ib}]"));
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(details(l.as_raw_fd()), format!("TCP:[127.0.0.1:{port}]"));
        let c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let mine = c.local_addr().unwrap().port();
        assert_eq!(
            details(c.as_raw_fd()),
            format!("TCP:[127.0.0.1:{mine}->127.0.0.1:{port}]")
        );
        let u = std::net::UdpSocket::bind("[::1]:0").unwrap();
        let up = u.local_addr().unwrap().port();
        assert_eq!(details(u.as_raw_fd()), format!("UDPv6:[[::1]:{up}]"));
    }

    #[test]
    fn devices_and_plain_files() {
        let f = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(details(f.as_raw_fd()), "/dev/null<char 1:3>");
        let g = std::fs::File::open("/proc/self/status").unwrap();
        assert!(details(g.as_raw_fd()).ends_with("/status"));
    }
}
