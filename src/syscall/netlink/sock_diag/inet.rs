//! INET_DIAG attributes that `netlink_diag.rs` hands over (strace's
//! `netlink_inet_diag.c`): the request's bytecode and protocol
//! (`INET_DIAG_REQ_*`), and the reply's MD5 signatures, upper layer
//! protocol info (TLS, MPTCP), BPF socket storages and local/peer address
//! lists.

use crate::syscall::layout::{kstruct, le};
use crate::syscall::net::sockaddr::{
    ifindex_value, inet6_addr_field, inet_addr_value, sockaddr_value,
};
use crate::syscall::netlink::attr::{
    attrs_value, elem_array, inet_addr_field, nla_enum, nla_flags, nla_int, nla_str, nla_u,
    AttrNames,
};
use crate::syscall::netlink::hexstr_value;
use crate::syscall::printers::hex_quoted;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};

kstruct! {
    /// `struct inet_diag_bc_op`.
    struct InetDiagBcOp size 4 {
        code: u8 @ 0,
        yes: u8 @ 1,
        no: u16 @ 2,
    }
}

kstruct! {
    /// `struct inet_diag_hostcond` (the address follows it).
    struct InetDiagHostcond size 8 {
        family: u8 @ 0,
        prefix_len: u8 @ 1,
        /// `int port`, printed unsigned as strace prints it.
        port: u32 @ 4,
    }
}

kstruct! {
    /// `struct inet_diag_markcond`.
    struct InetDiagMarkcond size 8 {
        mark: u32 @ 0,
        mask: u32 @ 4,
    }
}

kstruct! {
    /// `struct tcp_diag_md5sig`.
    struct TcpDiagMd5sig size 100 {
        family: u8 @ 0,
        prefixlen: u8 @ 1,
        keylen: u16 @ 2,
        addr: [u8; 16] @ 4,
        key: [u8; 80] @ 20,
    }
}

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// `{code=…, yes=…, no=…}` of a `struct inet_diag_bc_op`.
fn bc_op(c: &Ctx, b: &[u8]) -> Value {
    let op = InetDiagBcOp(b);
    Value::structure(vec![
        Field::new(
            "code",
            c.enum_value(
                op.code() as u64,
                &xlat::INET_DIAG_BYTECODES,
                "INET_DIAG_BC_???",
            ),
        ),
        Field::new("yes", Value::UInt(op.yes() as u64)),
        Field::new("no", Value::UInt(op.no() as u64)),
    ])
}

/// `struct inet_diag_hostcond` and the address after it.
fn hostcond(c: &mut Ctx, addr: u64, len: u64) -> Value {
    const SIZE: u64 = InetDiagHostcond::SIZE as u64;
    if len < SIZE {
        return hexstr_value(c, addr, len);
    }
    let Some(b) = c.read_bytes(addr, SIZE as usize) else {
        return Value::Unreadable(addr);
    };
    let h = InetDiagHostcond(&b);
    let mut f = vec![
        Field::new(
            "family",
            c.enum_value(h.family() as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new("prefix_len", Value::UInt(h.prefix_len() as u64)),
        Field::new("port", Value::UInt(h.port() as u64)),
    ];
    if len > SIZE {
        f.push(inet_addr_field(
            c,
            addr + SIZE,
            len - SIZE,
            h.family(),
            "addr",
        ));
    }
    Value::structure(f)
}

/// A fixed `size`-byte value printed by `f`, or the bytes in hex when
/// shorter (strace's `decode_bytecode_data` cases).
fn fixed(c: &mut Ctx, addr: u64, len: u64, size: u64, f: &dyn Fn(&Ctx, &[u8]) -> Value) -> Value {
    if len < size {
        return hexstr_value(c, addr, len);
    }
    match c.read_bytes(addr, size as usize) {
        Some(b) => f(c, &b),
        None => Value::Unreadable(addr),
    }
}

/// The data after a bytecode operation of `code`.
fn bytecode_data(c: &mut Ctx, addr: u64, len: u64, code: u8) -> Value {
    match code {
        // INET_DIAG_BC_S_COND, INET_DIAG_BC_D_COND.
        7 | 8 => hostcond(c, addr, len),
        // INET_DIAG_BC_DEV_COND.
        9 => fixed(c, addr, len, 4, &|c, b| ifindex_value(c, le::<u32>(b, 0))),
        // INET_DIAG_BC_S_GE … INET_DIAG_BC_D_LE.
        2..=5 => fixed(c, addr, len, InetDiagBcOp::SIZE as u64, &bc_op),
        // INET_DIAG_BC_MARK_COND.
        10 => fixed(c, addr, len, InetDiagMarkcond::SIZE as u64, &|_, b| {
            let m = InetDiagMarkcond(b);
            Value::structure(vec![
                Field::new("mark", Value::UInt(m.mark() as u64)),
                Field::new("mask", Value::UInt(m.mask() as u64)),
            ])
        }),
        _ => hexstr_value(c, addr, len),
    }
}

/// An `INET_DIAG_REQ_*` attribute of a request.
pub(in crate::syscall) fn req_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // INET_DIAG_REQ_BYTECODE: the first operation and its data.
        1 => {
            const SIZE: u64 = InetDiagBcOp::SIZE as u64;
            if len < SIZE {
                return None;
            }
            let Some(b) = c.read_bytes(addr, SIZE as usize) else {
                return Some(Value::Unreadable(addr));
            };
            let op = bc_op(c, &b);
            if len == SIZE {
                return Some(op);
            }
            let data = bytecode_data(c, addr + SIZE, len - SIZE, InetDiagBcOp(&b).code());
            Some(Value::Joined(vec![op, data], ", "))
        }
        // INET_DIAG_REQ_PROTOCOL.
        3 => nla_enum(c, addr, len, 0, &xlat::INET_PROTOCOLS, "IPPROTO_???"),
        _ => None,
    }
}

