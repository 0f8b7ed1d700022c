//! Where trace text goes: stderr, `-o FILE` (`-A` appends), `-o |CMD` or
//! `-o !CMD` (piped into `sh -c CMD`), or one file per process (`-ff`,
//! `FILE.PID`).
//!
//! Output is block-buffered (a tracer that flushes every line pays a write
//! per syscall); it is flushed at exit, on rtrace's fatal signals, and after
//! every line when it goes to stderr or a pipe, as strace line-buffers those.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::process::{Child, Command, Stdio};

/// One output stream and whether it has an unterminated line.
pub struct Stream {
    w: BufWriter<Box<dyn Write>>,
    line_flush: bool,
    /// The thread whose syscall line is open (printed without its end).
    pub open_line: Option<i32>,
    /// The first write error, if any (EPIPE: a closed reader).
    pub error: Option<io::Error>,
}

impl Stream {
    fn new(w: Box<dyn Write>, line_flush: bool) -> Stream {
        Stream {
            w: BufWriter::with_capacity(1 << 16, w),
            line_flush,
            open_line: None,
            error: None,
        }
    }

    /// Writes text (no newline handling).
    pub fn write_str(&mut self, s: &str) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.w.write_all(s.as_bytes()) {
            self.error = Some(e);
        }
    }

    /// Called after a line ends.
    pub fn line_done(&mut self) {
        if self.line_flush {
            self.flush();
        }
    }

    /// Flushes buffered text.
    pub fn flush(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.w.flush() {
                self.error = Some(e);
            }
        }
    }
}

/// The set of output streams.
pub struct Sink {
    main: Stream,
    separate: Option<(String, bool)>,
    per_tid: HashMap<i32, Stream>,
    /// The command reading a `-o |CMD` pipe, waited for at the end.
    reader: Option<Child>,
    /// Output goes to a file or pipe (`-o`): affects the pid prefix style.
    pub to_file: bool,
}

impl Sink {
    /// Opens the output per `-o`, `-A` and `-ff`.
    pub fn open(output: Option<&str>, append: bool, separate: bool) -> io::Result<Sink> {
        let mut reader = None;
        let main = match output {
            // stderr is line-flushed, as strace's is: a reader of a pipe
            // (`2>&1 | grep`) sees each line as it happens.
            None => Stream::new(Box::new(io::stderr()), true),
            Some(path) if path.starts_with('|') || path.starts_with('!') => {
                let mut child = Command::new("/bin/sh")
                    .arg("-c")
                    .arg(&path[1..])
                    .stdin(Stdio::piped())
                    .spawn()?;
                let stdin = child.stdin.take().ok_or(io::ErrorKind::BrokenPipe)?;
                reader = Some(child);
                Stream::new(Box::new(stdin), true)
            }
            Some(_) if separate => Stream::new(Box::new(io::sink()), false),
            Some(path) => Stream::new(Box::new(open_file(path, append)?), false),
        };
        Ok(Sink {
            main,
            separate: if separate {
                output.map(|p| (p.to_string(), append))
            } else {
                None
            },
            per_tid: HashMap::new(),
            reader,
            to_file: output.is_some(),
        })
    }

    /// The stream for thread `tid`.
    pub fn stream(&mut self, tid: i32) -> &mut Stream {
        match &self.separate {
            None => &mut self.main,
            Some((base, append)) => {
                let (base, append) = (base.clone(), *append);
                self.per_tid.entry(tid).or_insert_with(|| {
                    match open_file(&format!("{base}.{tid}"), append) {
                        Ok(f) => Stream::new(Box::new(f), false),
                        Err(e) => {
                            eprintln!("rstrace: can't open '{base}.{tid}': {e}");
                            Stream::new(Box::new(io::sink()), false)
                        }
                    }
                })
            }
        }
    }

    /// The main stream (summaries).
    pub fn main(&mut self) -> &mut Stream {
        &mut self.main
    }

    /// Is each thread written to its own file?
    pub fn separate(&self) -> bool {
        self.separate.is_some()
    }

    /// Flushes everything.
    pub fn flush(&mut self) {
        self.main.flush();
        for s in self.per_tid.values_mut() {
            s.flush();
        }
    }

    /// Closes a thread's own file (after it exited, with `-ff`).
    pub fn close(&mut self, tid: i32) {
        if let Some(mut s) = self.per_tid.remove(&tid) {
            s.flush();
        }
    }

    /// Flushes everything and, for `-o |CMD`, closes the pipe and waits for
    /// the command to finish reading (strace waits for it too).
    pub fn close_all(&mut self) {
        self.flush();
        if let Some(mut child) = self.reader.take() {
            // Dropping the writer closes the pipe: the reader sees EOF.
            self.main = Stream::new(Box::new(io::sink()), false);
            let _ = child.wait();
        }
    }

    /// The first write error of the main stream.
    pub fn error(&self) -> Option<&io::Error> {
        self.main.error.as_ref()
    }
}

fn open_file(path: &str, append: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create(true);
    if append {
        o.append(true);
    } else {
        o.truncate(true);
    }
    o.open(path)
}
