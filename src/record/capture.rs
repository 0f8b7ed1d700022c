//! `rtrace record`: runs a command under the rstrace engine (`-f --json`)
//! and writes one trace file: a `header` line, the events exactly as
//! `rstrace -f --json` prints them, and a `footer` line (schema in
//! [`crate::tracefile`] and docs/record.md, "Trace file").
//!
//! Nothing here traces: the command line is turned into rstrace options and
//! handed to [`crate::strace::run`] with a sink that writes into the trace
//! file through a [`Tally`], which counts the events by type on their way
//! to the file (every event line starts with `{"type":"…"`), so the footer
//! can carry the counts without a second pass. With `--libcalls` the
//! options are rltrace's instead and [`crate::ltrace::trace`] runs with
//! `-f -S --json`: library calls (`"type":"libcall"`) and system calls
//! (rstrace's JSON shape, decoded by the same decoders) land in the same
//! file, every line starting with its type (libcall objects are the
//! typed [`crate::tracefile::event::Libcall`], `type` first). Both write through a paced buffer
//! ([`crate::output::paced`]): the file is at most 100 ms behind. With
//! `--zstd` (or `-o FILE.zst`) a compressor thread
//! ([`super::writers::Compressor`]) writes it as independent zstd frames,
//! one per paced flush or MiB of text, so memory stays bounded, `zstd -d`
//! reads the result and a recorder killed by SIGKILL leaves a file that
//! reads up to its last 100 ms. With `--probe SPEC`
//! rtrace break's breakpoints run in the same session
//! ([`super::probe::Probes`], a layer in front of rstrace's handler) and
//! their hits land in the file as `"type":"probe"` events. The command's fate becomes
//! rtrace's exit status the way a shell reports it: the exit code, or
//! 128 + N when it was killed by signal N (or when rtrace itself was
//! interrupted by signal N and killed the command).

use super::cli::RecordArgs;
use super::header::{footer, header, Args, Cmd};
use super::probe;
use super::writers::{Output, Shared};
use crate::ltrace::cli as lcli;
use crate::output::paced::Paced;
use crate::strace::{self, cli, sink::Sink, Ended};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::time::Instant;

/// The trace file written when `-o` is not given.
pub const DEFAULT_OUTPUT: &str = "rtrace.rtrace";

/// rltrace's short options that take a value, and its long ones.
const LTRACE_WITH_ARG: &[u8] = b"aADeFlnopsuwx";
const LTRACE_LONG_WITH_ARG: &[&str] = &[
    "align", "debug", "config", "library", "indent", "output", "where", "inject",
];

fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut a = Args {
        // Decides how the options before it are split, so it is looked for
        // first (up to `--`).
        libcalls: args
            .iter()
            .take_while(|x| *x != "--")
            .any(|x| x == "--libcalls"),
        ..Args::default()
    };
    let with_arg: &[u8] = if a.libcalls {
        LTRACE_WITH_ARG
    } else {
        cli::WITH_ARG
    };
    let long_takes_arg = |name: &str| {
        if a.libcalls {
            LTRACE_LONG_WITH_ARG.contains(&name)
        } else {
            cli::long_takes_arg(name)
        }
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].to_string_lossy().into_owned();
        let next = |i: usize| -> Result<OsString, String> {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("option '{arg}' requires an argument"))
        };
        match arg.as_str() {
            "--" => {
                a.command = args[i + 1..].to_vec();
                break;
            }
            "-h" | "--help" => {
                return Err(format!(
                    "{arg} comes before the other options (rtrace record --help)"
                ))
            }
            "-o" | "--output" => {
                a.output = Some(next(i)?);
                i += 2;
                continue;
            }
            "--syscalls" => {}
            "-k" | "--stack" | "--stack-traces" => a.stack = true,
            "--libcalls" => {}
            "--zstd" => a.zstd = true,
            "--normalize" => {
                return Err(
                    "a recording keeps the real values; normalise when reading it \
                            (rtrace report --normalize)"
                        .into(),
                )
            }
            "--probe" => {
                a.probes.push(next(i)?.to_string_lossy().into_owned());
                i += 2;
                continue;
            }
            _ if arg.starts_with("--probe=") => {
                a.probes.push(arg["--probe=".len()..].to_string());
            }
            _ if arg.starts_with("--output=") => {
                a.output = Some(OsString::from(&arg["--output=".len()..]));
            }
            _ if arg.starts_with("--") => {
                a.pass.push(args[i].clone());
                let name = &arg[2..];
                if !name.contains('=') && long_takes_arg(name) {
                    a.pass.push(next(i)?);
                    i += 1;
                }
            }
            _ if arg.starts_with('-') && arg.len() > 1 => {
                let bytes = arg.as_bytes();
                let mut takes_next = false;
                for (j, &c) in bytes.iter().enumerate().skip(1) {
                    if c == b'o' && j == 1 {
                        // `-oFILE`.
                        a.output = Some(OsString::from(&arg[2..]));
                        break;
                    }
                    if c == b'o' {
                        return Err(format!("give -o on its own, not inside '{arg}'"));
                    }
                    if c == b'k' && !a.libcalls {
                        a.stack = true;
                    }
                    if with_arg.contains(&c) {
                        takes_next = j + 1 == bytes.len();
                        break;
                    }
                }
                if bytes[1] != b'o' {
                    a.pass.push(args[i].clone());
                }
                if takes_next {
                    a.pass.push(next(i)?);
                    i += 1;
                }
            }
            _ => {
                a.command = args[i..].to_vec();
                break;
            }
        }
        i += 1;
    }
    if a.output
        .as_ref()
        .is_some_and(|o| o.as_bytes().ends_with(b".zst"))
    {
        a.zstd = true;
    }
    if a.libcalls && a.stack {
        return Err("-k/--stack is not supported with --libcalls".into());
    }
    if a.libcalls && !a.probes.is_empty() {
        return Err(
            "--probe is not supported with --libcalls (rltrace's engine places its own \
             breakpoints); record probes with the syscalls only"
                .into(),
        );
    }
    Ok(a)
}

