//! A report's two renderings: the text sections and the `--json` object.

use super::*;

impl Report {
    pub(super) fn text(&self, top: usize, normalize: bool) -> String {
        let pid_label: HashMap<i32, String> = self
            .tree
            .processes
            .iter()
            .flat_map(|p| p.threads.iter().map(|t| t.tid))
            .enumerate()
            .map(|(k, tid)| {
                (
                    tid,
                    if normalize {
                        format!("PID{}", k + 1)
                    } else {
                        tid.to_string()
                    },
                )
            })
            .collect();
        let pid = |t: i32| pid_label.get(&t).cloned().unwrap_or_else(|| t.to_string());
        let time = |s: Option<u64>| match (normalize, s) {
            (true, _) => "TIME".to_string(),
            (false, Some(x)) => format!("{:.6}s", x as f64 / 1e9),
            (false, None) => "?".into(),
        };
        let h = &self.header;
        let mut o = String::new();
        let cmd: Vec<&str> = h["command"]
            .as_array()
            .map_or(vec![], |a| a.iter().filter_map(Value::as_str).collect());
        let _ = writeln!(o, "== Run\ncommand: {}", cmd.join(" "));
        let _ = writeln!(o, "cwd: {}", h["cwd"].as_str().unwrap_or("?"));
        let _ = writeln!(
            o,
            "host: {}  kernel: {}",
            h["hostname"].as_str().unwrap_or("?"),
            h["kernel"].as_str().unwrap_or("?")
        );
        let _ = writeln!(o, "status: {}", self.status());
        let elapsed = self.footer.as_ref().and_then(|f| {
            f["elapsed_ns"].as_u64().or_else(|| {
                // Schema versions before 3: float seconds.
                f["elapsed"].as_f64().map(|x| (x * 1e9).round() as u64)
            })
        });
        let _ = writeln!(o, "elapsed: {}  events: {}", time(elapsed), self.events);
        let sort = if normalize {
            SortBy::Name
        } else {
            SortBy::Time
        };
        let _ = writeln!(
            o,
            "\n== Syscall summary (whole tree; wall-clock time in calls)"
        );
        o.push_str(&self.total.summary.render(sort));
        for (i, p) in self.tree.processes.iter().enumerate() {
            if self.per_process[i].summary.is_empty() {
                continue;
            }
            let prog = self.program(i).unwrap_or("?");
            let _ = writeln!(o, "\n-- process {} (pid {}, {prog})", p.path, pid(p.pid));
            o.push_str(&self.per_process[i].summary.render(sort));
        }
        if normalize {
            let _ = writeln!(
                o,
                "\n== Slowest syscalls\n(left out with --normalize: timing only)"
            );
        } else {
            let _ = writeln!(o, "\n== Slowest syscalls (top {top})");
            for (d, _, ev) in self.slowest.iter().take(top) {
                let _ = writeln!(
                    o,
                    "{:.6}s  pid {}  {}{}  = {}{}",
                    *d as f64 / 1e9,
                    pid(ev["pid"].as_i64().unwrap_or(0) as i32),
                    ev["syscall"].as_str().unwrap_or("?"),
                    self.compact_args(ev),
                    ev["return"],
                    ev["errno"]
                        .as_str()
                        .map_or(String::new(), |e| format!(" {e}"))
                );
            }
        }
        let _ = writeln!(o, "\n== Failed syscalls (by syscall, errno, path)");
        let mut fails: Vec<_> = self.failures.iter().collect();
        fails.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for ((name, errno, path), n) in fails {
            let _ = writeln!(o, "{n:6}  {name} {errno}  {path}");
        }
        let _ = writeln!(
            o,
            "\n== Files opened (opens, for writing) and written (calls, bytes)"
        );
        for (path, u) in &self.files {
            let _ = writeln!(
                o,
                "{:6} {:6} {:6} {:10}  {path}",
                u.opens, u.write_opens, u.writes, u.bytes_written
            );
        }
        let _ = writeln!(o, "\n== Processes");
        for (i, p) in self.tree.processes.iter().enumerate() {
            let indent = "  ".repeat(p.path.0.len() - 1);
            let prog = match p.execs.last() {
                Some(e) if !e.argv.is_empty() => e.argv.join(" "),
                Some(e) => e.program.clone(),
                None if p.parent.is_none() && self.header["command"].is_array() => self.header
                    ["command"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                None => format!("(fork of {})", self.program(i).unwrap_or("?")),
            };
            let threads = match p.threads.len() {
                1 => String::new(),
                n => format!(", {n} threads"),
            };
            let _ = writeln!(
                o,
                "{indent}{} pid {}: {prog} -- {}{threads}",
                p.path,
                pid(p.pid),
                p.exit_status().unwrap_or("no exit recorded")
            );
        }
        let _ = writeln!(o, "\n== Network peers");
        for ((peer, call), (n, failed)) in &self.peers {
            let f = if *failed > 0 {
                format!(" ({failed} failed)")
            } else {
                String::new()
            };
            let _ = writeln!(o, "{n:6}  {call} {peer}{f}");
        }
        if !self.libcalls.is_empty() || self.header["recorded"]["libcalls"] == true {
            let _ = writeln!(
                o,
                "\n== Library calls (whole tree; wall-clock time in calls)\n    calls  no-return     seconds  usecs/call  function (library)"
            );
            for ((func, lib), u) in self.libcall_rows(normalize) {
                let returned = u.calls - u.unreturned;
                let per = (u.total.as_micros() as u64)
                    .checked_div(returned)
                    .unwrap_or(0);
                let lib = if lib.is_empty() {
                    String::new()
                } else {
                    format!(" ({lib})")
                };
                let (secs, per) = if normalize {
                    ("<DUR>".to_string(), "-".to_string())
                } else {
                    (format!("{:.6}", u.total.as_secs_f64()), per.to_string())
                };
                let _ = writeln!(
                    o,
                    "{:9} {:10} {secs:>11} {per:>11}  {func}{lib}",
                    u.calls, u.unreturned
                );
            }
        }
        if !self.probes.is_empty() {
            let _ = writeln!(o, "\n== Probes (hits, in all and per process)");
            for p in &self.probes {
                let mean = match (p.mean(), normalize) {
                    (Some(_), true) => "  (mean <DUR> in the call)".to_string(),
                    (Some(m), false) => {
                        format!("  (mean {:.1}us in the call)", m.as_secs_f64() * 1e6)
                    }
                    (None, _) => String::new(),
                };
                let _ = writeln!(o, "{:9}  {}{mean}", p.hits, p.spec);
                for (&i, n) in &p.per_process {
                    let proc_ = &self.tree.processes[i];
                    let _ = writeln!(
                        o,
                        "{n:9}    {} pid {} ({})",
                        proc_.path,
                        pid(proc_.pid),
                        self.program(i).unwrap_or("?")
                    );
                }
            }
        }
        if normalize {
            Normalizer::new().text(&o)
        } else {
            o
        }
    }

    pub(super) fn json(&self, top: usize) -> Value {
        let procs: Vec<Value> = self
            .tree
            .processes
            .iter()
            .enumerate()
            .map(|(i, p)| {
                json!({
                    "path": p.path.to_string(), "pid": p.pid,
                    "parent": p.parent.map(|q| self.tree.processes[q].path.to_string()),
                    "program": self.program(i),
                    "argv": p.execs.last().map(|e| e.argv.clone()),
                    // The exit event's fields: exit_code, or signal and core_dumped.
                    "exit": p.threads.first().and_then(|t| t.exit_record.as_ref()).map(|ev| {
                        match ev.get("exit_code") {
                            Some(c) => json!({"exit_code": c}),
                            None if ev["signal"].is_string() => json!({"signal": ev["signal"], "core_dumped": ev["core_dumped"] == true}),
                            None => json!({"status": ev["status"]}),
                        }
                    }),
                    "threads": p.threads.iter().map(|t| t.tid).collect::<Vec<_>>(),
                    "syscalls": self.per_process[i].json(),
                })
            })
            .collect();
        json!({
            "command": self.header["command"],
            "status": self.status(),
            "footer": self.footer,
            "summary": self.total.json(),
            "processes": procs,
            "slowest": self.slowest.iter().take(top).map(|(d, _, ev)| {
                json!({"pid": ev["pid"], "syscall": ev["syscall"], "args": ev["args"], "return": ev["return"], "errno": ev.get("errno"), "dur_ns": d})
            }).collect::<Vec<_>>(),
            "failures": self.failures.iter().map(|((s, e, p), n)| json!({"syscall": s, "errno": e, "path": p, "count": n})).collect::<Vec<_>>(),
            "files": self.files.iter().map(|(p, u)| json!({"path": p, "opens": u.opens, "write_opens": u.write_opens, "writes": u.writes, "bytes_written": u.bytes_written})).collect::<Vec<_>>(),
            "peers": self.peers.iter().map(|((p, c), (n, f))| json!({"peer": p, "syscall": c, "count": n, "failed": f})).collect::<Vec<_>>(),
            "libcalls": self.libcall_rows(false).iter().map(|((func, lib), u)| json!({"func": func, "lib": lib, "calls": u.calls, "unreturned": u.unreturned, "seconds": u.total.as_secs_f64()})).collect::<Vec<_>>(),
            "probes": self.probes.iter().map(|p| json!({
                "spec": p.spec,
                "hits": p.hits,
                "mean_seconds_in_call": p.mean().map(|m| m.as_secs_f64()),
                "processes": p.per_process.iter().map(|(&i, n)| json!({
                    "path": self.tree.processes[i].path.to_string(),
                    "pid": self.tree.processes[i].pid,
                    "hits": n,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}
