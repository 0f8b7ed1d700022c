//! Where trace text goes: stderr, `-o FILE` (`-A` appends), `-o |CMD` or
//! `-o !CMD` (piped into `sh -c CMD`), or one file per process (`-ff`,
//! `FILE.PID`).
//!
//! Output is block-buffered (a tracer that flushes every line pays a write
//! per syscall); it is flushed at exit, on rtrace's fatal signals, and after
//! every line when it goes to stderr or a pipe, as strace line-buffers those.
//! Files are [`Paced`]: what is buffered reaches them within 100 ms.
//!
//! With `--normalize` every stream passes whole lines through one shared
//! [`Normalizer`] (pids, addresses, times, temp paths; see
//! [`crate::output::normalize`]): text is held until its line ends.

use crate::output::normalize::Normalizer;
use crate::output::paced::Paced;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;

/// One output stream and whether it has an unterminated line.
pub struct Stream {
    w: Box<dyn Write>,
    line_flush: bool,
    /// The thread whose syscall line is open (printed without its end).
    pub open_line: Option<i32>,
    /// The first write error, if any (EPIPE: a closed reader).
    pub error: Option<io::Error>,
    /// `--normalize`: the shared normaliser and the unfinished line.
    norm: Option<(Rc<RefCell<Normalizer>>, String)>,
}

impl Stream {
    fn new(w: Box<dyn Write>, line_flush: bool) -> Stream {
        Stream::unbuffered(Box::new(BufWriter::with_capacity(1 << 16, w)), line_flush)
    }

    /// A block-buffered stream on a file, written out every 100 ms.
    fn paced(f: File) -> Stream {
        Stream::unbuffered(Box::new(Paced::new(f)), false)
    }

    fn unbuffered(w: Box<dyn Write>, line_flush: bool) -> Stream {
        Stream {
            w,
            line_flush,
            open_line: None,
            error: None,
            norm: None,
        }
    }

    /// Writes text (no newline handling; with `--normalize`, complete
    /// lines go out normalised and the rest waits for its newline).
    pub fn write_str(&mut self, s: &str) {
        if self.error.is_some() {
            return;
        }
        let text = match &mut self.norm {
            None => None,
            Some((n, partial)) => {
                partial.push_str(s);
                let Some(end) = partial.rfind('\n') else {
                    return;
                };
                let done: String = partial.drain(..=end).collect();
                Some(n.borrow_mut().text(&done))
            }
        };
        let bytes = text.as_deref().unwrap_or(s).as_bytes();
        if let Err(e) = self.w.write_all(bytes) {
            self.error = Some(e);
        }
    }

    /// Writes out a normalised partial line (at the end of output).
    fn drain_partial(&mut self) {
        let rest = match &mut self.norm {
            Some((n, partial)) if !partial.is_empty() => {
                let p = std::mem::take(partial);
                n.borrow_mut().text(&p)
            }
            _ => return,
        };
        if self.error.is_none() {
            if let Err(e) = self.w.write_all(rest.as_bytes()) {
                self.error = Some(e);
            }
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
    /// `--normalize`: shared by every stream.
    norm: Option<Rc<RefCell<Normalizer>>>,
    /// The line every stream starts with (`--json`'s schema line).
    preamble: Option<String>,
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
            Some(path) => Stream::paced(open_file(path, append)?),
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
            norm: None,
            preamble: None,
        })
    }

    /// A sink writing everything to `w`, block-buffered (as a `-o FILE`
    /// sink is). `rtrace record` writes its trace file through this.
    pub fn to_writer(w: Box<dyn Write>) -> Sink {
        Sink {
            main: Stream::new(w, false),
            separate: None,
            per_tid: HashMap::new(),
            reader: None,
            to_file: true,
            norm: None,
            preamble: None,
        }
    }

    /// Starts every stream with `line`: the main one now, `-ff`'s
    /// per-process files when they open (`--json`'s schema line).
    pub fn preamble(&mut self, line: String) {
        if self.separate.is_none() {
            self.main.write_str(&line);
        }
        self.preamble = Some(line);
    }

    /// A sink writing everything to `w` through a paced buffer (as a
    /// `-o FILE` sink is): written out every 50 ms by the flusher thread,
    /// so `w` must be `Send`. `rtrace record` writes its trace file
    /// through this.
    pub fn to_paced(w: impl Write + Send + 'static) -> Sink {
        Sink {
            main: Stream::unbuffered(Box::new(Paced::new(w)), false),
            separate: None,
            per_tid: HashMap::new(),
            reader: None,
            to_file: true,
            norm: None,
            preamble: None,
        }
    }

    /// `--normalize`: from now on every stream's lines are normalised.
    pub fn normalize(&mut self) {
        let n = Rc::new(RefCell::new(Normalizer::new()));
        self.main.norm = Some((n.clone(), String::new()));
        self.norm = Some(n);
    }

    /// The stream for thread `tid`.
    pub fn stream(&mut self, tid: i32) -> &mut Stream {
        match &self.separate {
            None => &mut self.main,
            Some((base, append)) => {
                let (base, append) = (base.clone(), *append);
                let norm = &self.norm;
                let preamble = &self.preamble;
                self.per_tid.entry(tid).or_insert_with(|| {
                    let mut s = match open_file(&format!("{base}.{tid}"), append) {
                        Ok(f) => Stream::paced(f),
                        Err(e) => {
                            eprintln!("{}: can't open '{base}.{tid}': {e}", crate::strace::prog());
                            Stream::new(Box::new(io::sink()), false)
                        }
                    };
                    s.norm = norm.as_ref().map(|n| (n.clone(), String::new()));
                    if let Some(p) = preamble {
                        s.write_str(p);
                    }
                    s
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
            s.drain_partial();
            s.flush();
        }
    }

    /// Flushes everything and, for `-o |CMD`, closes the pipe and waits for
    /// the command to finish reading (strace waits for it too).
    pub fn close_all(&mut self) {
        self.main.drain_partial();
        for s in self.per_tid.values_mut() {
            s.drain_partial();
        }
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
