//! Reading a trace file: JSON Lines, optionally zstd-compressed, one
//! `header` object first, events, then one `footer` object. [`Reader`]
//! reads one as a stream (memory bounded by its longest line);
//! [`Rewindable`] reads one in several passes, as `report`, `diff`,
//! `export` and `--replay-faults` do; a [`Recording`] holds a whole one in
//! memory (tests, small inputs). zstd (frames written and read as a
//! stream) is [`zstd`].
//!
//! Schema version 3 (documented in docs/record.md, "Trace file", and
//! docs/schema/record.schema.json):
//! - `{"type":"header","stream":"record","version":3,"tool":"rtrace",
//!   "command":[..],"cwd":..,"env_digest":..,"start_ns":UNIX_NS,..}`
//! - events as rstrace `--json` prints them: `"type"` is `syscall`,
//!   `signal`, `exit`, ... each with a `pid`; `probe` for `--probe` hits
//!   (fields in `record::probe`); flag sets are `{"flags":[..]}`, an
//!   `exit` has `exit_code` or `signal` and `core_dumped`;
//! - `{"type":"footer","exit_code":..,"elapsed_ns":NS,..}`.
//!
//! Times are integer nanoseconds (`ts_ns`, `dur_ns`; [`ts_ns`] and
//! [`dur_ns`] also read version 2's float seconds); bytes that are not
//! UTF-8 are `{"bytes_hex":..}` (`crate::value::json::bytes_of` reads
//! them back). A stream's schema line, first in `rstrace --json` output,
//! is skipped.
//!
//! [`event`] is the typed model of these lines (`Serialize` and
//! `Deserialize`); [`Reader::next_typed`] reads events into it.

pub mod event;
mod reader;
mod rewind;
pub mod tree;
pub mod zstd;

pub use reader::Reader;
pub use rewind::{EventPass, Pass, Rewindable};
pub use zstd::{decompress, is_zstd, ZstdWriter, ZSTD_CHUNK};

use serde_json::Value;
use std::io;
use std::path::Path;

/// The schema version this build writes and reads (and every older one).
/// Version 3 made times integer nanoseconds and non-UTF-8 bytes
/// `{"bytes_hex":..}`. Version 2 changed two shapes: an `exit` event has `exit_code`, or
/// `signal` and `core_dumped`, where version 1 had a `status` text
/// (`exited with 2`), and flag sets that version 1 wrote as
/// `{"sym":"A|B"}` are `{"flags":["A","B"]}`. Readers take both
/// ([`super::tree::exit_text`]).
pub const VERSION: u64 = 3;

/// A whole recording in memory.
#[derive(Debug, Default)]
pub struct Recording {
    /// The `header` object (`Value::Null` if the file had none, e.g. plain
    /// `rstrace --json` output).
    pub header: Value,
    /// Every other object, in file order.
    pub events: Vec<Value>,
    /// The `footer` object, if the recording finished.
    pub footer: Option<Value>,
    /// Set when the file was cut short inside a line or a zstd frame
    /// ([`Reader::cut`]): the events are those before the cut.
    pub cut: Option<String>,
}

impl Recording {
    /// Reads a trace file (`-` for standard input).
    pub fn read(path: &Path) -> io::Result<Recording> {
        Recording::from_reader(Reader::open(path)?)
    }

    /// Parses a trace file's bytes (plain or zstd frames).
    pub fn from_bytes(bytes: Vec<u8>) -> io::Result<Recording> {
        Recording::from_reader(Reader::new(Box::new(io::Cursor::new(bytes)))?)
    }

    /// Parses trace-file text. A line that is not a JSON object is an
    /// error naming its line number; a header of a newer schema version is
    /// refused; an incomplete last line is left out ([`Recording::cut`]).
    pub fn parse(text: &[u8]) -> io::Result<Recording> {
        Recording::from_bytes(text.to_vec())
    }

    /// An [`EventPass`] over the events in memory.
    pub fn pass(&self) -> Box<EventPass<'_>> {
        Box::new(move |f| {
            self.events.iter().enumerate().for_each(|(i, ev)| f(i, ev));
            Ok(())
        })
    }

    fn from_reader(mut r: Reader) -> io::Result<Recording> {
        let mut events = Vec::new();
        while let Some(ev) = r.next_event()? {
            events.push(ev);
        }
        Ok(Recording {
            header: r.header,
            events,
            footer: r.footer,
            cut: r.cut,
        })
    }
}

