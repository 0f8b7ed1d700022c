//! Reading the recording a report is about: twice, as a stream (the
//! process tree needs every spawn before the events are attributed: a
//! child's events come before its parent's `clone` record). A recording
//! that cannot be read twice (standard input, a pipe) is first copied to
//! an unlinked temporary file, never into memory.

use super::Report;
use crate::tracefile::Reader;
use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

/// A recording on a file that can be read from its start again.
pub(super) struct Rewindable(File);

impl Rewindable {
    /// Opens `path` (`-`: standard input).
    pub(super) fn open(path: &str) -> io::Result<Rewindable> {
        if path != "-" {
            let f = File::open(Path::new(path))?;
            if f.metadata()?.is_file() {
                return Ok(Rewindable(f));
            }
            return Rewindable::spool(&mut io::BufReader::new(f));
        }
        Rewindable::spool(&mut io::stdin().lock())
    }

    fn spool(src: &mut dyn io::Read) -> io::Result<Rewindable> {
        let name = std::env::temp_dir().join(format!("rtrace-report-{}", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&name)?;
        let _ = std::fs::remove_file(&name);
        io::copy(src, &mut f)?;
        Ok(Rewindable(f))
    }

    /// A reader from the start of the file.
    pub(super) fn reader(&mut self) -> io::Result<Reader> {
        self.0.seek(SeekFrom::Start(0))?;
        Reader::new(Box::new(self.0.try_clone()?))
    }
}

/// Reads `path` into a report keeping the `top` slowest calls; warns when
/// the recording was cut short.
pub(super) fn read(path: &str, top: usize) -> io::Result<Report> {
    let mut file = Rewindable::open(path)?;
    let mut first = file.reader()?;
    let mut r = Report::new(first.header.clone(), top);
    let mut i = 0;
    while let Some(ev) = first.next_event()? {
        r.note(i, &ev);
        i += 1;
    }
    drop(first);
    let mut second = file.reader()?;
    let mut i = 0;
    while let Some(ev) = second.next_event()? {
        r.add(i, &ev);
        i += 1;
    }
    if let Some(cut) = &second.cut {
        eprintln!("rtrace report: warning: {path}: {cut}");
    }
    r.finish(second.footer.take());
    Ok(r)
}
