//! perf_event_open(2): `struct perf_event_attr` as strace 6.1's `perf.c`
//! prints it.
//!
//! strace prints the structure at syscall exit (so that an E2BIG answer can
//! show the size the kernel wanted: `size=X => Y`). Without `-v` it prints the
//! type, size, config, the sample period or frequency, the sample and read
//! formats, the flag bits that are set (`precise_ip` always) and `...`; with
//! `-v` every field the structure's size covers.

use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("perf_event_open", perf_event_open)];

/// `PERF_ATTR_SIZE_VER0` and the structure strace 6.1 knows (VER7).
const VER0: u64 = 64;
const KNOWN: u64 = 128;

/// The one-bit (and the two-bit `precise_ip`) fields of the flags word, by
/// their first bit.
const BITS: &[(&str, u32)] = &[
    ("disabled", 0),
    ("inherit", 1),
    ("pinned", 2),
    ("exclusive", 3),
    ("exclude_user", 4),
    ("exclude_kernel", 5),
    ("exclude_hv", 6),
    ("exclude_idle", 7),
    ("mmap", 8),
    ("comm", 9),
    ("freq", 10),
    ("inherit_stat", 11),
    ("enable_on_exec", 12),
    ("task", 13),
    ("watermark", 14),
    ("precise_ip", 15),
    ("mmap_data", 17),
    ("sample_id_all", 18),
    ("exclude_host", 19),
    ("exclude_guest", 20),
    ("exclude_callchain_kernel", 21),
    ("exclude_callchain_user", 22),
    ("mmap2", 23),
    ("comm_exec", 24),
    ("use_clockid", 25),
    ("context_switch", 26),
    ("write_backward", 27),
    ("namespaces", 28),
    ("ksymbol", 29),
    ("bpf_event", 30),
    ("aux_output", 31),
    ("cgroup", 32),
    ("text_poke", 33),
    ("build_id", 34),
    ("inherit_thread", 35),
    ("remove_on_exec", 36),
    ("sigtrap", 37),
];

const PRECISE_IP: [&str; 4] = [
    "arbitrary skid",
    "constant skid",
    "requested to have 0 skid",
    "must have 0 skid",
];

const TYPE_HARDWARE: u64 = 0;
const TYPE_SOFTWARE: u64 = 1;
const TYPE_TRACEPOINT: u64 = 2;
const TYPE_HW_CACHE: u64 = 3;
const TYPE_BREAKPOINT: u64 = 5;
const SAMPLE_BRANCH_STACK: u64 = 1 << 11;
const SAMPLE_STACK_USER: u64 = 1 << 13;
const E2BIG: i64 = 7;

/// `perf_event_open(attr, pid, cpu, group_fd, flags)`: everything at exit.
fn perf_event_open(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(0);
    if c.entering() {
        // The size the caller gave, to show the kernel's E2BIG correction.
        c.saved = match c.read_bytes(addr.wrapping_add(4), 4) {
            Some(b) => le32(&b, 0) | 1 << 32,
            None => 0,
        };
        return Step::Exit;
    }
    let v = attr_value(c, addr);
    c.push(v);
    c.push(Value::Int(c.arg(1) as u32 as i32 as i64));
    c.push(Value::Int(c.arg(2) as u32 as i32 as i64));
    let g = c.fd_value(c.arg(3) as u32 as i32 as i64);
    c.push(g);
    let f = xflags(
        c,
        c.arg_ulong(4),
        &xlat::PERF_EVENT_OPEN_FLAGS,
        "PERF_FLAG_???",
    );
    c.push(f);
    Step::Done(RetFmt::Fd)
}

/// The attribute structure, or its address when strace prints that.
fn attr_value(c: &mut Ctx, addr: u64) -> Value {
    if c.saved >> 32 == 0 {
        return Value::Ptr(addr);
    }
    attr_sized(c, addr, c.saved & 0xffff_ffff)
}

