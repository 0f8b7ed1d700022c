//! Socket addresses of the less common families strace decodes (AF_IPX,
//! AF_AX25, AF_X25, AF_RXRPC, AF_IEEE802154, AF_ALG, AF_NFC, AF_VSOCK,
//! AF_QIPCRTR, AF_XDP, AF_MCTP): their minimum lengths and their fields after
//! `sa_family`, in strace's `print_sockaddr` format. The common families
//! live in `sockaddr.rs`, which dispatches here.

use crate::syscall::printers::{hex_quoted, le16, le32};
use crate::syscall::{Ctx, Field, StrVal, Value};
use rtrace_arch::xlat::{self, Xlat};
use std::borrow::Cow;

const AF_AX25: u64 = 3;
const AF_IPX: u64 = 4;
const AF_X25: u64 = 9;
const AF_RXRPC: u64 = 33;
const AF_IEEE802154: u64 = 36;
const AF_ALG: u64 = 38;
const AF_NFC: u64 = 39;
const AF_VSOCK: u64 = 40;
const AF_QIPCRTR: u64 = 42;
const AF_XDP: u64 = 44;
const AF_MCTP: u64 = 45;

/// The shortest address of `family` decoded field by field (shorter ones
/// print as `sa_data`); `None` for a family not handled here.
pub(in crate::syscall) fn min_len(family: u64) -> Option<usize> {
    match family {
        AF_AX25 | AF_IPX => Some(16),
        AF_X25 => Some(18),
        AF_RXRPC => Some(36),
        AF_IEEE802154 => Some(20),
        AF_ALG => Some(25),
        AF_NFC | AF_VSOCK | AF_XDP => Some(16),
        AF_QIPCRTR | AF_MCTP => Some(12),
        _ => None,
    }
}

/// Appends the fields of an address of `family` held in `b` (zero-padded
/// past `len`, the address length). Returns whether a trailing `...` follows.
pub(in crate::syscall) fn fields(
    c: &Ctx,
    family: u64,
    b: &[u8],
    len: usize,
    f: &mut Vec<Field>,
) -> bool {
    match family {
        AF_IPX => ipx_fields(c, b, f),
        AF_AX25 => return ax25_fields(c, b, len, f),
        AF_X25 => f.push(Field::new(
            "sx25_addr",
            Value::structure(vec![Field::new("x25_addr", cstring_field(&b[2..18]))]),
        )),
        AF_RXRPC => rxrpc_fields(c, b, len, f),
        AF_IEEE802154 => ieee802154_fields(c, b, f),
        AF_ALG => alg_fields(c, b, len, f),
        AF_NFC => return nfc_fields(c, b, len, f),
        AF_VSOCK => vsock_fields(c, b, f),
        AF_QIPCRTR => {
            f.push(Field::new(
                "sq_node",
                xval(c, le32(b, 4), &xlat::QIPCRTR_NODES, ""),
            ));
            f.push(Field::new(
                "sq_port",
                xval(c, le32(b, 8), &xlat::QIPCRTR_PORTS, ""),
            ));
        }
        AF_XDP => xdp_fields(c, b, f),
        AF_MCTP => mctp_fields(c, b, f),
        _ => {}
    }
    false
}

/// A fixed-size char array printed up to its NUL; without one, all but its
/// last byte and a `...` (strace's `PRINT_FIELD_CSTRING`).
fn cstring_field(a: &[u8]) -> Value {
    let (bytes, truncated) = match a.iter().position(|&x| x == 0) {
        Some(end) => (a[..end].to_vec(), false),
        None => (a[..a.len() - 1].to_vec(), true),
    };
    Value::Str(StrVal {
        bytes,
        truncated,
        c_string: false,
    })
}

/// `sipx_port`, `sipx_network`, `sipx_node`, `sipx_type`, and `sipx_zero`
/// when non-zero.
fn ipx_fields(c: &Ctx, b: &[u8], f: &mut Vec<Field>) {
    f.push(Field::new(
        "sipx_port",
        crate::syscall::net::sockaddr::port_value(c, b, 2),
    ));
    let net = u32::from_be_bytes([b[4], b[5], b[6], b[7]]) as u64;
    f.push(Field::new(
        "sipx_network",
        Value::Call(Cow::Borrowed("htonl"), vec![Value::Hex(net)]),
    ));
    let node = b[8..14].iter().map(|&x| Value::Hex(x as u64)).collect();
    f.push(Field::new("sipx_node", Value::Array(node, false)));
    f.push(Field::new("sipx_type", Value::Hex(b[14] as u64)));
    if b[15] != 0 {
        f.push(Field::new("sipx_zero", Value::Hex(b[15] as u64)));
    }
}