/// One `struct tcp_diag_md5sig`.
fn md5sig(c: &mut Ctx, b: &[u8]) -> Value {
    let m = TcpDiagMd5sig(b);
    let family = m.family();
    let keylen = m.keylen();
    let a = m.addr();
    let addr = match family as i32 {
        libc::AF_INET => Field::new("tcpm_addr", inet_addr_value(c, &a[..4])),
        libc::AF_INET6 => inet6_addr_field(c, &a, "tcpm_addr"),
        _ => Field::new("tcpm_addr", Value::sym_owned(hex_quoted(&a))),
    };
    let k = m.key();
    let key = &k[..(keylen as usize).min(k.len())];
    Value::structure(vec![
        Field::new(
            "tcpm_family",
            c.enum_value(family as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new("tcpm_prefixlen", Value::UInt(m.prefixlen() as u64)),
        Field::new("tcpm_keylen", Value::UInt(keylen as u64)),
        addr,
        Field::new("tcpm_key", Value::sym_owned(hex_quoted(key))),
    ])
}

/// A `TLS_INFO_*` attribute.
fn tls_info(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => nla_enum(c, addr, len, 2, &xlat::TLS_INFO_VERSIONS, "TLS_???_VERSION"),
        2 => nla_enum(c, addr, len, 2, &xlat::TLS_INFO_CIPHERS, "TLS_CIPHER_???"),
        3 | 4 => nla_enum(c, addr, len, 2, &xlat::TLS_INFO_CONFIGS, "TLS_CONF_???"),
        _ => None,
    }
}

/// An `MPTCP_SUBFLOW_ATTR_*` attribute.
fn mptcp_info(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 | 2 => nla_int(c, addr, len, 4, |_, v| Value::Hex(v)),
        3 | 5 | 6 => nla_u(c, addr, len, 4),
        4 => nla_u(c, addr, len, 8),
        7 => nla_u(c, addr, len, 2),
        8 => nla_flags(
            c,
            addr,
            len,
            4,
            &xlat::MPTCP_SUBFLOW_FLAGS,
            "MPTCP_SUBFLOW_FLAG_???",
        ),
        9 | 10 => nla_u(c, addr, len, 1),
        _ => None,
    }
}

/// An `INET_ULP_INFO_*` attribute.
fn ulp_info(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => nla_str(c, addr, len),
        2 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::INET_DIAG_ULP_INFO_TLS_ATTRS, "TLS_INFO_???"),
            &tls_info,
        )),
        3 => Some(attrs_value(
            c,
            addr,
            len,
            names(
                &xlat::INET_DIAG_ULP_INFO_MPTCP_ATTRS,
                "MPTCP_SUBFLOW_ATTR_???",
            ),
            &mptcp_info,
        )),
        _ => None,
    }
}

/// An `SK_DIAG_BPF_STORAGE_*` attribute: the map id, and the value in hex
/// when it is an integer of 1, 2, 4 or 8 bytes (`decode_nla_xint`).
fn bpf_storage(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        2 => nla_u(c, addr, len, 4),
        3 if matches!(len, 1 | 2 | 4 | 8) => {
            nla_int(c, addr, len, len as usize, |_, v| Value::Hex(v))
        }
        _ => None,
    }
}

/// `sizeof(struct sockaddr_storage)`.
const SS_SIZE: usize = 128;

