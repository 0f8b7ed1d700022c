//! CI reproduction: `rtrace record` writes a trace file, `rtrace report`
//! summarises one, `rtrace diff` compares two, `rtrace export` turns one into
//! a Chrome trace, folded stacks or a flamegraph.
//!
//! The trace file ([`crate::tracefile`]) is JSON Lines: a `header` object, the events
//! rstrace's `--json` prints (plus library calls, probe hits and injections),
//! and a `footer` with the command's fate. Every reader goes through
//! [`crate::tracefile::Reader`] (a stream; `report` reads only that way),
//! `diff` and `export` through [`crate::tracefile::Recording`] (all of it
//! in memory).

pub mod capture;
pub mod cli;
pub mod diff;
pub mod export;
mod header;
pub mod probe;
pub mod report;
mod writers;

/// Writes `text` to standard output and flushes it. A reader that went
/// away (`rtrace export … | head`) ends rtrace quietly by SIGPIPE, as it
/// ends rstrace and any filter in a pipeline; other errors are returned.
pub fn print_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let r = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    if let Err(e) = &r {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            crate::engine::signals::die_like(libc::SIGPIPE);
        }
    }
    r
}
