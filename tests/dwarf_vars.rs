//! DWARF variables of live processes, compared with gdb's answers at the
//! same stop.
//!
//! `testprogs/dv_vars.c` stops itself with SIGSTOP from an inline `kill`
//! system call inside `inspect` (or, with the argument `inline`, inside
//! `scale`, inlined into `outer`), so the stop is in frame 0 of the
//! function under test. The test seizes the stopped child, reads its
//! registers (general ones, and the low halves of xmm0-15 for `double`
//! arguments), unwinds it for per-frame registers and CFAs, and reads
//! parameters, locals (of frame 0 and of the caller `main`), globals and
//! paths (`config.origin.y`, `pp->y`, `table[3]`) with
//! [`rtrace::symbols::vars`]. Separately, gdb runs the same binary to the
//! same stop and prints `info args`, `info locals`, `print EXPR`, `whatis`
//! and `print &EXPR`. Values, the order of names, type names and addresses
//! must agree; where gdb says `<optimized out>`, so must we.
//!
//! Variants: -O0 and -O2 (location lists, constants, registers), each with
//! DWARF 5 (`.debug_loclists`, `DW_OP_addrx` forms) and DWARF 4
//! (`.debug_loc`), and a non-PIE -O2 build. Without gdb the structural
//! checks and the known values still run.
#![cfg(target_arch = "x86_64")]

mod common;
#[path = "dwarf_vars/support.rs"]
mod support;

use rtrace::engine::memory::ProcMem;
use rtrace::output::text::{render_value, RenderOpts};
use rtrace::symbols::vars::cond::{parse_cond, FrameEnv};
use rtrace::symbols::vars::{format_value, FrameRegs, PathError, VarDesc, VarError, Vars};
use rtrace::symbols::{ModuleMap, Symbolizer};
use rtrace::syscall::memory::Memory;
use rtrace::syscall::value::Value;
use std::path::Path;
use std::process::Command;
use support::*;

/// What gdb prints at the stop in `inspect`, by key.
const INSPECT_GDB: &[(&str, &str)] = &[
    ("args", "info args"),
    ("locals", "info locals"),
    ("config", "print config"),
    ("counter", "print counter"),
    ("table", "print table"),
    ("big", "print big_global"),
    ("greeting", "print greeting"),
    ("callback", "print callback"),
    ("origin.y", "print config.origin.y"),
    ("table[3]", "print table[3]"),
    ("&origin.y", "print &config.origin.y"),
    ("&table[3]", "print &table[3]"),
    ("&config", "print &config"),
    ("pp->y", "print pp->y"),
    ("w.b[1]", "print w.b[1]"),
    ("t:msg", "whatis msg"),
    ("t:pp", "whatis pp"),
    ("t:c", "whatis c"),
    ("t:callback", "whatis callback"),
    ("t:table", "whatis table"),
    ("t:config", "whatis config"),
    ("t:arr", "whatis arr"),
    ("t:col", "whatis col"),
    ("sp", "print $sp"),
    ("up", "up"),
    ("main", "info locals"),
];

