//! `rtrace watch`: hardware watchpoints on x86_64, end to end.
//!
//! The test programs (`testprogs/wp_*.c`) access the watched variables
//! through single instructions between assembler-local labels and print
//! those labels' runtime addresses, so every hit is checked against the
//! exact accessing instruction, the pc after it, and the values before and
//! after. Tests read the JSON Lines report (records, not text scraping),
//! synchronise with pipes, and never sleep.
#![cfg(target_arch = "x86_64")]

use crate::common;

use common::{testprog, testprog_variant};
use serde_json::Value as J;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// Build variants every behaviour is checked on.
fn variants(name: &str) -> Vec<(String, PathBuf)> {
    vec![
        ("pie-O0".to_string(), testprog(name)),
        (
            "nopie-O2".to_string(),
            testprog_variant(name, "nopie-O2", &["-O2", "-no-pie"]),
        ),
        (
            "pie-O2-nofp".to_string(),
            testprog_variant(name, "O2-nofp", &["-O2", "-fomit-frame-pointer"]),
        ),
    ]
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn watch(args: &[&str], prog: &Path) -> Run {
    let out = Command::new(rtrace())
        .arg("watch")
        .args(args)
        .arg("--")
        .arg(prog)
        .output()
        .expect("run rtrace");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `addr NAME 0x... [0x...]` lines of a test program: name -> addresses.
fn addrs(stdout: &str) -> HashMap<String, Vec<u64>> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("addr "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next().unwrap().to_string();
            let vals = w.map(hex).collect();
            (name, vals)
        })
        .collect()
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("hex {s}"))
}

fn records(report: &str, ty: &str) -> Vec<J> {
    report
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<J>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|j| j["type"] == ty)
        .collect()
}

fn jhex(j: &J) -> u64 {
    hex(j
        .as_str()
        .unwrap_or_else(|| panic!("not a hex string: {j}")))
}

/// The line of `marker` in `testprogs/<file>`.
fn line_of(file: &str, marker: &str) -> u64 {
    let src =
        std::fs::read_to_string(common::workspace_dir().join("testprogs").join(file)).unwrap();
    src.lines().position(|l| l.contains(marker)).unwrap() as u64 + 1
}

