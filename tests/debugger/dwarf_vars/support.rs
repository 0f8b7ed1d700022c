//! What the DWARF variables tests share: the test program's builds, a
//! child stopped by its own SIGSTOP, gdb at the same stop, and the
//! normalizations that make the two comparable.

use rtrace::engine::memory::proc::ProcMem;
use rtrace::engine::ptrace;
use rtrace::symbols::{ModuleMap, Symbolizer};
use rtrace::unwind::{from_prstatus_x86_64, Unwinder};
use rtrace::value::Value;
use rtrace::vars::{DecodeOpts, FrameRegs, Unavailable, VarError, Vars};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The builds every comparison runs on.
pub const VARIANTS: &[(&str, &[&str])] = &[
    ("O0", &[]),
    ("O2", &["-O2"]),
    ("O0-dwarf4", &["-gdwarf-4"]),
    ("O2-dwarf4", &["-O2", "-gdwarf-4"]),
    ("O2-nopie", &["-O2", "-fno-pie", "-no-pie"]),
];

/// `personality(2)` flag: no address-space layout randomization.
pub const ADDR_NO_RANDOMIZE: libc::c_ulong = 0x0040000;

/// Enough of every value to compare with gdb's defaults.
pub const FULL: DecodeOpts = DecodeOpts {
    max_depth: 8,
    max_elems: 200,
    max_str: 200,
};

pub fn build(variant: &str, flags: &[&str]) -> PathBuf {
    crate::common::testprog_variant("dv_vars", variant, flags)
}

/// A child stopped by its own SIGSTOP and seized; killed on drop.
pub struct Stopped {
    /// The child's pid.
    pub pid: i32,
    /// Its modules.
    pub map: ModuleMap,
    /// The DWARF variables reader.
    pub vars: Vars,
    /// Frame registers, innermost first.
    pub frames: Vec<FrameRegs>,
    /// Whether address randomization could be turned off (not under
    /// Docker's default seccomp profile, for one).
    pub fixed_layout: bool,
}

impl Stopped {
    // Reaped with waitpid(__WALL) in `drop`: std's `wait` cannot wait for a
    // traced child through its stops.
    #[allow(clippy::zombie_processes)]
    pub fn start(prog: &Path, args: &[&str]) -> Stopped {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(prog);
        // As under gdb (`set disable-randomization on`): the same load
        // addresses, so pointers into modules compare equal.
        // SAFETY: personality(2) is async-signal-safe and touches no memory.
        unsafe {
            cmd.pre_exec(|| {
                libc::personality(ADDR_NO_RANDOMIZE);
                Ok(())
            });
        }
        let child = cmd
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", prog.display()));
        let pid = child.id() as i32;
        let status = wait(pid, libc::WUNTRACED);
        assert!(
            libc::WIFSTOPPED(status) && libc::WSTOPSIG(status) == libc::SIGSTOP,
            "{} did not stop itself: {status:#x}",
            prog.display()
        );
        // Seizing a stopped task puts it in a ptrace stop at once.
        ptrace::seize(pid, 0).expect("PTRACE_SEIZE");
        let mut words = vec![0u64; 27];
        let n = ptrace::get_regs(pid, &mut words).expect("GETREGSET");
        words.truncate(n / 8);
        let mut regs = from_prstatus_x86_64(&words);
        for (i, low) in xmm_low_halves(pid).into_iter().enumerate() {
            regs.set(17 + i as u16, Some(low));
        }
        let mut mem = ProcMem::new(pid);
        let map = ModuleMap::from_pid(pid, &mut mem).expect("maps");
        let symbols = Symbolizer::new();
        let vars = Vars::new(&symbols);
        let mut unwinder = Unwinder::new();
        let mut frames: Vec<FrameRegs> = unwinder
            .unwind_states(&symbols, &map, &regs, &mut mem, 16)
            .iter()
            .map(FrameRegs::from_state)
            .collect();
        // Frame 0 keeps the vector registers the unwinder does not track.
        let first = vars.innermost(&mut unwinder, &map, regs, &mut mem);
        assert_eq!(first.cfa, frames[0].cfa, "CFA of frame 0 two ways");
        frames[0] = first;
        let persona = std::fs::read_to_string(format!("/proc/{pid}/personality"))
            .ok()
            .and_then(|p| u64::from_str_radix(p.trim(), 16).ok())
            .unwrap_or(0);
        Stopped {
            pid,
            map,
            vars,
            frames,
            fixed_layout: persona & ADDR_NO_RANDOMIZE != 0,
        }
    }