/// Refuses rstrace options that make no sense in a recording.
fn check(o: &cli::Options) -> Result<(), String> {
    if o.command.is_empty() && o.pids.is_empty() {
        return Err(
            "no command to record (rtrace record [options] -- CMD [ARGS...], or -p PID)".into(),
        );
    }
    if o.summary || o.summary_only {
        return Err("-c/-C: record keeps every event; summarise with rtrace report FILE".into());
    }
    let text_only = [
        (o.stamps != cli::Stamps::default(), "-t/--timestamps"),
        (o.relative.is_some(), "-r"),
        (o.syscall_times.is_some(), "-T"),
        (o.instruction_pointer, "-i"),
        (o.syscall_number, "-n"),
        (o.column != 40, "-a"),
        (o.xflag != 0, "-x"),
        (o.json, "--json"),
        (
            !(o.dump_reads.is_empty() && o.dump_writes.is_empty()),
            "-e read=/-e write=",
        ),
    ];
    if let Some((_, name)) = text_only.iter().find(|t| t.0) {
        return Err(format!(
            "{name} only changes rstrace's text output; a recording always holds times, \
             durations and decoded values"
        ));
    }
    Ok(())
}

/// The command line clap read, as the argument list [`parse`] splits:
/// record's own options first, then the rest in the order given.
fn argv(r: RecordArgs) -> Vec<OsString> {
    let mut v: Vec<OsString> = Vec::new();
    if r.libcalls {
        v.push("--libcalls".into());
    }
    if let Some(o) = r.output {
        v.extend(["--output".into(), o]);
    }
    if r.zstd {
        v.push("--zstd".into());
    }
    if r.stack {
        v.push("--stack".into());
    }
    for p in r.probes {
        v.extend(["--probe".into(), p.into()]);
    }
    for p in r.pids {
        v.extend(["-p".into(), p.into()]);
    }
    v.extend(r.rest);
    v
}

/// Runs `rtrace record`, parsed by clap; returns the exit code (the
/// command's).
pub fn main(r: RecordArgs) -> i32 {
    let a = match parse(&argv(r)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rtrace record: {e}");
            eprintln!("Try 'rtrace record --help' for more information.");
            return 2;
        }
    };
    if a.libcalls {
        return main_libcalls(&a);
    }
    // Attach notices would only clutter a CI log, except with -p, where
    // "Process N attached" says when recording starts; the user's own
    // -e quiet= (later) still wins.
    let rstrace_args = |quiet: &str| {
        let mut rargs: Vec<OsString> = ["-f", "--json", "-e", quiet]
            .iter()
            .map(OsString::from)
            .collect();
        rargs.extend(a.pass.iter().cloned());
        if a.stack && !a.pass.iter().any(|p| p == "-k") {
            rargs.push("-k".into());
        }
        rargs.push("--".into());
        rargs.extend(a.command.iter().cloned());
        cli::parse(&rargs)
    };
    let o = match rstrace_args("quiet=attach,personality") {
        Ok(o) if !o.pids.is_empty() => rstrace_args("quiet=personality"),
        r => r,
    };
    let o = match o {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rtrace record: {}", e.msg);
            return 2;
        }
    };
    // `--json` is ours; refuse the user's own text-only options.
    let mut probe = o.clone();
    probe.json = a.pass.iter().any(|p| p == "--json");
    if let Err(e) = check(&probe) {
        eprintln!("rtrace record: {e}");
        return 2;
    }
    let mut probes = match probe::parse_specs(&a.probes) {
        Ok(specs) if specs.is_empty() => None,
        Ok(specs) => {
            if rtrace_arch::Arch::native() != rtrace_arch::Arch::X86_64 {
                eprintln!("rtrace record: --probe: only x86-64 is supported so far");
                return 1;
            }
            Some(probe::Probes::new(specs))
        }
        Err(e) => {
            eprintln!("rtrace record: {e}");
            return 2;
        }
    };
    let head = header(
        &a,
        Cmd {
            command: &o.command,
            env: &o.env,
            attached: &o.pids,
        },
    );
    let status = record_to(&a, head, |w| {
        let layer = probes.as_mut().map(|p| p as &mut dyn strace::Layer);
        strace::run_layered(o, Sink::to_paced(w), layer)
    });
    for m in probes
        .as_mut()
        .map(probe::Probes::finish)
        .unwrap_or_default()
    {
        eprintln!("rtrace record: {m}");
    }
    status
}

