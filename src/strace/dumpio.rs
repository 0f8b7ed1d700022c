//! `-e read=SET` / `-e write=SET`: hex and ASCII dumps of the data read
//! from or written to the descriptors in SET, after the syscall's line, in
//! strace's layout:
//!
//! ```text
//!  | 00000  68 65 6c 6c 6f 20 77 6f  72 6c 64 0a              hello world.     |
//! ```
//!
//! Written data is dumped whatever the call returned (as strace does: the
//! buffer is what the program passed), read data only on success and only
//! as many bytes as were read. Vectored calls dump each buffer after a
//! ` * N bytes in buffer I` line, stopping at the first empty one (strace's
//! `dumpiov_upto`); `sendmsg`/`recvmsg` dump their `msg_iov`, the `mmsg`
//! calls every message the call handled, each after
//! ` = N buffers in vector I`.

use super::filter::{string_to_uint, FilterError};
use crate::engine::memory::Memory;
use std::fmt::Write as _;

/// A set of descriptors (`[!]all|none|N[,N]…`), like strace's number set
/// for `-e read=`/`-e write=`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FdSet {
    fds: Vec<u32>,
    not: bool,
}

impl FdSet {
    /// Parses strace's syntax; errors read `invalid descriptor 'TOKEN'`.
    pub fn parse(spec: &str) -> Result<FdSet, FilterError> {
        let bad = |t: &str| FilterError {
            msg: format!("invalid descriptor '{t}'"),
            hint: false,
        };
        let mut s = FdSet::default();
        let mut rest = spec;
        while let Some(r) = rest.strip_prefix('!') {
            s.not = !s.not;
            rest = r;
        }
        match rest {
            "none" => return Ok(s),
            "all" => {
                s.not = !s.not;
                return Ok(s);
            }
            _ => {}
        }
        for t in rest.split(',').filter(|t| !t.is_empty()) {
            let n = string_to_uint(t, i32::MAX as u64).ok_or_else(|| bad(t))?;
            s.fds.push(n as u32);
        }
        if s.fds.is_empty() {
            return Err(bad(spec));
        }
        s.fds.sort_unstable();
        s.fds.dedup();
        Ok(s)
    }

    /// Is descriptor `fd` in the set (negative ones never are)?
    pub fn contains(&self, fd: i64) -> bool {
        fd >= 0 && fd <= i32::MAX as i64 && self.fds.binary_search(&(fd as u32)).is_ok() != self.not
    }

    /// The empty set (no dumps).
    pub fn is_empty(&self) -> bool {
        !self.not && self.fds.is_empty()
    }
}

/// How a syscall's data is laid out, for dumping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// A buffer (arg 1) and its size (arg 2 for writes, the return value
    /// for reads).
    Buffer,
    /// An iovec array (arg 1) of arg 2 entries.
    Iov,
    /// A `struct msghdr` (arg 1).
    Msg,
    /// An array of `struct mmsghdr` (arg 1), as many as the call returned.
    Mmsg,
}

fn shape(name: &str) -> Option<(bool, Shape)> {
    // (is a write, layout)
    Some(match name {
        "write" | "pwrite64" | "send" | "sendto" | "mq_timedsend" => (true, Shape::Buffer),
        "writev" | "pwritev" | "pwritev2" | "vmsplice" => (true, Shape::Iov),
        "sendmsg" => (true, Shape::Msg),
        "sendmmsg" => (true, Shape::Mmsg),
        "read" | "pread64" | "recv" | "recvfrom" | "mq_timedreceive" => (false, Shape::Buffer),
        "readv" | "preadv" | "preadv2" => (false, Shape::Iov),
        "recvmsg" => (false, Shape::Msg),
        "recvmmsg" => (false, Shape::Mmsg),
        _ => return None,
    })
}

/// Everything a dump needs of one finished syscall.
pub struct Call<'a> {
    /// Syscall name.
    pub name: &'a str,
    /// Raw arguments.
    pub args: [u64; 6],
    /// Return value (negative errno on failure).
    pub ret: i64,
    /// Pointer size of the personality (4 or 8).
    pub word: usize,
    /// The thread that made the call (named when a buffer cannot be read).
    pub pid: i32,
}

