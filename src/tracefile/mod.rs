//! Reading a trace file: JSON Lines, optionally zstd-compressed, one
//! `header` object first, events, then one `footer` object; and
//! [`ZstdWriter`], which compresses a trace file as it is written.
//!
//! Compression: a file starting with zstd's frame magic is decompressed
//! (ruzstd, pure Rust) before parsing; it may hold several concatenated
//! frames (and skippable frames), as `rtrace record --zstd` writes it (one
//! frame per [`ZSTD_CHUNK`] of text) and as `zstd` / `cat a.zst b.zst`
//! produce.
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

pub mod tree;

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use ruzstd::encoding::{compress, CompressionLevel};
use serde_json::Value;
use std::io::{self, Read, Write};
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
}

/// zstd's frame magic.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Uncompressed bytes per zstd frame written by [`ZstdWriter`]: memory
/// stays bounded by about this much, and a file cut short loses at most
/// its last frame.
pub const ZSTD_CHUNK: usize = 1 << 20;

/// Whether `bytes` start like a zstd frame.
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&ZSTD_MAGIC)
}

/// Turns raw file bytes into text: decompresses zstd frames.
fn decode(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
    if is_zstd(&bytes) {
        return decompress(&bytes);
    }
    Ok(bytes)
}

/// Decompresses a zstd stream: every frame in `input`, one after the other
/// (skippable frames are skipped). Truncated or corrupt input is an error.
pub fn decompress(mut input: &[u8]) -> io::Result<Vec<u8>> {
    let zerr = |e: FrameDecoderError| bad(format!("zstd: {e}"));
    let mut out = Vec::new();
    let mut dec = FrameDecoder::new();
    while !input.is_empty() {
        match dec.reset(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                input = input
                    .get(length as usize..)
                    .ok_or_else(|| bad("zstd: truncated skippable frame".into()))?;
                continue;
            }
            Err(e) => return Err(zerr(e)),
        }
        while !dec.is_finished() {
            let before = input.len();
            dec.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(ZSTD_CHUNK))
                .map_err(zerr)?;
            dec.collect_to_writer(&mut out)?;
            if input.len() == before && !dec.is_finished() {
                return Err(bad("zstd: truncated frame".into()));
            }
        }
        dec.collect_to_writer(&mut out)?;
    }
    Ok(out)
}

/// A `Write` that compresses into `inner` as concatenated zstd frames, one
/// per [`ZSTD_CHUNK`] bytes of input (a valid zstd stream: `zstd -d` reads
/// it whole). `flush` only flushes `inner`: the text buffered for the
/// current frame is compressed when the chunk fills up or at [`finish`].
///
/// [`finish`]: ZstdWriter::finish
pub struct ZstdWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
    frame: Vec<u8>,
    chunk: usize,
}

impl<W: Write> ZstdWriter<W> {
    /// A writer with frames of [`ZSTD_CHUNK`] bytes.
    pub fn new(inner: W) -> ZstdWriter<W> {
        ZstdWriter::with_chunk(inner, ZSTD_CHUNK)
    }

    /// A writer with frames of `chunk` bytes of input.
    pub fn with_chunk(inner: W, chunk: usize) -> ZstdWriter<W> {
        ZstdWriter {
            inner,
            buf: Vec::with_capacity(chunk.min(ZSTD_CHUNK)),
            frame: Vec::new(),
            chunk: chunk.max(1),
        }
    }

    /// Compresses what is buffered into one frame and writes it.
    fn emit(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.frame.clear();
        // Into memory: ruzstd panics on a failing drain.
        compress(&self.buf[..], &mut self.frame, CompressionLevel::Fastest);
        self.buf.clear();
        self.inner.write_all(&self.frame)
    }

    /// Writes the last frame and flushes `inner`.
    pub fn finish(&mut self) -> io::Result<()> {
        self.emit()?;
        self.inner.flush()
    }
}

impl<W: Write> Write for ZstdWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = data.len().min(self.chunk - self.buf.len());
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() >= self.chunk {
            self.emit()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl Recording {
    /// Reads a trace file (`-` for standard input).
    pub fn read(path: &Path) -> io::Result<Recording> {
        let mut bytes = Vec::new();
        if path.as_os_str() == "-" {
            io::stdin().read_to_end(&mut bytes)?;
        } else {
            bytes = std::fs::read(path)?;
        }
        Recording::from_bytes(bytes)
    }

    /// Parses a trace file's bytes, decompressing them first if they are
    /// zstd frames.
    pub fn from_bytes(bytes: Vec<u8>) -> io::Result<Recording> {
        Recording::parse(&decode(bytes)?)
    }

    /// Parses trace-file text. A line that is not a JSON object is an
    /// error naming its line number; a header of a newer schema version is
    /// refused.
    pub fn parse(text: &[u8]) -> io::Result<Recording> {
        let text = std::str::from_utf8(text).map_err(|e| bad(format!("not UTF-8: {e}")))?;
        let mut r = Recording::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line)
                .map_err(|e| bad(format!("line {}: not JSON: {e}", i + 1)))?;
            if !v.is_object() {
                return Err(bad(format!("line {}: not a JSON object", i + 1)));
            }
            match v["type"].as_str() {
                Some("header") if i == 0 => {
                    let ver = v["version"].as_u64().unwrap_or(0);
                    if ver > VERSION {
                        return Err(bad(format!(
                            "trace file version {ver} is newer than this rtrace reads ({VERSION})"
                        )));
                    }
                    r.header = v;
                }
                // A stream's schema line (`rstrace --json` output read as a
                // recording): no event.
                Some("schema") if i == 0 => {
                    let ver = v["version"].as_u64().unwrap_or(0);
                    let max = crate::value::json_shape::SCHEMA_VERSION;
                    if ver > max {
                        return Err(bad(format!(
                            "JSON stream version {ver} is newer than this rtrace reads ({max})"
                        )));
                    }
                }
                Some("footer") => r.footer = Some(v),
                _ => r.events.push(v),
            }
        }
        Ok(r)
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

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
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
    fn zstd_frames_round_trip() {
        let text: String = (0..5000)
            .map(|i| format!("{{\"type\":\"syscall\",\"pid\":{i}}}\n"))
            .collect();
        let mut z = ZstdWriter::with_chunk(Vec::new(), 4096);
        for piece in text.as_bytes().chunks(1000) {
            z.write_all(piece).unwrap();
        }
        z.finish().unwrap();
        let bytes = z.inner;
        assert!(is_zstd(&bytes));
        // Many frames: one per chunk.
        let frames = bytes.windows(4).filter(|w| *w == ZSTD_MAGIC).count();
        assert!(frames >= text.len() / 4096, "{frames}");
        assert!(bytes.len() < text.len() / 2);
        assert_eq!(decompress(&bytes).unwrap(), text.as_bytes());
        let r = Recording::from_bytes(bytes.clone()).unwrap();
        assert_eq!(r.events.len(), 5000);
        // A skippable frame between frames is skipped.
        let mut skip = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
        skip.extend_from_slice(&bytes);
        let mut with_skip = bytes.clone();
        with_skip.extend_from_slice(&skip);
        assert_eq!(decompress(&with_skip).unwrap().len(), 2 * text.len());
        // Cut short or followed by garbage: an error, no panic.
        for cut in [bytes.len() - 1, bytes.len() / 2, 5] {
            assert!(
                Recording::from_bytes(bytes[..cut].to_vec()).is_err(),
                "{cut}"
            );
        }
        let mut junk = bytes.clone();
        junk.extend_from_slice(b"junk");
        assert!(decompress(&junk).is_err());
    }
}
