//! BPF_OBJ_GET_INFO_BY_FD on a program descriptor under `-v`: the
//! `struct bpf_prog_info` the kernel wrote, as strace 6.1 prints it.
//!
//! The caller fills in the lengths and counts of the arrays it wants; the
//! kernel replaces them with the real ones. strace keeps the structure as it
//! was at entry and prints `entry => exit` for each such field, and reads
//! at most the smaller of the two counts from each array.

use crate::syscall::bpf::upto_limit;
use crate::syscall::printers::{dev_value, hex_quoted, id_value, le32, le64};
use crate::syscall::{Ctx, Field, StrVal, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

/// The size of strace 6.1's `struct bpf_prog_info` (up to
/// `verified_insns`); bytes past it are "extra data".
const KNOWN: usize = 220;

thread_local! {
    /// The structure as each thread passed it at entry (zeros when it could
    /// not be read), until its exit prints it.
    static AT_ENTRY: RefCell<HashMap<i32, Vec<u8>>> = RefCell::new(HashMap::new());
}

/// The first `len` bytes at `addr` (at most a page, as strace reads),
/// zero-extended to strace's structure size.
fn fetch(c: &mut Ctx, addr: u64, len: u64) -> Option<(Vec<u8>, Vec<u8>)> {
    if len == 0 || len > 4096 {
        return None;
    }
    let raw = c.read_bytes(addr, len as usize)?;
    let mut b = raw[..raw.len().min(KNOWN)].to_vec();
    b.resize(KNOWN, 0);
    Some((b, raw))
}

/// At entry: keeps the caller's structure for the exit's `=>` fields.
pub(in crate::syscall) fn save_entry(c: &mut Ctx, addr: u64, len: u64) {
    let b = fetch(c, addr, len).map_or_else(|| vec![0; KNOWN], |(b, _)| b);
    let pid = c.pid;
    AT_ENTRY.with(|m| m.borrow_mut().insert(pid, b));
}

/// `before => now`, or `now` when the kernel left the field alone.
fn changed(before: Value, now: Value) -> Value {
    if before == now {
        now
    } else {
        Value::Changed(Box::new(before), Box::new(now))
    }
}

/// A fixed-size `char[]` as strace's `print_quoted_cstring`: up to the NUL,
/// or all but the last byte and `...` when there is none.
pub(in crate::syscall) fn cstring(raw: &[u8]) -> Value {
    let (bytes, truncated) = match raw.iter().position(|&x| x == 0) {
        Some(z) => (&raw[..z], false),
        None => (&raw[..raw.len().saturating_sub(1)], true),
    };
    Value::Str(StrVal {
        bytes: bytes.to_vec(),
        truncated,
        c_string: true,
    })
}

/// strace's `printstr_ex(..., QUOTE_FORCE_HEX)`: at most `-s` bytes, every
/// one as `\xNN`.
fn hex_string(c: &mut Ctx, addr: u64, len: u64) -> Value {
    let (b, n) = match upto_limit(c, addr, len) {
        Ok(x) => x,
        Err(v) => return v,
    };
    let mut s = hex_quoted(&b);
    if len as usize > n {
        s.push_str("...");
    }
    Value::sym_owned(s)
}

/// The wall-clock second a boot-time stamp stands for, as a comment
/// (strace's `print_boottime`): only seconds, the offset is approximate.
fn boottime(c: &Ctx, ns: u64) -> Value {
    let v = Value::UInt(ns);
    if c.opts.xlat_style == 1 {
        return v;
    }
    let Some(off) = boot_offset_ns() else {
        return v;
    };
    let sec = (i128::from(ns) + off).div_euclid(1_000_000_000);
    match i64::try_from(sec)
        .ok()
        .and_then(|s| crate::syscall::printers::time_string(s, 0))
    {
        Some(t) => Value::Commented(Box::new(v), Cow::Owned(t)),
        None => v,
    }
}

/// CLOCK_REALTIME minus CLOCK_BOOTTIME, in nanoseconds.
fn boot_offset_ns() -> Option<i128> {
    let read = |clock| crate::sys::clock_ns(clock);
    let boot = read(libc::CLOCK_BOOTTIME)?;
    let real = read(libc::CLOCK_REALTIME)?;
    Some(real - boot)
}

/// The `info` of a program descriptor at exit: `len` bytes at `addr`, or
/// `None` when they cannot be read (strace then prints the address).
pub(in crate::syscall) fn prog_info(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    let pid = c.pid;
    let before = AT_ENTRY
        .with(|m| m.borrow_mut().remove(&pid))
        .unwrap_or_else(|| vec![0; KNOWN]);
    let (b, raw) = fetch(c, addr, len)?;
    let n = (len as usize).min(KNOWN);
    let u32_at = |off| Value::UInt(le32(&b, off));
    let u64_at = |off| Value::UInt(le64(&b, off));
    let was32 = |off| Value::UInt(le32(&before, off));
    let ch32 = |off| changed(was32(off), u32_at(off));
    let ch_ptr = |off| changed(Value::Ptr(le64(&before, off)), Value::Ptr(le64(&b, off)));
    let mut f = vec![
        Field::new(
            "type",
            c.enum_value(le32(&b, 0), &xlat::BPF_PROG_TYPES, "BPF_PROG_TYPE_???"),
        ),
        Field::new("id", u32_at(4)),
        Field::new("tag", Value::sym_owned(hex_quoted(&b[8..16]))),
        Field::new("jited_prog_len", ch32(16)),
    ];
    let jited = hex_string(c, le64(&b, 24), le32(&b, 16));
    f.push(Field::new("jited_prog_insns", jited));
    f.push(Field::new("xlated_prog_len", ch32(20)));
    let insns = le32(&before, 20).min(le32(&b, 20)) / 8;
    let xlated = crate::syscall::bpf::insn::insns_value(c, le64(&b, 32), insns);
    f.push(Field::new("xlated_prog_insns", xlated));
    if n > 40 {
        f.push(Field::new("load_time", boottime(c, le64(&b, 40))));
        f.push(Field::new("created_by_uid", id_value(le32(&b, 48) as u32)));
        f.push(Field::new("nr_map_ids", ch32(52)));
        let ids = le32(&before, 52).min(le32(&b, 52));
        let map_ids = crate::syscall::array::array_at(c, le64(&b, 56), ids, 4, |_, e| {
            Some(Value::UInt(le32(e, 0)))
        });
        f.push(Field::new("map_ids", map_ids));
        f.push(Field::new("name", cstring(&b[64..80])));
    }
    if n > 80 {
        f.push(Field::new(
            "ifindex",
            crate::syscall::bpf::ifindex_value(le32(&b, 80) as u32),
        ));
        f.push(Field::new("gpl_compatible", Value::UInt(le32(&b, 84) & 1)));
        f.push(Field::new("netns_dev", dev_value(c, le64(&b, 88))));
        f.push(Field::new("netns_ino", u64_at(96)));
    }
    if n > 104 {
        f.push(Field::new("nr_jited_ksyms", ch32(104)));
        f.push(Field::new("nr_jited_func_lens", ch32(108)));
        f.push(Field::new("jited_ksyms", ch_ptr(112)));
        f.push(Field::new("jited_func_lens", ch_ptr(120)));
    }
    if n > 128 {
        f.push(Field::new("btf_id", u32_at(128)));
        f.push(Field::new("func_info_rec_size", ch32(132)));
        f.push(Field::new("func_info", Value::Ptr(le64(&b, 136))));
        f.push(Field::new("nr_func_info", ch32(144)));
        f.push(Field::new("nr_line_info", ch32(148)));
        f.push(Field::new("line_info", Value::Ptr(le64(&b, 152))));
        f.push(Field::new("jited_line_info", ch_ptr(160)));
        f.push(Field::new("nr_jited_line_info", ch32(168)));
        f.push(Field::new("line_info_rec_size", ch32(172)));
        f.push(Field::new("jited_line_info_rec_size", ch32(176)));
        f.push(Field::new("nr_prog_tags", ch32(180)));
        f.push(Field::new("prog_tags", Value::Ptr(le64(&b, 184))));
    }
    if n > 192 {
        f.push(Field::new("run_time_ns", u64_at(192)));
        f.push(Field::new("run_cnt", u64_at(200)));
    }
    if n > 208 {
        f.push(Field::new("recursion_misses", u64_at(208)));
    }
    if n > 216 {
        f.push(Field::new("verified_insns", u32_at(216)));
        if raw.len() > KNOWN && raw[KNOWN..].iter().any(|&x| x != 0) {
            f.push(Field::new(
                "extra_data",
                Value::Commented(
                    Box::new(Value::sym_owned(hex_quoted(&raw[KNOWN..]))),
                    Cow::Owned(format!("bytes {}..{}", KNOWN, raw.len() - 1)),
                ),
            ));
        }
    }
    Some(Value::structure(f))
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::FixedFds;
    use crate::syscall::{decode_entry, decode_exit, Ctx, DecodeOpts, Entry};
    use crate::value::text::{render_value, RenderOpts};

    /// The kernel rewrites the counts it was given: `entry => exit`, and
    /// only the smaller count of map ids is read.
    #[test]
    fn prog_info_counts_changed_by_the_kernel() {
        let mut m = FakeMemory::default();
        let ids = m.put(&[7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0]);
        let mut info = vec![0u8; 220];
        info[52] = 3; // nr_map_ids asked for
        info[56..64].copy_from_slice(&ids.to_le_bytes());
        let at = m.put(&info);
        let mut attr = 6u32.to_le_bytes().to_vec();
        attr.extend_from_slice(&220u32.to_le_bytes());
        attr.extend_from_slice(&at.to_le_bytes());
        let attr = m.put(&attr);
        let entry = Entry {
            name: None,
            nargs: 3,
            classes: rtrace_arch::tables::Classes(0),
            decoder: Some(crate::syscall::bpf::DECODERS[0].1),
        };
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        let mut fds = FixedFds(vec![(6, "anon_inode:bpf-prog")]);
        let arch = rtrace_arch::Arch::X86_64;
        let args = [15, attr, 16, 0, 0, 0];
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, arch, args);
        let step = decode_entry(&entry, &mut c);
        let saved = c.saved;
        // What the kernel writes back.
        info[0] = 1;
        info[4] = 5;
        info[8..16].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 0xfe]);
        info[16] = 86; // jited_prog_len
        info[52] = 2;
        info[64] = b'p';
        info[216] = 9;
        let off = (at - m.base) as usize;
        m.data[off..off + 220].copy_from_slice(&info);
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, arch, args);
        c.saved = saved;
        c.ret = Some(0);
        decode_exit(&entry, &mut c, step);
        let mut s = String::new();
        render_value(&mut s, &c.exit_args[0], &RenderOpts::default());
        let want = [
            "{info={bpf_fd=6, info_len=220, info={type=BPF_PROG_TYPE_SOCKET_FILTER, id=5, \
             tag=\"\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\xfe\", jited_prog_len=0 => 86, \
             jited_prog_insns=NULL, xlated_prog_len=0, xlated_prog_insns=NULL, load_time=0",
            ", created_by_uid=0, nr_map_ids=3 => 2, map_ids=[7, 8], name=\"p\", ifindex=0, \
             gpl_compatible=0, netns_dev=makedev(0, 0), netns_ino=0, nr_jited_ksyms=0",
            ", recursion_misses=0, verified_insns=9}}}",
        ];
        for w in want {
            assert!(s.contains(w), "{s}\nlacks {w}");
        }
    }
}