/// How an AX.25 callsign is shown: as text, as raw bytes with the text in a
/// comment, or as raw bytes only.
#[derive(Clone, Copy, PartialEq)]
enum CallStyle {
    Text,
    Both,
    Raw,
}

/// Whether the 7-byte callsign `a` reads as a sane `CALL-SSID`.
fn ax25_style(a: &[u8]) -> CallStyle {
    let mut style = CallStyle::Text;
    let mut space_seen = false;
    let mut char_seen = false;
    for &byte in &a[..6] {
        if byte & 1 != 0 {
            style = CallStyle::Both;
        }
        let ch = byte >> 1;
        if ch == b' ' {
            space_seen = true;
        } else {
            char_seen = true;
        }
        if !ch.is_ascii_digit() && !ch.is_ascii_uppercase() && ch != b' ' {
            style = CallStyle::Both;
        }
        if ch != b' ' && space_seen {
            style = CallStyle::Both;
        }
        if !(b' '..=0x7e).contains(&ch) || ch == b'*' || ch == b'/' {
            return CallStyle::Raw;
        }
    }
    if a[6] & !0x1e != 0 || (!char_seen && a[6] != 0) {
        style = CallStyle::Both;
    }
    style
}

/// The callsign as `CALL-SSID` (`*` for an empty one with SSID 0).
fn ax25_text(a: &[u8]) -> String {
    let end = (0..6)
        .rev()
        .find(|&i| a[i] >> 1 != b' ')
        .map_or(0, |i| i + 1);
    let mut s: String = a[..end].iter().map(|&x| (x >> 1) as char).collect();
    let ssid = (a[6] >> 1) & 0xf;
    if s.is_empty() && ssid == 0 {
        return "*".to_string();
    }
    s.push('-');
    s.push_str(&ssid.to_string());
    s
}

/// An `ax25_address` (strace's `print_ax25_addr`).
pub(in crate::syscall) fn ax25_addr_value(c: &Ctx, a: &[u8]) -> Value {
    let mut style = ax25_style(a);
    if style == CallStyle::Text {
        style = match c.opts.xlat_style {
            1 => CallStyle::Raw,
            2 => CallStyle::Both,
            _ => CallStyle::Text,
        };
    }
    let raw = || {
        Value::structure(vec![Field::new(
            "ax25_call",
            Value::sym_owned(hex_quoted(&a[..7])),
        )])
    };
    match style {
        CallStyle::Text => Value::sym_owned(ax25_text(a)),
        CallStyle::Raw => raw(),
        CallStyle::Both => Value::Commented(Box::new(raw()), Cow::Owned(ax25_text(a))),
    }
}

/// A `full_sockaddr_ax25`: the bare `sockaddr_ax25` fields, or with
/// digipeaters when there are any or the address is longer.
fn ax25_fields(c: &Ctx, b: &[u8], len: usize, f: &mut Vec<Field>) -> bool {
    const DIGI: usize = 7;
    const MAX_DIGIS: usize = 8;
    let ndigis = le32(b, 12) as u32 as i32;
    let head = vec![
        Field::new("sax25_call", ax25_addr_value(c, &b[2..9])),
        Field::new("sax25_ndigis", Value::Int(ndigis as i64)),
    ];
    if ndigis == 0 && len <= 16 {
        f.extend(head);
        return false;
    }
    f.push(Field::new("fsa_ax25", Value::structure(head)));
    let has = ((len - 16) / DIGI).min(MAX_DIGIS);
    let want = (ndigis.max(0) as usize).min(MAX_DIGIS);
    if want > 0 {
        let items = (0..has.min(want))
            .map(|i| ax25_addr_value(c, &b[16 + i * DIGI..16 + (i + 1) * DIGI]))
            .collect();
        f.push(Field::new(
            "fsa_digipeater",
            Value::Array(items, want > has),
        ));
    }
    len > has * DIGI + 16
}