/// `PERF_EVENT_IOC_MODIFY_ATTRIBUTES`' argument, read at entry: the
/// attribute structure at `addr`, or its address.
pub(in crate::syscall) fn ioctl_attr(c: &mut Ctx, addr: u64) -> Value {
    match c.read_bytes(addr.wrapping_add(4), 4) {
        Some(b) if addr != 0 => attr_sized(c, addr, le32(&b, 0)),
        _ => Value::Ptr(addr),
    }
}

/// The attribute structure at `addr` whose caller-given size is `given`.
fn attr_sized(c: &mut Ctx, addr: u64, given: u64) -> Value {
    let mut size = given.min(KNOWN);
    if size == 0 {
        size = VER0;
    }
    if size < VER0 {
        return Value::Ptr(addr);
    }
    // Without -v strace reads only the fields before `wakeup_events`.
    let want = if c.opts.verbose { size } else { size.min(48) };
    let Some(mut b) = c.read_bytes(addr, want as usize) else {
        return Value::Ptr(addr);
    };
    b.resize(KNOWN as usize, 0);
    let mut f = Vec::new();
    let ty = le32(&b, 0);
    f.push(Field::new(
        "type",
        c.enum_value(ty, &xlat::PERF_TYPE_ID, "PERF_TYPE_???"),
    ));
    let mut sz = c.enum_value(given, &xlat::PERF_ATTR_SIZE, "PERF_ATTR_SIZE_???");
    if c.exiting() && c.retval() == -E2BIG {
        let new = match c.read_bytes(addr + 4, 4) {
            Some(nb) => c.enum_value(le32(&nb, 0), &xlat::PERF_ATTR_SIZE, "PERF_ATTR_SIZE_???"),
            None => Value::Unknown,
        };
        sz = Value::Changed(Box::new(sz), Box::new(new));
    }
    f.push(Field::new("size", sz));
    f.push(Field::new("config", config_value(c, ty, le64(&b, 8))));
    let bits = le64(&b, 40);
    let bit = |n: u32| (bits >> n) & 1;
    let sample_type = le64(&b, 24);
    f.push(if bit(10) != 0 {
        Field::new("sample_freq", Value::UInt(le64(&b, 16)))
    } else {
        Field::new("sample_period", Value::UInt(le64(&b, 16)))
    });
    f.push(Field::new(
        "sample_type",
        xflags(
            c,
            sample_type,
            &xlat::PERF_EVENT_SAMPLE_FORMAT,
            "PERF_SAMPLE_???",
        ),
    ));
    f.push(Field::new(
        "read_format",
        xflags(
            c,
            le64(&b, 32),
            &xlat::PERF_EVENT_READ_FORMAT,
            "PERF_FORMAT_???",
        ),
    ));
    let verbose = c.opts.verbose;
    for &(name, n) in BITS {
        if n == 15 {
            let p = (bits >> 15) & 3;
            let v = Value::Commented(
                Box::new(Value::UInt(p)),
                Cow::Borrowed(PRECISE_IP[p as usize]),
            );
            f.push(Field::new(name, v));
        } else if verbose || bit(n) != 0 {
            f.push(Field::new(name, Value::UInt(bit(n))));
        }
    }
    if bits >> 38 != 0 {
        f.push(Field::new(
            "__reserved_1",
            Value::Commented(
                Box::new(Value::Hex(bits >> 38)),
                Cow::Borrowed("Bits 63..38"),
            ),
        ));
    }
    if !verbose {
        return Value::Struct(f, true);
    }
    verbose_tail(c, &b, size, ty, bits, sample_type, &mut f);
    let more = given > size;
    Value::Struct(f, more)
}

