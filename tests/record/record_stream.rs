//! Recordings read as a stream: `rtrace report`'s memory does not grow
//! with the file (peak RSS of the report of a 50 MB recording, plain and
//! zstd), and a recording whose recorder was killed by SIGKILL reads up to
//! its last complete event, plain and `--zstd`.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace-stream-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `rtrace report FILE` and its peak RSS in KiB.
fn report_rss(file: &Path) -> (Output, i64) {
    peak_rss(
        file.parent().unwrap(),
        &rtrace(),
        &["report".as_ref(), file.as_os_str()],
    )
}

/// `cmd args` run in `d`, and its peak RSS in KiB, measured by
/// `testprogs/max_rss.c` (a child of the test binary would count the test
/// binary's memory in its own ru_maxrss).
fn peak_rss(d: &Path, cmd: &Path, args: &[&std::ffi::OsStr]) -> (Output, i64) {
    let rss_file = d.join("max_rss.txt");
    let o = Command::new(common::testprog("max_rss"))
        .arg(&rss_file)
        .arg(cmd)
        .args(args)
        .current_dir(d)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&rss_file).unwrap();
    let kib = text
        .trim()
        .strip_prefix("max_rss_kib ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("max_rss said {text:?}"));
    (o, kib)
}

/// The `events: N` of a report's text.
fn events_of(report: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("elapsed: "))
        .unwrap_or_else(|| panic!("no events line in:\n{report}"));
    line.rsplit("events: ")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn report_memory_does_not_grow_with_the_recording() {
    let d = scratch("rss");
    let prog = common::testprog("bench_syscalls");
    let small = d.join("small.rtrace");
    let o = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&small)
        .arg("--")
        .arg(&prog)
        .arg("20000")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A 50 MB recording: the real one's events, repeated (the same pid
    // exits and starts again: pid reuse, as the reader handles it).
    let text = std::fs::read_to_string(&small).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (head, body, foot) = (lines[0], &lines[1..lines.len() - 1], lines[lines.len() - 1]);
    assert!(foot.starts_with("{\"type\":\"footer\""), "{foot}");
    let body = body.join("\n") + "\n";
    let copies = (50 << 20) / body.len() + 1;
    let big = d.join("big.rtrace");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
    writeln!(f, "{head}").unwrap();
    for _ in 0..copies {
        f.write_all(body.as_bytes()).unwrap();
    }
    writeln!(f, "{foot}").unwrap();
    drop(f);
    let size = std::fs::metadata(&big).unwrap().len();
    assert!(size >= 50 << 20, "{size}");
    let events = (copies * body.lines().count()) as u64;
    // The same recording compressed, as concatenated frames.
    let zst = d.join("big.rtrace.zst");
    let mut z = rtrace::tracefile::ZstdWriter::new(std::io::BufWriter::new(
        std::fs::File::create(&zst).unwrap(),
    ));
    std::io::copy(&mut std::fs::File::open(&big).unwrap(), &mut z).unwrap();
    z.finish().unwrap();
    drop(z);
    for file in [&big, &zst] {
        let (o, rss_kib) = report_rss(file);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(events_of(&text), events, "{}", file.display());
        assert!(text.contains("getppid"), "{text}");
        // Reading everything into memory took more than the file's size
        // (11.6 GB for a 1 GB file); streamed, the report holds its tables.
        println!(
            "{}: {} MB, report peak RSS {} MB",
            file.display(),
            size >> 20,
            rss_kib >> 10
        );
        assert!(
            rss_kib < 40 << 10,
            "{}: peak RSS {rss_kib} KiB for a {size}-byte recording",
            file.display()
        );
    }
    others_read_as_a_stream(&d, &big, &small, size, events);
    let _ = std::fs::remove_dir_all(&d);
}

/// `export`, `diff` and `--replay-faults` on the 50 MB recording `big`
/// (`small` is one copy of its events). Holding every event as a JSON tree
/// took 10 to 33 times the file's size; folded stacks and replayed faults
/// are now bounded by what they keep, a Chrome trace and a diff by one
/// line of text per event.
fn others_read_as_a_stream(d: &Path, big: &Path, small: &Path, size: u64, events: u64) {
    let size_kib = (size >> 10) as i64;
    let rstrace = PathBuf::from(env!("CARGO_BIN_EXE_rstrace"));
    let replay = format!("{}:trace=all", big.display());
    let runs: [(&str, &Path, Vec<&std::ffi::OsStr>, i64); 4] = [
        (
            "export folded",
            &rtrace(),
            vec![
                "export".as_ref(),
                "--format".as_ref(),
                "folded".as_ref(),
                big.as_os_str(),
            ],
            40 << 10,
        ),
        (
            "--replay-faults",
            &rstrace,
            vec![
                "-o".as_ref(),
                "/dev/null".as_ref(),
                "--replay-faults".as_ref(),
                replay.as_ref(),
                "true".as_ref(),
            ],
            40 << 10,
        ),
        (
            "export chrome",
            &rtrace(),
            vec![
                "export".as_ref(),
                "--format".as_ref(),
                "chrome".as_ref(),
                "-o".as_ref(),
                "c.json".as_ref(),
                big.as_os_str(),
            ],
            2 * size_kib,
        ),
        (
            "diff",
            &rtrace(),
            vec!["diff".as_ref(), small.as_os_str(), big.as_os_str()],
            3 * size_kib,
        ),
    ];
    for (what, cmd, args, limit) in runs {
        let (o, kib) = peak_rss(d, cmd, &args);
        // diff: 1, the two runs differ (the big one repeats the small one).
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{what}: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        println!(
            "{what}: {} MB recording, peak RSS {} MB",
            size >> 20,
            kib >> 10
        );
        assert!(
            kib < limit,
            "{what}: peak RSS {kib} KiB for a {size}-byte recording (limit {limit} KiB)"
        );
    }
    let chrome: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("c.json")).unwrap()).unwrap();
    // One trace event per recorded event, and the metadata.
    let n = chrome["traceEvents"].as_array().unwrap().len() as u64;
    assert!(n > events, "{n} trace events for {events} events");
}