/// strace's `PRINT_FIELD_XVAL`: the name, else hex (with `unknown` as a
/// comment when given).
fn xval(c: &Ctx, v: u64, table: &Xlat, unknown: &'static str) -> Value {
    match table.lookup(v) {
        Some(_) => c.enum_value(v, table, unknown),
        None if unknown.is_empty() || c.opts.xlat_style == 1 => Value::Hex(v),
        None => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(unknown)),
    }
}

/// strace's `PRINT_FIELD_XVAL_VERBOSE`: hex with the name (or `unknown`) as
/// a comment, bare hex under `-X raw`.
fn xval_verbose(c: &Ctx, v: u64, table: &Xlat, unknown: &'static str) -> Value {
    if c.opts.xlat_style == 1 {
        return Value::Hex(v);
    }
    match table.lookup(v) {
        Some(n) => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(n)),
        None if unknown.is_empty() => Value::Hex(v),
        None => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(unknown)),
    }
}

/// strace's `PRINT_FIELD_FLAGS` (or `_VERBOSE` when `verbose`): names
/// OR-ed, hex with `unknown` as a comment when no name matches.
fn flags(c: &Ctx, v: u64, table: &Xlat, unknown: &'static str, verbose: bool) -> Value {
    if c.opts.xlat_style == 1 || v == 0 {
        return Value::Hex(v);
    }
    let (names, rest) = table.split_flags(v);
    if names.is_empty() {
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(unknown));
    }
    let fl = Value::Flags {
        names,
        rest,
        octal_rest: false,
    };
    if verbose || c.opts.xlat_style == 2 {
        Value::Commented(
            Box::new(Value::Hex(v)),
            Cow::Owned(crate::syscall::ctx::render_flags(&fl)),
        )
    } else {
        fl
    }
}

/// Bytes quoted with strace's escapes (`print_quoted_string`, no flags).
fn quoted(b: &[u8]) -> Value {
    Value::Str(StrVal {
        bytes: b.to_vec(),
        truncated: false,
        c_string: false,
    })
}

/// A `sockaddr_rxrpc`: service, transport type and length, and the
/// transport address (decoded for AF_INET and AF_INET6 only).
fn rxrpc_fields(c: &Ctx, b: &[u8], len: usize, f: &mut Vec<Field>) {
    f.push(Field::new(
        "srx_service",
        xval_verbose(c, le16(b, 2), &xlat::RXRPC_SERVICES, "???_SERVICE"),
    ));
    f.push(Field::new(
        "transport_type",
        xval(c, le16(b, 4), &xlat::SOCKET_TYPES, "SOCK_???"),
    ));
    let tlen_field = le16(b, 6) as usize;
    f.push(Field::new("transport_len", Value::UInt(tlen_field as u64)));
    let t = &b[8..];
    let tlen = tlen_field.min(len - 8);
    let rest = tlen.saturating_sub(2);
    let tfamily = le16(t, 0);
    let fam =
        |name: &'static str| Field::new(name, xval(c, tfamily, &xlat::SOCKET_FAMILIES, "AF_???"));
    let bytes = || Field {
        name: Cow::Borrowed(""),
        value: quoted(&t[2..2 + rest]),
    };
    let inner = match tfamily as i32 {
        libc::AF_INET | libc::AF_INET6 => {
            let v4 = tfamily as i32 == libc::AF_INET;
            let mut g = vec![fam(if v4 { "sin_family" } else { "sin6_family" })];
            if tlen_field >= if v4 { 16 } else { 24 } {
                if v4 {
                    crate::syscall::net::sockaddr::inet_fields(c, t, &mut g);
                } else {
                    crate::syscall::net::sockaddr::inet6_fields(c, t, tlen, &mut g);
                }
            } else if rest > 0 {
                g.push(bytes());
            }
            vec![Field::new(
                if v4 { "sin" } else { "sin6" },
                Value::structure(g),
            )]
        }
        _ => {
            let mut g = vec![fam("family")];
            if rest > 0 {
                g.push(bytes());
            }
            g
        }
    };
    f.push(Field::new("transport", Value::structure(inner)));
}

