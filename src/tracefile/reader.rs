//! Reading a trace file as a stream: one line at a time through a
//! `BufRead` (and [`super::zstd::Frames`] for compressed files), so memory
//! is bounded by the longest line, whatever the size of the file.
//!
//! A recording whose recorder was killed ends early: in the middle of a
//! line (plain) or of a zstd frame. Such an end is not an error: the
//! reader stops after the last complete event and says so in
//! [`Reader::cut`] ("recording cut after N events: …"), which the tools
//! print as a warning. A line that is not JSON *before* the end stays an
//! error naming its line number.

use super::event::{Event, Footer, Header};
use super::zstd::{Frames, ZSTD_MAGIC};
use super::VERSION;
use serde::Deserialize;
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Bytes read from the file at a time.
const BUF: usize = 1 << 16;

/// A trace file being read, event by event.
pub struct Reader {
    src: Box<dyn BufRead>,
    /// The `header` object (`Value::Null` if the file has none, e.g. plain
    /// `rstrace --json` output).
    pub header: Value,
    /// The `footer` object, once it was read (at the end).
    pub footer: Option<Value>,
    /// Set when the file ended inside a line or a zstd frame: what was cut.
    pub cut: Option<String>,
    /// The first event, read with the header (its text too, for
    /// [`Reader::next_typed`]).
    first: Option<(Value, String)>,
    line: Vec<u8>,
    line_no: usize,
    events: u64,
}

impl Reader {
    /// Opens a trace file (`-` for standard input) and reads its header.
    pub fn open(path: &Path) -> io::Result<Reader> {
        if path.as_os_str() == "-" {
            return Reader::new(Box::new(io::stdin().lock()));
        }
        Reader::new(Box::new(File::open(path)?))
    }

    /// A reader of the trace file in `src` (plain or zstd: told apart by
    /// its first bytes); reads the header.
    pub fn new(src: Box<dyn Read>) -> io::Result<Reader> {
        let mut raw = BufReader::with_capacity(BUF, src);
        let zstd = raw.fill_buf()?.starts_with(&ZSTD_MAGIC);
        let src: Box<dyn BufRead> = if zstd {
            Box::new(BufReader::with_capacity(BUF, Frames::new(raw)))
        } else {
            Box::new(raw)
        };
        let mut r = Reader {
            src,
            header: Value::Null,
            footer: None,
            cut: None,
            first: None,
            line: Vec::new(),
            line_no: 0,
            events: 0,
        };
        let mut first = r.next_object()?;
        // A stream's schema line (`rstrace --json` output read as a
        // recording) is no event: checked, then skipped.
        if let Some(v) = first.as_ref().filter(|v| v["type"] == "schema") {
            let ver = v["version"].as_u64().unwrap_or(0);
            let max = crate::value::json_shape::SCHEMA_VERSION;
            if ver > max {
                return Err(bad(format!(
                    "JSON stream version {ver} is newer than this rtrace reads ({max})"
                )));
            }
            first = r.next_object()?;
        }
        if let Some(v) = first {
            if v["type"] == "header" {
                let ver = v["version"].as_u64().unwrap_or(0);
                if ver > VERSION {
                    return Err(bad(format!(
                        "trace file version {ver} is newer than this rtrace reads ({VERSION})"
                    )));
                }
                r.header = v;
            } else {
                r.first = Some((v, r.text().to_string()));
            }
        }
        Ok(r)
    }

    /// Events handed out so far.
    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// The next event (not the header or footer); `None` at the end.
    pub fn next_event(&mut self) -> io::Result<Option<Value>> {
        loop {
            let v = match self.first.take() {
                Some((v, _)) => v,
                None => match self.next_object()? {
                    Some(v) => v,
                    None => return Ok(None),
                },
            };
            if v["type"] == "footer" {
                self.footer = Some(v);
                continue;
            }
            self.events += 1;
            return Ok(Some(v));
        }
    }

    /// The next event, typed ([`Event`]; an object of a type this build
    /// does not know is [`Event::Other`]); `None` at the end. An event of a
    /// known type whose fields do not fit its type is an error naming it.
    /// Read from the line's text, so decoded structures keep their field
    /// order (a [`Value`] object's keys are sorted).
    pub fn next_typed(&mut self) -> io::Result<Option<Event>> {
        loop {
            let ev = match self.first.take() {
                Some((_, text)) => serde_json::from_str::<Event>(&text)
                    .map_err(|e| bad(format!("line {}: not JSON: {e}", self.line_no)))?,
                None => match self.next_parsed(event_of)? {
                    Some(ev) => ev,
                    None => return Ok(None),
                },
            };
            if let Event::Other(v) = &ev {
                if v["type"] == "footer" {
                    self.footer = Some(v.clone());
                    continue;
                }
            }
            self.events += 1;
            return match ev {
                Event::Other(v) if is_known(&v) => Err(bad(format!(
                    "event {}: {} event: {}",
                    self.events,
                    v["type"],
                    shape_error(&v)
                ))),
                ev => Ok(Some(ev)),
            };
        }
    }

