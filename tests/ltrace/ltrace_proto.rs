//! Prototypes, argument formatting and filters of `rltrace`, checked against
//! lines that ltrace 0.7.3 printed for small C programs (built under /tmp
//! with `gcc -fno-builtin`; the program and the prototype line are quoted
//! next to each case). The register and memory values are those the
//! programs passed; addresses are arbitrary but fixed here.
//!
//! Also: every line of the system's /etc/ltrace.conf parses (when present),
//! and a differential run of the real ltrace on a program compiled here
//! (guarded by the presence of ltrace and gcc).

use crate::common;

use rtrace::ltrace::format::{self, fmt_a, printf_types, ArgSource, FormatOpts, RetVals};
use rtrace::ltrace::proto::Protos;

/// Registers and memory of a pretend tracee.
#[derive(Default)]
struct Fake {
    ints: Vec<u64>,
    floats: Vec<f64>,
    mem: Vec<(u64, Vec<u8>)>,
    next: u64,
}

impl Fake {
    fn new() -> Fake {
        Fake {
            next: 0x5000_0000,
            ..Default::default()
        }
    }
    /// Places bytes in memory; returns their address.
    fn put(&mut self, b: &[u8]) -> u64 {
        let a = self.next;
        self.mem.push((a, b.to_vec()));
        self.next += (b.len() as u64).div_ceil(16) * 16 + 16;
        a
    }
    fn s(&mut self, s: &str) -> u64 {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        self.put(&b)
    }
    fn i(mut self, v: &[u64]) -> Fake {
        self.ints = v.to_vec();
        self
    }
    fn set(&mut self, v: &[u64]) -> &mut Fake {
        self.ints = v.to_vec();
        self
    }
    fn f(mut self, v: &[f64]) -> Fake {
        self.floats = v.to_vec();
        self
    }
}

impl ArgSource for Fake {
    fn int_arg(&mut self, i: usize) -> u64 {
        self.ints.get(i).copied().unwrap_or(0)
    }
    fn float_arg(&mut self, i: usize) -> f64 {
        self.floats.get(i).copied().unwrap_or(0.0)
    }
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        for (a, b) in &self.mem {
            if addr >= *a && addr < a + b.len() as u64 {
                let off = (addr - a) as usize;
                let n = buf.len().min(b.len() - off);
                buf[..n].copy_from_slice(&b[off..off + n]);
                return n;
            }
        }
        0
    }
}

fn protos(conf: &str) -> Protos {
    let mut p = Protos::builtin();
    p.load_str(conf, "test.conf").unwrap();
    p
}

/// `name(args) = ret` as ltrace prints a finished call.
fn line_with(
    p: &Protos,
    name: &str,
    src: &mut Fake,
    ret: RetVals,
    o: &FormatOpts,
    alen: usize,
) -> String {
    let call = format::on_entry_with(name, p.get(name), src, o, alen);
    let (args, r) = call.finish(ret, src, o);
    assert!(
        args.starts_with(call.entry_text()),
        "{args:?} must start with {:?}",
        call.entry_text()
    );
    format!("{name}({args}) = {r}")
}

fn line(p: &Protos, name: &str, src: &mut Fake, ret: u64) -> String {
    line_with(
        p,
        name,
        src,
        RetVals {
            int: ret,
            float: 0.0,
            second: (0, 0.0),
        },
        &FormatOpts::default(),
        4,
    )
}

const P: u64 = 0x5614206122a0;

#[test]
fn libc_calls_as_ltrace_prints_them() {
    let p = Protos::builtin();
    let mut m = Fake::new();
    let s = m.s("hello\tworld\n\"q\"\\ \x01\u{7f}");
    assert_eq!(
        line(&p, "strcpy", m.set(&[P, s]), P),
        r#"strcpy(0x5614206122a0, "hello\tworld\n"q"\\ \001\177") = 0x5614206122a0"#
    );
    let mut m = Fake::new();
    let a = m.s(&"A".repeat(90));
    assert_eq!(
        line(&p, "puts", m.set(&[a]), 91),
        r#"puts("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"...) = 91"#
    );
    let mut m = Fake::new();
    let v = m.s("NONEXISTENT_VAR_X");
    assert_eq!(
        line(&p, "getenv", m.set(&[v]), 0),
        r#"getenv("NONEXISTENT_VAR_X") = nil"#
    );
    assert_eq!(
        line(&p, "time", &mut Fake::new(), 1795313700),
        "time(0) = 1795313700"
    );
    assert_eq!(
        line(&p, "free", &mut Fake::new().i(&[0x5614206132f0]), 0),
        "free(0x5614206132f0) = <void>"
    );
    assert_eq!(
        line(
            &p,
            "memset",
            &mut Fake::new().i(&[0x7fffec9ffdd0, b'A' as u64, 90]),
            0x7fffec9ffdd0
        ),
        "memset(0x7fffec9ffdd0, 'A', 90) = 0x7fffec9ffdd0"
    );
    let mut m = Fake::new();
    let c = m.s("C");
    assert_eq!(
        line(&p, "setlocale", m.set(&[6, c]), c),
        r#"setlocale(LC_ALL, "C") = "C""#
    );
    let mut m = Fake::new();
    let (f, r) = (m.s("/nonexistent/x"), m.s("r"));
    assert_eq!(
        line(&p, "fopen", m.set(&[f, r]), 0),
        r#"fopen("/nonexistent/x", "r") = 0"#
    );
    let mut m = Fake::new();
    let w = m.s("wr\n");
    assert_eq!(
        line(&p, "write", m.set(&[1, w, 3]), 3),
        r#"write(1, "wr\n", 3) = 3"#
    );
}

