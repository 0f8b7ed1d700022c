//! Socket ioctls (type 0x89, linux/sockios.h) as strace 6.1 prints them:
//! the owner and mark getters and setters (`[N]`), bridge names and
//! ports, and `struct ifreq` requests (the interface name, then the
//! address, flags, index, metric, MTU, names, queue length or device map
//! the request carries; getters add it after a successful call).
//! `SIOCGIFCONF` prints `struct ifconf`: the length (changed by the
//! kernel), then the interfaces it returned.

use crate::syscall::array::array_at;
use crate::syscall::ioctl::misc::{cstring_field, fetch, num};
use crate::syscall::ioctl::{exit_state, Io};
use crate::syscall::net::sockaddr::{ifindex_value, sockaddr_value};
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `struct ifreq`'s size.
const IFREQ: usize = 40;

/// The request-specific field of `struct ifreq` at `b`.
fn ifreq_field(c: &Ctx, name: &str, b: &[u8]) -> Option<Field> {
    let u = &b[16..];
    let d32 = |o: usize| Value::Int(le32(u, o) as u32 as i32 as i64);
    let sa = |n: &'static str| Field::new(n, sockaddr_value(c, &u[..16]));
    Some(match name {
        "SIOCSIFADDR" | "SIOCGIFADDR" => sa("ifr_addr"),
        "SIOCSIFDSTADDR" | "SIOCGIFDSTADDR" => sa("ifr_dstaddr"),
        "SIOCSIFBRDADDR" | "SIOCGIFBRDADDR" => sa("ifr_broadaddr"),
        "SIOCSIFNETMASK" | "SIOCGIFNETMASK" => sa("ifr_netmask"),
        "SIOCADDMULTI" | "SIOCDELMULTI" | "SIOCGIFHWADDR" | "SIOCSIFHWADDR"
        | "SIOCSIFHWBROADCAST" => {
            let fam = le16(u, 0);
            // ARPHRD_ETHER addresses are six bytes long.
            let n = if fam == 1 { 6 } else { 14 };
            let hw: Vec<String> = u[2..2 + n].iter().map(|x| format!("{x:02x}")).collect();
            Field::new(
                "ifr_hwaddr",
                Value::structure(vec![
                    Field::new(
                        "sa_family",
                        c.enum_value(fam, &xlat::ARP_HARDWARE_TYPES, "ARPHRD_???"),
                    ),
                    Field::new("sa_data", Value::sym_owned(hw.join(":"))),
                ]),
            )
        }
        "SIOCSIFFLAGS" | "SIOCGIFFLAGS" => Field::new(
            "ifr_flags",
            xflags(c, le16(u, 0), &xlat::IFFFLAGS, "IFF_???"),
        ),
        "SIOCGIFINDEX" => Field::new("ifr_ifindex", d32(0)),
        "SIOCSIFMETRIC" | "SIOCGIFMETRIC" => Field::new("ifr_metric", d32(0)),
        "SIOCSIFMTU" | "SIOCGIFMTU" => Field::new("ifr_mtu", d32(0)),
        "SIOCSIFSLAVE" | "SIOCGIFSLAVE" => Field::new("ifr_slave", cstring_field(&u[..16])),
        "SIOCSIFNAME" => Field::new("ifr_newname", cstring_field(&u[..16])),
        "SIOCGIFNAME" => Field::new("ifr_name", cstring_field(&b[..16])),
        "SIOCSIFTXQLEN" | "SIOCGIFTXQLEN" => Field::new("ifr_qlen", d32(0)),
        "SIOCSIFMAP" | "SIOCGIFMAP" => Field::new(
            "ifr_map",
            Value::structure(vec![
                Field::new("mem_start", xint(le64(u, 0))),
                Field::new("mem_end", xint(le64(u, 8))),
                Field::new("base_addr", xint(le16(u, 16))),
                Field::new("irq", xint(u[18] as u64)),
                Field::new("dma", xint(u[19] as u64)),
                Field::new("port", xint(u[20] as u64)),
            ]),
        ),
        _ => return None,
    })
}

/// `ifc_len`, with `/* N * sizeof(struct ifreq) */` when it is a
/// positive multiple of the structure's size.
fn ifc_len(len: i32) -> Value {
    let v = Value::Int(len as i64);
    if len > 0 && (len as usize).is_multiple_of(IFREQ) {
        let n = len as usize / IFREQ;
        return Value::Commented(
            Box::new(v),
            std::borrow::Cow::Owned(format!("{n} * sizeof(struct ifreq)")),
        );
    }
    v
}