/// The fields after the flag bits, each only when `size` covers it.
fn verbose_tail(
    c: &mut Ctx,
    b: &[u8],
    size: u64,
    ty: u64,
    bits: u64,
    sample_type: u64,
    f: &mut Vec<Field>,
) {
    let has = |off: u64| off < size;
    let wakeup = Value::UInt(le32(b, 48));
    f.push(if bits >> 14 & 1 != 0 {
        Field::new("wakeup_watermark", wakeup)
    } else {
        Field::new("wakeup_events", wakeup)
    });
    let bp = ty == TYPE_BREAKPOINT;
    if bp {
        let t = le32(b, 52);
        let dflt = if t <= 7 {
            "HW_BREAKPOINT_INVALID"
        } else {
            "HW_BREAKPOINT_???"
        };
        f.push(Field::new(
            "bp_type",
            c.enum_value(t, &xlat::HW_BREAKPOINT_TYPE, dflt),
        ));
        f.push(Field::new("bp_addr", xint(le64(b, 56))));
    } else {
        f.push(Field::new("config1", xint(le64(b, 56))));
    }
    if !has(64) {
        return;
    }
    f.push(if bp {
        Field::new("bp_len", Value::UInt(le64(b, 64)))
    } else {
        Field::new("config2", xint(le64(b, 64)))
    });
    if !has(72) {
        return;
    }
    if sample_type & SAMPLE_BRANCH_STACK != 0 {
        f.push(Field::new(
            "branch_sample_type",
            xflags(
                c,
                le64(b, 72),
                &xlat::PERF_BRANCH_SAMPLE_TYPE,
                "PERF_SAMPLE_BRANCH_???",
            ),
        ));
    }
    if !has(80) {
        return;
    }
    f.push(Field::new("sample_regs_user", xint(le64(b, 80))));
    if !has(88) {
        return;
    }
    if sample_type & SAMPLE_STACK_USER != 0 {
        f.push(Field::new("sample_stack_user", xint(le32(b, 88))));
    }
    if bits >> 25 & 1 != 0 {
        if !has(92) {
            return;
        }
        let id = le32(b, 92);
        f.push(Field::new(
            "clockid",
            c.enum_value(id, &xlat::CLOCKS, "CLOCK_???"),
        ));
    }
    if !has(96) {
        return;
    }
    f.push(Field::new("sample_regs_intr", xint(le64(b, 96))));
    if !has(104) {
        return;
    }
    f.push(Field::new("aux_watermark", Value::UInt(le32(b, 104))));
    if !has(108) {
        return;
    }
    f.push(Field::new("sample_max_stack", Value::UInt(le16(b, 108))));
    if !has(110) {
        return;
    }
    reserved_comment(f, le16(b, 110), "bytes 110..111");
    if !has(112) {
        return;
    }
    f.push(Field::new("aux_sample_size", Value::UInt(le32(b, 112))));
    if !has(116) {
        return;
    }
    reserved_comment(f, le32(b, 116), "bytes 116..119");
    if !has(120) {
        return;
    }
    f.push(Field::new("sig_data", xint(le64(b, 120))));
}

/// strace's ` /* bytes N..M: 0x7 */` after the previous field for non-zero
/// reserved bytes.
fn reserved_comment(f: &mut [Field], v: u64, what: &str) {
    if v == 0 {
        return;
    }
    if let Some(last) = f.last_mut() {
        let prev = std::mem::replace(&mut last.value, Value::Unknown);
        last.value = Value::Commented(Box::new(prev), Cow::Owned(format!("{what}: {v:#x}")));
    }
}