#[test]
fn printf_varargs_decoded_from_the_format() {
    let p = Protos::builtin();
    let mut m = Fake::new();
    let fmt = m.s("n=%zu %s %d %c %f %x %ld %p %5.2f %%\n");
    let s = m.s("str");
    let mut m = m
        .i(&[
            fmt,
            19,
            s,
            (-42i64) as u64,
            b'z' as u64,
            255,
            1234567890123,
            P,
        ])
        .f(&[3.5, 2.25]);
    assert_eq!(
        line(&p, "printf", &mut m, 64),
        r#"printf("n=%zu %s %d %c %f %x %ld %p %5.2"..., 19, "str", -42, 'z', 3.500000, 0xff, 1234567890123, 0x5614206122a0, 2.250000) = 64"#
    );
    // snprintf(+string2, ulong, format): everything is shown at return.
    let mut m = Fake::new();
    let (buf, fmt) = (m.s("abc7"), m.s("abc%d"));
    let mut m = m.i(&[buf, 100, fmt, 7]);
    let call = format::on_entry(
        "snprintf",
        p.get("snprintf"),
        &mut m,
        &FormatOpts::default(),
    );
    assert_eq!(call.entry_text(), "");
    assert_eq!(
        line(&p, "snprintf", &mut m, 4),
        r#"snprintf("abc7", 100, "abc%d", 7) = 4"#
    );
}

#[test]
fn printf_conversions_like_ltrace() {
    // f_fmt(format); the call in /tmp/ltp/main.c, ltrace 0.7.3 printed:
    let want = r#"f_fmt("%d %i %u %x %X %o %c %s %p %f %e"..., -1, 2, 3, 0xff, 0xff, 010, 'c', "s", 0x10, 1.500000, 1.500000, 1.500000, -2, 3, 4, 5, '\006', 7, 8, "ab", 2.345000, 4, 9, 2, "xy", 0) = 0"#;
    let p = protos("int f_fmt(format);");
    let mut m = Fake::new();
    let fmt = m.s("%d %i %u %x %X %o %c %s %p %f %e %g %ld %lu %lld %hd %hhd %zd %5d %-3s %.2f %*d %.*s %% %n|");
    let (s, ab, xyz) = (m.s("s"), m.s("ab"), m.s("xyz"));
    // Integer-class values in order: regs then stack slots.
    let ints = [
        fmt,
        u64::MAX,
        2,
        3,
        255,
        255,
        8,
        b'c' as u64,
        s,
        0x10,
        (-2i64) as u64,
        3,
        4,
        5,
        6,
        7,
        8,
        ab,
        4,
        9,
        2,
        xyz,
        0,
    ];
    let mut m = m.i(&ints).f(&[1.5, 1.5, 1.5, 2.345]);
    assert_eq!(line(&p, "f_fmt", &mut m, 0), want);
    let mut m = Fake::new();
    let (fmt, a) = (m.s("%s %s"), m.s("a"));
    assert_eq!(
        line(&p, "f_fmt", m.set(&[fmt, a, 0]), 0),
        r#"f_fmt("%s %s", "a", nil) = 0"#
    );
    assert_eq!(line(&p, "f_fmt", &mut Fake::new(), 0), "f_fmt(nil) = 0");
    assert!(printf_types(b"%q", 1).is_empty());
}

/// The prototypes of /tmp/ltp/ltp.conf, used with /tmp/ltp/main.c.
const CONF: &str = "
int f_int(int, uint, long, ulong, short, ushort);
int f_oct(octal, oct(int));
hex(int) f_hex(hex(int), hex(long), hex(uint));
int f_char(char, char, char, char, char, char);
double f_dbl(double, float, double);
float f_flt(float);
addr f_ptr(addr, void*);
string f_str(string, string);
int f_strn(string[arg2], int);
int f_arr(array(int, arg2)*, int);
typedef S = struct(int, char, double, string);
int f_struct(S*);
int f_enum(enum(A, B, C=5, D), enum[int](X=1,Y=2));
bool(int) f_bool(bool(int), bool(int));
int f_out(+int*, +string);
typedef L = struct;
typedef L = struct(int, L*);
int f_list(L*);
int f_bitvec(bitvec(uint), bitvec(uint));
int f_hide(hide(int), int);
int f_charp(char*);
int f_intp(int*, int**);
int f_many(int, int, int, int, int, int, int, int);
int f_mixed(int, double, int, double, string);
ulong f_ul();
int f_neg();
int f_sarr(array(S, arg2)*, int);
int f_strarr(array(string, arg2)*, int);
int f_dblarr(array(double, 3)*);
int f_rstr(+string[retval], int);
";

fn neg(v: i64) -> u64 {
    v as u64
}