/// An event's timestamp in nanoseconds since the Unix epoch: `ts_ns`, or
/// the `time` (float seconds) of schema versions before 3.
pub fn ts_ns(ev: &Value) -> Option<u64> {
    ev["ts_ns"]
        .as_u64()
        .or_else(|| secs_to_ns(ev["time"].as_f64()?))
}

/// An event's duration in nanoseconds: `dur_ns`, or the `duration` (float
/// seconds) of schema versions before 3.
pub fn dur_ns(ev: &Value) -> Option<u64> {
    ev["dur_ns"]
        .as_u64()
        .or_else(|| secs_to_ns(ev["duration"].as_f64()?))
}

fn secs_to_ns(s: f64) -> Option<u64> {
    (s.is_finite() && s >= 0.0).then(|| (s * 1e9).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_events_footer() {
        let t = b"{\"type\":\"header\",\"version\":1}\n{\"type\":\"syscall\",\"pid\":1}\n\n{\"type\":\"footer\",\"exit_code\":3}\n";
        let r = Recording::parse(t).unwrap();
        assert_eq!(r.header["version"], 1);
        assert_eq!(r.events.len(), 1);
        assert_eq!(r.footer.unwrap()["exit_code"], 3);
        assert!(r.cut.is_none());
    }

    #[test]
    fn bad_lines_and_versions_are_errors() {
        let e = Recording::parse(b"{\"type\":\"syscall\"}\nnope\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(Recording::parse(b"[1]\n").is_err());
        let e = Recording::parse(b"{\"type\":\"header\",\"version\":99}\n").unwrap_err();
        assert!(e.to_string().contains("newer"), "{e}");
        let z = Recording::parse(b"{\"type\":\"syscall\"}\n").unwrap();
        assert!(z.header.is_null());
        // rstrace --json output: its schema line is not an event.
        let s =
            b"{\"type\":\"schema\",\"stream\":\"rstrace\",\"version\":1}\n{\"type\":\"syscall\"}\n";
        assert_eq!(Recording::parse(s).unwrap().events.len(), 1);
        let e = Recording::parse(b"{\"type\":\"schema\",\"stream\":\"rstrace\",\"version\":9}\n")
            .unwrap_err();
        assert!(e.to_string().contains("newer"), "{e}");
    }

    #[test]
    fn a_cut_last_line_is_left_out_and_said() {
        let t = b"{\"type\":\"header\",\"version\":2}\n{\"type\":\"syscall\",\"pid\":1}\n{\"type\":\"sys";
        let r = Recording::parse(t).unwrap();
        assert_eq!(r.events.len(), 1);
        assert!(r.footer.is_none());
        let cut = r.cut.unwrap();
        assert!(cut.contains("cut after 1 events"), "{cut}");
        // Binary junk is not a cut recording.
        let e = Recording::parse(b"\xff\xfe\x00\x01").unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        assert!(Recording::parse(b"junk").is_err());
        // An incomplete line that is not the last one is damage.
        assert!(Recording::parse(b"{\"type\":\"sys\n{\"type\":\"exit\"}\n").is_err());
    }

    #[test]
    fn zstd_recordings_read_whole_and_cut() {
        use std::io::Write;
        let text: String = std::iter::once("{\"type\":\"header\",\"version\":2}\n".to_string())
            .chain((0..5000).map(|i| format!("{{\"type\":\"syscall\",\"pid\":{i}}}\n")))
            .collect();
        let mut z = ZstdWriter::with_chunk(Vec::new(), 4096);
        z.write_all(text.as_bytes()).unwrap();
        z.finish().unwrap();
        let bytes = z.get_ref().clone();
        let r = Recording::from_bytes(bytes.clone()).unwrap();
        assert_eq!(
            (r.events.len(), r.header["version"].as_u64()),
            (5000, Some(2))
        );
        assert!(r.cut.is_none());
        // Cut anywhere: the events before the cut, in order, and a warning.
        for cut in [bytes.len() - 1, bytes.len() / 2, 7] {
            let r = Recording::from_bytes(bytes[..cut].to_vec()).unwrap();
            assert!(r.cut.is_some(), "{cut}");
            assert!(r.events.len() < 5000, "{cut}");
            for (i, ev) in r.events.iter().enumerate() {
                assert_eq!(ev["pid"], i, "{cut}");
            }
        }
        let r = Recording::from_bytes(bytes[..bytes.len() - 1].to_vec()).unwrap();
        assert!(r.events.len() > 4000, "{}", r.events.len());
    }
}
