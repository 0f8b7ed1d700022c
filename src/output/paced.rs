//! Block-buffered trace output that reaches its file within 100 ms: the
//! `-o FILE` of rstrace (each `-ff` file too), rltrace (both backends),
//! `rtrace break` and `rtrace watch`.
//!
//! A tracer that writes every line at once pays a `write(2)` per event;
//! one that only writes when its buffer fills leaves `tail -f` empty and
//! loses the whole trace when it is killed (a CI timeout, the OOM killer).
//! A [`Paced`] writer keeps the block buffer, and one flusher thread per
//! process ([`start`]) writes out every paced buffer holding text every
//! [`PERIOD`]. That bound holds whatever the traced program does: a busy
//! one whose events never stop coming, and one asleep in `read` while the
//! tracer waits for its next stop. After a SIGKILL of the tracer, only what
//! was printed during the last period can be missing.
//!
//! Why not flush in the wait loop, "when about to block with no stop
//! pending": with one traced thread there never is a stop pending at that
//! point (the tracee was just resumed, and runs on the tracer's CPU), so
//! that is a write per event: measured as `-I1`, which flushes there,
//! `rstrace -o FILE` of 100,000 calls took 2.98 s against 2.23 s. Here the
//! event path pays one uncontended lock per write (no system call, no
//! clock read).
//!
//! The flusher is started by the engine's wait loop, not by
//! [`Paced::new`]: rstrace `-D` forks the tracer after opening its output,
//! and a thread holding a lock at that fork would leave the lock held in
//! the child for ever. A tool that writes paced output without the ptrace
//! engine calls [`start`] itself.

use std::io::{self, BufWriter, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

/// How often the flusher writes out buffered text (half the promised
/// 100 ms, leaving the rest for a flusher scheduled late on a busy CPU).
pub const PERIOD: Duration = Duration::from_millis(50);

/// Buffer size: as large as rstrace's block buffer has been.
const CAPACITY: usize = 1 << 16;

struct Inner {
    buf: BufWriter<Box<dyn Write + Send>>,
    /// The error of a flush the flusher made, for the next caller.
    error: Option<io::Error>,
}

/// A block-buffered writer the flusher writes out every [`PERIOD`].
pub struct Paced(Arc<Mutex<Inner>>);

/// Writers a flusher writes out (dead ones are dropped at its next round).
type Registry = Mutex<Vec<Weak<Mutex<Inner>>>>;

/// Every live [`Paced`] writer.
static WRITERS: Registry = Mutex::new(Vec::new());

/// The process whose flusher is running (0: none yet): a forked copy of
/// the tracer has no threads, and starts its own.
static FLUSHER: AtomicU32 = AtomicU32::new(0);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves whole writes or none.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Paced {
    /// `w` behind a block buffer that is written out every [`PERIOD`].
    pub fn new(w: impl Write + Send + 'static) -> Paced {
        Paced::in_registry(w, &WRITERS)
    }

    fn in_registry(w: impl Write + Send + 'static, reg: &Registry) -> Paced {
        let inner = Arc::new(Mutex::new(Inner {
            buf: BufWriter::with_capacity(CAPACITY, Box::new(w)),
            error: None,
        }));
        lock(reg).push(Arc::downgrade(&inner));
        Paced(inner)
    }
}

impl Inner {
    /// Writes out what is buffered; a failure is kept for the owner.
    fn write_out(&mut self) {
        if !self.buf.buffer().is_empty() {
            if let Err(e) = self.buf.flush() {
                self.error.get_or_insert(e);
            }
        }
    }
}

impl Write for Paced {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let mut g = lock(&self.0);
        match g.error.take() {
            Some(e) => Err(e),
            None => g.buf.write(b),
        }
    }

    fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
        let mut g = lock(&self.0);
        match g.error.take() {
            Some(e) => Err(e),
            None => g.buf.write_all(b),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut g = lock(&self.0);
        match g.error.take() {
            Some(e) => Err(e),
            None => g.buf.flush(),
        }
    }
}

impl Drop for Paced {
    fn drop(&mut self) {
        // Now, by the owner: the flusher may hold the last reference for a
        // moment, and the process may be about to exit.
        let _ = self.flush();
    }
}

/// Starts this process's flusher if it has none (idempotent).
pub fn start() {
    let me = std::process::id();
    if FLUSHER.swap(me, Ordering::SeqCst) == me {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("rtrace-flush".into())
        .spawn(|| loop {
            std::thread::sleep(PERIOD);
            write_out_all(&WRITERS);
        });
    if spawned.is_err() {
        // Output is then written when buffers fill and at the end, as
        // before; a later call may try again.
        FLUSHER.store(0, Ordering::SeqCst);
    }
}

/// One round of the flusher: writes out every paced buffer holding text.
fn write_out_all(reg: &Registry) {
    let live: Vec<Arc<Mutex<Inner>>> = {
        let mut w = lock(reg);
        w.retain(|p| p.strong_count() > 0);
        w.iter().filter_map(Weak::upgrade).collect()
    };
    for p in live {
        lock(&p).write_out();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Records what reaches it and how many writes that took.
    #[derive(Clone, Default)]
    struct Probe(Arc<Mutex<Vec<u8>>>, Arc<AtomicUsize>);

    impl Write for Probe {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            lock(&self.0).extend_from_slice(b);
            self.1.fetch_add(1, Ordering::SeqCst);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    // Each test has a registry of its own: the process's flusher (started
    // by another test's tracer) never writes out these writers.

    #[test]
    fn a_round_writes_out_what_is_buffered_in_one_write() {
        static REG: Registry = Mutex::new(Vec::new());
        let probe = Probe::default();
        let mut w = Paced::in_registry(probe.clone(), &REG);
        w.write_all(b"open(\"a\") = 3\n").unwrap();
        w.write_all(b"close(3) = 0\n").unwrap();
        assert!(lock(&probe.0).is_empty(), "block-buffered until a round");
        write_out_all(&REG);
        assert_eq!(&*lock(&probe.0), b"open(\"a\") = 3\nclose(3) = 0\n");
        assert_eq!(probe.1.load(Ordering::SeqCst), 1);
        // Nothing buffered: a round writes nothing.
        write_out_all(&REG);
        assert_eq!(probe.1.load(Ordering::SeqCst), 1);
        // A dropped writer leaves the registry.
        drop(w);
        write_out_all(&REG);
        assert!(lock(&REG).is_empty());
    }

    #[test]
    fn dropping_the_owner_writes_out_the_rest() {
        let probe = Probe::default();
        let mut w = Paced::in_registry(probe.clone(), &Mutex::new(Vec::new()));
        w.write_all(b"exit_group(0) = ?\n").unwrap();
        drop(w);
        assert_eq!(&*lock(&probe.0), b"exit_group(0) = ?\n");
    }

    #[test]
    fn an_error_of_a_round_goes_to_the_owner() {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        static REG: Registry = Mutex::new(Vec::new());
        let mut w = Paced::in_registry(full, &REG);
        w.write_all(b"line\n").unwrap();
        write_out_all(&REG);
        let e = w.write_all(b"next\n").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    }
}