#[test]
fn scalar_types_and_lenses() {
    let p = protos(CONF);
    let ints = [
        neg(-1),
        4000000000,
        neg(-5000000000),
        u64::MAX,
        neg(-3),
        65535,
    ];
    assert_eq!(
        line(&p, "f_int", &mut Fake::new().i(&ints), neg(-1)),
        "f_int(-1, 4000000000, -5000000000, 18446744073709551615, -3, 65535) = -1"
    );
    assert_eq!(
        line(&p, "f_oct", &mut Fake::new().i(&[0o755, 0]), 493),
        "f_oct(0755, 00) = 493"
    );
    assert_eq!(
        line(
            &p,
            "f_hex",
            &mut Fake::new().i(&[255, u64::MAX, 0]),
            0xffffffff
        ),
        "f_hex(0xff, 0xffffffffffffffff, 0) = 0xffffffff"
    );
    let chars = [
        b'a' as u64,
        b'\n' as u64,
        0,
        b'\'' as u64,
        0xffffffff,
        0xffffffc8,
    ];
    assert_eq!(
        line(&p, "f_char", &mut Fake::new().i(&chars), 0),
        r"f_char('a', '\n', '\0', ''', '\377', '\310') = 0"
    );
    let o = FormatOpts::default();
    let mut m = Fake::new().f(&[1.5, f64::from_bits(2.25f32.to_bits() as u64), -0.1]);
    assert_eq!(
        line_with(
            &p,
            "f_dbl",
            &mut m,
            RetVals {
                int: 0,
                float: 3.0,
                second: (0, 0.0)
            },
            &o,
            4
        ),
        "f_dbl(1.500000, 2.250000, -0.100000) = 3.000000"
    );
    let f4 = f64::from_bits(4.0f32.to_bits() as u64);
    let mut m = Fake::new().f(&[f64::from_bits(3.0f32.to_bits() as u64)]);
    assert_eq!(
        line_with(
            &p,
            "f_flt",
            &mut m,
            RetVals {
                int: 0,
                float: f4,
                second: (0, 0.0)
            },
            &o,
            4
        ),
        "f_flt(3.000000) = 4.000000"
    );
    assert_eq!(
        line(&p, "f_ptr", &mut Fake::new().i(&[0, 0x1234]), 0),
        "f_ptr(0, 0x1234) = 0"
    );
    assert_eq!(
        line(&p, "f_enum", &mut Fake::new().i(&[1, 5]), 1),
        "f_enum(B, 5) = 1"
    );
    assert_eq!(
        line(&p, "f_enum", &mut Fake::new().i(&[7, 2]), 7),
        "f_enum(7, Y) = 7"
    );
    assert_eq!(
        line(&p, "f_bool", &mut Fake::new().i(&[0, 3]), 1),
        "f_bool(false, true) = true"
    );
    assert_eq!(
        line(&p, "f_bitvec", &mut Fake::new().i(&[0xb8, 0xfffffffe]), 0),
        "f_bitvec(<3-5,7>, ~<0>) = 0"
    );
    assert_eq!(
        line(&p, "f_bitvec", &mut Fake::new().i(&[0, 0xffffffff]), 0),
        "f_bitvec(<>, ~<>) = 0"
    );
    assert_eq!(
        line(&p, "f_hide", &mut Fake::new().i(&[1, 2]), 2),
        "f_hide(2) = 2"
    );
    assert_eq!(
        line(
            &p,
            "f_many",
            &mut Fake::new().i(&[1, 2, 3, 4, 5, 6, 7, 8]),
            8
        ),
        "f_many(1, 2, 3, 4, 5, 6, 7, 8) = 8"
    );
    let mut m = Fake::new();
    let five = m.s("five");
    let mut m = m.i(&[1, 3, five]).f(&[2.5, 4.5]);
    assert_eq!(
        line(&p, "f_mixed", &mut m, 0),
        r#"f_mixed(1, 2.500000, 3, 4.500000, "five") = 0"#
    );
    assert_eq!(
        line(&p, "f_ul", &mut Fake::new(), u64::MAX),
        "f_ul() = 18446744073709551615"
    );
    assert_eq!(
        line(&p, "f_neg", &mut Fake::new(), 0xffffffff),
        "f_neg() = -1"
    );
}