/// Refuses rltrace options that make no sense in a recording.
fn check_libcalls(o: &lcli::Options, pass: &[OsString]) -> Result<(), String> {
    if o.command.is_empty() && o.pids.is_empty() {
        return Err(
            "no command to record (rtrace record --libcalls [options] -- CMD [ARGS...], \
             or -p PID)"
                .into(),
        );
    }
    if o.count {
        return Err("-c: record keeps every event; summarise with rtrace report FILE".into());
    }
    if o.no_plt {
        return Err("-L leaves out the library calls --libcalls is for".into());
    }
    if o.backend != crate::probe::Backend::Auto {
        return Err(
            "--backend: a recording sees every call through ptrace; the kernel \
                    backend only counts (rltrace -c --backend kernel)"
                .into(),
        );
    }
    let text_only = [
        (o.time > 0, "-t"),
        (o.relative, "-r"),
        (o.time_in_call, "-T"),
        (o.ip, "-i"),
        (o.indent != 0, "-n"),
        (o.align != lcli::Options::default().align, "-a"),
        (o.where_depth != 0, "-w"),
        (pass.iter().any(|p| p == "--json"), "--json"),
    ];
    if let Some((_, name)) = text_only.iter().find(|t| t.0) {
        return Err(format!(
            "{name} only changes rltrace's text output; a recording always holds times, \
             durations and decoded values"
        ));
    }
    Ok(())
}

/// `rtrace record --libcalls`: rltrace's engine with `-f -S --json`.
fn main_libcalls(a: &Args) -> i32 {
    let mut largs: Vec<OsString> = ["-f", "-S", "--json"].iter().map(OsString::from).collect();
    largs.extend(a.pass.iter().cloned());
    largs.push("--".into());
    largs.extend(a.command.iter().cloned());
    let o = match lcli::parse(&largs) {
        Ok(o) => o,
        Err(lcli::CliError::Usage(m) | lcli::CliError::Value(m)) => {
            eprintln!("rtrace record: {m}");
            return 2;
        }
        Err(lcli::CliError::DebugHelp) => {
            print!("{}", lcli::DEBUG_HELP);
            return 0;
        }
    };
    if let Err(e) = check_libcalls(&o, &a.pass) {
        eprintln!("rtrace record: {e}");
        return 2;
    }
    let head = header(
        a,
        Cmd {
            command: &o.command,
            env: &[],
            attached: &o.pids,
        },
    );
    record_to(a, head, |w| {
        let w = Paced::new(w);
        crate::ltrace::trace(&o, Some(Box::new(w)))
    })
}

/// Creates the trace file, writes `head`, runs `trace` with a writer into
/// the file (through the [`super::writers::Tally`]; `trace` puts a paced
/// buffer in front), then writes the footer; returns the exit status to
/// pass on.
fn record_to(a: &Args, head: String, trace: impl FnOnce(Shared) -> Ended) -> i32 {
    let path = a.output.clone().unwrap_or_else(|| DEFAULT_OUTPUT.into());
    let file = match File::create(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rtrace record: cannot create '{}': {e}", show(&path));
            return 1;
        }
    };
    let out = Output::new(Box::new(file), a.zstd);
    let tally = Shared::new(out);
    if let Err(e) = tally.lock().out.write_all(head.as_bytes()) {
        eprintln!("rtrace record: writing '{}': {e}", show(&path));
        return 1;
    }
    let started = Instant::now();
    let end = trace(tally.clone());
    let mut t = tally.lock();
    let counts = t.counts.clone();
    let (foot, status) = footer(end, started, &counts);
    let wrote = t
        .out
        .write_all(foot.as_bytes())
        .and_then(|_| t.out.finish());
    if let Some(e) = t.error.take().or(wrote.err()) {
        eprintln!("rtrace record: writing '{}': {e}", show(&path));
        if status == 0 {
            return 1;
        }
    }
    status
}