/// A `sockaddr_ieee802154`: its `addr` with a short or a long address.
fn ieee802154_fields(c: &Ctx, b: &[u8], f: &mut Vec<Field>) {
    let kind = le32(b, 4);
    let mut g = vec![
        Field::new(
            "addr_type",
            xval_verbose(c, kind, &xlat::IEEE802154_ADDR_TYPES, "IEEE802154_ADDR_???"),
        ),
        Field::new(
            "pan_id",
            xval_verbose(c, le16(b, 8), &xlat::IEEE802154_PAN_IDS, ""),
        ),
    ];
    match kind {
        0 => {}
        2 => g.push(Field::new(
            "short_addr",
            xval_verbose(c, le16(b, 10), &xlat::IEEE802154_ADDRS, ""),
        )),
        _ => {
            let hw = &b[10..18];
            let text = hw
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(":");
            let v = match c.opts.xlat_style {
                1 => Value::sym_owned(hex_quoted(hw)),
                2 => Value::Commented(Box::new(Value::sym_owned(hex_quoted(hw))), Cow::Owned(text)),
                _ => Value::sym_owned(text),
            };
            g.push(Field::new("hwaddr", v));
        }
    }
    f.push(Field::new("addr", Value::structure(g)));
}

/// A `sockaddr_alg_new`: type, feature and mask flags, and the name that
/// fills the rest of the address.
fn alg_fields(c: &Ctx, b: &[u8], len: usize, f: &mut Vec<Field>) {
    f.push(Field::new("salg_type", cstring_field(&b[2..16])));
    for (name, off) in [("salg_feat", 16), ("salg_mask", 20)] {
        f.push(Field::new(
            name,
            flags(
                c,
                le32(b, off),
                &xlat::ALG_SOCKADDR_FLAGS,
                "CRYPTO_ALG_???",
                true,
            ),
        ));
    }
    f.push(Field::new("salg_name", cstring_field(&b[24..len])));
}

/// A `sockaddr_nfc`, or a `sockaddr_nfc_llcp` when the address is as
/// long as one (96 bytes on a 64-bit tracee). Returns whether a `...`
/// follows.
fn nfc_fields(c: &Ctx, b: &[u8], len: usize, f: &mut Vec<Field>) -> bool {
    f.push(Field::new(
        "dev_idx",
        crate::syscall::net::sockaddr::ifindex_value(c, le32(b, 4) as u32),
    ));
    f.push(Field::new("target_idx", Value::Hex(le32(b, 8))));
    f.push(Field::new(
        "nfc_protocol",
        xval(
            c,
            le32(b, 12),
            &xlat::NFC_SOCKADDR_PROTOCOLS,
            "NFC_PROTO_???",
        ),
    ));
    let wide = c.arch.word_size() == 8;
    let llcp_len = if wide { 96 } else { 88 };
    if len < llcp_len {
        return len > 16;
    }
    let snsz = if wide {
        u64::from_le_bytes(b[88..96].try_into().unwrap())
    } else {
        le32(b, 84)
    };
    for (name, off) in [("dsap", 16), ("ssap", 17)] {
        f.push(Field::new(
            name,
            xval_verbose(c, b[off] as u64, &xlat::NFC_SAPS, ""),
        ));
    }
    let n = snsz.min(63) as usize;
    f.push(Field::new("service_name", quoted(&b[18..18 + n])));
    f.push(Field::new("service_name_len", Value::UInt(snsz)));
    false
}

/// A `sockaddr_vm`; the reserved and zero fields only when non-zero.
fn vsock_fields(c: &Ctx, b: &[u8], f: &mut Vec<Field>) {
    let reserved = le16(b, 2);
    if reserved != 0 {
        f.push(Field::new("svm_reserved1", Value::Hex(reserved)));
    }
    f.push(Field::new(
        "svm_cid",
        xval(c, le32(b, 8), &xlat::VSOCK_CIDS, ""),
    ));
    f.push(Field::new(
        "svm_port",
        xval(c, le32(b, 4), &xlat::VSOCK_PORTS, ""),
    ));
    f.push(Field::new(
        "svm_flags",
        flags(
            c,
            b[12] as u64,
            &xlat::VSOCK_FLAGS,
            "VMADDR_FLAG_???",
            false,
        ),
    ));
    if b[13..16].iter().any(|&x| x != 0) {
        f.push(Field::new(
            "svm_zero",
            Value::sym_owned(hex_quoted(&b[13..16])),
        ));
    }
}