/// Records `bench_syscalls` (endless) with `opts`, SIGKILLs the recorder
/// once the file holds `min_bytes`, and returns the file.
fn record_killed(d: &Path, opts: &[&str], min_bytes: u64) -> PathBuf {
    let prog = common::testprog("bench_syscalls");
    let file = d.join("cut.rtrace");
    let mut child = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&file)
        .args(opts)
        .arg("--")
        .arg(&prog)
        .arg("1000000000")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // The paced writer puts what was recorded in the file every 50 ms:
    // wait for the file to grow (inotify, with a deadline).
    common::wait_file(
        &file,
        child.id(),
        60,
        "the recording grows",
        || match std::fs::metadata(&file).map_or(0, |m| m.len()) {
            n if n >= min_bytes => Ok(()),
            n => Err(format!("{n} of {min_bytes} bytes")),
        },
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    file
}

fn report(file: &Path) -> Output {
    Command::new(rtrace())
        .arg("report")
        .arg(file)
        .output()
        .unwrap()
}

/// Checks the report of a cut recording: exit 0, no footer, `events` as
/// `want` (when known), and a warning only of the kind expected.
fn check_cut_report(file: &Path, want: Option<u64>, must_warn: bool) -> u64 {
    let o = report(file);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("the recording has no footer"), "{out}");
    assert!(out.contains("getppid"), "{out}");
    let n = events_of(&out);
    assert!(n > 1000, "{n}");
    if let Some(w) = want {
        assert_eq!(n, w);
    }
    if must_warn || !err.is_empty() {
        assert!(
            err.contains(&format!(
                "warning: {}: recording cut after {n} events",
                file.display()
            )),
            "{err}"
        );
    }
    n
}

#[test]
fn a_plain_recording_cut_by_sigkill_reads_to_its_last_complete_event() {
    let d = scratch("cutplain");
    let file = record_killed(&d, &[], 256 << 10);
    let bytes = std::fs::read(&file).unwrap();
    // Complete lines, less the header.
    let complete = bytes.iter().filter(|&&b| b == b'\n').count() as u64 - 1;
    check_cut_report(&file, Some(complete), !bytes.ends_with(b"\n"));
    // Cut inside its last line: the events before it, and a warning.
    let last_nl = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    let shorter = d.join("shorter.rtrace");
    std::fs::write(&shorter, &bytes[..(last_nl + 20).min(bytes.len() - 1)]).unwrap();
    let lines_before = bytes[..=last_nl].iter().filter(|&&b| b == b'\n').count() as u64 - 1;
    check_cut_report(&shorter, Some(lines_before), true);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_zstd_recording_cut_by_sigkill_reads_to_its_last_complete_frame() {
    let d = scratch("cutzstd");
    let file = record_killed(&d, &["--zstd"], 64 << 10);
    let bytes = std::fs::read(&file).unwrap();
    assert!(rtrace::tracefile::is_zstd(&bytes));
    let n = check_cut_report(&file, None, false);
    // Cut inside its last frame (as a kill during a write leaves it): the
    // frames before it, and a warning.
    let last = (0..bytes.len() - 4)
        .rev()
        .find(|&i| rtrace::tracefile::is_zstd(&bytes[i..]))
        .unwrap();
    assert!(last > 0, "one frame only");
    let shorter = d.join("shorter.rtrace.zst");
    std::fs::write(&shorter, &bytes[..last + (bytes.len() - last) / 2]).unwrap();
    let m = check_cut_report(&shorter, None, true);
    assert!(m < n, "{m} {n}");
    // The frames before the cut hold exactly the complete lines of the
    // decompressed prefix.
    let text = rtrace::tracefile::decompress(&bytes[..last]).unwrap();
    let complete = text.iter().filter(|&&b| b == b'\n').count() as u64 - 1;
    assert!(m >= complete, "{m} {complete}");
    let _ = std::fs::remove_dir_all(&d);
}