/// `SIOCGIFCONF`'s `struct ifconf`: at entry the length (kept for the
/// exit with whether the buffer was `NULL`); at exit the length (` => `
/// the kernel's when it changed) and the buffer's interfaces.
fn ifconf(c: &mut Ctx, arg: u64) -> Io {
    if c.entering() {
        return match fetch(c, arg, 16) {
            Ok(b) => Io::ExitWith(le32(&b, 0) | ((le64(&b, 8) == 0) as u64) << 32),
            Err(v) => Io::Arg(v),
        };
    }
    let kept = exit_state(c);
    let old_len = kept as u32 as i32;
    let old_null = kept >> 32 & 1 == 1;
    let Some(b) = c.read_bytes(arg, 16) else {
        return Io::Arg(Value::structure(vec![
            Field::new("ifc_len", ifc_len(old_len)),
            Field::new("ifc_buf", Value::Unreadable(arg)),
        ]));
    };
    let len = le32(&b, 0) as u32 as i32;
    let buf = le64(&b, 8);
    let len_v = if old_null {
        ifc_len(len)
    } else if old_len != len {
        Value::Changed(Box::new(ifc_len(old_len)), Box::new(ifc_len(len)))
    } else {
        ifc_len(len)
    };
    let buf_v = if old_null {
        if buf != 0 {
            Value::Changed(Box::new(Value::Ptr(0)), Box::new(Value::Ptr(buf)))
        } else {
            Value::Ptr(0)
        }
    } else if c.failed() {
        Value::Ptr(buf)
    } else {
        let n = len as i64 as u64 / IFREQ as u64;
        array_at(c, buf, n, IFREQ, |c, e| {
            Some(Value::structure(vec![
                Field::new("ifr_name", cstring_field(&e[..16])),
                Field::new("ifr_addr", sockaddr_value(c, &e[16..32])),
            ]))
        })
    };
    Io::Arg(Value::structure(vec![
        Field::new("ifc_len", len_v),
        Field::new("ifc_buf", buf_v),
    ]))
}

