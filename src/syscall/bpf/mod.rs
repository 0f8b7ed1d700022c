//! bpf(2): the command and `union bpf_attr` per command, as strace 6.1's
//! `bpf.c` prints them.
//!
//! strace copies `min(size, its struct size)` bytes of the attribute and stops
//! printing at the first field the given size does not reach; bytes past its
//! structure that are not zero print as `...` (`extra_data=` under `-v`).
//! Commands strace 6.1 does not decode (BPF_ENABLE_STATS, BPF_ITER_CREATE,
//! BPF_LINK_DETACH, BPF_PROG_BIND_MAP and newer) print the attribute's address.

mod cmds;
pub(in crate::syscall) mod insn;
pub(in crate::syscall) mod prog_info;

use crate::syscall::printers::{hex_quoted, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, StrVal, Value};
use cmds::{
    batch, batch_exit, c_enum64, changed, link_create, map_create, prog_load, prog_query,
    task_fd_query,
};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("bpf", bpf)];

/// The attribute bytes: `min(size, known)` bytes, zero-extended to `known`.
struct Attr {
    b: Vec<u8>,
    len: usize,
}

impl Attr {
    fn u32(&self, off: usize) -> u64 {
        le32(&self.b, off)
    }
    fn u64(&self, off: usize) -> u64 {
        le64(&self.b, off)
    }
    /// Whether the caller's size reaches past `off` (strace's
    /// `len <= offsetof(...)` test, negated).
    fn has(&self, off: usize) -> bool {
        self.len > off
    }
}

/// Builds one structure's fields.
struct S<'a, 'c> {
    c: &'a mut Ctx<'c>,
    a: &'a Attr,
    f: Vec<Field>,
}

impl<'a, 'c> S<'a, 'c> {
    fn new(c: &'a mut Ctx<'c>, a: &'a Attr) -> Self {
        S {
            c,
            a,
            f: Vec::new(),
        }
    }
    fn put(&mut self, name: &'static str, v: Value) -> &mut Self {
        self.f.push(Field::new(name, v));
        self
    }
    fn u(&mut self, name: &'static str, off: usize) -> &mut Self {
        let v = self.a.u32(off);
        self.put(name, Value::UInt(v))
    }
    fn u64(&mut self, name: &'static str, off: usize) -> &mut Self {
        let v = self.a.u64(off);
        self.put(name, Value::UInt(v))
    }
    fn x(&mut self, name: &'static str, off: usize) -> &mut Self {
        let v = self.a.u32(off);
        self.put(name, xint(v))
    }
    fn fd(&mut self, name: &'static str, off: usize) -> &mut Self {
        let v = self.c.fd_value(self.a.u32(off) as u32 as i32 as i64);
        self.put(name, v)
    }
    fn addr(&mut self, name: &'static str, off: usize) -> &mut Self {
        let v = self.a.u64(off);
        self.put(name, Value::Ptr(v))
    }
    fn xval(&mut self, name: &'static str, off: usize, t: &Xlat, d: &'static str) -> &mut Self {
        let v = self.c.enum_value(self.a.u32(off), t, d);
        self.put(name, v)
    }
    fn flags(&mut self, name: &'static str, off: usize, t: &Xlat, d: &'static str) -> &mut Self {
        let v = xflags(self.c, self.a.u32(off), t, d);
        self.put(name, v)
    }
    fn flags64(&mut self, name: &'static str, off: usize, t: &Xlat, d: &'static str) -> &mut Self {
        let v = xflags(self.c, self.a.u64(off), t, d);
        self.put(name, v)
    }
    /// A fixed `char[16]` name of which `n` bytes are present.
    fn cstring(&mut self, name: &'static str, off: usize, n: usize) -> &mut Self {
        let raw = &self.a.b[off..off + n.min(16)];
        let v = match raw.iter().position(|&b| b == 0) {
            Some(z) => str_val(&raw[..z], false),
            // print_quoted_cstring: an unterminated buffer shows all but
            // its last byte, then `...`.
            None => str_val(&raw[..raw.len().saturating_sub(1)], true),
        };
        self.put(name, v)
    }
    fn ifindex(&mut self, name: &'static str, off: usize) -> &mut Self {
        let v = ifindex_value(self.a.u32(off) as u32);
        self.put(name, v)
    }
    fn done(&mut self) -> Vec<Field> {
        std::mem::take(&mut self.f)
    }
}

