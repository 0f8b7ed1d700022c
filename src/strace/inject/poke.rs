//! `-e inject=SET:poke_enter=@argN=HEX[,@argM=HEX…]` and `poke_exit=`:
//! writing bytes into the tracee's memory at the address an argument holds,
//! as the syscall is entered (before it runs and before it is decoded) or
//! as it exits (before its results are decoded), with strace 6.1's syntax,
//! checks and diagnostics. A line whose call was poked ends in
//! ` (INJECTED: args)` (` (INJECTED: args, retval)` with `retval=`/`error=`).

use crate::engine::memory_write;

/// Longest payload in bytes (strace allows 2048 hex digits).
const MAX_DATA: usize = 1024;

/// One poke: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poke {
    /// At entry (else at exit).
    pub enter: bool,
    /// The argument (1..=7) holding the address.
    pub arg: u8,
    /// The bytes written.
    pub data: Vec<u8>,
}

/// Parses the value of `poke_enter=` (`enter`) or `poke_exit=` into
/// `pokes`; false when it is malformed or names an argument twice.
pub fn parse(val: &str, enter: bool, pokes: &mut Vec<Poke>) -> bool {
    if val.is_empty() || pokes.iter().any(|p| p.enter == enter) {
        return false;
    }
    for tok in val.split(',').filter(|t| !t.is_empty()) {
        let Some(rest) = tok.strip_prefix("@arg") else {
            return false;
        };
        let b = rest.as_bytes();
        if b.len() < 2 || !(b'1'..=b'7').contains(&b[0]) || b[1] != b'=' {
            return false;
        }
        let arg = b[0] - b'0';
        let hex = &rest[2..];
        if hex.is_empty() || hex.len() % 2 != 0 || hex.len() > 2 * MAX_DATA {
            return false;
        }
        let mut data = Vec::with_capacity(hex.len() / 2);
        for pair in hex.as_bytes().chunks(2) {
            let s = std::str::from_utf8(pair).unwrap_or("");
            match u8::from_str_radix(s, 16) {
                Ok(v) if pair.iter().all(u8::is_ascii_hexdigit) => data.push(v),
                _ => return false,
            }
        }
        if pokes.iter().any(|p| p.enter == enter && p.arg == arg) {
            return false;
        }
        pokes.push(Poke { enter, arg, data });
    }
    true
}

/// The syscall being tampered with.
pub struct Target<'a> {
    /// Thread.
    pub tid: i32,
    /// Its name (for the message about a missing argument).
    pub name: &'a str,
    /// How many arguments it takes.
    pub nargs: usize,
    /// Its raw arguments.
    pub args: &'a [u64; 6],
    /// Address width of the personality (4 or 8).
    pub word: usize,
}

/// Does the pokes of one side (`enter`); true when any wrote something.
/// Problems are reported on stderr as strace reports them.
pub fn apply(pokes: &[Poke], enter: bool, t: &Target) -> bool {
    let prog = crate::strace::prog();
    let mut poked = false;
    for p in pokes.iter().filter(|p| p.enter == enter) {
        let n = p.arg as usize;
        if n > t.nargs || n > t.args.len() {
            eprintln!(
                "{prog}: Failed to tamper with process {}: requested to tamper with \
                 argument #{n}, but system call '{}' has only {} arguments",
                t.tid, t.name, t.nargs
            );
            continue;
        }
        let mut addr = t.args[n - 1];
        if t.word == 4 {
            addr &= 0xffff_ffff;
        }
        let out = memory_write::write(t.tid, addr, &p.data);
        if let Some(s) = out.short {
            let why = s
                .errno
                .map(|e| format!(": {}", crate::value::text::errno_message(e as u64)))
                .unwrap_or_default();
            eprintln!(
                "{prog}: pid:{} short write ({} < {}) @{:#x}{why}",
                t.tid, s.written, s.wanted, s.at
            );
        }
        if out.written == 0 {
            eprintln!(
                "{prog}: Failed to tamper with process {}: couldn't poke",
                t.tid
            );
        } else {
            poked = true;
        }
    }
    poked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(v: &str, enter: bool) -> Option<Vec<Poke>> {
        let mut p = Vec::new();
        parse(v, enter, &mut p).then_some(p)
    }

    #[test]
    fn syntax_like_strace() {
        let p = parsed("@arg1=53747261636521", true).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].arg, p[0].enter), (1, true));
        assert_eq!(p[0].data, b"Strace!");
        let p = parsed("@arg3=00,@arg7=ffFF", false).unwrap();
        assert_eq!(p[1].data, vec![0xff, 0xff]);
        for bad in [
            "",
            "@arg0=00",
            "@arg8=00",
            "@arg1",
            "@arg1=",
            "@arg1=0",
            "@arg1=zz",
            "arg1=00",
            "@arg1=00,@arg1=11",
            "@arg1:00",
            "@arg1=+0",
        ] {
            assert!(parsed(bad, true).is_none(), "{bad}");
        }
        assert!(parsed(&format!("@arg1={}", "ab".repeat(1024)), true).is_some());
        assert!(parsed(&format!("@arg1={}", "ab".repeat(1025)), true).is_none());
        // A second poke_enter= in one rule is refused.
        let mut v = parsed("@arg1=00", true).unwrap();
        assert!(!parse("@arg2=00", true, &mut v));
        assert!(parse("@arg2=00", false, &mut v));
    }
}
