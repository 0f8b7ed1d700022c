//! rltrace: exact call sequences in four link variants, `-c` counts,
//! threads, dlopen, C++ demangling. Options are in `ltrace_options.rs`,
//! the comparison with ltrace in `ltrace_diff.rs`.
//!
//! The test programs print (without calling libc) the ltrace lines their
//! calls must give, with the addresses and results they saw; the tests
//! compare the trace with that.

use crate::common;
use crate::ltrace_util;

use ltrace_util::run;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The link variants of the issue, each with `-fno-builtin`.
const VARIANTS: &[(&str, &[&str])] = &[
    ("lazy", &["-fno-builtin"]),
    ("now", &["-fno-builtin", "-Wl,-z,now"]),
    (
        "ibt",
        &[
            "-fno-builtin",
            "-fcf-protection",
            "-Wl,-z,now",
            "-Wl,-z,ibtplt",
        ],
    ),
    ("noplt", &["-fno-builtin", "-fno-plt"]),
];

/// Runs of spaces (ltrace's alignment) made one.
fn squash(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let mut prev = ' ';
        let mut l = String::new();
        for c in line.chars() {
            if !(c == ' ' && prev == ' ') {
                l.push(c);
            }
            prev = c;
        }
        out.push_str(l.trim_end());
        out.push('\n');
    }
    out
}

fn sections(prog: &Path) -> String {
    let out = Command::new("readelf").arg("-SW").arg(prog).output();
    out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

fn variant(name: &str, v: &str, flags: &[&str]) -> PathBuf {
    common::testprog_variant(name, v, flags)
}

#[test]
fn four_builds_report_the_exact_sequence() {
    for (v, flags) in VARIANTS {
        let prog = variant("lt_calls", v, flags);
        let secs = sections(&prog);
        if !secs.is_empty() {
            // The builds are what they claim to be.
            match *v {
                "ibt" => assert!(secs.contains(".plt.sec"), "{v}: no .plt.sec\n{secs}"),
                "noplt" => assert!(!secs.contains(".plt.sec"), "{v}"),
                _ => {}
            }
        }
        let r = run(&[], &prog, &[]);
        assert_eq!(r.code, Some(3), "{v}: {}", r.stderr);
        // stdout: "done" (puts), then the lines the trace must hold.
        let want: String = r.stdout.lines().skip(1).map(|l| format!("{l}\n")).collect();
        assert!(
            want.contains("strlen(\"hello world\") = 11"),
            "{v}: {}",
            r.stdout
        );
        assert_eq!(squash(&r.trace), want, "{v}: trace differs\n{}", r.trace);
    }
}

/// `function -> calls` from a `-c` table.
fn table(text: &str) -> BTreeMap<String, u64> {
    let mut rows = BTreeMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 5 && f[0].contains('.') && f[0] != "100.00" {
            rows.insert(f[4].to_string(), f[3].parse().expect("calls"));
        }
        if f.len() == 4 && f[3] == "total" {
            rows.insert("TOTAL".to_string(), f[2].parse().expect("total"));
        }
    }
    rows
}

#[test]
fn count_is_exact_in_every_build() {
    for (v, flags) in VARIANTS {
        let prog = variant("lt_calls", v, flags);
        let r = run(&["-c"], &prog, &[]);
        assert_eq!(r.code, Some(3), "{v}: {}", r.stderr);
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for l in r.stdout.lines().skip(1) {
            if let Some((name, _)) = l.split_once('(') {
                if !name.starts_with("+++") {
                    *want.entry(name.to_string()).or_default() += 1;
                }
            }
        }
        let total: u64 = want.values().sum();
        want.insert("TOTAL".into(), total);
        assert_eq!(table(&r.trace), want, "{v}:\n{}", r.trace);
        assert!(r
            .trace
            .starts_with("% time     seconds  usecs/call     calls      function\n"));
    }
}