/// Appends the dump of `c` to `out` if its descriptor (arg 0, as an int)
/// is in `reads`/`writes` for its direction.
pub fn dump(out: &mut String, mem: &mut dyn Memory, c: &Call<'_>, reads: &FdSet, writes: &FdSet) {
    let Some((write, shape)) = shape(c.name) else {
        return;
    };
    let fd = c.args[0] as u32 as i32 as i64;
    let failed = c.ret < 0 && c.ret > -4096;
    if write {
        if !writes.contains(fd) {
            return;
        }
    } else if failed || !reads.contains(fd) {
        return;
    }
    // Bytes the dump may cover: all written, or as many as were read.
    let limit = if write { u64::MAX } else { c.ret as u64 };
    let mut r = Reader {
        mem,
        word: c.word,
        pid: c.pid,
    };
    match shape {
        Shape::Buffer => {
            let len = if write { c.args[2] } else { c.ret as u64 };
            if write {
                r.dumpstr(out, c.args[1], len);
            } else {
                r.dumpstr(out, c.args[1], len.min(limit));
            }
        }
        Shape::Iov => r.iov(out, c.args[1], c.args[2], limit),
        Shape::Msg => {
            if let Some((iov, n)) = r.msg_iov(c.args[1]) {
                r.iov(out, iov, n, limit);
            }
        }
        Shape::Mmsg => {
            if failed {
                return;
            }
            let size = if c.word == 8 { 64 } else { 32 };
            let msg_len_off = if c.word == 8 { 56 } else { 28 };
            for i in 0..c.ret.max(0) as u64 {
                let m = c.args[1].wrapping_add(i * size);
                let (Some((iov, n)), Some(len)) = (r.msg_iov(m), r.u32(m + msg_len_off)) else {
                    break;
                };
                let _ = writeln!(out, " = {n} buffers in vector {i}");
                r.iov(out, iov, n, u64::from(len));
            }
        }
    }
}

struct Reader<'m> {
    mem: &'m mut dyn Memory,
    word: usize,
    pid: i32,
}

impl Reader<'_> {
    fn word(&mut self, addr: u64) -> Option<u64> {
        let mut b = [0u8; 8];
        let n = self.word;
        (self.mem.read(addr, &mut b[..n]) == n).then(|| u64::from_le_bytes(b))
    }

    fn u32(&mut self, addr: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        (self.mem.read(addr, &mut b) == 4).then(|| u32::from_le_bytes(b))
    }

    /// `msg_iov` and `msg_iovlen` of the `struct msghdr` at `addr`.
    fn msg_iov(&mut self, addr: u64) -> Option<(u64, u64)> {
        let w = self.word as u64;
        Some((self.word(addr + 2 * w)?, self.word(addr + 3 * w)?))
    }

    /// strace's `dumpiov_upto`.
    fn iov(&mut self, out: &mut String, addr: u64, count: u64, mut left: u64) {
        let w = self.word as u64;
        let count = count.min(1024);
        // strace reads the whole array first: nothing is dumped when any
        // element cannot be read.
        let mut all = vec![0u8; (count * 2 * w) as usize];
        if self.mem.read(addr, &mut all) < all.len() {
            return;
        }
        let word = |off: usize| {
            let b = &all[off..off + w as usize];
            if w == 8 {
                u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))
            } else {
                u64::from(u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
            }
        };
        for i in 0..count {
            let e = (i * 2 * w) as usize;
            let (base, len) = (word(e), word(e + w as usize));
            let len = len.min(left);
            if len == 0 {
                return;
            }
            left -= len;
            let _ = writeln!(out, " * {len} bytes in buffer {i}");
            self.dumpstr(out, base, len);
        }
    }

    /// strace's `dumpstr`: 16 bytes a line.
    fn dumpstr(&mut self, out: &mut String, addr: u64, len: u64) {
        const CHUNK: u64 = 64 * 1024;
        let mut buf = Vec::new();
        let mut off = 0u64;
        while off < len {
            let n = (len - off).min(CHUNK) as usize;
            buf.resize(n, 0);
            let got = self.mem.read(addr.wrapping_add(off), &mut buf);
            if got < n {
                // strace prints nothing of a buffer it cannot read, and
                // says so when part of it was already dumped.
                if off > 0 {
                    let _ = writeln!(
                        out,
                        " | <Cannot fetch {n} byte{} from pid {} @{:#x}>",
                        if n == 1 { "" } else { "s" },
                        self.pid,
                        addr.wrapping_add(off)
                    );
                }
                return;
            }
            // The offset is 5 hex digits, more for a longer buffer.
            let width = if len > 1 << 20 {
                1 + (63 - (len - 1).leading_zeros() as usize) / 4
            } else {
                5
            };
            for (i, line) in buf.chunks(16).enumerate() {
                hexline(out, off + 16 * i as u64, line, width);
            }
            off += n as u64;
        }
    }
}