/// `config` by event type: named counters, the cache triple, or a number.
fn config_value(c: &Ctx, ty: u64, v: u64) -> Value {
    match ty {
        TYPE_HARDWARE => {
            // The PMU type in the high half: `0xfaceca75<<32|PERF_COUNT_HW_…`.
            let id = c.enum_value(v & 0xffff_ffff, &xlat::PERF_HW_ID, "PERF_COUNT_HW_???");
            if v >> 32 == 0 {
                return id;
            }
            Value::sym_owned(format!(
                "{:#x}<<32|{}",
                v >> 32,
                crate::syscall::ctx::render_flags(&id)
            ))
        }
        TYPE_SOFTWARE => c.enum_value(v, &xlat::PERF_SW_IDS, "PERF_COUNT_SW_???"),
        TYPE_TRACEPOINT => Value::UInt(v),
        TYPE_HW_CACHE => {
            let part = |x: u64, t, d| crate::syscall::ctx::render_flags(&c.enum_value(x, t, d));
            let mut s = String::new();
            if v >> 32 != 0 {
                s.push_str(&format!("{:#x}<<32|", v >> 32));
            }
            if (v & 0xffff_ffff) >> 24 != 0 {
                s.push_str(&format!("{:#x}<<24|", (v & 0xffff_ffff) >> 24));
            }
            s.push_str(&part(
                (v >> 16) & 0xff,
                &xlat::PERF_HW_CACHE_OP_RESULT_ID,
                "PERF_COUNT_HW_CACHE_RESULT_???",
            ));
            s.push_str("<<16|");
            s.push_str(&part(
                (v >> 8) & 0xff,
                &xlat::PERF_HW_CACHE_OP_ID,
                "PERF_COUNT_HW_CACHE_OP_???",
            ));
            s.push_str("<<8|");
            s.push_str(&part(
                v & 0xff,
                &xlat::PERF_HW_CACHE_ID,
                "PERF_COUNT_HW_CACHE_???",
            ));
            Value::sym_owned(s)
        }
        _ => xint(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    fn attr(ty: u32, size: u32, config: u64, bits: u64) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        b[0..4].copy_from_slice(&ty.to_le_bytes());
        b[4..8].copy_from_slice(&size.to_le_bytes());
        b[8..16].copy_from_slice(&config.to_le_bytes());
        b[40..48].copy_from_slice(&bits.to_le_bytes());
        b
    }

    #[test]
    fn abbreviated_and_verbose() {
        let mut m = FakeMemory::default();
        let a = m.put(&attr(0, 128, 1, 1 | 1 << 5));
        assert_eq!(
            run(perf_event_open, "perf_event_open", &[a, 0, u64::MAX, u64::MAX, 8], 3, &mut m),
            "perf_event_open({type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_HW_INSTRUCTIONS, sample_period=0, sample_type=0, read_format=0, disabled=1, exclude_kernel=1, precise_ip=0 /* arbitrary skid */, ...}, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) = 3"
        );
        let a = m.put(&attr(3, 64, 0x10100, 2 << 15));
        let v = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        let out = run_with(
            perf_event_open,
            "perf_event_open",
            &[a, 0, 0, 0, 0],
            -2,
            &mut m,
            &v,
        );
        assert!(out.starts_with("perf_event_open({type=PERF_TYPE_HW_CACHE, size=PERF_ATTR_SIZE_VER0, config=PERF_COUNT_HW_CACHE_RESULT_MISS<<16|PERF_COUNT_HW_CACHE_OP_WRITE<<8|PERF_COUNT_HW_CACHE_L1D, sample_period=0"), "{out}");
        assert!(
            out.contains("precise_ip=2 /* requested to have 0 skid */, mmap_data=0"),
            "{out}"
        );
        assert!(out.ends_with("sigtrap=0, wakeup_events=0, config1=0}, 0, 0, 0, 0) = -1 ENOENT (No such file or directory)"), "{out}");
        assert_eq!(
            run(
                perf_event_open,
                "perf_event_open",
                &[8, 0, 0, 0, 0x100],
                -14,
                &mut m
            ),
            "perf_event_open(0x8, 0, 0, 0, 0x100 /* PERF_FLAG_??? */) = -1 EFAULT (Bad address)"
        );
    }

    #[test]
    fn modify_attributes_ioctl() {
        use crate::syscall::ioctl::ioctl;
        let mut m = FakeMemory::default();
        // Only the fields before wakeup_events are read without -v.
        let a = m.put(&attr(1, 128, 3, 1)[..48]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4008_240b, a], -9, &mut m),
            "ioctl(3, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, {type=PERF_TYPE_SOFTWARE, size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_SW_CONTEXT_SWITCHES, sample_period=0, sample_type=0, read_format=0, disabled=1, precise_ip=0 /* arbitrary skid */, ...}) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4008_240b, 0], -9, &mut m),
            "ioctl(3, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, NULL) = -1 EBADF (Bad file descriptor)"
        );
    }
}
