//! Writing tracee memory the way strace's `upoken` does: one
//! `process_vm_writev`, and when that cannot write at all (no permission,
//! or the address space refuses it), word by word with `PTRACE_POKEDATA`
//! (read-modify-write for the unaligned ends), which also writes to
//! read-only mappings. A write that stops early says how far it got, so
//! the caller can report it as strace does.

use crate::sys::mem::vm_write;
use crate::sys::ptrace::peek_data as peek;

/// A write that stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Short {
    /// Bytes written.
    pub written: usize,
    /// Bytes asked for.
    pub wanted: usize,
    /// Where the write started.
    pub at: u64,
    /// Why it stopped (`None`: `process_vm_writev` returned a short count).
    pub errno: Option<i32>,
}

/// How a write went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Bytes written (0: nothing could be written).
    pub written: usize,
    /// Set when some but not all bytes were written.
    pub short: Option<Short>,
}

fn poke(tid: i32, addr: u64, word: u64) -> Result<(), i32> {
    crate::sys::ptrace::poke_data(tid, addr, word).map_err(|e| e.raw_os_error().unwrap_or(0))
}

/// Word-by-word write; `Err((written, errno))` when it stopped.
fn poke_write(tid: i32, addr: u64, data: &[u8]) -> Result<(), (usize, i32)> {
    const W: u64 = 8;
    let mut done = 0usize;
    let mut a = addr;
    while done < data.len() {
        let base = a & !(W - 1);
        let off = (a - base) as usize;
        let n = (W as usize - off).min(data.len() - done);
        let mut word = if off != 0 || n < W as usize {
            peek(tid, base).map_err(|e| (done, e))?.to_ne_bytes()
        } else {
            [0u8; 8]
        };
        word[off..off + n].copy_from_slice(&data[done..done + n]);
        poke(tid, base, u64::from_ne_bytes(word)).map_err(|e| (done, e))?;
        done += n;
        a += n as u64;
    }
    Ok(())
}

/// Writes `data` at `addr` in the stopped thread `tid`.
pub fn write(tid: i32, addr: u64, data: &[u8]) -> Outcome {
    if data.is_empty() {
        return Outcome {
            written: 0,
            short: None,
        };
    }
    let vm_err = match vm_write(tid, addr, data) {
        Ok(n) if n == data.len() => {
            return Outcome {
                written: n,
                short: None,
            }
        }
        Ok(n) => {
            return Outcome {
                written: n,
                short: Some(Short {
                    written: n,
                    wanted: data.len(),
                    at: addr,
                    errno: None,
                }),
            }
        }
        Err(e) => e,
    };
    if !matches!(
        vm_err,
        libc::ENOSYS | libc::EPERM | libc::EFAULT | libc::EIO
    ) {
        return Outcome {
            written: 0,
            short: None,
        };
    }
    match poke_write(tid, addr, data) {
        Ok(()) => Outcome {
            written: data.len(),
            short: None,
        },
        Err((n, e)) => Outcome {
            written: n,
            short: (n > 0 && matches!(e, libc::EFAULT | libc::EIO | libc::EPERM)).then_some(
                Short {
                    written: n,
                    wanted: data.len(),
                    at: addr,
                    errno: Some(e),
                },
            ),
        },
    }
}
