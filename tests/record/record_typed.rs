//! The typed event model (`rtrace::tracefile::event`) against real
//! recordings: every line of a recording (plain syscalls with `-k -y` and
//! a non-UTF-8 path, a signal and a killed process, `--libcalls`,
//! `--probe` hits and returns) is read into its type and written back, and
//! must be the same JSON value: same keys, same values. No line of a known
//! type may fall back to `Event::Other`, and `Reader::next_typed` reads
//! the same events.

use crate::common;

use rtrace::tracefile::event::{Event, Footer, Header};
use rtrace::tracefile::Reader;
use rtrace::value::decoded::Decoded;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

fn record(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let file = dir.join(name);
    let o = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&file)
        .args(args)
        .output()
        .expect("run rtrace record");
    assert!(
        file.exists(),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    file
}

/// The decoded values of `ev` (syscall arguments, siginfo, probe
/// variables) are typed: no fallback variant anywhere inside. Notes in
/// `seen` the typed shapes a real `openat` gives.
fn typed_values(ev: &Event, line: &str, seen: &mut BTreeSet<String>) {
    let values: Vec<&Decoded> = match ev {
        Event::Syscall(s) => s.args.iter().collect(),
        Event::Signal(g) => vec![&g.siginfo],
        Event::Probe(p) => [&p.args, &p.locals]
            .into_iter()
            .flatten()
            .flatten()
            .map(|n| &n.value)
            .collect(),
        _ => vec![],
    };
    for v in values {
        assert!(!v.has_fallback(), "{v:?} in {line}");
    }
    match ev {
        Event::Syscall(s) if s.syscall == "openat" => {
            // openat(AT_FDCWD</cwd>, "path", O_RDONLY|…): under -y the
            // dirfd is a descriptor with its path.
            if let [Decoded::Fd { fd: -100, path, .. }, Decoded::Str { bytes, .. }, Decoded::Flags { names, .. }, ..] =
                &s.args[..]
            {
                assert!(path.is_some(), "{line}");
                assert!(names.iter().any(|n| n == "O_RDONLY"), "{line}");
                seen.insert("openat.typed".into());
                if std::str::from_utf8(&bytes.0).is_err() {
                    seen.insert("openat.non_utf8_path".into());
                }
            }
        }
        Event::Signal(g) => {
            assert!(matches!(g.siginfo, Decoded::Struct(..)), "{line}");
            seen.insert("signal.siginfo_struct".into());
        }
        Event::Probe(p) => {
            if let Some(a) = p.args.as_ref().and_then(|a| a.first()) {
                assert!(matches!(a.value, Decoded::Int(_)), "{line}");
                seen.insert("probe.arg_int".into());
            }
        }
        _ => {}
    }
}

/// Reads every line of `file` into its type and back; returns the kinds
/// of event seen and the lines that held a given feature.
fn round_trip(file: &Path, seen: &mut BTreeSet<String>) {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 3, "{text}");
    for (i, line) in lines.iter().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        let back = match v["type"].as_str().unwrap() {
            "header" => {
                assert_eq!(i, 0);
                serde_json::to_value(Header::deserialize(&v).unwrap()).unwrap()
            }
            "footer" => {
                assert_eq!(i, lines.len() - 1);
                serde_json::to_value(Footer::deserialize(&v).unwrap()).unwrap()
            }
            _ => {
                let ev = Event::deserialize(&v)
                    .unwrap_or_else(|e| panic!("line {}: {e}\n{line}", i + 1));
                assert!(
                    !matches!(ev, Event::Other(_)),
                    "line {} fell back to Other: {line}",
                    i + 1
                );
                // Read from the text (a `Value` object's keys are
                // sorted): the same bytes back, decoded structures' field
                // order included.
                let direct: Event = serde_json::from_str(line).unwrap();
                assert_eq!(serde_json::to_string(&direct).unwrap(), *line);
                typed_values(&direct, line, seen);
                serde_json::to_value(&ev).unwrap()
            }
        };
        assert_eq!(back, v, "line {} of {} changed", i + 1, file.display());
        seen.insert(v["type"].as_str().unwrap().to_string());
        for key in [
            "stack",
            "return_path",
            "dur_ns",
            "siginfo",
            "args",
            "retval",
        ] {
            if v.get(key).is_some() {
                seen.insert(format!("{}.{key}", v["type"].as_str().unwrap()));
            }
        }
        if line.contains("\"bytes_hex\"") {
            seen.insert("bytes_hex".into());
        }
    }
    // The stream reader's typed events are the same ones.
    let mut r = Reader::open(file).unwrap();
    let header = r.typed_header().unwrap().expect("a header");
    assert_eq!(
        serde_json::to_value(&header).unwrap(),
        serde_json::from_str::<Value>(lines[0]).unwrap()
    );
    let mut n = 0;
    while let Some(ev) = r.next_typed().unwrap() {
        n += 1;
        assert_eq!(serde_json::to_string(&ev).unwrap(), lines[n]);
    }
    assert_eq!(n, lines.len() - 2);
    let footer = r.typed_footer().unwrap().expect("a footer");
    assert_eq!(footer.events_total, n as u64);
}

#[test]
fn every_recorded_line_survives_deserialize_then_serialize() {
    let dir = std::env::temp_dir().join(format!("rtrace_typed_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut seen = BTreeSet::new();
    let bytes = common::testprog("json_bytes");
    let plain = record(
        &dir,
        "plain.rtrace",
        &["-k", "-y", "--", bytes.to_str().unwrap(), "fe"],
    );
    round_trip(&plain, &mut seen);
    let killed = record(
        &dir,
        "killed.rtrace",
        &["--", "sh", "-c", "kill -USR1 $$; exit 3"],
    );
    round_trip(&killed, &mut seen);
    let lib = common::testprog("record_libc");
    let libcalls = record(
        &dir,
        "lib.rtrace",
        &["--libcalls", "--", lib.to_str().unwrap(), "hello", "37"],
    );
    round_trip(&libcalls, &mut seen);
    let probe = common::testprog("rec_probe");
    let probes = record(
        &dir,
        "probe.rtrace",
        &[
            "--probe",
            "probe_me",
            "--probe",
            "ret:probe_me",
            "--",
            probe.to_str().unwrap(),
            "3",
        ],
    );
    round_trip(&probes, &mut seen);
    for want in [
        "syscall",
        "syscall.stack",
        "syscall.return_path",
        "syscall.dur_ns",
        "signal",
        "exit",
        "libcall",
        "libcall.dur_ns",
        "probe",
        "probe.args",
        "probe.retval",
        "bytes_hex",
        "openat.typed",
        "openat.non_utf8_path",
        "signal.siginfo_struct",
        "probe.arg_int",
    ] {
        assert!(seen.contains(want), "no {want} line was checked: {seen:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
