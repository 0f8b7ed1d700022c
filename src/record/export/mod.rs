//! `rtrace export --format chrome|folded|flamegraph [--weight count|time]
//! [-o OUT] FILE`: turns a recording into something a viewer reads.
//!
//! - `chrome`: Chrome trace event JSON ([`chrome`]), for Perfetto,
//!   chrome://tracing and trace_processor;
//! - `folded`: folded stacks ([`folded`]) for flamegraph tools;
//! - `flamegraph`: an SVG flamegraph ([`svg`]) of the same stacks.

pub mod chrome;
pub mod folded;
pub mod svg;

use crate::record::cli::{self, ExportArgs};
use crate::tracefile::{Pass, Rewindable};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where the export goes: `-o FILE` (written beside it and renamed when
/// complete, so an export that fails leaves any earlier FILE as it was),
/// else standard output.
struct Output {
    name: String,
    /// (temporary file, FILE) for `-o FILE`.
    rename: Option<(PathBuf, PathBuf)>,
    w: BufWriter<Box<dyn Write>>,
}

impl Output {
    fn open(path: Option<&Path>) -> Result<Output, String> {
        let (name, rename, w): (String, _, Box<dyn Write>) = match path {
            Some(p) if p.as_os_str() != "-" => {
                let mut tmp = p.as_os_str().to_owned();
                tmp.push(format!(".rtrace-{}", std::process::id()));
                let tmp = PathBuf::from(tmp);
                let f = File::create(&tmp).map_err(|e| format!("{}: {e}", p.display()))?;
                let name = p.display().to_string();
                (name, Some((tmp, p.to_path_buf())), Box::new(f))
            }
            _ => ("stdout".into(), None, Box::new(io::stdout())),
        };
        Ok(Output {
            name,
            rename,
            w: BufWriter::with_capacity(1 << 16, w),
        })
    }

    /// Flushes and puts the file in place, or removes it after an error.
    fn finish(mut self, r: io::Result<()>) -> io::Result<()> {
        let r = r.and_then(|()| self.w.flush());
        match (self.rename.take(), &r) {
            (Some((tmp, dest)), Ok(())) => std::fs::rename(tmp, dest),
            (Some((tmp, _)), Err(_)) => {
                let _ = std::fs::remove_file(tmp);
                r
            }
            (None, Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                // `rtrace export … | head`: ends quietly, as a filter does.
                crate::engine::signals::die_like(libc::SIGPIPE);
                r
            }
            (None, _) => r,
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.w.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Chrome,
    Folded,
    Flamegraph,
}

/// Runs `rtrace export`, parsed by clap; returns the exit code (0 done, 2
/// error).
pub fn main(o: ExportArgs) -> i32 {
    let format = match (o.format, o.folded) {
        (Some(cli::Format::Chrome), _) => Format::Chrome,
        (Some(cli::Format::Flamegraph), _) => Format::Flamegraph,
        _ => Format::Folded,
    };
    let weight = match o.weight {
        cli::Weight::Count => folded::Weight::Count,
        cli::Weight::Time => folded::Weight::Time,
    };
    if weight == folded::Weight::Time && format == Format::Chrome {
        eprintln!("rtrace export: --weight applies to folded and flamegraph only");
        return 2;
    }
    let input = o.input.display();
    let mut file = match Rewindable::open(&o.input) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rtrace export: {input}: {e}");
            return 2;
        }
    };
    let mut last = Pass::default();
    let mut first = match file.reader() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rtrace export: {input}: {e}");
            return 2;
        }
    };
    let header = std::mem::take(&mut first.header);
    if header.is_null() && matches!(first.next_event(), Ok(None)) {
        if let Some(cut) = &first.cut {
            eprintln!("rtrace export: warning: {input}: {cut}");
        }
        eprintln!("rtrace export: {input}: no events (not a trace file?)");
        return 2;
    }
    drop(first);
    let mut out = match Output::open(o.output.as_deref()) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("rtrace export: {e}");
            return 2;
        }
    };
    let mut pass = file.pass(&mut last);
    let written = match format {
        Format::Chrome => chrome::chrome(&header, &mut *pass, &mut out),
        Format::Folded | Format::Flamegraph => {
            folded::folded(&mut *pass, weight).and_then(|(stacks, real)| {
                if !real {
                    eprintln!("rtrace export: no stacks in {input} (record with -k); using program;syscall");
                }
                let text = if format == Format::Folded {
                    folded::to_text(&stacks)
                } else {
                    let unit = if weight == folded::Weight::Time {
                        "ns"
                    } else {
                        "calls"
                    };
                    svg::flamegraph(&stacks, &format!("rtrace: {input}"), unit)
                };
                out.write_all(text.as_bytes())
            })
        }
    };
    drop(pass);
    if let Some(cut) = &last.cut {
        eprintln!("rtrace export: warning: {input}: {cut}");
    }
    let name = out.name.clone();
    let written = out.finish(written).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData => format!("{input}: {e}"),
        _ => format!("{name}: {e}"),
    });
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rtrace export: {e}");
            2
        }
    }
}