    pub fn mem(&self) -> ProcMem {
        ProcMem::new(self.pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = ptrace::kill(self.pid, libc::SIGKILL);
        while libc::WIFSTOPPED(wait(self.pid, libc::__WALL)) {}
    }
}

pub fn wait(pid: i32, flags: i32) -> i32 {
    let mut status = 0;
    // SAFETY: `status` is a live, writable int; waitpid only writes it.
    let r = unsafe { libc::waitpid(pid, &mut status, flags) };
    assert_eq!(r, pid, "waitpid: {}", std::io::Error::last_os_error());
    status
}

/// The low 64 bits of xmm0-15 (DWARF registers 17-32): where `double` and
/// `float` arguments arrive.
pub fn xmm_low_halves(pid: i32) -> Vec<u64> {
    // struct user_fpregs_struct: 512 bytes, xmm_space at offset 160.
    let mut buf = [0u64; 64];
    // SAFETY: PTRACE_GETFPREGS writes 512 bytes to `data`, which points at
    // a live 512-byte buffer.
    let r = unsafe { libc::ptrace(libc::PTRACE_GETFPREGS, pid, 0, buf.as_mut_ptr()) };
    assert_eq!(r, 0, "GETFPREGS: {}", std::io::Error::last_os_error());
    (0..16).map(|i| buf[20 + 2 * i]).collect()
}

/// A value as gdb prints it (`{x = 1, y = 2}`, `{1, 2}`, `"abc"`).
pub fn gdb_style(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Ptr(p) | Value::Hex(p) | Value::Unreadable(p) => format!("{p:#x}"),
        Value::Sym(s) => s.to_string(),
        Value::Str(s) => {
            let mut out = String::from("\"");
            for &b in &s.bytes {
                match b {
                    b'"' | b'\\' => out.extend(['\\', b as char]),
                    b'\n' => out.push_str("\\n"),
                    0x20..=0x7e => out.push(b as char),
                    _ => out.push_str(&format!("\\{b:03o}")),
                }
            }
            out.push('"');
            if s.truncated {
                out.push_str("...");
            }
            out
        }
        Value::Struct(fields, more) => {
            if *more && fields.is_empty() {
                return "{...}".into();
            }
            let parts: Vec<String> = fields
                .iter()
                .map(|f| format!("{} = {}", f.name, gdb_style(&f.value)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(items, more) => {
            let parts: Vec<String> = items.iter().map(gdb_style).collect();
            format!("{{{}{}}}", parts.join(", "), if *more { "..." } else { "" })
        }
        other => format!("{other:?}"),
    }
}

pub fn ours(r: &Result<Value, VarError>) -> String {
    match r {
        Ok(v) => gdb_style(v),
        Err(VarError::OptimizedOut) => "<optimized out>".into(),
        Err(e) => format!("ERROR {e}"),
    }
}

/// gdb's value text without what we do not print: the character after a
/// `char` (`65 'A'`), the address before a string, the type before a
/// function pointer and the symbol after an address.
pub fn normalize_gdb(s: &str) -> String {
    use regex_lite::Regex;
    let s = Regex::new(r#"0x[0-9a-f]+ ""#).unwrap().replace_all(s, "\"");
    let s = Regex::new(r"(-?\d+) '(\\[0-7]{1,3}|\\.|[^'\\])'")
        .unwrap()
        .replace_all(&s, "$1");
    let s = Regex::new(r"^\([^)]*\(\*\)\([^)]*\)\) ")
        .unwrap()
        .replace_all(&s, "");
    let s = Regex::new(r"(0x[0-9a-f]+) <[^>]*>")
        .unwrap()
        .replace_all(&s, "$1");
    s.into_owned()
}

/// The key [`gdb`] adds when gdb could not turn address randomization off.
pub const RANDOMIZED: &str = "!randomized";

/// gdb's output at the program's stop, split at `echo @@KEY` markers.
pub fn gdb(prog: &Path, args: &[&str], commands: &[(&str, &str)]) -> HashMap<String, Vec<String>> {
    let mut cmd = crate::common::gdb_batch();
    cmd.args(["-iex", "set width 0", "-iex", "set height 0"])
        .args(["-ex", "run"]);
    for (key, c) in commands {
        cmd.args(["-ex", &format!("echo @@{key}\\n"), "-ex", c]);
    }
    let out = cmd
        .arg("--args")
        .arg(prog)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut sections: HashMap<String, Vec<String>> = HashMap::new();
    let mut key = None;
    for line in text.lines() {
        if let Some(k) = line.strip_prefix("@@") {
            key = Some(k.to_string());
            sections.entry(k.to_string()).or_default();
        } else if let Some(k) = &key {
            sections
                .entry(k.clone())
                .or_default()
                .push(line.to_string());
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        sections.len() == commands.len(),
        "gdb did not answer:\n{text}\n{stderr}"
    );
    if stderr.contains("Error disabling address space randomization") {
        sections.insert(RANDOMIZED.into(), Vec::new());
    }
    sections
}

/// `name = value` lines of `info args` / `info locals`, with stack
/// addresses relative to `sp` (the environment gdb gives the program moves
/// its stack).
pub fn gdb_vars(lines: &[String], sp: u64) -> Vec<(String, String)> {
    lines
        .iter()
        .filter_map(|l| l.split_once(" = "))
        .map(|(n, v)| (n.to_string(), stack_relative(&normalize_gdb(v), sp)))
        .collect()
}

/// Replaces addresses within 1 MiB of `sp` with `SP+offset`.
pub fn stack_relative(text: &str, sp: u64) -> String {
    let re = regex_lite::Regex::new(r"0x[0-9a-f]+").unwrap();
    re.replace_all(text, |c: &regex_lite::Captures| {
        let a = u64::from_str_radix(&c[0][2..], 16).unwrap_or(0);
        match a.checked_sub(sp) {
            Some(off) if off < 1 << 20 => format!("SP+{off:#x}"),
            _ => c[0].to_string(),
        }
    })
    .into_owned()
}

/// The stack pointer gdb reports (`print $sp`).
pub fn gdb_sp(lines: &[String]) -> u64 {
    let text = gdb_print(lines);
    let hex = text.rsplit("0x").next().unwrap_or("");
    u64::from_str_radix(hex.trim(), 16).expect("gdb's $sp")
}

/// `$N = value` of `print`, normalized.
pub fn gdb_print(lines: &[String]) -> String {
    let line = lines.first().map(String::as_str).unwrap_or("");
    normalize_gdb(line.split_once(" = ").map_or(line, |(_, v)| v))
}

/// Our `info args` or `info locals` for frame `i`.
pub fn our_vars(s: &Stopped, frame: usize, locals: bool) -> Vec<(String, Result<Value, VarError>)> {
    let f = &s.frames[frame];
    let scope = s.vars.scope(&s.map, f.lookup_pc()).expect("scope");
    // Frame 0's inline chain first; an outer frame is the out-of-line function.
    let sf = if frame == 0 {
        &scope.frames[0]
    } else {
        scope.frames.last().unwrap()
    };
    let list = if locals { &sf.locals } else { &sf.params };
    let mut mem = s.mem();
    list.iter()
        .map(|v| (v.name.clone(), s.vars.read_with(v, f, &mut mem, FULL)))
        .collect()
}

/// Compares our variables with gdb's, name by name and in order (stack
/// addresses relative to our `sp`, the process id as `PID`). Returns how
/// many values were compared exactly.
pub fn compare(
    what: &str,
    s: &Stopped,
    ours_: &[(String, Result<Value, VarError>)],
    gdb_: &[(String, String)],
) -> usize {
    let sp = s.frames[0].regs.sp().expect("sp");
    let names: Vec<&str> = ours_.iter().map(|v| v.0.as_str()).collect();
    let gdb_names: Vec<&str> = gdb_.iter().map(|v| v.0.as_str()).collect();
    assert_eq!(names, gdb_names, "{what}: names");
    let mut exact = 0;
    for ((name, value), (_, expected)) in ours_.iter().zip(gdb_) {
        match value {
            // gdb finds entry values through call sites, which we do not.
            Err(VarError::Unavailable(Unavailable::EntryValue)) => {
                eprintln!("{what}: {name}: entry value (gdb: {expected})");
            }
            // The pid the inline `kill` used: not the same process as gdb's.
            Ok(Value::Int(pid)) if name == "pid_" => {
                assert_eq!(*pid, i64::from(s.pid), "{what}");
                assert!(
                    expected.parse::<i64>().is_ok(),
                    "{what}: gdb's pid_ {expected}"
                );
            }
            // The inline `kill`'s result: the stop comes right after the
            // `syscall` instruction, before the store to `r_`'s stack slot,
            // so the slot holds whatever that run left there (gdb's run is
            // another process, with other stack contents).
            Ok(Value::Int(_)) if name == "r_" => {
                assert!(
                    expected.parse::<i64>().is_ok(),
                    "{what}: gdb's r_ {expected}"
                );
            }
            value => {
                assert_eq!(
                    &stack_relative(&ours(value), sp),
                    expected,
                    "{what}: {name}"
                );
                exact += 1;
            }
        }
    }
    exact
}
