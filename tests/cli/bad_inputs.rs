//! Bad command lines and bad files: every tool and subcommand, given
//! nonsense, must fail with a clear message and a non-zero exit, never a
//! panic and never a hang.
//!
//! Each case runs one binary with a timeout and checks that it exited (not
//! killed by a signal, not Rust's panic code 101) with a non-zero status,
//! that stderr has no panic message or backtrace hint, and that stderr
//! names the problem (one of the case's needles, case-insensitive). The
//! bad files (empty, garbage, a truncated ELF, a garbage prototype file,
//! garbage and truncated trace files, a directory) are made fresh in a
//! per-test directory. A test walks its whole list and reports every
//! failing case at once.

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A case that is still running after this is a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// What exit status a case must have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Exit {
    /// Non-zero (the usual case).
    Fail,
    /// Any status: the tool follows a reference tool that reports the
    /// problem and goes on (ltrace with a bad `-F` file runs the program).
    Any,
    /// Non-zero, or killed by the signal that killed the tracee: strace
    /// re-raises it, and the kernel kills a process whose exec fails past
    /// the point of no return (a truncated ELF) with SIGSEGV.
    FailOrTraceeSignal,
}

/// One bad invocation.
struct Case {
    bin: PathBuf,
    args: Vec<OsString>,
    /// stderr must contain one of these (case-insensitive).
    needles: Vec<String>,
    exit: Exit,
}

fn os(s: impl AsRef<std::ffi::OsStr>) -> OsString {
    s.as_ref().to_os_string()
}

/// The bytes `\xff\xfe` followed by `tail`: not UTF-8.
fn non_utf8(tail: &str) -> OsString {
    let mut v = vec![0xff, 0xfe];
    v.extend_from_slice(tail.as_bytes());
    OsString::from_vec(v)
}

/// The bad files of one test, in a directory of its own.
struct Files {
    dir: PathBuf,
    empty: PathBuf,
    garbage: PathBuf,
    trunc_elf: PathBuf,
    missing: PathBuf,
    bad_conf: PathBuf,
    bad_trace: PathBuf,
    half_trace: PathBuf,
    newer_trace: PathBuf,
    zstd_trace: PathBuf,
    good_trace: PathBuf,
    dead_pid: String,
}

impl Files {
    fn new(test: &str) -> Files {
        let dir = std::env::temp_dir().join(format!("rtrace-bad-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        let put = |name: &str, bytes: &[u8], exec: bool| {
            let p = dir.join(name);
            fs::write(&p, bytes).expect("write bad file");
            if exec {
                fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
            }
            p
        };
        // Deterministic noise (a linear congruential generator).
        let mut x: u32 = 0x1234_5678;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (x >> 16) as u8
            })
            .collect();
        let me = fs::read("/proc/self/exe").expect("read own executable");
        let empty = put("empty", b"", true);
        let garbage = put("garbage", &noise, true);
        // An ELF header and program headers whose sections lie past the end.
        let trunc_elf = put("trunc-elf", &me[..me.len().min(4096)], true);
        let bad_conf = put(
            "bad.conf",
            b"int f(;\nstruct { garbage (((\ntypedef = ;\n\xff\xfe\n",
            false,
        );
        let bad_trace = put("garbage.trace", &noise, false);
        let half_trace = put(
            "half.trace",
            // Broken inside the file, not at its end: an error. (A file cut
            // at its end is read up to its last complete event, with a
            // warning: tests/record/record_stream.rs.)
            b"{\"type\":\"header\",\"version\":1}\n{\"type\":\"syscall\",\"pid\":1,\"sysc\n{\"type\":\"syscall\",\"pid\":1}\n",
            false,
        );
        let newer_trace = put(
            "newer.trace",
            b"{\"type\":\"header\",\"version\":999}\n{\"type\":\"syscall\",\"pid\":1}\n",
            false,
        );
        let zstd_trace = put("z.trace", &[0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0], false);
        let good_trace = put(
            "good.trace",
            b"{\"type\":\"header\",\"version\":1,\"tool\":\"rtrace\",\"command\":[\"true\"]}\n\
{\"type\":\"syscall\",\"pid\":7,\"syscall\":\"getpid\",\"args\":[],\"return\":7,\"duration\":0.000001}\n\
{\"type\":\"exit\",\"pid\":7,\"code\":0}\n\
{\"type\":\"footer\",\"exit_code\":0,\"elapsed\":0.001}\n",
            false,
        );
        // A pid that existed a moment ago and is now reaped.
        let mut child = Command::new("true").spawn().expect("spawn true");
        let dead_pid = child.id().to_string();
        child.wait().expect("wait true");
        Files {
            missing: dir.join("no-such-file"),
            dir,
            empty,
            garbage,
            trunc_elf,
            bad_conf,
            bad_trace,
            half_trace,
            newer_trace,
            zstd_trace,
            good_trace,
            dead_pid,
        }
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Builds cases for one binary.
struct Cases {
    bin: PathBuf,
    prefix: Vec<OsString>,
    list: Vec<Case>,
}

impl Cases {
    fn new(bin: &str, prefix: &[&str]) -> Cases {
        let bin = match bin {
            "rstrace" => env!("CARGO_BIN_EXE_rstrace"),
            "rltrace" => env!("CARGO_BIN_EXE_rltrace"),
            _ => env!("CARGO_BIN_EXE_rtrace"),
        };
        Cases {
            bin: PathBuf::from(bin),
            prefix: prefix.iter().map(os).collect(),
            list: Vec::new(),
        }
    }