fn show(p: &OsStr) -> String {
    p.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &[&str]) -> Result<Args, String> {
        parse(&s.iter().map(OsString::from).collect::<Vec<_>>())
    }
    fn os(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn splits_own_and_rstrace_options() {
        let a = p(&[
            "-o",
            "x.rtrace",
            "-e",
            "trace=openat",
            "-s64",
            "-k",
            "--trace",
            "%file",
            "make",
            "-o",
            "y",
        ])
        .unwrap();
        assert_eq!(a.output, Some("x.rtrace".into()));
        assert!(a.stack);
        assert_eq!(
            a.pass,
            os(&["-e", "trace=openat", "-s64", "--trace", "%file"])
        );
        assert_eq!(a.command, os(&["make", "-o", "y"]));
        let a = p(&["--output=f", "-yy", "--", "ls", "-l"]).unwrap();
        assert_eq!(a.output, Some("f".into()));
        assert_eq!(a.command, os(&["ls", "-l"]));
        assert_eq!(p(&["-ofile", "true"]).unwrap().output, Some("file".into()));
        let a = p(&[
            "--probe",
            "f",
            "--probe=ret:f",
            "-e",
            "trace=getpid",
            "prog",
        ])
        .unwrap();
        assert_eq!(a.probes, ["f", "ret:f"]);
        assert_eq!(a.pass, os(&["-e", "trace=getpid"]));
        assert_eq!(a.command, os(&["prog"]));
    }

    #[test]
    fn unsupported_options_are_refused() {
        for bad in [
            &["--libcalls", "--probe", "x", "true"][..],
            &["--probe"],
            &["-fo", "x", "true"],
            &["--libcalls", "-k", "true"],
        ] {
            assert!(p(bad).is_err(), "{bad:?}");
        }
        let o = cli::parse(&os(&["-f", "-c", "--", "true"])).unwrap();
        assert!(check(&o).unwrap_err().contains("rtrace report"));
        let o = cli::parse(&os(&["-f", "-T", "--", "true"])).unwrap();
        assert!(check(&o).unwrap_err().contains("-T"));
        let o = cli::parse(&os(&["-f", "-p", "1"])).unwrap();
        assert!(check(&o).is_ok());
        let o = cli::parse(&os(&["-f", "-e", "trace=openat", "--", "true"])).unwrap();
        assert!(check(&o).is_ok());
    }

    #[test]
    fn zstd_and_libcalls_options() {
        let a = p(&["--zstd", "-o", "x", "true"]).unwrap();
        assert!(a.zstd && !a.libcalls);
        assert!(p(&["-o", "x.rtrace.zst", "true"]).unwrap().zstd);
        assert!(!p(&["-o", "x.rtrace", "true"]).unwrap().zstd);
        // rltrace's options: -l and -x take a value, -S does not.
        let a = p(&[
            "-l",
            "libm.so*",
            "--libcalls",
            "-x",
            "main",
            "-S",
            "prog",
            "-l",
        ])
        .unwrap();
        assert!(a.libcalls);
        assert_eq!(a.pass, os(&["-l", "libm.so*", "-x", "main", "-S"]));
        assert_eq!(a.command, os(&["prog", "-l"]));
        // After `--` it is the command's.
        let a = p(&["--", "prog", "--libcalls"]).unwrap();
        assert!(!a.libcalls);
        assert_eq!(a.command, os(&["prog", "--libcalls"]));
        let lo = |s: &[&str]| lcli::parse(&os(s)).unwrap();
        assert!(check_libcalls(&lo(&["-f", "--", "true"]), &[]).is_ok());
        assert!(check_libcalls(&lo(&["-c", "--", "true"]), &[])
            .unwrap_err()
            .contains("rtrace report"));
        assert!(
            check_libcalls(&lo(&["--backend=kernel", "--", "true"]), &[])
                .unwrap_err()
                .contains("--backend")
        );
        assert!(check_libcalls(&lo(&["-tt", "--", "true"]), &[])
            .unwrap_err()
            .contains("-t"));
        assert!(check_libcalls(&lo(&["-L", "--", "true"]), &[]).is_err());
        assert!(check_libcalls(&lo(&["-p", "1"]), &[]).is_ok());
    }
}
