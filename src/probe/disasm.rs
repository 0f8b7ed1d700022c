//! `--disasm[=N]` of `rtrace break` and `rtrace watch`: the instructions at
//! a stop, printed as gdb's `x/Ni $pc` prints them (a tab after the colon),
//!
//! ```text
//! => 0x401136 <main+4>: mov    $0x0,%eax
//!    0x40113b <main+9>: pop    %rbp
//! ```
//!
//! Bytes come from the stopped tracee through the engine's memory trait;
//! where rtrace's own breakpoints replaced bytes with traps, the bytes they
//! displaced are shown instead (as gdb does). Decoding and the text are the
//! arch layer's (`rtrace_arch::insn`: iced-x86 on x86, capstone on aarch64).

use crate::engine::memory::Memory;
use rtrace_arch::{insn, Arch};

/// How many instructions `--disasm` shows without `=N`.
pub const DEFAULT_COUNT: usize = 5;

/// One disassembled instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its address.
    pub addr: u64,
    /// `func+off` (decimal offset, as gdb), when a symbol covers it.
    pub symbol: Option<String>,
    /// Its text, targets named as gdb names them.
    pub text: String,
}

/// Parses the `N` of `--disasm=N` (1 to 1000).
pub fn parse_count(n: &str) -> Result<usize, String> {
    match n.parse::<usize>() {
        Ok(v) if (1..=1000).contains(&v) => Ok(v),
        _ => Err(format!(
            "--disasm=N needs a count from 1 to 1000, not '{n}'"
        )),
    }
}

/// gdb's `<func+off>` name for an address from a function and an offset.
pub fn symbol(func: Option<&str>, off: Option<u64>) -> Option<String> {
    match (func?, off) {
        (f, Some(0) | None) => Some(f.to_string()),
        (f, Some(o)) => Some(format!("{f}+{o}")),
    }
}

/// The `n` instructions from `from` in `mem`, with the bytes of `patches`
/// (address, original bytes of a breakpoint) put back, and addresses named
/// by `name`. Fewer when the memory ends or stops decoding.
pub fn lines(
    mem: &mut dyn Memory,
    patches: &[(u64, &[u8])],
    from: u64,
    n: usize,
    name: &mut dyn FnMut(u64) -> Option<String>,
) -> Vec<Line> {
    let arch = Arch::native();
    let mut bytes = vec![0u8; n * insn::max_len(arch)];
    let got = mem.read(from, &mut bytes);
    bytes.truncate(got);
    let end = from + got as u64;
    for &(at, orig) in patches {
        for (k, &b) in orig.iter().enumerate() {
            let a = at + k as u64;
            if a >= from && a < end {
                bytes[(a - from) as usize] = b;
            }
        }
    }
    insn::decode(arch, from, &bytes, n)
        .iter()
        .map(|s| Line {
            addr: s.addr,
            symbol: name(s.addr),
            text: insn::gdb_text(arch, s, &mut *name),
        })
        .collect()
}

/// gdb's lines: `=> ` before the instruction at `pc`, three spaces before
/// the others, each line indented by `indent`.
pub fn text(lines: &[Line], pc: u64, indent: &str) -> String {
    let mut s = String::new();
    for l in lines {
        let mark = if l.addr == pc { "=> " } else { "   " };
        s.push('\n');
        s.push_str(indent);
        s.push_str(mark);
        s.push_str(&format!("{:#x}", l.addr));
        if let Some(sym) = &l.symbol {
            s.push_str(&format!(" <{sym}>"));
        }
        s.push_str(":\t");
        s.push_str(&l.text);
    }
    s
}

/// The lines as JSON, `[{"addr", "pc", "symbol", "text"}]` (`pc` marks
/// the one at `pc`): serialized where it is embedded in a hit's object.
pub struct Json<'a>(pub &'a [Line], pub u64);

/// One instruction's JSON object (docs/schema/common.schema.json,
/// `disasm`).
#[derive(serde::Serialize)]
struct Insn<'a> {
    addr: String,
    pc: bool,
    symbol: Option<&'a str>,
    text: &'a str,
}

impl serde::Serialize for Json<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|l| Insn {
            addr: format!("{:#x}", l.addr),
            pc: l.addr == self.1,
            symbol: l.symbol.as_deref(),
            text: &l.text,
        }))
    }
}

/// The lines as a JSON tree (see [`Json`]).
pub fn json(lines: &[Line], pc: u64) -> serde_json::Value {
    serde_json::to_value(Json(lines, pc)).unwrap_or_default()
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;

    #[test]
    fn trap_bytes_show_as_the_original_and_pc_is_marked() {
        // push %rbp (under an int3); mov %rsp,%rbp; mov $0x0,%eax; call .+0
        let mut m = FakeMemory::default();
        let at = m.put(&[0xcc, 0x48, 0x89, 0xe5, 0xb8, 0, 0, 0, 0, 0xe8, 0, 0, 0, 0]);
        let mut name = |a: u64| symbol(Some("main"), Some(a - at));
        let v = lines(&mut m, &[(at, &[0x55])], at, 4, &mut name);
        let t = text(&v, at + 1, "");
        let want = format!(
            "\n   {at:#x} <main>:\tpush   %rbp\
             \n=> {:#x} <main+1>:\tmov    %rsp,%rbp\
             \n   {:#x} <main+4>:\tmov    $0x0,%eax\
             \n   {:#x} <main+9>:\tcall   {:#x} <main+14>",
            at + 1,
            at + 4,
            at + 9,
            at + 14
        );
        assert_eq!(t, want);
        let j = json(&v, at + 1);
        assert_eq!(j[1]["pc"], true);
        assert_eq!(j[2]["text"], "mov    $0x0,%eax");
        assert_eq!(j[0]["symbol"], "main");
        // The memory ends inside an instruction: nothing to show there.
        assert_eq!(lines(&mut m, &[], at + 15, 5, &mut |_| None), vec![]);
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("3"), Ok(3));
        assert!(parse_count("0").is_err());
        assert!(parse_count("x").is_err());
        assert_eq!(symbol(Some("f"), Some(0)).as_deref(), Some("f"));
        assert_eq!(symbol(Some("f"), Some(26)).as_deref(), Some("f+26"));
        assert_eq!(symbol(None, Some(2)), None);
    }
}
