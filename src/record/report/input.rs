//! Reading the recording a report is about: twice, as a stream
//! ([`Rewindable`]).

use super::Report;
use crate::tracefile::Rewindable;
use std::io;
use std::path::Path;

/// Reads `path` into a report keeping the `top` slowest calls; warns when
/// the recording was cut short.
pub(super) fn read(path: &str, top: usize) -> io::Result<Report> {
    let mut file = Rewindable::open(Path::new(path))?;
    let mut r = Report::new(file.reader()?.header, top);
    file.each(|i, ev| r.note(i, &ev))?;
    let second = file.each(|i, ev| r.add(i, &ev))?;
    if let Some(cut) = &second.cut {
        eprintln!("rtrace report: warning: {path}: {cut}");
    }
    r.finish(second.footer);
    Ok(r)
}