    fn case(&mut self, exit: Exit, args: Vec<OsString>, needles: &[&str]) -> &mut Self {
        let mut all = self.prefix.clone();
        all.extend(args);
        self.list.push(Case {
            bin: self.bin.clone(),
            args: all,
            needles: needles.iter().map(|s| s.to_string()).collect(),
            exit,
        });
        self
    }

    /// A case that must fail.
    fn bad(&mut self, args: &[&dyn AsRefOs], needles: &[&str]) -> &mut Self {
        let args = args.iter().map(|a| a.os()).collect();
        self.case(Exit::Fail, args, needles)
    }
}

/// Strings and paths alike as arguments.
trait AsRefOs {
    fn os(&self) -> OsString;
}

impl AsRefOs for &str {
    fn os(&self) -> OsString {
        os(self)
    }
}

impl AsRefOs for String {
    fn os(&self) -> OsString {
        os(self)
    }
}

impl AsRefOs for PathBuf {
    fn os(&self) -> OsString {
        os(self)
    }
}

impl AsRefOs for OsString {
    fn os(&self) -> OsString {
        self.clone()
    }
}

/// Runs one case; returns why it failed, if it did.
fn check(case: &Case, cwd: &Path) -> Option<String> {
    let shown = format!(
        "{} {}",
        case.bin.file_name().unwrap_or_default().to_string_lossy(),
        case.args
            .iter()
            .map(|a| format!("{:?}", a.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut child = match Command::new(&case.bin)
        .args(&case.args)
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Some(format!("{shown}: could not run: {e}")),
    };
    let pid = child.id() as i32;
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(TIMEOUT) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Some(format!("{shown}: wait failed: {e}")),
        Err(_) => {
            // SAFETY: `pid` is our child, not yet reaped (its waiter is blocked).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            return Some(format!("{shown}: still running after {TIMEOUT:?} (hang)"));
        }
    };
    let err = reader.join().unwrap_or_default();
    let tail: String = err.chars().take(600).collect();
    if err.contains("panicked at") || err.contains("RUST_BACKTRACE") {
        return Some(format!("{shown}: PANIC:\n{tail}"));
    }
    let Some(code) = status.code() else {
        if case.exit == Exit::FailOrTraceeSignal && err.contains("+++ killed by SIG") {
            return None;
        }
        return Some(format!("{shown}: killed by a signal ({status}):\n{tail}"));
    };
    if code == 101 {
        return Some(format!("{shown}: exit 101 (Rust panic):\n{tail}"));
    }
    if case.exit != Exit::Any && code == 0 {
        return Some(format!("{shown}: exited 0, expected a failure:\n{tail}"));
    }
    let low = err.to_lowercase();
    if !case.needles.iter().any(|n| low.contains(&n.to_lowercase())) {
        return Some(format!(
            "{shown}: stderr does not name the problem (expected one of {:?}):\n{tail}",
            case.needles
        ));
    }
    None
}

/// Runs every case of `sets`, then fails listing every case that failed.
fn run_all(files: &Files, sets: &[&Cases]) {
    let cases: Vec<&Case> = sets.iter().flat_map(|s| &s.list).collect();
    let failures: Vec<String> = cases.iter().filter_map(|c| check(c, &files.dir)).collect();
    eprintln!("{} bad inputs checked", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs were mishandled:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn rstrace_bad_command_lines_and_files() {
    let f = Files::new("rstrace");
    let pid = &f.dead_pid;
    let mut c = Cases::new("rstrace", &[]);
    c.bad(&[], &["must have PROG"])
        .bad(&[&f.empty], &["Exec format error"])
        .bad(&[&f.garbage], &["Exec format error"])
        .bad(&[&f.missing], &["no-such-file"])
        .bad(&[&f.dir], &["Permission denied"])
        .bad(&[&non_utf8("prog")], &["No such file"])
        .bad(&[&"-p", pid], &["No such process"])
        .bad(&[&"-p", &"abc"], &["Invalid process id"])
        .bad(
            &[&"-p", &"99999999999999999999999"],
            &["Invalid process id"],
        )
        .bad(&[&"-p", &"-5"], &["Invalid process id"])
        .bad(&[&"-e", &"trace=nosuch", &"true"], &["nosuch"])
        .bad(&[&"-e", &non_utf8("x"), &"true"], &["invalid", "qualif"])
        .bad(&[&"-e", &"inject=open:error=NOPE", &"true"], &["inject"])
        .bad(&[&"-e", &"fault=all:when=0", &"true"], &["when"])
        .bad(&[&"-s", &"99999999999999999999", &"true"], &["-s"])
        .bad(&[&"-I", &"7", &"true"], &["-I"])
        .bad(&[&"-S", &"nosuch", &"-c", &"true"], &["nosuch"])
        .bad(&[&"--no-such-option", &"true"], &["no-such-option"])
        .bad(&[&"-o", &f.missing.join("out"), &"true"], &["no-such-file"]);
    // Regular expressions glibc's regcomp needs 3 GB and 15 s, 12 GB and
    // 56 s, 3.4 GB and 9 s to compile, and one whose matching backtracks
    // for minutes (rstrace used to run them all, as strace does).
    for re in [
        "/(o++++++++++++++++b)++++++",
        "/(o++++++++++++++++++b)++++++",
        "/a{255}{255}{255}",
        r"/^(.*)(.*)(.*)(.*)(.*)(.*)(.*)(.*)\8\7\6\5\4\3\2\1$",
    ] {
        c.bad(&[&"-e", &format!("trace={re}"), &"true"], &["too complex"]);
    }
    c.case(
        Exit::FailOrTraceeSignal,
        vec![os(&f.trunc_elf)],
        &["killed by SIGSEGV"],
    );
    run_all(&f, &[&c]);
}

#[test]
fn rltrace_bad_command_lines_and_files() {
    let f = Files::new("rltrace");
    let pid = &f.dead_pid;
    let mut c = Cases::new("rltrace", &[]);
    c.bad(&[], &["too few arguments"])
        .bad(&[&f.empty], &["Exec format error", "not an ELF"])
        .bad(&[&f.garbage], &["Exec format error", "not an ELF"])
        .bad(&[&f.trunc_elf], &["killed by SIGSEGV"])
        .bad(&[&f.missing], &["no-such-file"])
        .bad(&[&non_utf8("prog")], &["No such file"])
        .bad(&[&"-p", pid], &["No such process"])
        .bad(&[&"-p", &"abc"], &["-p"])
        .bad(&[&"-n", &"99999999999999999", &"true"], &["-n"])
        .bad(&[&"-s", &"-1", &"true"], &["-s"])
        .bad(&[&"--no-such-option", &"true"], &["no-such-option"])
        // regex-lite's own size limit let this one run 170 s matching the
        // symbols of `true`.
        .bad(
            &[&"-x", &r"/\(.*\)\{1000\}\{60\}/", &"true"],
            &["too complex"],
        )
        .bad(&[&"-e", &r"/a\{999\}\{999\}/", &"true"], &["too complex"]);
    // ltrace reports a bad prototype file line by line and runs the
    // program anyway (exit 0): rltrace does the same.
    c.case(
        Exit::Any,
        vec![os("-F"), os(&f.bad_conf), os("true")],
        &["bad.conf:1"],
    );
    run_all(&f, &[&c]);
}

#[test]
fn rtrace_break_and_watch_bad_inputs() {
    let f = Files::new("breakwatch");
    let pid = &f.dead_pid;
    let mut top = Cases::new("rtrace", &[]);
    top.bad(&[], &["usage"])
        .bad(&[&"bogus"], &["bogus"])
        .bad(&[&non_utf8("sub")], &["usage"]);
    let mut b = Cases::new("rtrace", &["break"]);
    b.bad(&[], &["<SPEC>"])
        .bad(&[&"ret:", &"--", &"true"], &["ret:"])
        .bad(&[&"*0xzz", &"--", &"true"], &["0xzz"])
        .bad(&[&"main if $rdi ==", &"--", &"true"], &["condition"])
        .bad(&[&"main if (((((", &"--", &"true"], &["condition"])
        .bad(
            &[&"main", &"--", &f.empty],
            &["Exec format error", "matched nothing"],
        )
        .bad(
            &[&"main", &"--", &f.garbage],
            &["Exec format error", "matched nothing"],
        )
        .bad(
            &[&"main", &"--", &f.trunc_elf],
            &["Exec format error", "matched nothing"],
        )
        .bad(&[&"main", &"--", &f.missing], &["no-such-file"])
        .bad(&[&"main", &"-p", pid], &["No such process"])
        .bad(&[&"main", &"-p", &"abc"], &["abc"])
        .bad(
            &[&"main", &"-p", &"99999999999999999999"],
            &["99999999999999999999"],
        )
        .bad(
            &[&non_utf8("fn"), &"--", &"true"],
            &["matched nothing", "invalid", "utf"],
        )
        .bad(&[&"main", &"--no-such-option"], &["no-such-option"]);
    let mut w = Cases::new("rtrace", &["watch"]);
    w.bad(&[], &["<EXPR>"])
        .bad(&[&"*0x10:3", &"--", &"true"], &["length 3"])
        .bad(
            &[&"*0x10:99999999999999999999", &"--", &"true"],
            &["99999999999999999999"],
        )
        .bad(&[&"*", &"--", &"true"], &["*"])
        .bad(&[&"nosuchvar", &"--", &"true"], &["nosuchvar"])
        .bad(&[&"counter", &"--", &f.garbage], &["counter"])
        .bad(&[&"counter", &"--", &f.empty], &["counter"])
        .bad(&[&"counter", &"--", &f.missing], &["no-such-file"])
        .bad(&[&"counter", &"-p", pid], &["No such process"])
        .bad(&[&"a", &"b", &"c", &"d", &"e", &"--", &"true"], &["watch"])
        .bad(&[&"counter", &"--no-such-option"], &["no-such-option"]);
    run_all(&f, &[&top, &b, &w]);
}

#[test]
fn rtrace_kernel_and_stat_bad_inputs() {
    let f = Files::new("kernel");
    let pid = &f.dead_pid;
    let mut k = Cases::new("rtrace", &["kernel"]);
    // Without tracefs (not root, not mounted) the honest error is about
    // tracefs; the needles accept that too.
    let tfs = "tracefs";
    k.bad(&[], &["usage"])
        .bad(&[&"bogus"], &["bogus"])
        .bad(&[&"list", &"zz["], &["zz["])
        .bad(&[&"trace"], &["--event"])
        .bad(
            &[&"trace", &"-e", &"nosuch:event", &"--", &"true"],
            &["nosuch", tfs],
        )
        .bad(&[&"trace", &"-e"], &["-e"])
        .bad(&[&"probe"], &["<SPEC>"])
        .bad(
            &[&"probe", &"x:foo", &"--", &"true"],
            &["unknown probe type"],
        )
        .bad(&[&"probe", &"u:nocolon", &"--", &"true"], &["nocolon"])
        .bad(
            &[
                &"probe",
                &format!("u:{}:main", f.garbage.display()),
                &"--",
                &"true",
            ],
            &["main", tfs],
        )
        .bad(
            &[
                &"probe",
                &format!("u:{}:main", f.empty.display()),
                &"--",
                &"true",
            ],
            &["main", tfs],
        )
        .bad(
            &[
                &"probe",
                &format!("u:{}:main", f.trunc_elf.display()),
                &"--",
                &"true",
            ],
            &["main", tfs],
        )
        .bad(
            &[
                &"probe",
                &format!("u:{}:main", f.missing.display()),
                &"--",
                &"true",
            ],
            &["no-such-file", tfs],
        )
        .bad(
            &[
                &"probe",
                &"u:/bin/true:main+99999999999999999999999",
                &"--",
                &"true",
            ],
            &["99999999999999999999999", tfs],
        )
        .bad(
            &[&"probe", &"p:x /bin/true:0x10", &"-p", pid],
            &["No such process", tfs],
        )
        .bad(
            &[&"trace", &"-e", &"sched:sched_switch", &"-p", pid],
            &["No such process", tfs],
        )
        .bad(&[&"ftrace"], &["-f"])
        .bad(
            // Where the kernel refuses ftrace, that is the error to give.
            &[&"ftrace", &"-f", &"vfs_*", &"-p", pid],
            &["No such process", pid, tfs, "function tracer"],
        )
        .bad(&[&"trace", &"-\u{e9}"], &["unexpected argument"])
        .bad(
            &[
                &"probe",
                &OsString::from_vec(b"-\xff".to_vec()),
                &"u:./prog:f",
            ],
            &["unexpected argument"],
        )
        .bad(&[&"cleanup", &"--bogus"], &["--bogus"])
        .bad(&[&"cleanup", &"extra"], &["extra"]);
    let mut s = Cases::new("rtrace", &["stat"]);
    s.bad(&[&"-e", &"nosuch", &"--", &"true"], &["nosuch"])
        .bad(&[&"-r", &"abc", &"--", &"true"], &["-r"])
        .bad(
            &[&"-r", &"99999999999999999999999", &"--", &"true"],
            &["-r"],
        )
        .bad(&[&"-p", pid], &[pid.as_str()])
        .bad(&[&"--", &f.missing], &["no-such-file"]);
    // Not `-- EMPTY`: like `perf stat`, rtrace stat runs the command with
    // execvp, which hands a file without a magic number to /bin/sh, and an
    // empty script succeeds.
    run_all(&f, &[&k, &s]);
}

#[test]
fn rtrace_record_report_diff_export_bad_inputs() {
    let f = Files::new("record");
    let mut r = Cases::new("rtrace", &["record"]);
    r.bad(&[], &["usage", "must have PROG"])
        .bad(
            &[&"-o", &f.missing.join("out.trace"), &"--", &"true"],
            &["no-such-file"],
        )
        .bad(&[&"-o", &"x.trace", &"--", &f.missing], &["no-such-file"])
        .bad(
            &[&"-o", &"y.trace", &"--", &f.garbage],
            &["Exec format error"],
        )
        .bad(&[&"--no-such-option", &"--", &"true"], &["no-such-option"])
        .bad(
            &[&"-e", &"trace=/(o++++++++++++++++b)++++++", &"--", &"true"],
            &["too complex"],
        );
    let mut rep = Cases::new("rtrace", &["report"]);
    rep.bad(&[], &["usage"])
        .bad(&[&f.missing], &["no-such-file"])
        .bad(&[&f.empty], &["no events", "empty"])
        .bad(&[&f.bad_trace], &["UTF-8", "JSON"])
        .bad(&[&f.half_trace], &["line 2"])
        .bad(&[&f.newer_trace], &["newer"])
        .bad(&[&f.zstd_trace], &["zstd"])
        .bad(&[&f.dir], &["directory"])
        .bad(&[&f.good_trace, &"--top", &"abc"], &["--top"])
        .bad(
            &[&f.good_trace, &"--top", &"99999999999999999999999"],
            &["--top"],
        );
    let mut d = Cases::new("rtrace", &["diff"]);
    d.bad(&[], &["usage"])
        .bad(&[&f.good_trace], &["usage", "two"])
        .bad(&[&f.good_trace, &f.missing], &["no-such-file"])
        .bad(&[&f.bad_trace, &f.good_trace], &["UTF-8", "JSON"])
        .bad(&[&f.good_trace, &f.half_trace], &["line 2"])
        .bad(&[&f.good_trace, &f.newer_trace], &["newer"])
        .bad(
            &[&f.good_trace, &f.good_trace, &f.good_trace],
            &["usage", "unexpected"],
        );
    let mut e = Cases::new("rtrace", &["export"]);
    e.bad(&[], &["usage"])
        .bad(&[&"--format", &"bogus", &f.good_trace], &["bogus"])
        .bad(&[&"--format", &"chrome", &f.missing], &["no-such-file"])
        .bad(&[&"--format", &"chrome", &f.bad_trace], &["UTF-8", "JSON"])
        .bad(&[&"--format", &"folded", &f.half_trace], &["line 2"])
        .bad(&[&"--format", &"flamegraph", &f.zstd_trace], &["zstd"])
        .bad(&[&"--format", &non_utf8("x"), &f.good_trace], &["format"]);
    run_all(&f, &[&r, &rep, &d, &e]);
}

/// Inputs the fuzz targets (fuzz/) found crashing a parser, fed to the same
/// library entry points: each must now return normally.
#[test]
fn fuzz_regressions() {
    use std::ffi::OsString;
    let args = |raw: &[u8]| -> Vec<OsString> {
        raw.split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect()
    };
    // spec_probe_break_watch: `-` then a non-UTF-8 byte sliced the option
    // name inside the replacement character (the kernel subcommands' old
    // hand-written parser; clap's now).
    let crash = b"kernel\0trace\0-p\0\0-\x8f\x9at:-:./Crog:f\0--\0./prop";
    let r = rtrace::app::parse(args(crash));
    assert!(r.is_err(), "an unknown option is an error: {r:?}");
    let r = rtrace::app::parse(args("kernel\0probe\0-\u{e9}x".as_bytes()));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("unexpected argument '-\u{e9}"), "{e}");

    // dwarf: a compressed .debug_* section declaring a size of ~16 EiB was
    // allocated before decompression (out of memory); it is now refused as
    // corrupt, with a warning, and the module has no DWARF.
    let elf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz-dwarf-huge-compressed-section.elf");
    let sym = rtrace::symbols::Symbolizer::new();
    let module = sym.module_for_path(&elf);
    let _ = module.dwarf();
    let warnings = module.warnings();
    assert!(
        warnings.contains(&rtrace::symbols::Warning::BadCompression),
        "{warnings:?}"
    );

    // spec_filters: syscall regexes on which glibc's regcomp takes
    // gigabytes (every `+` copies the tree it applies to): a long run of
    // `+`, then the same run split by a non-UTF-8 byte (U+FFFD once
    // decoded) that got past a guard on runs. Both are refused as too
    // complex after at most 256 MiB or 2 s of CPU in a child process.
    for expr in [
        "/(\r/* (o+++++++++++++++++++++++++++++/",
        "/(o+++\u{fffd}++++++++++++++++b)++++++/",
    ] {
        let mut o = rtrace::strace::cli::Options::default();
        let e = rtrace::strace::cli::apply_expr(&mut o, expr).unwrap_err();
        assert!(format!("{e:?}").contains("too complex"), "{e:?}");
    }
}

/// A regular expression too complex to compile fails as strace fails on a
/// bad one (`regcomp: PATTERN: MESSAGE`, the same exit status).
#[test]
fn too_complex_regex_exits_like_strace_on_a_bad_regex() {
    let Ok(strace) = Command::new("strace")
        .args(["-e", "trace=/(", "true"])
        .stdout(Stdio::null())
        .output()
    else {
        eprintln!("skip: strace is not installed");
        return;
    };
    let ours = Command::new(env!("CARGO_BIN_EXE_rstrace"))
        .args(["-e", "trace=/(o++++++++++++++++b)++++++", "true"])
        .stdout(Stdio::null())
        .output()
        .expect("run rstrace");
    let err = String::from_utf8_lossy(&ours.stderr);
    assert!(
        String::from_utf8_lossy(&strace.stderr).contains("regcomp: (: Unmatched ( or \\("),
        "{strace:?}"
    );
    assert_eq!(ours.status.code(), strace.status.code(), "{err}");
    assert!(
        err.trim_end().ends_with(
            "rstrace: regcomp: (o++++++++++++++++b)++++++: too complex \
             (over 256 MiB or 2 s of CPU to compile and match)"
        ),
        "{err}"
    );
}