/// A `sockaddr_xdp`; the shared UMEM socket as a descriptor when
/// XDP_SHARED_UMEM is set, else in hex when non-zero.
fn xdp_fields(c: &Ctx, b: &[u8], f: &mut Vec<Field>) {
    let fl = le16(b, 2);
    f.push(Field::new(
        "sxdp_flags",
        flags(c, fl, &xlat::XDP_SOCKADDR_FLAGS, "XDP_???", false),
    ));
    f.push(Field::new(
        "sxdp_ifindex",
        crate::syscall::net::sockaddr::ifindex_value(c, le32(b, 4) as u32),
    ));
    f.push(Field::new("sxdp_queue_id", Value::UInt(le32(b, 8))));
    let fd = le32(b, 12);
    if fl & 1 != 0 {
        let fd = fd as u32 as i32 as i64;
        f.push(Field::new(
            "sxdp_shared_umem_fd",
            Value::Fd { fd, path: None },
        ));
    } else if fd != 0 {
        f.push(Field::new("sxdp_shared_umem_fd", Value::Hex(fd)));
    }
}

/// Adds `-y` paths to the descriptors of a decoded address (the XDP
/// shared UMEM socket), which `fields` cannot look up.
pub(in crate::syscall) fn resolve_fds(c: &mut Ctx, v: &mut Value) {
    if let Value::Struct(fields, _) = v {
        for f in fields.iter_mut() {
            if let (true, Value::Fd { fd, .. }) = (f.name == "sxdp_shared_umem_fd", &f.value) {
                f.value = c.fd_value(*fd);
            }
        }
    }
}

