//! Cross-checks every constant in `xlat/*.in` against the C headers of this machine.
//!
//! For each group of headers in `xlat_groups.txt`, the test preprocesses the headers once to learn
//! which names exist as enumerators, then compiles and runs a C program that prints
//! `NAME VALUE SIZE` for every table name the headers define (as a macro, or as an
//! enumerator). Every printed value must equal the table's. Names the headers lack
//! (newer than the installed kernel headers) are counted and listed, and most names
//! must have been checked.
//!
//! The same check runs again against the newest kernel uapi headers, Debian
//! unstable's linux-libc-dev that `.ci/uapi-headers` unpacks under
//! `target/uapi-unstable/` (searched before this machine's headers), so the
//! names newer than this machine's headers are checked too; skipped with a
//! message when they have not been fetched.
//!
//! Only on x86_64 (the aarch64 overrides cannot be checked against x86 headers);
//! skipped with a message when no C compiler is installed.

#![cfg(target_arch = "x86_64")]

use rtrace_arch::xlat::{self, Xlat};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A set of headers compiled together, and the tables checked against them.
struct Group {
    /// Macros defined before the includes: `NAME` (defined as 1) or `NAME=VALUE`.
    defines: Vec<String>,
    headers: Vec<String>,
    tables: Vec<String>,
}

/// The groups of `xlat_groups.txt`. Kernel UAPI headers come first in a group (they
/// hold the values strace prints, e.g. O_LARGEFILE, which glibc defines as 0 on
/// x86_64); glibc headers serve names only glibc has (SCHED_OTHER, PTRACE_PEEKUSER,
/// MNT_FORCE, AF_*). Headers that conflict with each other (linux/mount.h vs
/// sys/mount.h, linux/fcntl.h vs fcntl.h) are in different groups.
fn groups() -> Vec<Group> {
    let text = include_str!("xlat_groups.txt");
    let mut groups = Vec::new();
    for para in text.split("\n\n") {
        let mut g = Group {
            defines: Vec::new(),
            headers: Vec::new(),
            tables: Vec::new(),
        };
        let mut key = "";
        for line in para.lines().filter(|l| !l.trim_start().starts_with('#')) {
            let rest = match line.split_once(':') {
                Some((k, rest)) if !line.starts_with(' ') => {
                    key = k;
                    rest
                }
                _ => line,
            };
            let words = rest.split_whitespace().map(str::to_string);
            match key {
                "defines" => g.defines.extend(words),
                "headers" => g.headers.extend(words),
                "tables" => g.tables.extend(words),
                _ => panic!("xlat_groups.txt: unexpected line {line:?}"),
            }
        }
        if !g.headers.is_empty() {
            groups.push(g);
        }
    }
    groups
}

fn table(name: &str) -> &'static Xlat {
    xlat::by_name(name).unwrap_or_else(|| panic!("no xlat table {name}"))
}

/// A directory of this test process for one header set (`tag`): the two
/// tests run at the same time.
fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rtrace-arch-xlat-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn prelude(g: &Group) -> String {
    let mut c = String::new();
    for d in &g.defines {
        let (name, value) = d.split_once('=').unwrap_or((d, "1"));
        c.push_str(&format!("#define {name} {value}\n"));
    }
    // A header newer than this machine's (linux/lsm.h before Linux 6.8
    // headers) is skipped: its names count as not checked.
    for h in &g.headers {
        c.push_str(&format!(
            "#if __has_include(<{h}>)\n#include <{h}>\n#endif\n"
        ));
    }
    c
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The identifiers of the preprocessed headers: a name found here but not defined
/// as a macro is an enumerator.
fn identifiers(dir: &Path, i: usize, g: &Group, inc: &[String]) -> HashSet<String> {
    let src = dir.join(format!("ids{i}.c"));
    std::fs::write(&src, prelude(g)).unwrap();
    let text = run(Command::new("cc").args(inc).arg("-E").arg(&src));
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// `name -> (value, sizeof)` for every table name the group's headers define.
fn header_values(
    dir: &Path,
    i: usize,
    g: &Group,
    inc: &[String],
) -> BTreeMap<String, (i64, usize)> {
    let ids = identifiers(dir, i, g, inc);
    let mut c = prelude(g);
    c.push_str("#include <stdio.h>\n");
    c.push_str(
        "#define P(n) printf(\"%s %lld %zu\\n\", #n, (long long)(n), sizeof(n))\nint main(void) {\n",
    );
    let mut names = BTreeSet::new();
    for t in &g.tables {
        for &(_, n) in table(t).entries {
            names.insert(n);
        }
    }
    for n in names {
        // Names strace prints as expressions (`1<<_UFFDIO_API`) are not C
        // identifiers to look up.
        if !n.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_') {
            continue;
        }
        c.push_str(&format!("#ifdef {n}\n  P({n});\n"));
        if ids.contains(n) {
            c.push_str(&format!("#else\n  P({n});\n"));
        }
        c.push_str("#endif\n");
    }
    c.push_str("  return 0;\n}\n");
    let src = dir.join(format!("values{i}.c"));
    let exe = dir.join(format!("values{i}"));
    std::fs::write(&src, c).unwrap();
    run(Command::new("cc")
        .args(inc)
        .arg("-w")
        .arg("-o")
        .arg(&exe)
        .arg(&src));
    run(&mut Command::new(&exe))
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace();
            let n = it.next().unwrap().to_string();
            let v: i64 = it.next().unwrap().parse().unwrap();
            let size: usize = it.next().unwrap().parse().unwrap();
            (n, (v, size))
        })
        .collect()
}