fn check_inspect(variant: &str, flags: &[&str]) {
    let prog = build(variant, flags);
    let s = Stopped::start(&prog, &[]);
    let scope = s
        .vars
        .scope(&s.map, s.frames[0].lookup_pc())
        .expect("scope at the stop");
    assert_eq!(
        scope.frames[0].function.as_deref(),
        Some("inspect"),
        "{variant}"
    );
    let args = our_vars(&s, 0, false);
    let locals = our_vars(&s, 0, true);
    let main_locals = our_vars(&s, 1, true);
    let mut mem = s.mem();

    // Known values, whatever gdb says.
    let arg = |n: &str| ours(&args.iter().find(|a| a.0 == n).unwrap().1);
    assert_eq!(arg("col"), "GREEN", "{variant}");
    assert_eq!(arg("ok"), "true", "{variant}");
    for (name, want) in [
        ("n", "5"),
        ("c", "65"),
        ("s", "-300"),
        ("d", "3.5"),
        ("f", "-0.5"),
    ] {
        let got = arg(name);
        assert!(
            got == want || got.contains("entry value"),
            "{variant} {name}: {got}"
        );
    }
    let global = |e: &str| {
        s.vars
            .lookup(&s.map, &s.frames[0], &mut s.mem(), e)
            .map(|v| gdb_style(&v))
            .unwrap_or_else(|e| format!("ERROR {e}"))
    };
    assert_eq!(global("counter"), "7");
    assert_eq!(global("config.origin.y"), "-4");
    assert_eq!(global("config.level"), "-3", "signed bit field");
    assert_eq!(global("config.flags"), "5", "unsigned bit field");
    assert_eq!(global("table[4]"), "50");
    assert_eq!(global("pp->y"), "200");
    assert_eq!(global("big_global"), "18364758544493064720");
    assert_eq!(
        s.vars
            .lookup(&s.map, &s.frames[0], &mut mem, "table[5]")
            .unwrap_err(),
        PathError::OutOfRange(5)
    );
    assert_eq!(
        s.vars
            .lookup(&s.map, &s.frames[0], &mut mem, "nosuchvar")
            .unwrap_err(),
        PathError::NotFound("nosuchvar".into())
    );
    assert_eq!(
        s.vars
            .lookup(&s.map, &s.frames[0], &mut mem, "config.nosuch")
            .unwrap_err(),
        PathError::NoMember("nosuch".into())
    );
    // Default limits: strace's 32-byte strings, one level of struct.
    let cfg = s.vars.global(&s.map, None, "config").unwrap();
    let mut text = String::new();
    let v = s
        .vars
        .lookup(&s.map, &s.frames[0], &mut mem, "config")
        .unwrap();
    render_value(&mut text, &v, &RenderOpts::default());
    assert_eq!(
        text,
        "{limit=42, name=\"global-config\", origin={...}, color=BLUE, flags=5, level=-3, ratio=0.25}"
    );
    let mut text = String::new();
    render_value(
        &mut text,
        &s.vars
            .lookup(&s.map, &s.frames[0], &mut mem, "greeting")
            .unwrap(),
        &RenderOpts::default(),
    );
    assert_eq!(text, "\"hello, world: a string longer th\"...");
    // Watchpoint view: bytes in, value out, no memory needed.
    let mut bytes = vec![0u8; cfg.size as usize];
    assert_eq!(mem.read(cfg.addr, &mut bytes), bytes.len());
    let Value::Struct(fields, false) = format_value(&cfg.ty, &bytes) else {
        panic!("config is a struct")
    };
    assert_eq!(gdb_style(&fields[0].value), "42");
    assert!(
        matches!(fields[1].value, Value::Ptr(p) if p != 0),
        "no memory: a pointer"
    );
    assert_eq!(cfg.ty.name(), "struct config");
    assert_eq!(cfg.size, 40);
    // Conditions over arguments, globals, enumerators and registers.
    let mut env = FrameEnv {
        vars: &s.vars,
        map: &s.map,
        frame: &s.frames[0],
        mem: &mut mem,
    };
    let always = "col == GREEN && pp->y == 200 && config.origin.y == -4 && table[1] < 0 \
                  && counter == 7 && config.level == -3 && $rsp != 0 && $pc == $rip";
    assert_eq!(
        parse_cond(always).unwrap().holds(&mut env),
        Ok(true),
        "{variant}"
    );
    assert_eq!(
        parse_cond("counter != 7 || table[0] > 10")
            .unwrap()
            .holds(&mut env),
        Ok(false)
    );
    if !variant.starts_with("O2") {
        let c =
            parse_cond("n == 5 && c == 'A' && ok && s < -299 && big < 0 && arr[2] == 15").unwrap();
        assert_eq!(c.holds(&mut env), Ok(true), "{variant}");
    }

    if !common::have("gdb") {
        eprintln!("gdb not installed: comparison skipped");
        return;
    }
    let g = gdb(&prog, &[], INSPECT_GDB);
    let sp = gdb_sp(&g["sp"]);
    let mut exact = compare(
        &format!("{variant} args"),
        &s,
        &args,
        &gdb_vars(&g["args"], sp),
    );
    exact += compare(
        &format!("{variant} locals"),
        &s,
        &locals,
        &gdb_vars(&g["locals"], sp),
    );
    exact += compare(
        &format!("{variant} main locals"),
        &s,
        &main_locals,
        &gdb_vars(&g["main"], sp),
    );
    assert!(exact >= 15, "{variant}: only {exact} values compared");
    for (key, expr) in [
        ("config", "config"),
        ("counter", "counter"),
        ("table", "table"),
        ("big", "big_global"),
        ("greeting", "greeting"),
        ("callback", "callback"),
        ("origin.y", "config.origin.y"),
        ("table[3]", "table[3]"),
        ("pp->y", "pp->y"),
        ("w.b[1]", "w.b[1]"),
    ] {
        let want = gdb_print(&g[key]);
        match s
            .vars
            .lookup_with(&s.map, &s.frames[0], &mut mem, expr, FULL)
        {
            Ok(v) => assert_eq!(gdb_style(&v), want, "{variant}: print {expr}"),
            Err(PathError::Var(VarError::OptimizedOut)) => assert_eq!(want, "<optimized out>"),
            Err(e) => panic!("{variant}: {expr}: {e} (gdb: {want})"),
        }
    }
    // Addresses and sizes of globals and their parts, as watchpoints need.
    for (key, expr, size) in [
        ("&origin.y", "config.origin.y", 4),
        ("&table[3]", "table[3]", 8),
        ("&config", "config", 40),
    ] {
        let g_addr = gdb_print(&g[key]);
        let addr = g_addr.rsplit(' ').next().unwrap();
        let var = s.vars.global(&s.map, None, expr).unwrap();
        assert_eq!(format!("{:#x}", var.addr), addr, "{variant}: &{expr}");
        assert_eq!(var.size, size, "{variant}: sizeof {expr}");
    }
    // Type names, as gdb's `whatis` spells them.
    let scope0 = &scope.frames[0];
    for (key, name) in [
        ("t:msg", "msg"),
        ("t:pp", "pp"),
        ("t:c", "c"),
        ("t:arr", "arr"),
        ("t:col", "col"),
    ] {
        let want = g[key][0].trim_start_matches("type = ");
        let v = scope0
            .params
            .iter()
            .chain(&scope0.locals)
            .find(|v| v.name == name)
            .unwrap();
        assert_eq!(v.ty.name(), want, "{variant}: whatis {name}");
    }
    for (key, expr) in [
        ("t:callback", "callback"),
        ("t:table", "table"),
        ("t:config", "config"),
    ] {
        let want = g[key][0].trim_start_matches("type = ");
        assert_eq!(
            s.vars.global(&s.map, None, expr).unwrap().ty.name(),
            want,
            "{variant}"
        );
    }
}