/// A `sockaddr_mctp`; the padding fields only when non-zero.
fn mctp_fields(c: &Ctx, b: &[u8], f: &mut Vec<Field>) {
    let pad0 = le16(b, 2);
    if pad0 != 0 {
        f.push(Field::new("__smctp_pad0", Value::Hex(pad0)));
    }
    f.push(Field::new(
        "smctp_network",
        xval(c, le32(b, 4), &xlat::MCTP_NETS, ""),
    ));
    f.push(Field::new(
        "smctp_addr",
        Value::structure(vec![Field::new(
            "s_addr",
            xval(c, b[8] as u64, &xlat::MCTP_ADDRS, ""),
        )]),
    ));
    f.push(Field::new("smctp_type", Value::Hex(b[9] as u64)));
    f.push(Field::new("smctp_tag", Value::Hex(b[10] as u64)));
    if b[11] != 0 {
        f.push(Field::new("__smctp_pad1", Value::Hex(b[11] as u64)));
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::net::sockaddr::sockaddr_at;
    use crate::syscall::testutil::FixedFds;
    use crate::syscall::{Ctx, DecodeOpts};
    use crate::value::text::{render_value, RenderOpts};
    use rtrace_arch::Arch;

    fn show(bytes: &[u8], len: i64) -> String {
        let mut mem = FakeMemory::default();
        let addr = mem.put(bytes);
        let mut fds = FixedFds(Vec::new());
        let opts = DecodeOpts::default();
        let mut c = Ctx::new(&mut mem, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        let v = sockaddr_at(&mut c, addr, len);
        let mut s = String::new();
        render_value(&mut s, &v, &RenderOpts::default());
        s
    }

    #[test]
    fn ipx_and_x25() {
        let ipx = [
            4u8, 0, 0x30, 0x39, 0xfa, 0xce, 0xfe, 0xed, b'A', b'B', 0, b'D', b'E', b'F', 0xff, 0,
        ];
        assert_eq!(
            show(&ipx, 16),
            "{sa_family=AF_IPX, sipx_port=htons(12345), sipx_network=htonl(0xfacefeed), \
             sipx_node=[0x41, 0x42, 0, 0x44, 0x45, 0x46], sipx_type=0xff}"
        );
        let mut x25 = vec![9u8, 0];
        x25.extend_from_slice(b"0123456789abcdef");
        assert_eq!(
            show(&x25, 18),
            r#"{sa_family=AF_X25, sx25_addr={x25_addr="0123456789abcde"...}}"#
        );
        x25[12] = 0;
        assert_eq!(
            show(&x25, 18),
            r#"{sa_family=AF_X25, sx25_addr={x25_addr="0123456789"}}"#
        );
    }

    #[test]
    fn ax25() {
        // "AB" SSID 3, then one digipeater "CD" SSID 0.
        let mut a = vec![3u8, 0];
        a.extend_from_slice(&[b'A' << 1, b'B' << 1, 0x40, 0x40, 0x40, 0x40, 3 << 1]);
        a.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0]);
        a.extend_from_slice(&[b'C' << 1, b'D' << 1, 0x40, 0x40, 0x40, 0x40, 0]);
        assert_eq!(
            show(&a, 23),
            "{sa_family=AF_AX25, fsa_ax25={sax25_call=AB-3, sax25_ndigis=1}, \
             fsa_digipeater=[CD-0]}"
        );
        assert_eq!(
            show(&a, 24),
            "{sa_family=AF_AX25, fsa_ax25={sax25_call=AB-3, sax25_ndigis=1}, \
             fsa_digipeater=[CD-0], ...}"
        );
        a[12] = 0;
        a[4] = b'/' << 1;
        assert_eq!(
            show(&a, 16),
            r#"{sa_family=AF_AX25, sax25_call={ax25_call="\x82\x84\x5e\x40\x40\x40\x06"}, sax25_ndigis=0}"#
        );
    }

    #[test]
    fn newer_families() {
        let mut rx = vec![33u8, 0];
        rx.resize(36, 0);
        assert_eq!(
            show(&rx, 36),
            "{sa_family=AF_RXRPC, srx_service=0 /* ???_SERVICE */, \
             transport_type=0 /* SOCK_??? */, transport_len=0, transport={family=AF_UNSPEC}}"
        );
        let mut alg = vec![38u8, 0];
        alg.resize(16, 0);
        alg.extend_from_slice(&[0, 0x10, 0, 0, 0, 0x10, 0, 0]);
        alg.resize(32, 0);
        assert_eq!(
            show(&alg, 32),
            "{sa_family=AF_ALG, salg_type=\"\", salg_feat=0x1000 /* CRYPTO_ALG_KERN_DRIVER_ONLY */, \
             salg_mask=0x1000 /* CRYPTO_ALG_KERN_DRIVER_ONLY */, salg_name=\"\"}"
        );
        let vm = [40u8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(
            show(&vm, 16),
            "{sa_family=AF_VSOCK, svm_cid=VMADDR_CID_LOCAL, svm_port=0x1, \
             svm_flags=VMADDR_FLAG_TO_HOST}"
        );
        let qrtr = [
            42u8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ];
        assert_eq!(
            show(&qrtr, 12),
            "{sa_family=AF_QIPCRTR, sq_node=QRTR_NODE_BCAST, sq_port=0xffffffff}"
        );
        let xdp = [
            44u8, 0, 0xd0, 0xba, 0, 0, 0, 0, 0, 0, 0, 0, 0xad, 0xbe, 0xed, 0xfe,
        ];
        assert_eq!(
            show(&xdp, 16),
            "{sa_family=AF_XDP, sxdp_flags=0xbad0 /* XDP_??? */, sxdp_ifindex=0, \
             sxdp_queue_id=0, sxdp_shared_umem_fd=0xfeedbead}"
        );
        let mctp = [45u8, 0, 0, 0, 0x2e, 0xfd, 0x69, 0xb6, 0xff, 1, 8, 0xea];
        assert_eq!(
            show(&mctp, 12),
            "{sa_family=AF_MCTP, smctp_network=0xb669fd2e, smctp_addr={s_addr=MCTP_ADDR_ANY}, \
             smctp_type=0x1, smctp_tag=0x8, __smctp_pad1=0xea}"
        );
        let mut ieee = vec![36u8, 0, 0, 0, 3, 0, 0, 0, 0xce, 0xfa, 0xad, 0xde];
        ieee.resize(20, 0);
        assert_eq!(
            show(&ieee, 20),
            "{sa_family=AF_IEEE802154, addr={addr_type=0x3 /* IEEE802154_ADDR_LONG */, \
             pan_id=0xface, hwaddr=ad:de:00:00:00:00:00:00}}"
        );
    }
}
