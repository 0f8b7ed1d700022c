//! Terminal ioctl structures as strace 6.1's `term.c` prints them:
//! `struct termios`, `struct termios2` and `struct termio`, and
//! `struct winsize`.
//!
//! Without `-v` a termios prints its four flag words and `...`; with `-v`
//! also `c_line` and the `c_cc` array (`[VINTR]=0x3, …`), and for termios2
//! the speeds. strace prints an all-zero flag word as nothing (`c_iflag=,`)
//! and ends a c_oflag without single bits with `|`: both are reproduced.

use crate::syscall::printers::{le16, le32, struct_at};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

/// The termios layouts.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(in crate::syscall) enum TermKind {
    /// `struct termio`: 16-bit flags, 8 control characters.
    Termio,
    /// `struct termios`: 32-bit flags, 19 control characters.
    Termios,
    /// `struct termios2`: termios plus input and output speeds.
    Termios2,
}

/// strace's `printflags64(table, v, NULL)` as text: nothing for zero, the
/// unknown rest in hex after the names.
fn flags_text(c: &Ctx, v: u64, table: &Xlat) -> String {
    if v == 0 {
        return String::new();
    }
    crate::syscall::ctx::render_flags(&c.flags_value(v, table))
}

/// strace's `printxval64(table, v, dflt)` as text.
fn xval_text(c: &Ctx, v: u64, table: &Xlat, dflt: &'static str) -> String {
    crate::syscall::ctx::render_flags(&c.enum_value(v, table, dflt))
}

/// `decode_oflag`: the six delay fields, each followed by `|`, then the bits.
fn oflag_text(c: &Ctx, mut v: u64) -> String {
    let fields: [(&Xlat, u64, &'static str); 6] = [
        (&xlat::TERM_NLDLY, 0o400, "NL?"),
        (&xlat::TERM_CRDLY, 0o3000, "CR?"),
        (&xlat::TERM_TABDLY, 0o14000, "TAB?"),
        (&xlat::TERM_BSDLY, 0o20000, "BS?"),
        (&xlat::TERM_VTDLY, 0o40000, "VT?"),
        (&xlat::TERM_FFDLY, 0o100000, "FF?"),
    ];
    let mut s = String::new();
    for (t, mask, dflt) in fields {
        s.push_str(&xval_text(c, v & mask, t, dflt));
        s.push('|');
        v &= !mask;
    }
    s.push_str(&flags_text(c, v, &xlat::TERM_OFLAGS));
    s
}

/// `decode_cflag`: speed, input speed `<<IBSHIFT`, character size, bits.
fn cflag_text(c: &Ctx, mut v: u64) -> String {
    const CBAUD: u64 = 0o10017;
    const CIBAUD: u64 = 0o2003600000;
    const CSIZE: u64 = 0o60;
    let mut s = xval_text(c, v & CBAUD, &xlat::BAUD_OPTIONS, "B???");
    s.push('|');
    if v & CIBAUD != 0 {
        s.push_str(&xval_text(
            c,
            (v & CIBAUD) >> 16,
            &xlat::BAUD_OPTIONS,
            "B???",
        ));
        s.push_str("<<IBSHIFT|");
    }
    s.push_str(&xval_text(c, v & CSIZE, &xlat::TERM_CSIZE, "CS?"));
    s.push('|');
    v &= !(CBAUD | CIBAUD | CSIZE);
    s.push_str(&flags_text(c, v, &xlat::TERM_CFLAGS));
    s
}

/// `c_cc=[[VINTR]=0x3, …, [17]=0]`.
fn cc_value(b: &[u8]) -> Value {
    let items = b
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let idx = match xlat::TERM_CC.lookup(i as u64) {
                Some(n) => format!("[{n}]"),
                None => format!("[{i}]"),
            };
            let val = if x == 0 {
                "0".to_string()
            } else {
                format!("{x:#x}")
            };
            Value::sym_owned(format!("{idx}={val}"))
        })
        .collect();
    Value::Array(items, false)
}