#[test]
fn write_watch_fires_on_the_writing_instruction_with_old_and_new_values() {
    let c_line = line_of("wp_write.c", "/* WP_C_WRITE */");
    let wide_line = line_of("wp_write.c", "/* WP_WIDE_WRITE */");
    for (variant, prog) in variants("wp_write") {
        let r = watch(&["--json", "counter", "wide"], &prog);
        assert_eq!(r.code, 0, "{variant}: {}", r.stderr);
        assert!(
            r.stdout.ends_with("counter 1000 wide 0xdeadbeefcafef00d\n"),
            "{variant}: {}",
            r.stdout
        );
        let a = addrs(&r.stdout);
        let (counter, wide) = (a["counter"][0], a["wide"][0]);
        let (insn, next) = (a["insn"][0], a["next"][0]);

        let watches = records(&r.stderr, "watch");
        assert_eq!(watches.len(), 2, "{variant}: {}", r.stderr);
        assert_eq!(jhex(&watches[0]["addr"]), counter);
        assert_eq!(watches[0]["len"], 4);
        assert_eq!(jhex(&watches[1]["addr"]), wide);
        assert_eq!(watches[1]["len"], 8);

        let hits = records(&r.stderr, "hit");
        let vals: Vec<(u64, u64, u64)> = hits
            .iter()
            .map(|h| {
                (
                    h["watch"].as_u64().unwrap(),
                    h["old"]["dec"].as_u64().unwrap(),
                    h["new"]["dec"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            vals,
            vec![
                (1, 41, 42),
                (1, 42, 42),
                (1, 42, 7),
                (1, 7, 1000),
                (2, 0x1122334455667788, 0xdeadbeefcafef00d)
            ],
            "{variant}: {}",
            r.stderr
        );
        for h in &hits {
            assert_eq!(h["kind"], "write");
            assert_eq!(h["access"], "write");
            // Decoded exactly, from the start of the function.
            assert_eq!(h["insn"]["found"], "function-start", "{variant}: {h}");
        }
        // The asm store: exact instruction and the pc after it.
        for h in &hits[..3] {
            assert_eq!(jhex(&h["insn"]["addr"]), insn, "{variant}: {h}");
            assert_eq!(jhex(&h["pc"]["addr"]), next, "{variant}: {h}");
            assert_eq!(h["insn"]["func"], "bump");
            assert!(
                h["insn"]["text"].as_str().unwrap().starts_with("mov "),
                "{h}"
            );
        }
        // The C assignments: function and source line of the statement.
        assert_eq!(hits[3]["insn"]["func"], "set_c", "{variant}");
        assert_eq!(hits[3]["insn"]["line"], c_line, "{variant}: {}", hits[3]);
        assert_eq!(hits[4]["insn"]["func"], "set_wide", "{variant}");
        assert_eq!(hits[4]["insn"]["line"], wide_line, "{variant}: {}", hits[4]);
        // The instruction ends where the trap pc is.
        for h in &hits {
            assert!(jhex(&h["insn"]["addr"]) < jhex(&h["pc"]["addr"]));
        }
    }
}

#[test]
fn text_report_names_values_and_location() {
    let prog = testprog("wp_write");
    let r = watch(&["counter"], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let a = addrs(&r.stdout);
    let first = r
        .stderr
        .lines()
        .find(|l| l.contains("watch 1 write counter"))
        .unwrap_or_else(|| panic!("{}", r.stderr));
    let expect = format!(
        "watch 1 write counter (*{:#x}:4): write old 41 (0x29) new 42 (0x2a) by {:#x} bump+",
        a["counter"][0], a["insn"][0]
    );
    assert!(first.contains(&expect), "{first}\n{expect}");
    assert!(first.contains("(wp_write.c:"), "{first}");
    assert!(
        first.ends_with(&format!("pc {:#x}", a["next"][0])),
        "{first}"
    );
}

#[test]
fn rw_watch_fires_on_reads_and_writes_at_each_instruction() {
    for (variant, prog) in variants("wp_rw") {
        let r = watch(&["--json", "--rw", "counter"], &prog);
        assert_eq!(r.code, 0, "{variant}: {}", r.stderr);
        assert!(r.stdout.ends_with("values 5 16\n"), "{}", r.stdout);
        let a = addrs(&r.stdout);
        let hits = records(&r.stderr, "hit");
        let got: Vec<(String, u64, u64, u64, u64)> = hits
            .iter()
            .map(|h| {
                (
                    h["access"].as_str().unwrap().to_string(),
                    h["old"]["dec"].as_u64().unwrap(),
                    h["new"]["dec"].as_u64().unwrap(),
                    jhex(&h["insn"]["addr"]),
                    jhex(&h["pc"]["addr"]),
                )
            })
            .collect();
        let at = |k: &str| (a[k][0], a[k][1]);
        let row = |acc: &str, old, new, k: &str| (acc.to_string(), old, new, at(k).0, at(k).1);
        assert_eq!(
            got,
            vec![
                row("read", 5, 5, "read"),
                row("write", 5, 15, "put"),
                row("read-write", 15, 16, "rmw"),
                row("read", 16, 16, "read"),
            ],
            "{variant}: {}",
            r.stderr
        );
        assert!(hits.iter().all(|h| h["kind"] == "rw"));
    }
}

#[test]
fn exec_watch_fires_before_the_instruction_runs() {
    for (variant, prog) in variants("wp_exec") {
        let r = watch(&["--json", "--exec", "target"], &prog);
        assert_eq!(r.code, 0, "{variant}: {}", r.stderr);
        // The program ran normally: the trap did not repeat or skip anything.
        assert!(r.stdout.ends_with("sink 3\n"), "{}", r.stdout);
        let a = addrs(&r.stdout);
        let hits = records(&r.stderr, "hit");
        assert_eq!(hits.len(), 3, "{variant}: {}", r.stderr);
        for h in &hits {
            assert_eq!(h["kind"], "exec");
            assert_eq!(jhex(&h["pc"]["addr"]), a["target"][0], "{h}");
            assert_eq!(h["pc"]["func"], "target");
            assert_eq!(h["pc"]["offset"], 0);
            assert!(h.get("old").is_none());
        }
    }
}

/// `*ADDR[:LEN]` on a non-PIE build, whose addresses a first run tells.
#[test]
fn raw_addresses_watch_data_and_instructions() {
    let prog = testprog_variant("wp_exec", "nopie", &["-no-pie"]);
    let first = Command::new(&prog).output().unwrap();
    let a = addrs(&String::from_utf8_lossy(&first.stdout));
    let spec = format!("*{:#x}", a["insn"][0]);
    let r = watch(&["--json", "--exec", &spec], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hits = records(&r.stderr, "hit");
    assert_eq!(hits.len(), 3, "{}", r.stderr);
    for h in &hits {
        assert_eq!(jhex(&h["pc"]["addr"]), a["insn"][0]);
        assert_eq!(h["pc"]["func"], "target");
        assert_ne!(h["pc"]["offset"], 0, "the nop is inside target");
    }

    let prog = testprog_variant("wp_write", "nopie", &["-no-pie"]);
    let first = Command::new(&prog).output().unwrap();
    let a = addrs(&String::from_utf8_lossy(&first.stdout));
    // The low two bytes of counter: 41 -> 42 -> 42 -> 7 -> 1000.
    let spec = format!("*{:#x}:2", a["counter"][0]);
    let r = watch(&["--json", &spec], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let news: Vec<u64> = records(&r.stderr, "hit")
        .iter()
        .map(|h| h["new"]["dec"].as_u64().unwrap())
        .collect();
    assert_eq!(news, vec![42, 42, 7, 1000], "{}", r.stderr);
}

/// A stripped binary: no function start, so the store is decoded backward
/// from the pc and accepted as the only candidate touching the range.
#[test]
fn stripped_binary_finds_the_store_by_decoding_backward() {
    let prog = testprog_variant("wp_write", "nopie-O2-stripped", &["-O2", "-no-pie", "-s"]);
    let first = Command::new(&prog).output().unwrap();
    let a = addrs(&String::from_utf8_lossy(&first.stdout));
    let spec = format!("*{:#x}:4", a["counter"][0]);
    let r = watch(&["--json", &spec], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hits = records(&r.stderr, "hit");
    assert_eq!(hits.len(), 4, "{}", r.stderr);
    for h in &hits[..3] {
        assert_eq!(h["insn"]["found"], "only-candidate", "{h}");
        assert_eq!(jhex(&h["insn"]["addr"]), a["insn"][0], "{h}");
        assert_eq!(jhex(&h["pc"]["addr"]), a["next"][0], "{h}");
        assert_eq!(h["insn"]["func"], J::Null);
    }
    assert_eq!(hits[3]["new"]["dec"], 1000);
    assert_eq!(hits[3]["insn"]["found"], "only-candidate");
}

/// Members, elements and types from DWARF: values print by type.
#[test]
fn members_and_elements_are_placed_and_decoded_by_dwarf_type() {
    for (variant, prog) in variants("wp_types") {
        let r = watch(
            &[
                "--json",
                "config.origin.y",
                "config.color",
                "table[2]",
                "config.scale",
            ],
            &prog,
        );
        assert_eq!(r.code, 0, "{variant}: {}", r.stderr);
        let hits = records(&r.stderr, "hit");
        let got: Vec<(String, String, String)> = hits
            .iter()
            .map(|h| {
                let v = |x: &J| match x.get("dec") {
                    Some(d) => d.to_string(),
                    None => x["text"].as_str().unwrap().to_string(),
                };
                (
                    h["expr"].as_str().unwrap().to_string(),
                    v(&h["old"]),
                    v(&h["new"]),
                )
            })
            .collect();
        let row = |e: &str, o: &str, n: &str| (e.to_string(), o.to_string(), n.to_string());
        assert_eq!(
            got,
            vec![
                row("config.origin.y", "2", "5"),
                row("config.color", "RED", "BLUE"),
                row("table[2]", "30", "33"),
                row("config.scale", "1.5", "2.5"),
            ],
            "{variant}: {}",
            r.stderr
        );
        assert_eq!(hits[1]["new"]["type"], "enum color");
        assert_eq!(hits[3]["old"]["type"], "double");
        let watches = records(&r.stderr, "watch");
        let lens: Vec<u64> = watches.iter().map(|w| w["len"].as_u64().unwrap()).collect();
        assert_eq!(lens, vec![4, 4, 4, 8]);
        assert_eq!(jhex(&watches[2]["addr"]) % 4, 0);
    }
    // A signed type prints signed; hex is the raw bytes.
    let r = watch(&["--json", "config.level"], &testprog("wp_types"));
    let h = &records(&r.stderr, "hit")[0];
    assert_eq!(h["new"]["dec"], -7);
    assert_eq!(h["new"]["hex"], "0xfff9");
    assert_eq!(h["new"]["type"], "short");
}

#[test]
fn count_prints_hits_per_watchpoint() {
    let prog = testprog("wp_write");
    let r = watch(&["--count", "--json", "counter", "wide"], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(records(&r.stderr, "hit").is_empty());
    let counts: Vec<(String, u64)> = records(&r.stderr, "count")
        .iter()
        .map(|c| {
            (
                c["expr"].as_str().unwrap().to_string(),
                c["hits"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts, vec![("counter".into(), 4), ("wide".into(), 1)]);
    let r = watch(&["--count", "counter"], &prog);
    let row = r.stderr.lines().find(|l| l.ends_with("  counter")).unwrap();
    assert!(row.contains(" write ") && row.contains(" 4 "), "{row}");
}

#[test]
fn a_thread_created_after_the_watch_was_set_is_watched() {
    for (variant, prog) in variants("wp_thread") {
        let r = watch(&["--json", "counter"], &prog);
        assert_eq!(r.code, 0, "{variant}: {}", r.stderr);
        assert!(r.stdout.ends_with("counter 200\n"), "{}", r.stdout);
        let a = addrs(&r.stdout);
        let main_tid: u64 = r
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("main "))
            .unwrap()
            .parse()
            .unwrap();
        let threads: Vec<(u64, u64)> = r
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("thread "))
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w[0].parse().unwrap(), w[2].parse().unwrap())
            })
            .collect();
        let hits = records(&r.stderr, "hit");
        let got: Vec<(u64, u64, u64)> = hits
            .iter()
            .map(|h| {
                assert_eq!(jhex(&h["insn"]["addr"]), a["insn"][0], "{h}");
                (
                    h["tid"].as_u64().unwrap(),
                    h["old"]["dec"].as_u64().unwrap(),
                    h["new"]["dec"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![(threads[0].0, 0, 100), (threads[1].0, 100, 200)],
            "{variant}: {}",
            r.stderr
        );
        assert!(threads.iter().all(|t| t.0 != main_tid));
    }
}

#[test]
fn backtrace_per_hit_goes_through_the_thread_start() {
    let prog = testprog("wp_thread");
    let r = watch(&["--json", "--bt", "counter"], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hits = records(&r.stderr, "hit");
    assert_eq!(hits.len(), 2, "{}", r.stderr);
    for h in &hits {
        let bt: Vec<&str> = h["bt"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        // Frame 0 is the trap pc (the instruction after the store), in bump.
        assert!(
            bt[0].starts_with("bump+") && bt[0].contains("wp_thread.c:"),
            "{bt:?}"
        );
        assert!(bt[1].starts_with("worker+"), "{bt:?}");
        assert!(bt.len() >= 3, "{bt:?}");
    }
}

#[test]
fn count_is_exact_with_eight_threads_hammering_the_variable() {
    let prog = testprog_variant("wp_many", "O2", &["-O2"]);
    let out = Command::new(rtrace())
        .args(["watch", "--count", "--json", "counter", "--"])
        .arg(&prog)
        .args(["8", "2000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "counter 16000\n");
    let counts = records(&stderr, "count");
    assert_eq!(counts.len(), 1, "{stderr}");
    assert_eq!(counts[0]["hits"], 16000, "{stderr}");
}

fn rejected(args: &[&str], needle: &str) {
    rejected_with(args, needle, 1);
}

/// Refused with exit status `code`: 2 for a command line that cannot be
/// right whatever the program (an expression's syntax, as clap's errors),
/// 1 for one the program's symbols refuse.
fn rejected_with(args: &[&str], needle: &str, code: i32) {
    let prog = testprog("wp_write");
    let r = watch(args, &prog);
    assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
    assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    // Refused before anything ran.
    assert_eq!(r.stdout, "", "{args:?}");
}

#[test]
fn a_fifth_watchpoint_is_a_clear_error() {
    rejected(
        &[
            "*0x1000:8",
            "*0x1008:8",
            "*0x1010:8",
            "*0x1018:8",
            "*0x1020:8",
        ],
        "5 watchpoints asked for, but the CPU has only 4 debug address registers",
    );
    rejected(
        &["counter", "wide", "*0x1000:1", "*0x1001:1", "*0x1002:1"],
        "only 4",
    );
}

#[test]
fn a_misaligned_address_is_a_clear_error() {
    rejected(
        &["*0x1002:4"],
        "address 0x1002 is not aligned to its length 4",
    );
    rejected(&["*0x1004:8"], "nearest aligned one is 0x1000");
    rejected_with(&["*0x1000:3"], "1, 2, 4 or 8", 2);
    rejected(&["--exec", "*0x1000:4"], "length 1");
}

#[test]
fn unknown_names_and_fields_are_clear_errors() {
    rejected(
        &["no_such_variable"],
        "no global variable 'no_such_variable'",
    );
    rejected(&["bump"], "is a function, not a variable");
    rejected(
        &["counter.field"],
        "cannot watch counter.field: not a struct",
    );
    rejected(&["nothing.field"], "no global variable 'nothing'");
    rejected(&["--exec", "counter.x"], "give a function name");
    let types = testprog("wp_types");
    for (args, needle) in [
        (&["config"][..], "24 bytes (DR0-DR2)"),
        (
            &["config", "table"][..],
            "need 5 debug address registers in all (config: 24 bytes, 3; table: 16 bytes, 2)",
        ),
        (&["config.nope"][..], "no member named 'nope'"),
        (&["config.origin"][..], "8 bytes (DR0)"),
    ] {
        let r = watch(args, &types);
        if args == ["config.origin"] || args == ["config"] {
            // 8 bytes, aligned: one register; 24 bytes: three.
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(r.stderr.contains(needle), "{}", r.stderr);
            continue;
        }
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "");
    }
}

/// Lines of a child's pipe, through a channel, so a test fails instead of
/// hanging when an expected line never comes.
fn lines_of<R: std::io::Read + Send + 'static>(r: R) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

fn next_line(rx: &mpsc::Receiver<String>, what: &str) -> String {
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("waiting for {what}: {e}"))
}

/// Attaches a second tracer (this test) to each thread of `pid` and reads
/// DR0–DR3 and DR7 through PTRACE_PEEKUSER.
fn debug_registers(pid: i32) -> Vec<(i32, [u64; 5])> {
    use rtrace::engine::ptrace;
    let mut out = Vec::new();
    for tid in rtrace::engine::tracer::list_threads(pid) {
        ptrace::seize(tid, 0).expect("seize");
        ptrace::interrupt(tid).expect("interrupt");
        let mut status = 0;
        // SAFETY: waitpid with a valid pointer to a local.
        let r = unsafe { libc::waitpid(tid, &mut status, libc::__WALL) };
        assert_eq!(r, tid);
        let mut regs = [0u64; 5];
        for (i, off) in [848, 856, 864, 872, 904].iter().enumerate() {
            regs[i] = ptrace::peek_user(tid, *off).expect("peekuser");
        }
        ptrace::detach(tid, 0).expect("detach");
        out.push((tid, regs));
    }
    out
}

#[test]
fn attached_program_is_watched_then_detached_with_sigint_and_runs_on_unharmed() {
    let prog = testprog("wp_attach");
    let mut child = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_prog = child.stdin.take().unwrap();
    let from_prog = lines_of(child.stdout.take().unwrap());
    let hello = next_line(&from_prog, "the program's addresses");
    let w: Vec<&str> = hello.split_whitespace().collect();
    let (pid, counter, worker, insn): (i32, u64, i32, u64) = (
        w[1].parse().unwrap(),
        hex(w[3]),
        w[5].parse().unwrap(),
        hex(w[7]),
    );

    // By name: resolved through /proc/PID/exe and the process's load bias.
    let mut tracer = Command::new(rtrace())
        .args(["watch", "--json", "counter", "-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let report = lines_of(tracer.stderr.take().unwrap());
    let mut seen = Vec::new();
    let mut armed = Vec::new();
    while armed.len() < 2 {
        let l = next_line(&report, "armed threads");
        seen.push(l.clone());
        let j: J = serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l}"));
        if j["type"] == "watch" {
            assert_eq!(jhex(&j["addr"]), counter, "{l}");
            assert_eq!(j["len"], 4, "{l}");
        }
        if j["type"] == "armed" {
            armed.push(j["tid"].as_i64().unwrap() as i32);
        }
    }
    armed.sort();
    let mut both = vec![pid, worker];
    both.sort();
    assert_eq!(armed, both, "{seen:?}");

    // Watched: the worker's write is reported.
    writeln!(to_prog, "w 5").unwrap();
    assert_eq!(next_line(&from_prog, "wrote 5"), "wrote 5");
    let hit: J = loop {
        let l = next_line(&report, "the hit");
        let j: J = serde_json::from_str(&l).unwrap();
        if j["type"] == "hit" {
            break j;
        }
    };
    assert_eq!(hit["tid"], worker);
    assert_eq!(hit["old"]["dec"], 0);
    assert_eq!(hit["new"]["dec"], 5);
    assert_eq!(jhex(&hit["insn"]["addr"]), insn);

    // SIGINT: rtrace clears every thread and detaches.
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let status = tracer.wait().unwrap();
    let mut cleared = Vec::new();
    while let Ok(l) = report.recv_timeout(Duration::from_secs(60)) {
        let j: J = serde_json::from_str(&l).unwrap();
        if j["type"] == "cleared" {
            cleared.push(j["tid"].as_i64().unwrap() as i32);
        }
    }
    cleared.sort();
    assert_eq!(cleared, both);
    assert_eq!(status.code(), Some(128 + libc::SIGINT), "{status:?}");

    // A second tracer sees empty debug registers in every thread.
    for (tid, regs) in debug_registers(pid) {
        assert_eq!(regs, [0; 5], "thread {tid}: DR0-DR3, DR7");
    }

    // Untraced, the same write runs on (a leftover DR7 bit would kill the
    // program with SIGTRAP here).
    writeln!(to_prog, "w 6").unwrap();
    assert_eq!(next_line(&from_prog, "wrote 6"), "wrote 6");
    writeln!(to_prog, "q").unwrap();
    assert_eq!(next_line(&from_prog, "final"), "final 6");
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(0), "{st:?}");
}

/// SIGINT while a thread hits the watchpoint without pause: the traps that
/// race with the detach are swallowed, every thread is cleared, and the
/// program runs on.
#[test]
fn sigint_during_a_storm_of_hits_leaves_the_program_unharmed() {
    let prog = testprog("wp_attach");
    let mut child = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_prog = child.stdin.take().unwrap();
    let from_prog = lines_of(child.stdout.take().unwrap());
    let hello = next_line(&from_prog, "the program's addresses");
    let pid: i32 = hello.split_whitespace().nth(1).unwrap().parse().unwrap();

    let mut tracer = Command::new(rtrace())
        .args(["watch", "--json", "counter", "-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let report = lines_of(tracer.stderr.take().unwrap());
    let mut armed = 0;
    while armed < 2 {
        if next_line(&report, "armed threads").contains("\"armed\"") {
            armed += 1;
        }
    }
    writeln!(to_prog, "s").unwrap();
    assert_eq!(next_line(&from_prog, "storming"), "storming");
    let mut hits = 0;
    while hits < 3 {
        if next_line(&report, "hits").contains("\"hit\"") {
            hits += 1;
        }
    }
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let status = tracer.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGINT), "{status:?}");
    let mut cleared = 0;
    while let Ok(l) = report.recv_timeout(Duration::from_secs(60)) {
        if l.contains("\"cleared\"") {
            cleared += 1;
        }
    }
    assert_eq!(cleared, 2);
    for (tid, regs) in debug_registers(pid) {
        assert_eq!(regs, [0; 5], "thread {tid}: DR0-DR3, DR7");
    }
    writeln!(to_prog, "x").unwrap();
    assert_eq!(next_line(&from_prog, "stopped"), "stopped");
    writeln!(to_prog, "w 9").unwrap();
    assert_eq!(next_line(&from_prog, "wrote 9"), "wrote 9");
    writeln!(to_prog, "q").unwrap();
    assert_eq!(next_line(&from_prog, "final"), "final 9");
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(0), "{st:?}");
}

/// An address the kernel refuses (the vsyscall page) is found only when a
/// thread is armed: rtrace reports it, lets the attached program go and
/// exits 1; the program runs on.
#[test]
fn an_address_the_kernel_refuses_lets_the_attached_program_go() {
    let prog = testprog("wp_attach");
    let mut child = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_prog = child.stdin.take().unwrap();
    let from_prog = lines_of(child.stdout.take().unwrap());
    let hello = next_line(&from_prog, "the program's addresses");
    let pid = hello.split_whitespace().nth(1).unwrap().to_string();
    let out = Command::new(rtrace())
        .args(["watch", "*0xffffffffff600000:8", "-p", &pid])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot set the debug registers"),
        "{stderr}"
    );
    writeln!(to_prog, "w 3").unwrap();
    assert_eq!(next_line(&from_prog, "wrote 3"), "wrote 3");
    writeln!(to_prog, "q").unwrap();
    assert_eq!(next_line(&from_prog, "final"), "final 3");
    assert_eq!(child.wait().unwrap().code(), Some(0));

    // Launched: the command is killed before its first instruction.
    let r = watch(&["*0xffffffffff600000:8"], &testprog("wp_write"));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("cannot set the debug registers"),
        "{}",
        r.stderr
    );
}
