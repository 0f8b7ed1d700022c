//! A recording read more than once, as a stream each time: the process
//! tree needs every spawn before events can be attributed (a child's
//! events come before its parent's `clone` record, whose return value
//! names it), so `report`, `diff`, `export` and `--replay-faults` read a
//! recording in two passes, never holding its events. A recording that
//! cannot be read twice (standard input, a pipe) is first copied to an
//! unlinked temporary file, never into memory.

use super::Reader;
use serde_json::Value;
use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

/// One pass over a recording's events: calls its argument for each event,
/// in file order, with its index. Given a [`Rewindable`] by
/// [`Rewindable::pass`], a [`super::Recording`] by
/// [`super::Recording::pass`].
pub type EventPass<'a> = dyn FnMut(&mut dyn FnMut(usize, &Value)) -> io::Result<()> + 'a;

/// A recording on a file that can be read from its start again.
pub struct Rewindable(File);

/// What one pass over the events found besides them.
#[derive(Debug, Default)]
pub struct Pass {
    /// The `header` object (`Value::Null` when the file has none).
    pub header: Value,
    /// The `footer` object, when the recording finished.
    pub footer: Option<Value>,
    /// Set when the file was cut short ([`Reader::cut`]).
    pub cut: Option<String>,
    /// Events read.
    pub events: usize,
}

impl Rewindable {
    /// Opens `path` (`-`: standard input).
    pub fn open(path: &Path) -> io::Result<Rewindable> {
        if path.as_os_str() != "-" {
            let f = File::open(path)?;
            if f.metadata()?.is_file() {
                return Ok(Rewindable(f));
            }
            return Rewindable::spool(&mut io::BufReader::new(f));
        }
        Rewindable::spool(&mut io::stdin().lock())
    }

    fn spool(src: &mut dyn io::Read) -> io::Result<Rewindable> {
        let name = std::env::temp_dir().join(format!("rtrace-spool-{}", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&name)?;
        let _ = std::fs::remove_file(&name);
        io::copy(src, &mut f)?;
        Ok(Rewindable(f))
    }

    /// A reader from the start of the file (its header read).
    pub fn reader(&mut self) -> io::Result<Reader> {
        self.0.seek(SeekFrom::Start(0))?;
        Reader::new(Box::new(self.0.try_clone()?))
    }

    /// An [`EventPass`] over this file; the last pass's [`Pass`] (header,
    /// footer, cut) is left in `last`.
    pub fn pass<'a>(&'a mut self, last: &'a mut Pass) -> Box<EventPass<'a>> {
        Box::new(move |f| {
            *last = self.each(|i, ev| f(i, &ev))?;
            Ok(())
        })
    }

    /// One pass: `f(i, event)` for every event, in file order.
    pub fn each(&mut self, mut f: impl FnMut(usize, Value)) -> io::Result<Pass> {
        let mut r = self.reader()?;
        let mut i = 0;
        while let Some(ev) = r.next_event()? {
            f(i, ev);
            i += 1;
        }
        Ok(Pass {
            header: std::mem::take(&mut r.header),
            footer: r.footer.take(),
            cut: r.cut.take(),
            events: i,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn two_passes_see_the_same_events() {
        let mut f = tempfile_in_tmp();
        f.write_all(b"{\"type\":\"header\",\"version\":3}\n{\"type\":\"syscall\",\"pid\":1}\n{\"type\":\"syscall\",\"pid\":2}\n{\"type\":\"footer\",\"exit_code\":0}\n").unwrap();
        let mut r = Rewindable(f);
        for _ in 0..2 {
            let mut pids = Vec::new();
            let p = r.each(|i, ev| pids.push((i, ev["pid"].as_i64()))).unwrap();
            assert_eq!(pids, [(0, Some(1)), (1, Some(2))]);
            assert_eq!((p.events, p.header["version"].as_u64()), (2, Some(3)));
            assert_eq!(p.footer.unwrap()["exit_code"], 0);
            assert!(p.cut.is_none());
        }
    }

    fn tempfile_in_tmp() -> File {
        let name = std::env::temp_dir().join(format!("rtrace-rewind-test-{}", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&name)
            .unwrap();
        let _ = std::fs::remove_file(&name);
        f
    }
}
