//! The trace file's writers: [`Output`] (the file itself, or zstd frames
//! made by a compressor thread), [`Tally`] (counts the event lines by type
//! on their way to it, for the footer) and [`Shared`] (a handle on a
//! shared tally). Every object a recording holds is written `"type"` first
//! (the typed model of [`crate::tracefile::event`]; rltrace's libcall
//! lines too), which [`Tally`] relies on.
//!
//! The tracer writes into a paced buffer ([`crate::output::paced`]) in front
//! of [`Shared`]: what it records reaches the file within 100 ms, as every
//! tool's `-o FILE` does. With `--zstd` the tracer thread only copies each
//! written-out buffer into a bounded channel; the [`Compressor`] thread
//! compresses and writes, ending a zstd frame at every paced flush (and
//! every [`crate::tracefile::ZSTD_CHUNK`]), so a recorder killed by SIGKILL
//! leaves complete frames up to its last 100 ms.

use crate::tracefile::{ZstdWriter, ZSTD_CHUNK};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// A file the recorder writes (moved to the compressor thread with zstd).
pub(super) type File = Box<dyn Write + Send>;

/// Where the trace file's bytes go: the file itself, or zstd frames.
pub(super) enum Output {
    Plain(File),
    Zstd(Compressor),
}

impl Output {
    pub(super) fn new(w: File, zstd: bool) -> Output {
        if zstd {
            Output::Zstd(Compressor::new(w))
        } else {
            Output::Plain(w)
        }
    }

    /// Flushes, writing the last zstd frame.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Zstd(z) => z.finish(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Plain(w) => w.write(buf),
            Output::Zstd(z) => z.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Zstd(z) => z.flush(),
        }
    }
}

/// What the compressor thread is handed.
enum Msg {
    /// Text to compress.
    Data(Vec<u8>),
    /// End the current frame and flush the file (a paced flush).
    EndFrame,
}

/// Buffers in flight to the compressor thread at most: a tracer faster
/// than the compressor waits for it (memory stays bounded: with the paced
/// writer's 64 KiB buffers, about 1 MiB plus the frame being built).
const IN_FLIGHT: usize = 16;

/// Compresses on a thread of its own: `write` hands a copy of the bytes
/// to it through a bounded channel, `flush` ends the current frame. The
/// thread is started at the first flush (or MiB of text), which comes
/// after the engine has launched the command (the header is kept until
/// then): rstrace's `-D` forks the tracer, and a thread started before
/// that fork would not exist in the tracer.
pub(super) struct Compressor {
    /// The file, until the thread takes it.
    file: Option<File>,
    /// Text written before the thread started.
    early: Vec<u8>,
    tx: Option<SyncSender<Msg>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl Compressor {
    fn new(file: File) -> Compressor {
        Compressor {
            file: Some(file),
            early: Vec::new(),
            tx: None,
            thread: None,
        }
    }

    fn send(&mut self, m: Msg) -> io::Result<()> {
        if self.tx.is_none() {
            let file = self.file.take().ok_or(io::ErrorKind::BrokenPipe)?;
            let (tx, rx) = sync_channel::<Msg>(IN_FLIGHT);
            let thread = std::thread::Builder::new()
                .name("rtrace-zstd".into())
                .spawn(move || {
                    let mut z = ZstdWriter::new(file);
                    for m in rx {
                        match m {
                            Msg::Data(d) => z.write_all(&d)?,
                            Msg::EndFrame => {
                                z.end_frame()?;
                                z.flush()?;
                            }
                        }
                    }
                    z.finish()
                })?;
            self.tx = Some(tx);
            self.thread = Some(thread);
            if !self.early.is_empty() {
                let early = std::mem::take(&mut self.early);
                self.send(Msg::Data(early))?;
            }
        }
        let sent = self.tx.as_ref().map(|tx| tx.send(m));
        match sent {
            Some(Ok(())) => Ok(()),
            // The thread ended on an error: `finish` reports it.
            _ => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the compressor thread stopped",
            )),
        }
    }

    /// Writes the last frame, ends the thread and returns its first error.
    fn finish(&mut self) -> io::Result<()> {
        if self.tx.is_none() && self.file.is_some() {
            // Never flushed: start it to write what there is.
            self.send(Msg::EndFrame)?;
        }
        self.tx = None;
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(io::Error::other("the compressor thread panicked")),
        }
    }
}

impl Write for Compressor {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.tx.is_none() && self.early.len() + buf.len() < ZSTD_CHUNK {
            self.early.extend_from_slice(buf);
            return Ok(buf.len());
        }
        self.send(Msg::Data(buf.to_vec()))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send(Msg::EndFrame)
    }
}