/// The `INET_DIAG_*` attributes of a reply that `netlink_diag.rs` does not
/// decode itself.
pub(in crate::syscall) fn msg_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // INET_DIAG_LOCALS, INET_DIAG_PEERS.
        12 | 13 => elem_array(c, addr, len, SS_SIZE, &|c, b| sockaddr_value(c, b)),
        // INET_DIAG_MD5SIG.
        18 => elem_array(c, addr, len, TcpDiagMd5sig::SIZE, &md5sig),
        // INET_DIAG_ULP_INFO.
        19 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::INET_DIAG_ULP_INFO_ATTRS, "INET_ULP_INFO_???"),
            &ulp_info,
        )),
        // INET_DIAG_SK_BPF_STORAGES.
        20 => Some(attrs_value(
            c,
            addr,
            len,
            names(
                &xlat::INET_DIAG_BPF_STORAGES_ATTRS,
                "SK_DIAG_BPF_STORAGE_???",
            ),
            &|c, t, a, l| {
                (t == 1).then(|| {
                    attrs_value(
                        c,
                        a,
                        l,
                        names(
                            &xlat::INET_DIAG_BPF_STORAGE_ATTRS,
                            "SK_DIAG_BPF_STORAGE_???",
                        ),
                        &bpf_storage,
                    )
                })
            },
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::netlink::netlink_value;
    use crate::syscall::testutil::nla;
    use crate::syscall::testutil::run;
    use crate::syscall::{Ctx, RetFmt, Step};

    /// `x(buf, len)` with the buffer as NETLINK_SOCK_DIAG messages.
    fn diag(c: &mut Ctx) -> Step {
        let v = netlink_value(c, 4, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    fn msg(flags: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = ((16 + payload.len()) as u32).to_le_bytes().to_vec();
        v.extend(20u16.to_le_bytes());
        v.extend(flags.to_le_bytes());
        v.extend([0; 8]);
        v.extend(payload);
        v
    }

    const SOCKID: &str = "id={idiag_sport=htons(0), idiag_dport=htons(0), \
        idiag_src=inet_addr(\"0.0.0.0\"), idiag_dst=inet_addr(\"0.0.0.0\"), idiag_if=0, \
        idiag_cookie=[0, 0]}";

    #[test]
    fn request_bytecode() {
        let mut m = FakeMemory::default();
        let mut p = vec![2, 6, 0, 0];
        p.extend([0; 52]);
        // S_COND, yes 4, no 8, then a hostcond with an IPv4 address.
        let mut bc = vec![7, 4, 8, 0, 2, 24, 0, 0];
        bc.extend(80u32.to_le_bytes());
        bc.extend([10, 0, 0, 1]);
        p.extend(nla(1, &bc));
        let b = msg(1, &p);
        let a = m.put(&b);
        assert_eq!(
            run(diag, "x", &[a, b.len() as u64], 0, &mut m),
            format!(
                "x([{{nlmsg_len=92, nlmsg_type=SOCK_DIAG_BY_FAMILY, \
                 nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=0, nlmsg_pid=0}}, \
                 {{sdiag_family=AF_INET, sdiag_protocol=IPPROTO_TCP, idiag_ext=0, \
                 idiag_states=0, {SOCKID}}}, [{{nla_len=20, nla_type=INET_DIAG_REQ_BYTECODE}}, \
                 {{code=INET_DIAG_BC_S_COND, yes=4, no=8}}, {{family=AF_INET, prefix_len=24, \
                 port=80, addr=inet_addr(\"10.0.0.1\")}}]]) = 0"
            )
        );
    }

    #[test]
    fn reply_md5sig_and_ulp_info() {
        let mut m = FakeMemory::default();
        let mut p = vec![2, 1, 0, 0];
        p.extend([0; 68]);
        let mut sig = vec![2, 32, 2, 0, 192, 168, 0, 1];
        sig.extend([0; 12]);
        sig.extend([0xab, 0xcd]);
        sig.extend([0; 78]);
        p.extend(nla(18, &sig));
        let mut tls = nla(1, &0x0303u16.to_le_bytes());
        tls.extend(nla(3, &9u16.to_le_bytes()));
        p.extend(nla(19, &nla(2, &tls)));
        let b = msg(2, &p);
        let a = m.put(&b);
        let out = run(diag, "x", &[a, b.len() as u64], 0, &mut m);
        assert!(
            out.ends_with(
                "idiag_inode=0}, [[{nla_len=104, nla_type=INET_DIAG_MD5SIG}, \
                 [{tcpm_family=AF_INET, tcpm_prefixlen=32, tcpm_keylen=2, \
                 tcpm_addr=inet_addr(\"192.168.0.1\"), tcpm_key=\"\\xab\\xcd\"}]], \
                 [{nla_len=24, nla_type=INET_DIAG_ULP_INFO}, [{nla_len=20, \
                 nla_type=INET_ULP_INFO_TLS}, [[{nla_len=6, nla_type=TLS_INFO_VERSION}, \
                 TLS_1_2_VERSION], [{nla_len=6, nla_type=TLS_INFO_TXCONF}, \
                 0x9 /* TLS_CONF_??? */]]]]]]) = 0"
            ),
            "{out}"
        );
    }
}