/// The socket requests (type 0x89), by name.
pub(in crate::syscall::ioctl) fn sock(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(&name) = names
        .iter()
        .find(|n| n.starts_with("SIOC") || n.starts_with("FIO"))
    else {
        return Io::Hex;
    };
    let v = match name {
        "SIOCGIFCONF" => return ifconf(c, arg),
        "SIOCBRADDBR" | "SIOCBRDELBR" => c.cstrn_value(arg, 16),
        "FIOGETOWN" | "SIOCATMARK" | "SIOCGIFENCAP" | "SIOCGPGRP" | "SIOCOUTQNSD"
            if c.entering() =>
        {
            return Io::Exit
        }
        "FIOGETOWN" | "SIOCATMARK" | "SIOCGIFENCAP" | "SIOCGPGRP" | "SIOCOUTQNSD" | "FIOSETOWN"
        | "SIOCSIFENCAP" | "SIOCSPGRP" => num(c, arg, 4, true),
        "SIOCBRADDIF" | "SIOCBRDELIF" => match fetch(c, arg, IFREQ) {
            Ok(b) => Value::structure(vec![Field::new(
                "ifr_ifindex",
                ifindex_value(c, le32(&b, 16) as u32),
            )]),
            Err(v) => v,
        },
        "SIOCADDMULTI" | "SIOCDELMULTI" | "SIOCSIFADDR" | "SIOCSIFBRDADDR" | "SIOCSIFDSTADDR"
        | "SIOCSIFFLAGS" | "SIOCSIFHWADDR" | "SIOCSIFHWBROADCAST" | "SIOCSIFMAP"
        | "SIOCSIFMETRIC" | "SIOCSIFMTU" | "SIOCSIFNAME" | "SIOCSIFNETMASK" | "SIOCSIFSLAVE"
        | "SIOCSIFTXQLEN" => match fetch(c, arg, IFREQ) {
            Ok(b) => {
                let mut f = vec![Field::new("ifr_name", cstring_field(&b[..16]))];
                f.extend(ifreq_field(c, name, &b));
                Value::structure(f)
            }
            Err(v) => v,
        },
        "SIOCGIFADDR" | "SIOCGIFBRDADDR" | "SIOCGIFDSTADDR" | "SIOCGIFFLAGS" | "SIOCGIFHWADDR"
        | "SIOCGIFINDEX" | "SIOCGIFMAP" | "SIOCGIFMETRIC" | "SIOCGIFMTU" | "SIOCGIFNAME"
        | "SIOCGIFNETMASK" | "SIOCGIFSLAVE" | "SIOCGIFTXQLEN" => {
            if c.entering() {
                return match fetch(c, arg, IFREQ) {
                    Ok(_) => Io::Exit,
                    Err(v) => Io::Arg(v),
                };
            }
            let Some(b) = c.read_bytes(arg, IFREQ) else {
                return Io::Arg(Value::Unreadable(arg));
            };
            let mut f = vec![if name == "SIOCGIFNAME" {
                Field::new("ifr_ifindex", Value::Int(le32(&b, 16) as u32 as i32 as i64))
            } else {
                Field::new("ifr_name", cstring_field(&b[..16]))
            }];
            if !c.failed() {
                f.extend(ifreq_field(c, name, &b));
            }
            Value::structure(f)
        }
        "SIOCADDDLCI"
        | "SIOCADDRT"
        | "SIOCBONDCHANGEACTIVE"
        | "SIOCBONDENSLAVE"
        | "SIOCBONDINFOQUERY"
        | "SIOCBONDRELEASE"
        | "SIOCBONDSETHWADDR"
        | "SIOCBONDSLAVEINFOQUERY"
        | "SIOCDARP"
        | "SIOCDELDLCI"
        | "SIOCDELRT"
        | "SIOCDIFADDR"
        | "SIOCDRARP"
        | "SIOCETHTOOL"
        | "SIOCGARP"
        | "SIOCGHWTSTAMP"
        | "SIOCGIFBR"
        | "SIOCGIFCOUNT"
        | "SIOCGIFMEM"
        | "SIOCGIFPFLAGS"
        | "SIOCGIFVLAN"
        | "SIOCGMIIPHY"
        | "SIOCGMIIREG"
        | "SIOCGRARP"
        | "SIOCGSKNS"
        | "SIOCGSTAMP_OLD"
        | "SIOCGSTAMP_NEW"
        | "SIOCGSTAMPNS_OLD"
        | "SIOCGSTAMPNS_NEW"
        | "SIOCRTMSG"
        | "SIOCSARP"
        | "SIOCSHWTSTAMP"
        | "SIOCSIFBR"
        | "SIOCSIFLINK"
        | "SIOCSIFMEM"
        | "SIOCSIFPFLAGS"
        | "SIOCSIFVLAN"
        | "SIOCSMIIREG"
        | "SIOCSRARP"
        | "SIOCWANDEV" => Value::Ptr(arg),
        _ => return Io::Hex,
    };
    Io::Arg(v)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn sock_requests() {
        let mut m = FakeMemory::default();
        let mut ifr = vec![0u8; 40];
        ifr[..2].copy_from_slice(b"lo");
        ifr[16] = 0x41;
        let p = m.put(&ifr);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8914, p], 0, &mut m),
            "ioctl(3, SIOCSIFFLAGS, {ifr_name=\"lo\", ifr_flags=IFF_UP|IFF_RUNNING}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8901, 0], -9, &mut m),
            "ioctl(3, FIOSETOWN, NULL) = -1 EBADF (Bad file descriptor)"
        );
        let mut ifr = vec![0u8; 40];
        ifr[..2].copy_from_slice(b"lo");
        ifr[16..24].copy_from_slice(&[2, 0, 0, 0, 127, 0, 0, 1]);
        let bufp = m.put(&ifr);
        let mut ifc = 40u64.to_le_bytes().to_vec();
        ifc.extend_from_slice(&bufp.to_le_bytes());
        let p = m.put(&ifc);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8912, p], 0, &mut m),
            "ioctl(3, SIOCGIFCONF, {ifc_len=40 /* 1 * sizeof(struct ifreq) */, ifc_buf=[{ifr_name=\"lo\", ifr_addr={sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")}}]}) = 0"
        );
        let mut ifc = 40u64.to_le_bytes().to_vec();
        ifc.extend_from_slice(&0u64.to_le_bytes());
        let p = m.put(&ifc);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8912, p], 0, &mut m),
            "ioctl(3, SIOCGIFCONF, {ifc_len=40 /* 1 * sizeof(struct ifreq) */, ifc_buf=NULL}) = 0"
        );
    }
}