/// Counts event lines by their `"type"` on their way to the file.
pub(super) struct Tally {
    pub(super) out: Output,
    /// The first bytes of the current line (enough for the type).
    head: Vec<u8>,
    /// Events by type.
    pub counts: BTreeMap<String, u64>,
    /// The first write error.
    pub error: Option<io::Error>,
}

/// Bytes of a line kept to find its type: `{"type":"` and a name.
const HEAD: usize = 32;

impl Tally {
    pub(super) fn new(out: Output) -> Tally {
        Tally {
            out,
            head: Vec::with_capacity(HEAD),
            counts: BTreeMap::new(),
            error: None,
        }
    }

    fn scan(&mut self, mut buf: &[u8]) {
        while !buf.is_empty() {
            let nl = buf.iter().position(|&b| b == b'\n');
            let seg = &buf[..nl.unwrap_or(buf.len())];
            let room = HEAD.saturating_sub(self.head.len()).min(seg.len());
            self.head.extend_from_slice(&seg[..room]);
            match nl {
                Some(n) => {
                    self.line_done();
                    buf = &buf[n + 1..];
                }
                None => break,
            }
        }
    }

    fn line_done(&mut self) {
        let h = std::mem::take(&mut self.head);
        let ty = h
            .strip_prefix(b"{\"type\":\"")
            .and_then(|r| r.iter().position(|&b| b == b'"').map(|e| &r[..e]))
            .map_or("other".to_string(), |t| {
                String::from_utf8_lossy(t).into_owned()
            });
        *self.counts.entry(ty).or_default() += 1;
        self.head = h;
        self.head.clear();
    }
}

/// A `Write` handle on a shared [`Tally`] (the sink owns one, `record`
/// keeps another for the footer). `Send`: the paced writer's flusher
/// thread writes out through it too.
#[derive(Clone)]
pub(super) struct Shared(pub(super) Arc<Mutex<Tally>>);

impl Shared {
    pub(super) fn new(out: Output) -> Shared {
        Shared(Arc::new(Mutex::new(Tally::new(out))))
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Tally> {
        // A panic while holding the lock leaves whole writes or none.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut t = self.lock();
        t.scan(buf);
        if let Err(e) = t.out.write_all(buf) {
            let kind = e.kind();
            t.error.get_or_insert(e);
            return Err(io::Error::from(kind));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.lock().out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in memory the compressor thread can own.
    #[derive(Clone, Default)]
    struct Mem(Arc<Mutex<Vec<u8>>>);

    impl Write for Mem {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_compressor_thread_ends_a_frame_at_each_flush() {
        let file = Mem::default();
        let mut out = Output::new(Box::new(file.clone()), true);
        let mut text = Vec::new();
        for tick in 0..5 {
            for i in 0..100 {
                let line = format!("{{\"type\":\"syscall\",\"pid\":{tick},\"n\":{i}}}\n");
                out.write_all(line.as_bytes()).unwrap();
                text.extend_from_slice(line.as_bytes());
            }
            out.flush().unwrap();
        }
        // A flush with nothing new makes no empty frame.
        out.flush().unwrap();
        out.finish().unwrap();
        let bytes = file.0.lock().unwrap().clone();
        let frames = bytes
            .windows(4)
            .filter(|w| crate::tracefile::is_zstd(w))
            .count();
        assert_eq!(frames, 5);
        assert_eq!(crate::tracefile::decompress(&bytes).unwrap(), text);
        // Each frame decodes on its own: the file cut after the third
        // frame holds exactly the first 300 lines.
        let starts: Vec<usize> = (0..bytes.len() - 3)
            .filter(|&i| crate::tracefile::is_zstd(&bytes[i..]))
            .collect();
        let first3 = crate::tracefile::decompress(&bytes[..starts[3]]).unwrap();
        assert_eq!(first3.iter().filter(|&&b| b == b'\n').count(), 300);
    }

    #[test]
    fn tally_counts_types_across_chunks() {
        let mut t = Tally::new(Output::Plain(Box::new(io::sink())));
        let text = b"{\"type\":\"syscall\",\"pid\":1}\n{\"type\":\"syscall\",\"pid\":2}\n{\"type\":\"exit\",\"pid\":1}\n{\"type\":\"signal\"}\n";
        for chunk in text.chunks(5) {
            t.scan(chunk);
        }
        assert_eq!(t.counts["syscall"], 2);
        assert_eq!(t.counts["exit"], 1);
        assert_eq!(t.counts["signal"], 1);
    }
}