/// The termios-like structure of `kind` at `addr` (the address when NULL,
/// unreadable or the call failed).
pub(in crate::syscall) fn termios_value(c: &mut Ctx, addr: u64, kind: TermKind) -> Value {
    let size = match kind {
        TermKind::Termio => 17,
        TermKind::Termios => 36,
        TermKind::Termios2 => 44,
    };
    struct_at(c, addr, Some(size), |c, b| {
        let (flag, line_off, ncc) = match kind {
            TermKind::Termio => (
                (|b: &[u8], i: usize| le16(b, 2 * i)) as fn(&[u8], usize) -> u64,
                8,
                8,
            ),
            _ => (
                (|b: &[u8], i: usize| le32(b, 4 * i)) as fn(&[u8], usize) -> u64,
                16,
                19,
            ),
        };
        let sym = |s: String| Value::Sym(Cow::Owned(s));
        let mut f = vec![
            Field::new(
                "c_iflag",
                sym(flags_text(c, flag(b, 0), &xlat::TERM_IFLAGS)),
            ),
            Field::new("c_oflag", sym(oflag_text(c, flag(b, 1)))),
            Field::new("c_cflag", sym(cflag_text(c, flag(b, 2)))),
            Field::new(
                "c_lflag",
                sym(flags_text(c, flag(b, 3), &xlat::TERM_LFLAGS)),
            ),
        ];
        if !c.opts.verbose {
            return Value::Struct(f, true);
        }
        f.push(Field::new(
            "c_line",
            c.enum_value(b[line_off] as u64, &xlat::TERM_LINE_DISCS, "N_???"),
        ));
        f.push(Field::new(
            "c_cc",
            cc_value(&b[line_off + 1..line_off + 1 + ncc]),
        ));
        if kind == TermKind::Termios2 {
            f.push(Field::new("c_ispeed", Value::UInt(le32(b, 36))));
            f.push(Field::new("c_ospeed", Value::UInt(le32(b, 40))));
        }
        Value::structure(f)
    })
}

/// `struct winsize` at `addr`.
pub(in crate::syscall) fn winsize(c: &mut Ctx, addr: u64) -> Value {
    struct_at(c, addr, Some(8), |_, b| {
        let names = ["ws_row", "ws_col", "ws_xpixel", "ws_ypixel"];
        let f = names
            .iter()
            .enumerate()
            .map(|(i, n)| Field::new(n, Value::UInt(le16(b, 2 * i))))
            .collect();
        Value::structure(f)
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    /// A termios: the four flag words, c_line, c_cc.
    fn termios(flags: [u32; 4], cc: &[u8]) -> Vec<u8> {
        let mut b: Vec<u8> = flags.iter().flat_map(|f| f.to_le_bytes()).collect();
        b.push(0);
        let mut ccs = cc.to_vec();
        ccs.resize(19, 0);
        b.extend_from_slice(&ccs);
        b
    }

    #[test]
    fn termios_abbrev_and_verbose() {
        let mut m = FakeMemory::default();
        let t = m.put(&termios(
            [0o2400, 0o5, 0o277, 0o105073],
            &[3, 0x1c, 0x7f, 0x15, 4, 0, 1],
        ));
        let short = "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, ...}";
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5401, t], 0, &mut m),
            format!("ioctl(4, TCGETS, {short}) = 0")
        );
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5402, t], 0, &mut m),
            format!("ioctl(4, SNDCTL_TMR_START or TCSETS, {short}) = 0")
        );
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        let got = run_with(ioctl, "ioctl", &[4, 0x5401, t], 0, &mut m, &opts);
        assert!(
            got.ends_with("ECHOKE, c_line=N_TTY, c_cc=[[VINTR]=0x3, [VQUIT]=0x1c, [VERASE]=0x7f, [VKILL]=0x15, [VEOF]=0x4, [VTIME]=0, [VMIN]=0x1, [VSWTC]=0, [VSTART]=0, [VSTOP]=0, [VSUSP]=0, [VEOL]=0, [VREPRINT]=0, [VDISCARD]=0, [VWERASE]=0, [VLNEXT]=0, [VEOL2]=0, [17]=0, [18]=0]}) = 0"),
            "{got}"
        );
        let z = m.put(&termios([0, 0, 0, 0], &[]));
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5402, z], 0, &mut m),
            "ioctl(4, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=, ...}) = 0"
        );
        let o = m.put(&termios(
            [
                0,
                0o100400 | 0o20000 | 0o14000,
                0o15 | (0o14 << 16) | 0o40 | 0o100,
                0,
            ],
            &[],
        ));
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5403, o], 0, &mut m),
            "ioctl(4, SNDCTL_TMR_STOP or TCSETSW, {c_iflag=, c_oflag=NL1|CR0|XTABS|BS1|VT0|FF1|, c_cflag=B9600|B4800<<IBSHIFT|CS7|CSTOPB, c_lflag=, ...}) = 0"
        );
    }
}