fn hexline(out: &mut String, offset: u64, bytes: &[u8], width: usize) {
    let _ = write!(out, " | {offset:0width$x}  ");
    let mut hex = String::with_capacity(48);
    for (i, b) in bytes.iter().enumerate() {
        if i == 8 {
            hex.push(' ');
        }
        let _ = write!(hex, "{b:02x} ");
    }
    let hex = hex.trim_end();
    let ascii: String = bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    let _ = writeln!(out, "{hex:<48}  {ascii:<16} |");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;

    #[test]
    fn fd_sets() {
        let s = FdSet::parse("1,3").unwrap();
        assert!(s.contains(1) && s.contains(3) && !s.contains(2) && !s.contains(-1));
        let s = FdSet::parse("!1").unwrap();
        assert!(!s.contains(1) && s.contains(0) && s.contains(7000));
        assert!(FdSet::parse("all").unwrap().contains(123456));
        assert!(FdSet::parse("none").unwrap().is_empty());
        assert!(FdSet::parse("2147483647")
            .unwrap()
            .contains(i32::MAX as i64));
        for bad in ["abc", "-1", "", "2147483648"] {
            assert_eq!(
                FdSet::parse(bad).unwrap_err().msg,
                format!("invalid descriptor '{bad}'")
            );
        }
    }

    #[test]
    fn lines_as_strace_prints_them() {
        let mut out = String::new();
        hexline(&mut out, 0, b"hello world, thi", 5);
        hexline(&mut out, 0x20, b"ne with bytes.\n", 5);
        hexline(&mut out, 0, &[1, 2, 0xff, 0x7f, 0x20], 5);
        assert_eq!(
            out,
            " | 00000  68 65 6c 6c 6f 20 77 6f  72 6c 64 2c 20 74 68 69  hello world, thi |\n\
             \x20| 00020  6e 65 20 77 69 74 68 20  62 79 74 65 73 2e 0a     ne with bytes..  |\n\
             \x20| 00000  01 02 ff 7f 20                                    ....             |\n"
        );
    }

    fn mem() -> FakeMemory {
        // 0x1000: "abcdefghij"; 0x2000: iovecs {0x1000, 2}, {0x1002, 0}, {0x1002, 5}.
        let mut data = vec![0u8; 0x2000];
        data[..10].copy_from_slice(b"abcdefghij");
        for (i, (b, l)) in [(0x1000u64, 2u64), (0x1002, 0), (0x1002, 5)]
            .iter()
            .enumerate()
        {
            data[0x1000 + 16 * i..0x1008 + 16 * i].copy_from_slice(&b.to_le_bytes());
            data[0x1008 + 16 * i..0x1010 + 16 * i].copy_from_slice(&l.to_le_bytes());
        }
        FakeMemory { base: 0x1000, data }
    }

    #[test]
    fn directions_failures_and_iovecs() {
        let all = FdSet::parse("all").unwrap();
        let none = FdSet::default();
        let call = |name, args: [u64; 6], ret| Call {
            name,
            args,
            ret,
            word: 8,
            pid: 1,
        };
        let run = |c: &Call, r: &FdSet, w: &FdSet| {
            let mut out = String::new();
            dump(&mut out, &mut mem(), c, r, w);
            out
        };
        // A failed write still dumps what was passed; a failed read nothing.
        let w = call("write", [9, 0x1000, 3, 0, 0, 0], -9);
        assert!(run(&w, &none, &all).contains("61 62 63"));
        assert_eq!(run(&w, &all, &none), "");
        let r = call("read", [3, 0x1000, 40, 0, 0, 0], 4);
        assert!(run(&r, &all, &none).contains("abcd "));
        assert_eq!(
            run(&call("read", [3, 0x1000, 40, 0, 0, 0], -11), &all, &none),
            ""
        );
        // writev stops at the empty buffer, as strace does.
        let v = call("writev", [4, 0x2000, 3, 0, 0, 0], 7);
        assert_eq!(
            run(&v, &none, &all),
            " * 2 bytes in buffer 0\n | 00000  61 62                                             ab               |\n"
        );
        // readv: only as many bytes as were read.
        let v = call("readv", [4, 0x2020, 1, 0, 0, 0], 3);
        assert!(run(&v, &all, &none).starts_with(" * 3 bytes in buffer 0\n"));
    }
}