    /// The header, typed; `None` when the file has none.
    pub fn typed_header(&self) -> io::Result<Option<Header>> {
        if self.header.is_null() {
            return Ok(None);
        }
        Header::deserialize(&self.header)
            .map(Some)
            .map_err(|e| bad(format!("header: {e}")))
    }

    /// The footer, typed; `None` before the end or when the file has none.
    pub fn typed_footer(&self) -> io::Result<Option<Footer>> {
        self.footer
            .as_ref()
            .map(|f| Footer::deserialize(f).map_err(|e| bad(format!("footer: {e}"))))
            .transpose()
    }

    /// Reads and parses the next non-empty line.
    fn next_object(&mut self) -> io::Result<Option<Value>> {
        self.next_parsed(|t| serde_json::from_slice::<Value>(t).map(|v| v.is_object().then_some(v)))
    }

    /// The text of the line read last.
    fn text(&self) -> &str {
        std::str::from_utf8(self.line.trim_ascii()).unwrap_or_default()
    }

    /// Reads the next non-empty line and parses it with `parse`
    /// (`Ok(None)`: JSON, but not an object).
    fn next_parsed<T>(
        &mut self,
        parse: impl Fn(&[u8]) -> serde_json::Result<Option<T>>,
    ) -> io::Result<Option<T>> {
        loop {
            if self.cut.is_some() {
                return Ok(None);
            }
            self.line.clear();
            match self.src.read_until(b'\n', &mut self.line) {
                Ok(0) => return Ok(None),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    self.cut = Some(format!(
                        "recording cut after {} events: {e}",
                        self.events + self.first.is_some() as u64
                    ));
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
            self.line_no += 1;
            let complete = self.line.ends_with(b"\n");
            let text = self.line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            if let Err(e) = std::str::from_utf8(text) {
                // Only a line cut inside a character may end in a partial one.
                if complete || e.error_len().is_some() {
                    return Err(bad(format!("line {}: not UTF-8: {e}", self.line_no)));
                }
            }
            match parse(text) {
                Ok(Some(v)) => return Ok(Some(v)),
                Ok(None) => return Err(bad(format!("line {}: not a JSON object", self.line_no))),
                Err(_) if !complete && text.starts_with(b"{") => {
                    self.cut = Some(format!(
                        "recording cut after {} events: its last line is incomplete",
                        self.events + self.first.is_some() as u64
                    ));
                    return Ok(None);
                }
                Err(e) => return Err(bad(format!("line {}: not JSON: {e}", self.line_no))),
            }
        }
    }
}

impl Iterator for Reader {
    type Item = io::Result<Value>;

    fn next(&mut self) -> Option<io::Result<Value>> {
        self.next_event().transpose()
    }
}

/// A line as an [`Event`]; `None` for JSON that is not an object.
fn event_of(text: &[u8]) -> serde_json::Result<Option<Event>> {
    Ok(match serde_json::from_slice::<Event>(text)? {
        Event::Other(v) if !v.is_object() => None,
        ev => Some(ev),
    })
}

/// Why `v`, of a typed kind, does not fit its type.
fn shape_error(v: &Value) -> String {
    use super::event::{Exit, Libcall, Probe, Signal, Syscall};
    let e = match v["type"].as_str() {
        Some("syscall") => Syscall::deserialize(v).err(),
        Some("signal") => Signal::deserialize(v).err(),
        Some("exit") => Exit::deserialize(v).err(),
        Some("libcall") => Libcall::deserialize(v).err(),
        Some("probe") => Probe::deserialize(v).err(),
        _ => None,
    };
    e.map_or_else(|| "unknown shape".into(), |e| e.to_string())
}

/// An object whose `"type"` names one of [`Event`]'s typed variants: it
/// must not fall back to [`Event::Other`].
fn is_known(v: &Value) -> bool {
    matches!(
        v["type"].as_str(),
        Some("syscall" | "signal" | "exit" | "libcall" | "probe")
    )
}

pub(super) fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}
