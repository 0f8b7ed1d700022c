//! Reading tracee memory from a decoder: raw bytes, structures, strings
//! with strace's rules (`umovestr`, `-s`, unterminated strings), paths and
//! buffers, and the `addr` fallback when memory cannot be read.

use crate::syscall::ctx::*;

impl Ctx<'_> {
    /// Reads exactly `len` bytes at `addr`, or `None`.
    pub fn read_bytes(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        if !self.opts.deref {
            return None;
        }
        self.read_data(addr, len)
    }

    /// Reads `len` bytes of data (a buffer printed as a string, which
    /// `-e verbose=` does not turn into an address), or `None`.
    pub fn read_data(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        if addr == 0 {
            return None;
        }
        let mut buf = vec![0u8; len];
        let n = self.mem.read(addr, &mut buf);
        (n == len).then_some(buf)
    }

    /// Reads a plain-old-data value of type `T` at `addr`.
    pub fn read_pod<T: Pod>(&mut self, addr: u64) -> Option<T> {
        let b = self.read_bytes(addr, std::mem::size_of::<T>())?;
        Some(T::from_bytes(&b))
    }

    /// Reads a tracee word (4 or 8 bytes by personality) at `addr`.
    pub fn read_word(&mut self, addr: u64) -> Option<u64> {
        if self.arch.word_size() == 4 {
            self.read_pod::<u32>(addr).map(|v| v as u64)
        } else {
            self.read_pod::<u64>(addr)
        }
    }

    /// Reads a NUL-terminated string of at most `limit` bytes. The result is
    /// truncated (and flagged) when no NUL occurs within the limit.
    pub fn read_cstr(&mut self, addr: u64, limit: usize) -> Option<StrVal> {
        let (mut bytes, nul) = self.umovestr(addr, limit + 1)?;
        bytes.truncate(limit);
        Some(StrVal {
            bytes,
            truncated: !nul,
            c_string: true,
        })
    }

    /// strace's `umovestr`: up to `len` bytes at `addr`, stopping at a NUL
    /// (not included; the flag says it was seen). `None` when the memory
    /// ends before the NUL and before `len` bytes.
    pub fn umovestr(&mut self, addr: u64, len: usize) -> Option<(Vec<u8>, bool)> {
        if addr == 0 {
            return None;
        }
        // One process_vm_readv per page: a C string usually ends in the first.
        let mut out = Vec::new();
        let mut a = addr;
        while out.len() < len {
            let page_left = 4096 - (a % 4096) as usize;
            let chunk = page_left.min(len - out.len());
            let mut buf = vec![0u8; chunk];
            let n = self.mem.read(a, &mut buf);
            if let Some(z) = buf[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&buf[..z]);
                return Some((out, true));
            }
            if n < chunk {
                let got = out.len() + n;
                if got > 0 {
                    // strace's umovestr reports a string cut by unmapped memory.
                    eprintln!(
                        "{}: umovestr: short read ({got} < {len}) @{addr:#x}: Bad address",
                        crate::sys::prog()
                    );
                }
                return None;
            }
            out.extend_from_slice(&buf);
            a += n as u64;
        }
        Some((out, false))
    }

    /// strace's `printstr_ex` of a NUL-terminated string of at most `len`
    /// bytes (its NUL included): `-s` limits it, and a string that fills
    /// `len` bytes without a NUL prints with `...`.
    pub fn cstrn_value(&mut self, addr: u64, len: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        if len == 0 {
            return Value::Str(StrVal {
                c_string: true,
                ..Default::default()
            });
        }
        let limit = self.opts.string_limit;
        let fetch = (limit as u64 + 1).min(len) as usize;
        match self.umovestr(addr, fetch) {
            Some((mut bytes, nul)) => {
                bytes.truncate(limit);
                Value::Str(StrVal {
                    bytes,
                    truncated: !nul,
                    c_string: true,
                })
            }
            None => Value::Unreadable(addr),
        }
    }

    /// A path argument: printed in full up to PATH_MAX - 1 bytes, like
    /// strace's `printpath` (a longer one is cut with `...`).
    pub fn path(&mut self, i: usize) {
        let addr = self.arg_ulong(i);
        let v = self.path_value(addr);
        self.push(v);
    }

    /// The value of a path at `addr`.
    pub fn path_value(&mut self, addr: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        match self.read_cstr(addr, 4095) {
            Some(s) => Value::Str(s),
            None => Value::Unreadable(addr),
        }
    }

    /// A NUL-terminated string limited by `-s`.
    pub fn cstr_value(&mut self, addr: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        let limit = self.opts.string_limit;
        match self.read_cstr(addr, limit) {
            Some(s) => Value::Str(s),
            None => Value::Unreadable(addr),
        }
    }

    /// String argument (NUL-terminated, `-s` limited).
    pub fn cstr(&mut self, i: usize) {
        let addr = self.arg_ulong(i);
        let v = self.cstr_value(addr);
        self.push(v);
    }

    /// The value of a buffer of `len` bytes at `addr`, printed as a string
    /// limited by `-s` (like strace's `printstrn`).
    pub fn buf_value(&mut self, addr: u64, len: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        let limit = self.opts.string_limit as u64;
        // strace's printstrn reads one byte past the `-s` limit: a buffer
        // whose memory ends right after the limit prints as its address.
        let fetch = len.min(limit.saturating_add(1)) as usize;
        let mut buf = vec![0u8; fetch];
        if fetch > 0 && self.mem.read(addr, &mut buf) != fetch {
            return Value::Unreadable(addr);
        }
        buf.truncate(len.min(limit) as usize);
        Value::Str(StrVal {
            bytes: buf,
            truncated: len > limit,
            c_string: false,
        })
    }

    /// A buffer argument of `len` bytes.
    pub fn buf(&mut self, i: usize, len: u64) {
        let addr = self.arg_ulong(i);
        let v = self.buf_value(addr, len);
        self.push(v);
    }

    /// An output buffer: at exit, the `ret` bytes the kernel filled; the address
    /// when the call failed.
    pub fn outbuf(&mut self, i: usize) {
        let addr = self.arg_ulong(i);
        if self.failed() {
            self.push(Value::Ptr(addr));
        } else {
            let n = self.retval().max(0) as u64;
            let v = self.buf_value(addr, n);
            self.push(v);
        }
    }

    /// Pushes `v` unless the call failed at exit, in which case the pointer `addr`.
    pub fn out_or_addr(&mut self, addr: u64, v: impl FnOnce(&mut Self) -> Value) {
        if self.failed() || addr == 0 {
            self.push(Value::Ptr(addr));
        } else {
            let v = v(self);
            self.push(v);
        }
    }
}