#[test]
fn inspect_o0() {
    check_inspect(VARIANTS[0].0, VARIANTS[0].1);
}

#[test]
fn inspect_o2() {
    check_inspect(VARIANTS[1].0, VARIANTS[1].1);
}

#[test]
fn inspect_o0_dwarf4() {
    check_inspect(VARIANTS[2].0, VARIANTS[2].1);
}

#[test]
fn inspect_o2_dwarf4() {
    check_inspect(VARIANTS[3].0, VARIANTS[3].1);
}

#[test]
fn inspect_o2_no_pie() {
    check_inspect(VARIANTS[4].0, VARIANTS[4].1);
}

/// The stop inside `scale`, inlined into `outer`: frame 0 of the scope is
/// the inlined subroutine with its own parameters and locals, frame 1 the
/// function it was inlined into, both read with the same registers.
#[test]
fn inlined_subroutine_scopes() {
    for &(variant, flags) in &VARIANTS[..4] {
        let prog = build(variant, flags);
        let s = Stopped::start(&prog, &["inline"]);
        let scope = s
            .vars
            .scope(&s.map, s.frames[0].lookup_pc())
            .expect("scope");
        let names: Vec<(Option<&str>, bool)> = scope
            .frames
            .iter()
            .map(|f| (f.function.as_deref(), f.inlined))
            .collect();
        assert_eq!(
            names,
            [(Some("scale"), true), (Some("outer"), false)],
            "{variant}"
        );
        let mut mem = s.mem();
        let read =
            |vars: &[VarDesc], mem: &mut ProcMem| -> Vec<(String, Result<Value, VarError>)> {
                vars.iter()
                    .map(|v| (v.name.clone(), s.vars.read_with(v, &s.frames[0], mem, FULL)))
                    .collect()
            };
        let inl_args = read(&scope.frames[0].params, &mut mem);
        let inl_locals = read(&scope.frames[0].locals, &mut mem);
        let outer_args = read(&scope.frames[1].params, &mut mem);
        let outer_locals = read(&scope.frames[1].locals, &mut mem);
        let value = |list: &[(String, Result<Value, VarError>)], n: &str| {
            ours(&list.iter().find(|v| v.0 == n).unwrap().1)
        };
        assert_eq!(value(&inl_args, "v"), "8", "{variant}");
        assert_eq!(value(&inl_args, "k"), "3", "{variant}");
        assert_eq!(value(&outer_args, "a"), "7", "{variant}");
        assert_eq!(value(&outer_locals, "base"), "8", "{variant}");
        if !common::have("gdb") {
            continue;
        }
        let g = gdb(
            &prog,
            &["inline"],
            &[
                ("args", "info args"),
                ("locals", "info locals"),
                ("sp", "print $sp"),
                ("up", "up"),
                ("uargs", "info args"),
                ("ulocals", "info locals"),
            ],
        );
        let sp = gdb_sp(&g["sp"]);
        let mut exact = 0;
        for (what, ours_, key) in [
            ("scale args", &inl_args, "args"),
            ("scale locals", &inl_locals, "locals"),
            ("outer args", &outer_args, "uargs"),
            ("outer locals", &outer_locals, "ulocals"),
        ] {
            exact += compare(
                &format!("{variant} {what}"),
                &s,
                ours_,
                &gdb_vars(&g[key], sp),
            );
        }
        assert!(exact >= 5, "{variant}: only {exact} values compared");
    }
}