#[test]
fn four_threads_every_call_reported() {
    let prog = variant("lt_threads", "lazy", &["-fno-builtin"]);
    let r = run(&[], &prog, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // Lines of different threads interleave; each is `[pid N]`-less in a
    // file but starts with the thread id: pair entries with their returns.
    let mut open: BTreeMap<String, i64> = BTreeMap::new();
    let mut seen: HashSet<i64> = HashSet::new();
    let mut dup = 0;
    let mut record = |k: i64, ret: i64| {
        assert_eq!(ret, k, "abs(-{k}) returned {ret}");
        if !seen.insert(k) {
            dup += 1;
        }
    };
    for l in r.trace.lines() {
        let (tid, rest) = l.split_once(' ').unwrap_or(("", l));
        if let Some(a) = rest.strip_prefix("abs(-") {
            let k: i64 = a[..a.find(|c: char| !c.is_ascii_digit()).unwrap()]
                .parse()
                .unwrap();
            if a.ends_with("<unfinished ...>") {
                open.insert(tid.to_string(), k);
            } else {
                let ret = a.rsplit("= ").next().unwrap().parse().unwrap();
                record(k, ret);
            }
        } else if rest.starts_with("<... abs resumed>") {
            let k = open.remove(tid).expect("resumed without entry");
            let ret = rest.rsplit("= ").next().unwrap().parse().unwrap();
            record(k, ret);
        }
    }
    assert_eq!(dup, 0);
    let want: HashSet<i64> = (1..=4)
        .flat_map(|t| (0..10_000).map(move |i| t * 100_000 + i))
        .collect();
    assert_eq!(seen.len(), 40_000);
    assert_eq!(seen, want);

    let c = run(&["-c"], &prog, &[]);
    let t = table(&c.trace);
    assert_eq!(t.get("abs"), Some(&40_000), "{}", c.trace);
    assert_eq!(t.get("pthread_create"), Some(&4));
    assert_eq!(t.get("pthread_join"), Some(&4));
}

/// Builds `testprogs/lt_dlib.c` into a shared library (soname
/// `liblt_dlib.so`) next to the test programs.
fn dlib() -> PathBuf {
    let dir = common::target_dir().join("testprogs");
    std::fs::create_dir_all(&dir).expect("dir");
    let out = dir.join("liblt_dlib.so");
    let tmp = dir.join(format!(".liblt_dlib.so.{}", std::process::id()));
    let src = common::workspace_dir().join("testprogs/lt_dlib.c");
    let st = Command::new("gcc")
        .args([
            "-shared",
            "-fPIC",
            "-fno-builtin",
            "-Wl,-soname,liblt_dlib.so",
            "-o",
        ])
        .arg(&tmp)
        .arg(&src)
        .status()
        .expect("gcc");
    assert!(st.success());
    std::fs::rename(&tmp, &out).expect("rename");
    out
}

#[test]
fn dlopened_library_with_x_and_l() {
    let lib = dlib();
    let lib = lib.to_str().unwrap();
    let prog = variant("lt_dlopen", "lazy", &["-fno-builtin"]);
    // -x: the entry of a function in a library loaded at run time.
    let r = run(&["-x", "lt_dl_*"], &prog, &[lib]);
    assert_eq!(r.code, Some(8), "{}", r.stderr);
    let line = r
        .trace
        .lines()
        .find(|l| l.starts_with("lt_dl_add@liblt_dlib.so(2, 3"))
        .unwrap_or_else(|| panic!("no lt_dl_add line:\n{}", r.trace));
    assert!(line.ends_with("= 8"), "{line}");
    // The main program's calls are still traced, without a caller.
    assert!(r.trace.contains("dlopen(\""), "{}", r.trace);
    // -L -x: only the -x functions.
    let r = run(&["-L", "-x", "lt_dl_*"], &prog, &[lib]);
    let calls: Vec<&str> = r.trace.lines().filter(|l| !l.starts_with("+++")).collect();
    assert_eq!(calls.len(), 1, "{}", r.trace);
    // -l libc.so.6: calls into libc from the loaded library's PLT too.
    let r = run(&["-l", "libc.so.6"], &prog, &[lib]);
    assert_eq!(r.code, Some(8), "{}", r.stderr);
    assert!(
        squash(&r.trace).contains("liblt_dlib.so->strlen(\"xyz\") = 3\n"),
        "{}",
        r.trace
    );
    assert!(r.trace.contains("lt_dlopen-lazy->dlopen("), "{}", r.trace);
}

#[test]
fn demangles_cxx_names_with_c() {
    let prog = variant("lt_cxx", "plain", &["-fno-builtin"]);
    let r = run(&["-C"], &prog, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let ptr = r.stdout.trim();
    let t = squash(&r.trace);
    let new = t
        .lines()
        .find(|l| l.starts_with("operator new[](unsigned long)(16"))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(new.ends_with(&format!("= {ptr}")), "{new}");
    assert!(
        t.lines()
            .any(|l| l.starts_with(&format!("operator delete[](void*)({ptr}"))),
        "{t}"
    );
    let r = run(&[], &prog, &[]);
    assert!(r.trace.contains("_Znam(16"), "{}", r.trace);
}
