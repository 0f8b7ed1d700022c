//! Reading a trace file: JSON Lines, optionally zstd-compressed, one
//! `header` object first, events, then one `footer` object.
//!
//! Schema version 1 (documented in README.md, "Trace file"):
//! - `{"type":"header","version":1,"tool":"rtrace","command":[..],"cwd":..,
//!   "env_digest":..,"start":UNIX_SECONDS,..}`
//! - events as rstrace `--json` prints them: `"type"` is `syscall`,
//!   `signal`, `exit`, ... each with a `pid`;
//! - `{"type":"footer","exit_code":..,"elapsed":SECONDS,..}`.

use serde_json::Value;
use std::io::{self, Read};
use std::path::Path;

/// The schema version this build writes and reads.
pub const VERSION: u64 = 1;

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

/// Turns raw file bytes into text: decompresses zstd frames.
fn decode(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
    if bytes.starts_with(&ZSTD_MAGIC) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "zstd-compressed trace files are not supported by this build",
        ));
    }
    Ok(bytes)
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
                Some("footer") => r.footer = Some(v),
                _ => r.events.push(v),
            }
        }
        Ok(r)
    }
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
    }
}
