//! The trace file's writers: [`Output`] (the file itself, or zstd
//! frames), [`Tally`] (counts the event lines by type on their way to it,
//! for the footer), [`Shared`] (a handle on a shared tally) and
//! [`TypeFirst`] (moves a libcall object's `"type"` key to the front).

use crate::tracefile::ZstdWriter;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::rc::Rc;

/// Where the trace file's bytes go: the file itself, or zstd frames.
pub(super) enum Output {
    Plain(Box<dyn Write>),
    Zstd(ZstdWriter<Box<dyn Write>>),
}

impl Output {
    pub(super) fn new(w: Box<dyn Write>, zstd: bool) -> Output {
        if zstd {
            Output::Zstd(ZstdWriter::new(w))
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
/// keeps another for the footer).
pub(super) struct Shared(pub(super) Rc<RefCell<Tally>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut t = self.0.borrow_mut();
        t.scan(buf);
        if let Err(e) = t.out.write_all(buf) {
            let kind = e.kind();
            t.error.get_or_insert(e);
            return Err(io::Error::from(kind));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().out.flush()
    }
}

/// Moves a `"type"` key that ends a line's object to its front:
/// rltrace's libcall objects come from serde_json with sorted keys
/// (`{"args":…,"type":"libcall"}`); a trace file's lines all start with
/// `{"type":"…"` (docs/record.md, "Trace file"; [`Tally`] relies on it). Other
/// lines pass unchanged. `,"type":"` cannot occur inside a JSON string
/// (its quotes are escaped there), so the match is exact.
pub(super) struct TypeFirst<W: Write> {
    inner: W,
    line: Vec<u8>,
}

impl<W: Write> TypeFirst<W> {
    pub(super) fn new(inner: W) -> TypeFirst<W> {
        TypeFirst {
            inner,
            line: Vec::new(),
        }
    }

    fn put_line(&mut self) -> io::Result<()> {
        let l = &self.line;
        let fixed = reorder_type(l);
        let r = match &fixed {
            Some(f) => self.inner.write_all(f),
            None => self.inner.write_all(l),
        };
        self.line.clear();
        r
    }
}

/// `{"a":1,"type":"x"}\n` -> `{"type":"x","a":1}\n`; `None` when the line
/// starts with its type already or does not end with one.
fn reorder_type(l: &[u8]) -> Option<Vec<u8>> {
    const KEY: &[u8] = b",\"type\":\"";
    if l.starts_with(b"{\"type\":") {
        return None;
    }
    let body = l.strip_suffix(b"\n").unwrap_or(l);
    let inner = body.strip_suffix(b"\"}")?;
    let at = inner.windows(KEY.len()).rposition(|w| w == KEY)?;
    let name = &inner[at + KEY.len()..];
    if at == 0 || name.is_empty() || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        return None;
    }
    let mut out = Vec::with_capacity(l.len());
    out.push(b'{');
    out.extend_from_slice(&body[at + 1..body.len() - 1]);
    out.push(b',');
    out.extend_from_slice(&body[1..at]);
    out.push(b'}');
    out.extend_from_slice(&l[body.len()..]);
    Some(out)
}

impl<W: Write> Write for TypeFirst<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(n) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..=n]);
            self.put_line()?;
            rest = &rest[n + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for TypeFirst<W> {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            let _ = self.put_line();
        }
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_key_moves_to_the_front() {
        let fix = |l: &str| reorder_type(l.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(
            fix("{\"args\":[\"\\\",\\\"type\\\":\\\"x\"],\"pid\":1,\"type\":\"libcall\"}\n")
                .as_deref(),
            Some("{\"type\":\"libcall\",\"args\":[\"\\\",\\\"type\\\":\\\"x\"],\"pid\":1}\n")
        );
        assert_eq!(fix("{\"type\":\"syscall\",\"pid\":1}\n"), None);
        assert_eq!(fix("{\"a\":1}\n"), None);
        assert_eq!(fix("{\"a\":\"x\"}\n"), None);
        // Through the writer, in pieces, with a Tally behind it.
        let t = Rc::new(RefCell::new(Tally::new(Output::Plain(
            Box::new(io::sink()),
        ))));
        {
            let mut w = TypeFirst::new(Shared(t.clone()));
            let text = b"{\"args\":[],\"type\":\"libcall\"}\n{\"type\":\"exit\",\"pid\":1}\n";
            for c in text.chunks(7) {
                w.write_all(c).unwrap();
            }
        }
        let t = t.borrow();
        assert_eq!(t.counts["libcall"], 1);
        assert_eq!(t.counts["exit"], 1);
        assert!(!t.counts.contains_key("other"));
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