/// Corrupt DWARF gives fewer answers, never a panic or a hang: random
/// bytes of the debug sections of the test program are overwritten, and
/// every lookup the tools make runs at every pc of `.text`.
#[test]
fn corrupt_dwarf_never_panics() {
    use object::{Object, ObjectSection};
    let dir = common::target_dir().join("tmp").join("dwarf_vars_corrupt");
    std::fs::create_dir_all(&dir).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for &(variant, flags) in &VARIANTS[..4] {
        let original = std::fs::read(build(variant, flags)).unwrap();
        let file = object::File::parse(&*original).unwrap();
        let text = file.section_by_name(".text").unwrap();
        let (text_start, text_len) = (text.address(), text.size());
        let ranges: Vec<(usize, usize)> = file
            .sections()
            .filter(|s| s.name().is_ok_and(|n| n.starts_with(".debug_")))
            .filter_map(|s| s.file_range())
            .map(|(o, l)| (o as usize, l as usize))
            .filter(|r| r.1 > 0)
            .collect();
        let path = dir.join(format!("{variant}-original"));
        std::fs::write(&path, &original).unwrap();
        let read = exercise(&path, text_start, text_len);
        assert!(
            read > 50,
            "{variant}: only {read} values read from intact DWARF"
        );
        for round in 0..40 {
            let mut bytes = original.clone();
            let hits = 1 + (rand() % 24) as usize;
            for _ in 0..hits {
                let (off, len) = ranges[rand() as usize % ranges.len()];
                let at = off + rand() as usize % len;
                bytes[at] = match rand() % 4 {
                    0 => 0,
                    1 => 0xff,
                    _ => rand() as u8,
                };
            }
            let path = dir.join(format!("{variant}-{round}"));
            std::fs::write(&path, &bytes).unwrap();
            exercise(&path, text_start, text_len);
        }
    }
}