#[test]
fn strings_pointers_arrays_structs() {
    let p = protos(CONF);
    let mut m = Fake::new();
    let abc = m.s("abc");
    assert_eq!(
        line(&p, "f_str", m.set(&[abc, 0]), abc),
        r#"f_str("abc", nil) = "abc""#
    );
    let mut m = Fake::new();
    let (long, q) = (m.s("0123456789012345678901234567890123456789"), m.s("x\"y"));
    assert_eq!(
        line(&p, "f_str", m.set(&[long, q]), long),
        r#"f_str("01234567890123456789012345678901"..., "x"y") = "01234567890123456789012345678901"..."#
    );
    let mut m = Fake::new();
    let s = m.s("abcdefgh");
    assert_eq!(
        line(&p, "f_strn", m.set(&[s, 3]), 3),
        r#"f_strn("abc", 3) = 3"#
    );
    let mut m = Fake::new();
    let arr: Vec<u8> = [1i32, 2, 3, 4, 5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let a = m.put(&arr);
    assert_eq!(
        line(&p, "f_arr", m.set(&[a, 3]), 3),
        "f_arr([ 1, 2, 3 ], 3) = 3"
    );
    assert_eq!(line(&p, "f_arr", m.set(&[a, 0]), 0), "f_arr([  ], 0) = 0");
    assert_eq!(line(&p, "f_arr", m.set(&[0, 2]), 2), "f_arr(nil, 2) = 2");
    // struct S {int a; char c; double d; const char *s;} = {7, 'q', 2.5, "in struct"}
    let mut m = Fake::new();
    let ins = m.s("in struct");
    let mut sb = Vec::new();
    sb.extend(7i32.to_le_bytes());
    sb.extend([b'q', 0, 0, 0]);
    sb.extend(2.5f64.to_le_bytes());
    sb.extend(ins.to_le_bytes());
    let sp = m.put(&sb);
    assert_eq!(
        line(&p, "f_struct", m.set(&[sp]), 7),
        r#"f_struct({ 7, 'q', 2.500000, "in struct" }) = 7"#
    );
    assert_eq!(line(&p, "f_struct", m.set(&[0]), 0), "f_struct(nil) = 0");
    // Array of two structs, array of strings with a NULL, array(double, 3).
    let mut m = Fake::new();
    let (one, two) = (m.s("one"), m.s("two"));
    let mut b = Vec::new();
    for (i, c, d, s) in [(1i32, b'a', 1.0f64, one), (2, b'b', 2.0, two)] {
        b.extend(i.to_le_bytes());
        b.extend([c, 0, 0, 0]);
        b.extend(d.to_le_bytes());
        b.extend(s.to_le_bytes());
    }
    let sa = m.put(&b);
    assert_eq!(
        line(&p, "f_sarr", m.set(&[sa, 2]), 0),
        r#"f_sarr([ { 1, 'a', 1.000000, "one" }, { 2, 'b', 2.000000, "two" } ], 2) = 0"#
    );
    let mut m = Fake::new();
    let (aa, bb) = (m.s("aa"), m.s("bb"));
    let ptrs: Vec<u8> = [aa, bb, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let pa = m.put(&ptrs);
    assert_eq!(
        line(&p, "f_strarr", m.set(&[pa, 3]), 0),
        r#"f_strarr([ "aa", "bb", nil ], 3) = 0"#
    );
    let mut m = Fake::new();
    let d: Vec<u8> = [1.0f64, 2.5, -3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let da = m.put(&d);
    assert_eq!(
        line(&p, "f_dblarr", m.set(&[da]), 0),
        "f_dblarr([ 1.000000, 2.500000, -3.000000 ]) = 0"
    );
    // char* and int** dereference.
    let mut m = Fake::new();
    let k = m.put(b"k");
    assert_eq!(line(&p, "f_charp", m.set(&[k]), 0), "f_charp('k') = 0");
    assert_eq!(line(&p, "f_charp", m.set(&[0]), 0), "f_charp(nil) = 0");
    let mut m = Fake::new();
    let iv = m.put(&9i32.to_le_bytes());
    let ip = m.put(&iv.to_le_bytes());
    assert_eq!(line(&p, "f_intp", m.set(&[iv, ip]), 0), "f_intp(9, 9) = 0");
}

fn list(m: &mut Fake, n: usize, cycle: bool) -> u64 {
    // Nodes {int v; struct L *next;}, 16 bytes each, laid out in one block.
    let base = m.next;
    let mut b = Vec::new();
    for i in 0..n {
        let next = if i + 1 < n {
            base + 16 * (i as u64 + 1)
        } else if cycle {
            base
        } else {
            0
        };
        b.extend((i as i32).to_le_bytes());
        b.extend([0; 4]);
        b.extend(next.to_le_bytes());
    }
    m.put(&b)
}

#[test]
fn recursion_depth_and_array_limits() {
    let p = protos(CONF);
    let mut m = Fake::new();
    let l = list(&mut m, 3, false);
    let want = "f_list({ 0, { 1, { 2, nil } } }) = 0";
    assert_eq!(line(&p, "f_list", m.set(&[l]), 0), want);
    let mut m = Fake::new();
    let l = list(&mut m, 3, true);
    assert_eq!(
        line(&p, "f_list", m.set(&[l]), 0),
        "f_list({ 0, { 1, { 2, recurse^^ } } }) = 0"
    );
    let mut m = Fake::new();
    let l = list(&mut m, 12, false);
    assert_eq!(
        line(&p, "f_list", m.set(&[l]), 0),
        "f_list({ 0, { 1, { 2, { 3, ... } } } }) = 0"
    );
    let o = FormatOpts {
        string_len: 5,
        demangle: false,
    };
    let r = RetVals::default();
    assert_eq!(
        line_with(&p, "f_list", m.set(&[l]), r, &o, 3),
        "f_list({ 0, { 1, { 2, ... } } }) = 0"
    );
    // A doubly-linked list {int v; D *next, *prev;} of 8 (ltrace: h_dl(D*)).
    let p3 = protos("typedef D = struct;\ntypedef D = struct(int, D*, D*);\nint h_dl(D*);");
    let mut m = Fake::new();
    let base = m.next;
    let node = |i: u64| base + 24 * i;
    let mut b = Vec::new();
    for i in 0..8u64 {
        b.extend((i as i32).to_le_bytes());
        b.extend([0; 4]);
        b.extend((if i < 7 { node(i + 1) } else { 0 }).to_le_bytes());
        b.extend((if i > 0 { node(i - 1) } else { 0 }).to_le_bytes());
    }
    let d0 = m.put(&b);
    assert_eq!(
        line(&p3, "h_dl", m.set(&[d0]), 0),
        "h_dl({ 0, { 1, { 2, { 3, ..., ... }, recurse^ }, recurse^ }, nil }) = 0"
    );
    // h_arr(array(int, arg2)*, int) with 30 elements; -A 4 and -A 3.
    let p2 = protos("int h_arr(array(int, arg2)*, int);\nint h_str(string);\nint h_fixed(string(array(char, 6)*));");
    let mut m = Fake::new();
    let arr: Vec<u8> = (0..30i32).flat_map(|v| v.to_le_bytes()).collect();
    let a = m.put(&arr);
    let d = FormatOpts::default();
    assert_eq!(
        line_with(&p2, "h_arr", m.set(&[a, 30]), r, &d, 4),
        "h_arr([ 0, 1, 2, 3... ], 30) = 0"
    );
    assert_eq!(
        line_with(&p2, "h_arr", m.set(&[a, 4]), r, &d, 4),
        "h_arr([ 0, 1, 2, 3 ], 4) = 0"
    );
    assert_eq!(
        line_with(&p2, "h_arr", m.set(&[a, 5]), r, &o, 3),
        "h_arr([ 0, 1, 2... ], 5) = 0"
    );
    // Escapes, the -s boundary (a string of exactly -s chars gets "..."), fixed arrays.
    let mut m = Fake::new();
    let e = m.put(b"\x07\x08\t\n\x0b\x0c\r\x1b ~\x7f\x80\xff'\"\\?\0");
    assert_eq!(
        line(&p2, "h_str", m.set(&[e]), 0),
        r#"h_str("\a\b\t\n\v\f\r\033 ~\177\200\377'"\\?") = 0"#
    );
    assert_eq!(
        line_with(&p2, "h_str", m.set(&[e]), r, &o, 4),
        r#"h_str("\a\b\t\n\v"...) = 0"#
    );
    let mut m = Fake::new();
    let s31 = m.s("0123456789012345678901234567890");
    let s32 = m.s("01234567890123456789012345678901");
    let empty = m.s("");
    assert_eq!(
        line(&p2, "h_str", m.set(&[s31]), 0),
        r#"h_str("0123456789012345678901234567890") = 0"#
    );
    assert_eq!(
        line(&p2, "h_str", m.set(&[s32]), 0),
        r#"h_str("01234567890123456789012345678901"...) = 0"#
    );
    assert_eq!(line(&p2, "h_str", m.set(&[empty]), 0), r#"h_str("") = 0"#);
    let mut m = Fake::new();
    let fx = m.s("ab\0cdefgh");
    assert_eq!(
        line(&p2, "h_fixed", m.set(&[fx]), 0),
        r#"h_fixed("ab\0cde") = 0"#
    );
    assert_eq!(
        line_with(&p2, "h_fixed", m.set(&[fx]), r, &o, 4),
        r#"h_fixed("ab\0cd"...) = 0"#
    );
}

#[test]
fn out_params_split_entry_and_resumed_text() {
    // k_out(int, +int*, addr): ltrace printed "k_out(3 <unfinished ...>" and
    // "<... k_out resumed> , 5, 0x5645d42441c9) = 1".
    let p = protos("int k_out(int, +int*, addr);\nint k_out2(+int*, int, addr);");
    let mut m = Fake::new();
    let o = m.put(&0i32.to_le_bytes());
    let mut m = m.i(&[3, o, 0x5645d42441c9]);
    let d = FormatOpts::default();
    let call = format::on_entry("k_out", p.get("k_out"), &mut m, &d);
    assert_eq!(call.entry_text(), "3");
    m.mem[0].1 = 5i32.to_le_bytes().to_vec(); // the callee stores 5
    m.ints = vec![99, 99, 99]; // registers are clobbered by the time it returns
    let (full, ret) = call.finish(
        RetVals {
            int: 1,
            float: 0.0,
            second: (0, 0.0),
        },
        &mut m,
        &d,
    );
    assert_eq!(&full[call.entry_text().len()..], ", 5, 0x5645d42441c9");
    assert_eq!(ret, "1");
    let mut m = Fake::new();
    let o = m.put(&5i32.to_le_bytes());
    let mut m = m.i(&[o, 4, 0x5645d42441c9]);
    let call = format::on_entry("k_out2", p.get("k_out2"), &mut m, &d);
    assert_eq!(call.entry_text(), "");
    let (full, _) = call.finish(
        RetVals {
            int: 1,
            float: 0.0,
            second: (0, 0.0),
        },
        &mut m,
        &d,
    );
    assert_eq!(full, "5, 4, 0x5645d42441c9");
    // f_out(+int*, +string) and f_rstr(+string[retval], int).
    let p = protos(CONF);
    let mut m = Fake::new();
    let (o, b) = (m.put(&42i32.to_le_bytes()), m.s("filled"));
    assert_eq!(
        line(&p, "f_out", m.set(&[o, b]), 1),
        r#"f_out(42, "filled") = 1"#
    );
    let mut m = Fake::new();
    let b = m.s("retlen-string");
    assert_eq!(
        line(&p, "f_rstr", m.set(&[b, 0]), 6),
        r#"f_rstr("retlen", 0) = 6"#
    );
}

#[test]
fn unknown_functions_print_four_guessed_arguments() {
    // g(long...) had no prototype: ltrace prints 4 arguments, decimal within ±10000.
    let p = Protos::empty();
    let cases: [(&[i64], &str); 4] = [
        (
            &[9999, 10000, 65534, 65535],
            "g(9999, 10000, 0xfffe, 0xffff) = 9999",
        ),
        (
            &[-9999, -10000, -65535, -65536],
            "g(-9999, -10000, 0xffffffffffff0001, 0xffffffffffff0000) = -9999",
        ),
        (
            &[-65537, 0x7fffffff, 0x100000001, 0x7fff],
            "g(0xfffffffffffeffff, 0x7fffffff, 0x100000001, 0x7fff) = 0xfffffffffffeffff",
        ),
        (
            &[10001, -10001, 0, -1],
            "g(0x2711, 0xffffffffffffd8ef, 0, -1) = 0x2711",
        ),
    ];
    for (vals, want) in cases {
        let ints: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
        assert_eq!(line(&p, "g", &mut Fake::new().i(&ints), ints[0]), want);
    }
    assert_eq!(
        line(&p, "f_unknown2", &mut Fake::new(), neg(-5)),
        "f_unknown2(0, 0, 0, 0) = -5"
    );
}

#[test]
fn stack_arguments_structs_by_value_hex_floats_enums() {
    let conf = "int q_hf(hex(double), hex(float));
typedef E = enum(ZERO, ONE, TWO);
E q_e(E);
int q_f10(double, double, double, double, double, double, double, double, double, double, int);
int q_i8(long, long, long, long, long, long, long, double, long);
int q_sv(struct(int,int), struct(double,long), int);
int q_big(struct(long,long,long), int);
struct(int,int) q_rp();";
    let p = protos(conf);
    let fbits = |v: f32| f64::from_bits(v.to_bits() as u64);
    let mut m = Fake::new().f(&[1.5, fbits(-0.25)]);
    assert_eq!(line(&p, "q_hf", &mut m, 0), "q_hf(0x1.8p+0, -0x1p-2) = 0");
    let mut m = Fake::new().f(&[0.0, fbits(1e10)]);
    assert_eq!(
        line(&p, "q_hf", &mut m, 0),
        "q_hf(0x0p+0, 0x1.2a05f2p+33) = 0"
    );
    assert_eq!(
        line(&p, "q_e", &mut Fake::new().i(&[2]), 2),
        "q_e(TWO) = TWO"
    );
    assert_eq!(line(&p, "q_e", &mut Fake::new().i(&[9]), 9), "q_e(9) = 9");
    // 10 doubles: 8 in registers, 2 on the stack (slots 0, 1), then int 11 in a register.
    let mut ints = vec![11, 0, 0, 0, 0, 0];
    ints.extend([9.0f64.to_bits(), 10.0f64.to_bits()]);
    let mut m = Fake::new()
        .i(&ints)
        .f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    assert_eq!(
        line(&p, "q_f10", &mut m, 0),
        "q_f10(1.000000, 2.000000, 3.000000, 4.000000, 5.000000, 6.000000, 7.000000, 8.000000, 9.000000, 10.000000, 11) = 0"
    );
    let mut m = Fake::new().i(&[1, 2, 3, 4, 5, 6, 7, 9]).f(&[8.5]);
    assert_eq!(
        line(&p, "q_i8", &mut m, 0),
        "q_i8(1, 2, 3, 4, 5, 6, 7, 8.500000, 9) = 0"
    );
    // {1,2} in one register; {2.5, 7} in xmm0 + a register; z = 3.
    let mut m = Fake::new().i(&[1 | (2 << 32), 7, 3]).f(&[2.5]);
    assert_eq!(
        line(&p, "q_sv", &mut m, 0),
        "q_sv({ 1, 2 }, { 2.500000, 7 }, 3) = 0"
    );
    // A 24-byte struct goes on the stack; the int after it in a register.
    let mut m = Fake::new().i(&[5, 0, 0, 0, 0, 0, 10, 20, 30]);
    assert_eq!(line(&p, "q_big", &mut m, 0), "q_big({ 10, 20, 30 }, 5) = 0");
    assert_eq!(
        line(&p, "q_rp", &mut Fake::new(), 3 | (4 << 32)),
        "q_rp() = { 3, 4 }"
    );
    assert_eq!(fmt_a(-0.0), "-0x0p+0");
    assert_eq!(fmt_a(f64::MIN_POSITIVE / 2.0), "0x0.8p-1022");
}

#[test]
fn builtin_set_covers_the_common_functions() {
    let p = Protos::builtin();
    let want = "strlen strcpy strncpy strcmp strncmp strchr strrchr strstr strdup strcat memcpy memset
        memcmp memmove printf fprintf sprintf snprintf puts fputs fopen fclose fread fwrite fgets fflush
        malloc calloc realloc free atoi strtol getenv setenv exit abort qsort rand srand read write open
        close getpid sleep usleep access unlink time gettimeofday clock_gettime localtime strftime
        setlocale pthread_create pthread_join pthread_mutex_lock pthread_mutex_unlock sin cos sqrt pow
        floor";
    let missing: Vec<_> = want
        .split_whitespace()
        .filter(|n| p.get(n).is_none())
        .collect();
    assert!(missing.is_empty(), "missing: {missing:?}");
    assert!(p.len() > 300, "{}", p.len());
    // libm: sin(0.5) = 0.479426 (ltrace 0.7.3 knows no libm prototypes).
    let o = FormatOpts::default();
    let mut m = Fake::new().f(&[0.5]);
    let got = line_with(
        &p,
        "sin",
        &mut m,
        RetVals {
            int: 0,
            float: 0.479425538604203,
            second: (0, 0.0),
        },
        &o,
        4,
    );
    assert_eq!(got, "sin(0.500000) = 0.479426");
}

/// A library and a program for the live comparison with ltrace: each call
/// passes values that the Rust side below gives the formatter too.
const DIFF_LIB: &str = r#"
struct S { int a; char c; double d; const char *s; };
struct L { int v; struct L *next; };
int d_int(int a, unsigned b, long c, unsigned long d, short e, unsigned short f) { return a; }
int d_str(const char *a, const char *b) { return 0; }
int d_arr(int *a, int n) { return n; }
int d_struct(struct S *s) { return s->a; }
int d_enum(int e) { return e; }
int d_bitvec(unsigned v) { return 0; }
int d_fmt(const char *f, ...) { return 0; }
double d_dbl(double a, float b) { return a * 2; }
int d_list(struct L *l) { return 0; }
long d_unknown(long a, long b, long c, long d) { return a; }
int d_out(int a, int *out) { *out = 42; return 1; }
int d_chars(char a, char b, char c) { return 0; }
struct V { unsigned long n; int *a; };
struct W { char name[8]; int x; };
int d_elt(struct V *v) { return 0; }
int d_inl(struct W *w) { return 0; }
int d_sh(short a, unsigned short b) { return 0; }
int d_carr(const char *a) { return 0; }
int d_decay(const char *a, const char *b) { return 0; }
"#;

const DIFF_MAIN: &str = r#"
#include <limits.h>
struct S { int a; char c; double d; const char *s; };
struct L { int v; struct L *next; };
int d_int(int, unsigned, long, unsigned long, short, unsigned short);
int d_str(const char *, const char *); int d_arr(int *, int); int d_struct(struct S *);
int d_enum(int); int d_bitvec(unsigned); int d_fmt(const char *, ...); double d_dbl(double, float);
int d_list(struct L *); long d_unknown(long, long, long, long); int d_out(int, int *);
int d_chars(char, char, char);
struct V { unsigned long n; int *a; };
struct W { char name[8]; int x; };
int d_elt(struct V *); int d_inl(struct W *); int d_sh(short, unsigned short); int d_carr(const char *); int d_decay(const char *, const char *);
int main(void) {
    d_int(-1, 4000000000u, -5000000000L, ULONG_MAX, -3, 65535);
    d_str("hello\tworld \"q\" \\ \001", 0);
    int arr[6] = {1, 2, 3, 4, 5, 6};
    d_arr(arr, 6);
    d_arr(arr, 2);
    struct S s = {7, 'q', 2.5, "in struct"};
    d_struct(&s);
    d_enum(2);
    d_enum(9);
    d_bitvec(0xb8);
    d_fmt("%d %s %c %x %o %5.1f|%hhd %.*s %%", -5, "five", 'z', 255u, 8u, 1.5, 6, 2, "xyz");
    d_dbl(1.5, 2.25f);
    struct L l[6];
    for (int i = 0; i < 6; i++) { l[i].v = i; l[i].next = i < 5 ? &l[i + 1] : 0; }
    d_list(l);
    d_unknown(10001, -1, 65535, 7);
    int o = 0;
    d_out(3, &o);
    d_chars('a', '\n', '\'');
    int a3[3] = {4, 5, 6};
    struct V v = {3, a3};
    d_elt(&v);
    struct W w = {"abc", 9};
    d_inl(&w);
    d_sh(-2, 40000);
    d_carr("hello");
    d_decay("hello", "world");
    d_fmt("%lld %jd %zd %ls|%hhu", -4LL, (long)-3, (long)-1, L"wide", 200);
    return 0;
}
"#;

const DIFF_CONF: &str = "int d_int(int, uint, long, ulong, short, ushort);
int d_str(string, string);
int d_arr(array(int, arg2)*, int);
typedef S = struct(int, char, double, string);
int d_struct(S*);
int d_enum(enum(RED, GREEN, BLUE));
int d_bitvec(bitvec(uint));
int d_fmt(format);
double d_dbl(double, float);
typedef L = struct;
typedef L = struct(int, L*);
int d_list(L*);
int d_out(int, +int*);
int d_chars(char, char, char);
int d_elt(struct(ulong, array(int, elt1)*)*);
int d_inl(struct(string(array(char, 8)), int)*);
int d_sh(enum[short](NEG=-2, POS=2), hex(ushort));
int d_carr(array(char, 3)*);
int d_decay(array(char, 2), string(array(char, 4)));
";

/// The same calls made through the formatter, in order.
fn diff_expected(p: &Protos) -> Vec<String> {
    let d = FormatOpts::default();
    let mut out = Vec::new();
    let mut go =
        |name: &str, m: &mut Fake, ret: RetVals| out.push(line_with(p, name, m, ret, &d, 4));
    let int = |v: u64| RetVals {
        int: v,
        float: 0.0,
        second: (0, 0.0),
    };
    let ints = [
        neg(-1),
        4000000000,
        neg(-5000000000),
        u64::MAX,
        neg(-3),
        65535,
    ];
    go("d_int", Fake::new().set(&ints), int(neg(-1)));
    let mut m = Fake::new();
    let s = m.s("hello\tworld \"q\" \\ \x01");
    go("d_str", m.set(&[s, 0]), int(0));
    let mut m = Fake::new();
    let a = m.put(&(1..=6i32).flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
    go("d_arr", m.set(&[a, 6]), int(6));
    go("d_arr", m.set(&[a, 2]), int(2));
    let mut m = Fake::new();
    let ins = m.s("in struct");
    let mut b = 7i32.to_le_bytes().to_vec();
    b.extend([b'q', 0, 0, 0]);
    b.extend(2.5f64.to_le_bytes());
    b.extend(ins.to_le_bytes());
    let sp = m.put(&b);
    go("d_struct", m.set(&[sp]), int(7));
    go("d_enum", Fake::new().set(&[2]), int(2));
    go("d_enum", Fake::new().set(&[9]), int(9));
    go("d_bitvec", Fake::new().set(&[0xb8]), int(0));
    let mut m = Fake::new();
    let (f, five, xyz) = (
        m.s("%d %s %c %x %o %5.1f|%hhd %.*s %%"),
        m.s("five"),
        m.s("xyz"),
    );
    let mut m = m.f(&[1.5]);
    go(
        "d_fmt",
        m.set(&[f, neg(-5), five, b'z' as u64, 255, 8, 6, 2, xyz]),
        int(0),
    );
    let mut m = Fake::new().f(&[1.5, f64::from_bits(2.25f32.to_bits() as u64)]);
    go(
        "d_dbl",
        &mut m,
        RetVals {
            int: 0,
            float: 3.0,
            second: (0, 0.0),
        },
    );
    let mut m = Fake::new();
    let l = list(&mut m, 6, false);
    go("d_list", m.set(&[l]), int(0));
    go(
        "d_unknown",
        Fake::new().set(&[10001, neg(-1), 65535, 7]),
        int(10001),
    );
    let mut m = Fake::new();
    let o = m.put(&42i32.to_le_bytes());
    go("d_out", m.set(&[3, o]), int(1));
    go(
        "d_chars",
        Fake::new().set(&[b'a' as u64, b'\n' as u64, b'\'' as u64]),
        int(0),
    );
    let mut m = Fake::new();
    let a3 = m.put(
        &[4i32, 5, 6]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let mut v = 3u64.to_le_bytes().to_vec();
    v.extend(a3.to_le_bytes());
    let vp = m.put(&v);
    go("d_elt", m.set(&[vp]), int(0));
    let mut m = Fake::new();
    let wp = m.put(&[b'a', b'b', b'c', 0, 0, 0, 0, 0, 9, 0, 0, 0]);
    go("d_inl", m.set(&[wp]), int(0));
    go("d_sh", Fake::new().set(&[neg(-2), 40000]), int(0));
    let mut m = Fake::new();
    let h = m.s("hello");
    go("d_carr", m.set(&[h]), int(0));
    let mut m = Fake::new();
    let (h, w) = (m.s("hello"), m.s("world"));
    go("d_decay", m.set(&[h, w]), int(0));
    let mut m = Fake::new();
    let f = m.s("%lld %jd %zd %ls|%hhu");
    let wide = m.put(
        &"wide\0"
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect::<Vec<_>>(),
    );
    go(
        "d_fmt",
        m.set(&[f, neg(-4), neg(-3), neg(-1), wide, 200]),
        int(0),
    );
    out
}

#[test]
fn live_ltrace_prints_what_the_formatter_prints() {
    if !common::have("ltrace") || !common::have("gcc") {
        eprintln!("skip: needs ltrace and gcc (apt-get install ltrace gcc)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("ltproto-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = |n: &str, t: &str| std::fs::write(dir.join(n), t).unwrap();
    w("lib.c", DIFF_LIB);
    w("main.c", DIFF_MAIN);
    w("d.conf", DIFF_CONF);
    let sh = |args: &[&str]| {
        let st = std::process::Command::new(args[0])
            .args(&args[1..])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(st.success(), "{args:?}");
    };
    sh(&["gcc", "-shared", "-fPIC", "-O0", "-o", "libd.so", "lib.c"]);
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    sh(&[
        "gcc",
        "-O0",
        "-fno-builtin",
        "-o",
        "m",
        "main.c",
        "-L.",
        "-ld",
        &rpath,
    ]);
    let out = std::process::Command::new("ltrace")
        .args(["-F", "d.conf", "-e", "d_*", "-o", "trace.txt", "./m"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(dir.join("trace.txt")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    if text.contains("PTRACE") || !out.status.success() && text.is_empty() {
        eprintln!(
            "skip: ltrace could not trace here: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    // ltrace pads before " = "; the `m->` caller prefix appears with -e.
    let got: Vec<String> = text
        .lines()
        .filter(|l| l.contains("d_"))
        .map(|l| {
            let l = l.trim_start_matches("m->");
            match l.rfind(") ") {
                Some(i) => format!("{}) {}", &l[..i], l[i + 2..].trim_start()),
                None => l.to_string(),
            }
        })
        .collect();
    let mut p = Protos::empty();
    p.load_str(DIFF_CONF, "d.conf").unwrap();
    assert_eq!(got, diff_expected(&p));
}