#[test]
fn xlat_values_match_system_headers() {
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("skip: no C compiler (cc) to read the system headers with");
        return;
    }
    check_against("system", "this machine's headers", &[], &[]);
}

/// Tables whose values the newest headers changed where strace 7.2 kept the
/// old ones (read from strace 7.2's own xlat data), with the reason: their
/// differences are printed, not failures.
const KEPT_OLD: &[(&str, &str)] = &[(
    "snmp_ip_stats",
    "enum ip_stats (linux/snmp.h) moved the ECN counters after IPSTATS_MIB_INDELIVERS; \
     strace 7.2 prints IFLA_INET6_STATS in the order of the kernels before",
)];

/// Where `.ci/uapi-headers` unpacks Debian unstable's linux-libc-dev.
fn unstable_include() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/uapi-unstable/root/usr/include")
}

#[test]
fn xlat_values_match_newest_uapi_headers() {
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("skip: no C compiler (cc) to read the headers with");
        return;
    }
    let inc = unstable_include();
    if !inc.join("linux/bpf.h").exists() {
        eprintln!(
            "skip: the newest uapi headers are not in {} (run .ci/uapi-headers)",
            inc.display()
        );
        return;
    }
    // The uapi headers first (x86_64's asm/ under its triplet), then this
    // machine's glibc headers.
    let flags = [
        "-isystem".to_string(),
        inc.join("x86_64-linux-gnu").display().to_string(),
        "-isystem".to_string(),
        inc.display().to_string(),
    ];
    check_against("unstable", "the newest uapi headers", &flags, KEPT_OLD);
}

/// Compares every table entry the groups' headers define, compiled with
/// `inc` before the default include path, with the headers' value; `tag`
/// names the scratch directory, `what` the headers in messages; the tables of
/// `kept_old` may differ (printed with their reason).
fn check_against(tag: &str, what: &str, inc: &[String], kept_old: &[(&str, &str)]) {
    // Every table is covered by some group, so a new table cannot go unchecked.
    let groups = groups();
    for t in xlat::ALL {
        assert!(
            groups.iter().any(|g| g.tables.iter().any(|n| n == t.name)),
            "xlat table {} is not cross-checked against any header: add it to xlat_groups.txt",
            t.name
        );
    }

    let dir = scratch_dir(tag);
    let mut checked: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut mismatches = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let values = header_values(&dir, i, g, inc);
        for t in g.tables.iter().map(|t| table(t).name) {
            for &(v, n) in table(t).entries {
                let Some(&(hv, size)) = values.get(n) else {
                    continue;
                };
                // A 32-bit C constant compares in 32 bits: (1<<31) is negative as an
                // int, and SI_QUEUE's -1 is 0xffffffff.
                let mask = if size < 8 {
                    (1u64 << (size * 8)) - 1
                } else {
                    u64::MAX
                };
                if v & mask != (hv as u64) & mask {
                    if let Some((_, why)) = kept_old.iter().find(|k| k.0 == t) {
                        eprintln!(
                            "{t}: {n} is {:#x} in <{}>, kept at {:#x}: {why}",
                            hv as u64 & mask,
                            g.headers.join(">, <"),
                            v & mask
                        );
                        checked.insert((t, n));
                        continue;
                    }
                    mismatches.push(format!(
                        "{t}: {n} is {:#x} in xlat/{t}.in but {:#x} in <{}>",
                        v & mask,
                        hv as u64 & mask,
                        g.headers.join(">, <")
                    ));
                }
                checked.insert((t, n));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));

    let mut total = 0;
    let mut missing = Vec::new();
    for t in xlat::ALL {
        for &(_, n) in t.entries {
            total += 1;
            if !checked.contains(&(t.name, n)) {
                missing.push(format!("{}:{n}", t.name));
            }
        }
    }
    eprintln!(
        "checked {} of {total} names against {what}; not in them: {}",
        total - missing.len(),
        missing.join(" ")
    );
    assert!(
        (total - missing.len()) * 100 >= total * 85,
        "only {} of {total} xlat names were found in the headers",
        total - missing.len()
    );
}