/// Every public lookup over a module mapped at 0x5555_5555_4000; returns
/// how many variables were read.
fn exercise(path: &Path, text_start: u64, text_len: u64) -> usize {
    let base = 0x5555_5555_4000u64;
    let mut map = ModuleMap::parse(&format!(
        "{base:x}-{:x} r-xp 00000000 00:00 0 {}\n",
        base + 0x10_0000,
        path.display()
    ));
    map.compute_biases();
    let vars = Vars::new(&Symbolizer::new());
    let mut mem = rtrace::syscall::memory::FakeMemory::default();
    let stack = mem.put(&[0x41u8; 4096]) + 2048;
    let mut regs = rtrace::unwind::InitialRegs::empty(&rtrace::unwind::X86_64);
    for r in 0..17 {
        regs.set(r, Some(stack + u64::from(r) * 8));
    }
    let mut read = 0;
    for off in (0..text_len).step_by(3) {
        regs.pc = base + text_start + off;
        let frame = FrameRegs::new(regs.clone(), Some(stack + 64));
        let Some(scope) = vars.scope(&map, regs.pc) else {
            continue;
        };
        for f in &scope.frames {
            for v in f.params.iter().chain(&f.locals) {
                let _ = v.ty.name();
                read += usize::from(vars.read(v, &frame, &mut mem).is_ok());
                let _ = vars.lookup(&map, &frame, &mut mem, &v.name);
            }
        }
    }
    let frame = FrameRegs::new(regs, None);
    for g in [
        "config",
        "config.origin.y",
        "table[3]",
        "greeting",
        "callback",
        "GREEN",
    ] {
        if let Ok(var) = vars.global(&map, None, g) {
            let _ = format_value(&var.ty, &[0x5a; 64]);
            let _ = var.ty.name();
        }
        let _ = vars.lookup(&map, &frame, &mut mem, g);
        let _ = vars.lookup_scalar(&map, &frame, &mut mem, g);
    }
    read
}

/// `Vars::after_prologue` gives the address gdb's `break FUNC` uses: past
/// the prologue in unoptimized code (where the parameters have been stored
/// to the frame slots DWARF names), the entry itself in optimized code.
#[test]
fn breakpoint_addresses_after_the_prologue() {
    for &(variant, flags) in VARIANTS {
        let prog = build(variant, flags);
        let s = Stopped::start(&prog, &[]);
        let mapping = s.map.find(s.frames[0].regs.pc).unwrap();
        let bias = mapping.bias.unwrap();
        let symbols = Symbolizer::new();
        let mut ours_ = Vec::new();
        for func in ["inspect", "outer", "main"] {
            let (_, vaddr, _) = symbols.lookup(&prog, func)[0].clone();
            let at = s.vars.after_prologue(&s.map, vaddr + bias);
            assert!(
                at >= vaddr + bias && at < vaddr + bias + 0x100,
                "{variant} {func}"
            );
            ours_.push(at - bias);
        }
        if !common::have("gdb") {
            continue;
        }
        let out = Command::new("gdb")
            .args(["-nx", "-batch", "-iex", "set debuginfod enabled off"])
            .args([
                "-ex",
                "break inspect",
                "-ex",
                "break outer",
                "-ex",
                "break main",
            ])
            .arg(&prog)
            .output()
            .expect("gdb");
        let text = String::from_utf8_lossy(&out.stdout);
        let gdb_addrs: Vec<u64> = text
            .lines()
            .filter_map(|l| l.strip_prefix("Breakpoint "))
            .filter_map(|l| l.split(" at 0x").nth(1))
            .filter_map(|l| u64::from_str_radix(l.split(':').next()?, 16).ok())
            .collect();
        // Before the program runs gdb shows file addresses (the bias of a
        // non-PIE executable is 0).
        assert_eq!(ours_, gdb_addrs, "{variant}:\n{text}");
    }
}
