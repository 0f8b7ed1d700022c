//! A writer that remembers its first error, so a tool whose output went to
//! a full disk or a closed pipe can say so at the end instead of losing the
//! trace silently (the per-record writes ignore errors: tracing goes on and
//! every change to the traced program is still undone).

use std::cell::Cell;
use std::io::{self, Write};
use std::rc::Rc;

/// The first write error of the writers made by [`WriteLatch::wrap`].
#[derive(Clone, Default)]
pub struct WriteLatch(Rc<Cell<Option<i32>>>);

impl WriteLatch {
    /// `inner`, with its errors recorded here.
    pub fn wrap(&self, inner: Box<dyn Write>) -> Box<dyn Write> {
        Box::new(Latched {
            inner,
            seen: self.clone(),
        })
    }

    fn note(&self, e: &io::Error) {
        if self.0.get().is_none() {
            self.0.set(Some(e.raw_os_error().unwrap_or(libc::EIO)));
        }
    }

    /// Prints `TOOL: write error: MESSAGE` (strace's words) if a write
    /// failed; whether one did.
    pub fn report(&self, tool: &str) -> bool {
        let Some(errno) = self.0.get() else {
            return false;
        };
        let msg = crate::sys::strerror(errno);
        eprintln!("{tool}: write error: {msg}");
        true
    }
}

struct Latched {
    inner: Box<dyn Write>,
    seen: WriteLatch,
}

impl Write for Latched {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| self.seen.note(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|e| self.seen.note(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_is_kept() {
        let latch = WriteLatch::default();
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
        let Ok(full) = full else { return };
        let mut w = latch.wrap(Box::new(io::BufWriter::new(full)));
        let _ = writeln!(w, "hello");
        assert!(latch.0.get().is_none(), "buffered, nothing written yet");
        let _ = w.flush();
        assert_eq!(latch.0.get(), Some(libc::ENOSPC));
        let ok = WriteLatch::default();
        let mut v = ok.wrap(Box::new(Vec::new()));
        writeln!(v, "fine").unwrap();
        assert!(!ok.report("t"));
    }
}