fn str_val(b: &[u8], truncated: bool) -> Value {
    Value::Str(StrVal {
        bytes: b.to_vec(),
        truncated,
        c_string: true,
    })
}

/// `PRINT_FIELD_IFINDEX`: `if_nametoindex("lo")` for a known interface.
pub(in crate::syscall) fn ifindex_value(idx: u32) -> Value {
    if idx == 0 {
        return Value::UInt(0);
    }
    let Some(name) = crate::sys::net::if_name(idx) else {
        return Value::UInt(idx as u64);
    };
    Value::Call(Cow::Borrowed("if_nametoindex"), vec![str_val(&name, false)])
}

/// The first `min(len, -s)` bytes at `addr` and that count; what prints
/// instead for NULL or unreadable memory.
fn upto_limit(c: &mut Ctx, addr: u64, len: u64) -> Result<(Vec<u8>, usize), Value> {
    if addr == 0 {
        return Err(Value::Ptr(0));
    }
    let n = len.min(c.opts.string_limit as u64) as usize;
    if n == 0 {
        return Ok((Vec::new(), 0));
    }
    c.read_bytes(addr, n)
        .map(|b| (b, n))
        .ok_or(Value::Unreadable(addr))
}

/// strace's `printstr_ex(addr, len, QUOTE_0_TERMINATED)`: at most
/// `min(len, -s)` bytes up to a NUL; `...` when no NUL was met.
fn str0(c: &mut Ctx, addr: u64, len: u64) -> Value {
    let (b, _) = match upto_limit(c, addr, len) {
        Ok(x) => x,
        Err(v) => return v,
    };
    match b.iter().position(|&x| x == 0) {
        Some(z) => str_val(&b[..z], false),
        None => str_val(&b, len > 0),
    }
}

/// `KERNEL_VERSION(a, b, c)`.
fn kernel_version(c: &Ctx, v: u64) -> Value {
    if c.opts.xlat_style == 1 {
        return xint(v);
    }
    let call = Value::Call(
        Cow::Borrowed("KERNEL_VERSION"),
        vec![
            Value::UInt(v >> 16),
            Value::UInt((v >> 8) & 0xff),
            Value::UInt(v & 0xff),
        ],
    );
    if c.opts.xlat_style == 2 {
        return Value::Commented(
            Box::new(xint(v)),
            Cow::Owned(crate::syscall::ctx::render_flags(&call)),
        );
    }
    call
}

/// strace 6.1's structure size for each command it decodes, and how the
/// return value prints.
fn known(cmd: u64) -> Option<(usize, RetFmt)> {
    use RetFmt::{Fd, Int};
    Some(match cmd {
        0 => (72, Fd),                  // MAP_CREATE
        1 | 2 | 21 => (32, Int),        // MAP_LOOKUP/UPDATE, LOOKUP_AND_DELETE
        3 => (16, Int),                 // MAP_DELETE_ELEM
        4 => (24, Int),                 // MAP_GET_NEXT_KEY
        5 => (128, Fd),                 // PROG_LOAD
        6 | 7 => (16, Fd),              // OBJ_PIN, OBJ_GET
        8 => (20, Int),                 // PROG_ATTACH
        9 => (12, Int),                 // PROG_DETACH
        10 => (76, Int),                // PROG_TEST_RUN
        11 | 12 | 23 | 31 => (12, Int), // *_GET_NEXT_ID
        13 => (12, Fd),                 // PROG_GET_FD_BY_ID
        14 => (12, Fd),                 // MAP_GET_FD_BY_ID
        15 => (16, Int),                // OBJ_GET_INFO_BY_FD
        16 => (28, Int),                // PROG_QUERY
        20 => (48, Int),                // TASK_FD_QUERY
        17 => (12, Int),                // RAW_TRACEPOINT_OPEN
        18 => (28, Fd),                 // BTF_LOAD
        19 | 30 => (4, Fd),             // BTF/LINK_GET_FD_BY_ID
        22 => (4, Int),                 // MAP_FREEZE
        24..=27 => (56, Int),           // MAP_*_BATCH
        28 => (48, Fd),                 // LINK_CREATE
        29 => (16, Int),                // LINK_UPDATE
        _ => return None,
    })
}

/// Commands whose attribute strace finishes at syscall exit.
fn at_exit(cmd: u64) -> bool {
    matches!(cmd, 11 | 12 | 15 | 16 | 20 | 23 | 24..=27 | 31)
}

/// `bpf(cmd, attr, size)`.
fn bpf(c: &mut Ctx) -> Step {
    let cmd = c.arg(0) as u32 as u64;
    let addr = c.arg_ulong(1);
    let size = c.arg(2) as u32 as usize;
    let decodable = known(cmd).filter(|_| size > 0 && size <= 4096);
    if c.entering() {
        let v = c.enum_value(cmd, &xlat::BPF_COMMANDS, "BPF_???");
        c.push(v);
        let Some((_, ret)) = decodable.clone() else {
            c.push(Value::Ptr(addr));
            c.push(Value::UInt(size as u64));
            return Step::Done(RetFmt::Int);
        };
        if at_exit(cmd) {
            // Keep the field the kernel rewrites: its value at entry.
            let off = match cmd {
                15 => 4,
                16 => 24,
                20 => 12,
                24..=27 => 32,
                _ => 4,
            };
            let attr = c.read_bytes(addr, size);
            c.saved = match &attr {
                Some(b) => le32(b, off) | 1 << 32,
                None => 0,
            };
            if let (15, Some(b)) = (cmd, attr) {
                info_entry(c, &b);
            }
            return Step::Exit;
        }
        let v = attr_value(c, cmd, addr, size);
        c.push(v);
        c.push(Value::UInt(size as u64));
        return Step::Done(ret);
    }
    if c.saved >> 32 == 0 {
        c.push(Value::Ptr(addr));
    } else {
        let v = attr_value(c, cmd, addr, size);
        c.push(v);
    }
    c.push(Value::UInt(size as u64));
    Step::Done(known(cmd).map_or(RetFmt::Int, |k| k.1))
}

/// BPF_OBJ_GET_INFO_BY_FD's entry under `-v`: a program's info structure
/// as passed, for the fields the kernel rewrites (strace picks the
/// structure by the descriptor's `anon_inode:` name at entry).
fn info_entry(c: &mut Ctx, attr: &[u8]) {
    if !c.opts.verbose {
        return;
    }
    let mut b = attr.to_vec();
    b.resize(16, 0);
    let fd = le32(&b, 0) as u32 as i32 as i64;
    if c.fds.fd_path(c.pid, fd).as_deref() == Some(b"anon_inode:bpf-prog".as_slice()) {
        prog_info::save_entry(c, le64(&b, 8), le32(&b, 4));
    }
}

/// The decoded attribute, or its address when it cannot be read.
fn attr_value(c: &mut Ctx, cmd: u64, addr: u64, size: usize) -> Value {
    let Some((known_size, _)) = known(cmd) else {
        return Value::Ptr(addr);
    };
    let Some(data) = c.read_bytes(addr, size) else {
        return Value::Ptr(addr);
    };
    let len = size.min(known_size);
    let mut b = data[..len].to_vec();
    b.resize(known_size.max(160), 0);
    let a = Attr { b, len };
    let (mut fields, known_size) = fields(c, cmd, &a, known_size);
    let mut more = false;
    if size > known_size && data[known_size..].iter().any(|&x| x != 0) {
        if c.opts.verbose {
            let s = hex_quoted(&data[known_size..]);
            fields.push(Field::new(
                "extra_data",
                Value::Commented(
                    Box::new(Value::sym_owned(s)),
                    Cow::Owned(format!("bytes {}..{}", known_size, size - 1)),
                ),
            ));
        } else {
            more = true;
        }
    }
    let v = Value::Struct(fields, more);
    if (24..=27).contains(&cmd) {
        return batch_exit(c, v, &a);
    }
    v
}

/// The fields of command `cmd`; also the size past which bytes are "extra".
fn fields(c: &mut Ctx, cmd: u64, a: &Attr, size: usize) -> (Vec<Field>, usize) {
    let f = match cmd {
        0 => map_create(c, a),
        1 | 21 => {
            let mut s = S::new(c, a);
            s.fd("map_fd", 0).addr("key", 8).addr("value", 16);
            if a.has(24) {
                s.flags64("flags", 24, &xlat::BPF_MAP_LOOKUP_ELEM_FLAGS, "BPF_???");
            }
            s.done()
        }
        2 => {
            let mut s = S::new(c, a);
            s.fd("map_fd", 0).addr("key", 8).addr("value", 16);
            let v = c_enum64(s.c, a.u64(24), &xlat::BPF_MAP_UPDATE_ELEM_FLAGS, "BPF_???");
            s.put("flags", v);
            s.done()
        }
        3 => S::new(c, a).fd("map_fd", 0).addr("key", 8).done(),
        4 => S::new(c, a)
            .fd("map_fd", 0)
            .addr("key", 8)
            .addr("next_key", 16)
            .done(),
        22 => S::new(c, a).fd("map_fd", 0).done(),
        5 => prog_load(c, a),
        6 | 7 => {
            let p = c.path_value(a.u64(0));
            let mut s = S::new(c, a);
            s.put("pathname", p).fd("bpf_fd", 8);
            if a.has(12) {
                s.flags("file_flags", 12, &xlat::BPF_FILE_FLAGS, "BPF_F_???");
            }
            s.done()
        }
        8 => {
            let mut s = S::new(c, a);
            s.fd("target_fd", 0).fd("attach_bpf_fd", 4);
            s.xval("attach_type", 8, &xlat::BPF_ATTACH_TYPES, "BPF_???");
            s.flags("attach_flags", 12, &xlat::BPF_ATTACH_FLAGS, "BPF_F_???");
            if a.has(16) {
                s.fd("replace_bpf_fd", 16);
            }
            s.done()
        }
        9 => {
            let mut s = S::new(c, a);
            s.fd("target_fd", 0);
            s.xval("attach_type", 8, &xlat::BPF_ATTACH_TYPES, "BPF_???");
            s.done()
        }
        10 => {
            let mut s = S::new(c, a);
            s.fd("prog_fd", 0).u("retval", 4).u("data_size_in", 8);
            s.u("data_size_out", 12)
                .addr("data_in", 16)
                .addr("data_out", 24);
            s.u("repeat", 32).u("duration", 36);
            if a.has(40) {
                s.u("ctx_size_in", 40).u("ctx_size_out", 44);
                s.addr("ctx_in", 48).addr("ctx_out", 56);
            }
            if a.has(64) {
                s.flags("flags", 64, &xlat::BPF_TEST_RUN_FLAGS, "BPF_F_???");
                s.u("cpu", 68);
            }
            if a.has(72) {
                s.u("batch_size", 72);
            }
            let inner = s.done();
            vec![Field::new("test", Value::structure(inner))]
        }
        11 | 12 | 23 | 31 => {
            let next = changed(c.saved, a.u32(4));
            let mut s = S::new(c, a);
            s.u("start_id", 0).put("next_id", next);
            if a.has(8) {
                s.flags("open_flags", 8, &xlat::BPF_FILE_MODE_FLAGS, "BPF_F_???");
            }
            s.done()
        }
        13 => {
            let mut s = S::new(c, a);
            s.u("prog_id", 0).u("next_id", 4);
            if a.has(8) {
                s.flags("open_flags", 8, &xlat::BPF_FILE_MODE_FLAGS, "BPF_F_???");
            }
            s.done()
        }
        16 => prog_query(c, a),
        20 => task_fd_query(c, a),
        14 => {
            let mut s = S::new(c, a);
            s.u("map_id", 0).u("next_id", 4);
            if a.has(8) {
                s.flags("open_flags", 8, &xlat::BPF_FILE_MODE_FLAGS, "BPF_F_???");
            }
            s.done()
        }
        19 => S::new(c, a).u("btf_id", 0).done(),
        30 => S::new(c, a).u("link_id", 0).done(),
        15 => {
            let len = changed(c.saved, a.u32(4));
            let info = crate::syscall::bpf::insn::info_value(c, a.u32(0), a.u64(8), a.u32(4));
            let inner = S::new(c, a)
                .fd("bpf_fd", 0)
                .put("info_len", len)
                .put("info", info)
                .done();
            vec![Field::new("info", Value::structure(inner))]
        }
        17 => {
            let name = str0(c, a.u64(0), 128);
            let inner = S::new(c, a).put("name", name).fd("prog_fd", 8).done();
            vec![Field::new("raw_tracepoint", Value::structure(inner))]
        }
        18 => {
            let btf = c.buf_value(a.u64(0), a.u32(16));
            S::new(c, a)
                .put("btf", btf)
                .addr("btf_log_buf", 8)
                .u("btf_size", 16)
                .u("btf_log_size", 20)
                .u("btf_log_level", 24)
                .done()
        }
        24..=27 => batch(c, cmd, a),
        28 => {
            let (inner, end) = link_create(c, a);
            return (
                vec![Field::new("link_create", Value::structure(inner))],
                end.unwrap_or(size),
            );
        }
        29 => {
            let mut s = S::new(c, a);
            s.fd("link_fd", 0).fd("new_prog_fd", 4);
            s.flags("flags", 8, &xlat::BPF_ATTACH_FLAGS, "BPF_F_???");
            if a.u32(8) & 4 != 0 {
                s.fd("old_prog_fd", 12);
            }
            let inner = s.done();
            vec![Field::new("link_update", Value::structure(inner))]
        }
        _ => Vec::new(),
    };
    (f, size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn commands() {
        let mut m = FakeMemory::default();
        let mut a = vec![0u8; 24];
        a[0] = 2;
        a[4] = 4;
        a[8] = 8;
        a[12] = 1;
        let p = m.put(&a);
        assert_eq!(
            run(bpf, "bpf", &[0, p, 16], 3, &mut m),
            "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, max_entries=1}, 16) = 3"
        );
        assert_eq!(
            run(bpf, "bpf", &[0x7f, p, 16], -22, &mut m),
            format!("bpf(0x7f /* BPF_??? */, {p:#x}, 16) = -1 EINVAL (Invalid argument)")
        );
        assert_eq!(
            run(bpf, "bpf", &[34, p, 4], -22, &mut m),
            format!("bpf(BPF_LINK_DETACH, {p:#x}, 4) = -1 EINVAL (Invalid argument)")
        );
        // Non-zero bytes past strace's structure: `...`.
        assert_eq!(
            run(bpf, "bpf", &[22, p, 24], -22, &mut m),
            "bpf(BPF_MAP_FREEZE, {map_fd=2, ...}, 24) = -1 EINVAL (Invalid argument)"
        );
        let id = m.put(&[0, 0, 0, 0, 5, 0, 0, 0]);
        assert_eq!(
            run(bpf, "bpf", &[11, id, 8], 0, &mut m),
            "bpf(BPF_PROG_GET_NEXT_ID, {start_id=0, next_id=5}, 8) = 0"
        );
    }

    #[test]
    fn query_commands() {
        let mut m = FakeMemory::default();
        let q = m.put(&u32::MAX.to_le_bytes());
        assert_eq!(
            run(bpf, "bpf", &[16, q, 4], -9, &mut m),
            "bpf(BPF_PROG_QUERY, {query={target_fd=-1, attach_type=BPF_CGROUP_INET_INGRESS, query_flags=0, attach_flags=0, prog_ids=NULL, prog_cnt=0}}, 4) = -1 EBADF (Bad file descriptor)"
        );
        let mut t = 5u32.to_le_bytes().to_vec();
        t.extend_from_slice(&[0; 24]);
        t.extend_from_slice(&5u32.to_le_bytes());
        t.extend_from_slice(&0x10u64.to_le_bytes());
        t.extend_from_slice(&0u64.to_le_bytes());
        let t = m.put(&t);
        assert_eq!(
            run(bpf, "bpf", &[20, t, 48], -22, &mut m),
            "bpf(BPF_TASK_FD_QUERY, {task_fd_query={pid=5, fd=0, flags=0, buf_len=0, buf=NULL, prog_id=0, fd_type=BPF_FD_TYPE_URETPROBE, probe_offset=0x10, probe_addr=0}}, 48) = -1 EINVAL (Invalid argument)"
        );
        let mut id = 1u32.to_le_bytes().to_vec();
        id.extend_from_slice(&2u32.to_le_bytes());
        id.extend_from_slice(&0u32.to_le_bytes());
        let id = m.put(&id);
        assert_eq!(
            run(bpf, "bpf", &[11, id, 12], -2, &mut m),
            "bpf(BPF_PROG_GET_NEXT_ID, {start_id=1, next_id=2, open_flags=0}, 12) = -1 ENOENT (No such file or directory)"
        );
    }
}
