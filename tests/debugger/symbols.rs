//! Symbols, PLT names, source lines and debug-file lookup, checked on the
//! test programs (against objdump and gdb where installed) and on this test
//! binary itself. No ptrace: files are symbolized through a module map
//! built from text, except for the vDSO, read from this process.

use crate::common;

use rtrace::engine::memory::proc::ProcMem;
use rtrace::symbols::{ModuleMap, Symbolizer, Warning};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where `prog` would be mapped: a PIE at 0x5555_5555_4000, else at its
/// link addresses.
fn fake_map(prog: &Path) -> ModuleMap {
    let text = format!(
        "555555554000-555555560000 r-xp 00000000 00:00 1 {0}\n400000-410000 r-xp 00000000 00:00 2 {0}\n",
        prog.display()
    );
    let mut map = ModuleMap::parse(&text);
    map.compute_biases();
    map
}

/// The runtime address of file address `vaddr` of `prog` in [`fake_map`].
fn runtime(map: &ModuleMap, vaddr: u64) -> u64 {
    let pie = &map.mappings()[1];
    if pie.bias == Some(0x5555_5555_4000) {
        vaddr + 0x5555_5555_4000
    } else {
        vaddr
    }
}

fn source_line(marker: &str) -> u32 {
    let src =
        std::fs::read_to_string(common::workspace_dir().join("testprogs/bt_chain.c")).unwrap();
    let i = src
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker in source");
    i as u32 + 1
}

fn tmpdir(name: &str) -> PathBuf {
    let dir = common::target_dir().join("symbols-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn functions_and_lines_of_a_test_program() {
    for (variant, flags) in [
        ("O0-pie", &["-O0"][..]),
        ("O2-nopie", &["-O2", "-no-pie", "-fno-PIE"][..]),
    ] {
        let prog = common::testprog_variant("bt_chain", variant, flags);
        let sym = Symbolizer::new();
        let found = sym.lookup(&prog, "compare");
        assert_eq!(found.len(), 1, "{found:?}");
        let (name, vaddr, size) = found[0].clone();
        assert_eq!(name, "compare");
        assert!(size > 0);
        let map = fake_map(&prog);
        let frames = sym.symbolize(&map, runtime(&map, vaddr) + 4);
        let last = frames.last().unwrap();
        assert_eq!(last.function.as_deref(), Some("compare"));
        assert_eq!(last.offset_in_function, Some(4));
        assert_eq!(last.module_offset, Some(vaddr + 4));
        assert!(last
            .file
            .as_deref()
            .unwrap()
            .ends_with("testprogs/bt_chain.c"));
        assert_eq!(last.module, prog.display().to_string());
        // Globs.
        let names: BTreeSet<String> = sym
            .lookup(&prog, "*sort*")
            .into_iter()
            .map(|s| s.0)
            .collect();
        assert!(
            names.contains("run_sort") && names.contains("qsort@plt"),
            "{names:?}"
        );
        assert!(sym.lookup(&prog, "no_such_function").is_empty());
        // The inlined helper shows up inside on_usr1.
        let line = source_line("stop_here(sig);");
        let addrs = sym.lines_to_addresses(&prog, "bt_chain.c", line);
        assert_eq!(addrs.len(), 1, "one inlined instance: {addrs:?}");
        let frames = sym.symbolize(&map, runtime(&map, addrs[0]));
        let names: Vec<_> = frames
            .iter()
            .map(|f| (f.function.clone().unwrap(), f.inlined))
            .collect();
        assert_eq!(
            names,
            [("relay".into(), true), ("on_usr1".into(), false)],
            "{variant}"
        );
        assert_eq!(frames[0].line, Some(line));
        assert!(sym.warnings().is_empty(), "{:?}", sym.warnings());
    }
}

#[test]
fn plt_stub_names_match_objdump() {
    if !common::have("objdump") {
        eprintln!("objdump not installed: skipped");
        return;
    }
    let variants: [(&str, &[&str]); 4] = [
        ("O0-pie", &["-O0"]),
        ("O0-nopie", &["-O0", "-no-pie", "-fno-PIE"]),
        ("O0-now", &["-O0", "-Wl,-z,now"]),
        ("O0-ibt", &["-O0", "-fcf-protection=full", "-Wl,-z,ibtplt"]),
    ];
    for (variant, flags) in variants {
        let prog = common::testprog_variant("bt_chain", variant, flags);
        let text = run(Command::new("objdump")
            .args(["-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got"])
            .arg(&prog));
        // `0000000000001030 <qsort@plt>:`
        let expected: BTreeSet<(u64, String)> = text
            .lines()
            .filter_map(|l| {
                let (addr, rest) = l.split_once(" <")?;
                let name = rest.strip_suffix(">:")?;
                (name.ends_with("@plt") && !name.contains('-') && !name.contains('+'))
                    .then(|| (u64::from_str_radix(addr, 16).ok(), name.to_string()))
                    .and_then(|(a, n)| Some((a?, n)))
            })
            .collect();
        assert!(expected.len() >= 4, "{variant}: {text}");
        let module = Symbolizer::new().module_for_path(&prog);
        let ours: BTreeSet<(u64, String)> = module
            .symbols()
            .symbols()
            .iter()
            .filter(|s| s.name.ends_with("@plt"))
            .map(|s| (s.addr, s.name.clone()))
            .collect();
        assert_eq!(ours, expected, "{variant}");
    }
}

#[test]
fn file_line_breakpoint_addresses_match_gdb() {
    if !common::have("gdb") {
        eprintln!("gdb not installed: skipped");
        return;
    }
    let markers = [
        "sink += why;",
        "raise(SIGSTOP);",
        "stop_here(sig);",
        "relay(sig);",
        "raise(SIGUSR1);",
        "qsort(v, n",
        "printf(",
    ];
    for (variant, flags) in [
        ("O0-pie", &["-O0"][..]),
        ("O2-pie", &["-O2"][..]),
        ("O2-nopie", &["-O2", "-no-pie", "-fno-PIE"][..]),
    ] {
        let prog = common::testprog_variant("bt_chain", variant, flags);
        let sym = Symbolizer::new();
        for marker in markers {
            let line = source_line(marker);
            let ours: BTreeSet<u64> = sym
                .lines_to_addresses(&prog, "bt_chain.c", line)
                .into_iter()
                .collect();
            let out = run(common::gdb_batch()
                .args([
                    "-ex",
                    &format!("break bt_chain.c:{line}"),
                    "-ex",
                    "info breakpoints",
                ])
                .arg(&prog));
            let gdb: BTreeSet<u64> = out
                .lines()
                .filter(|l| !l.starts_with("Breakpoint"))
                .flat_map(|l| l.split_whitespace())
                .filter_map(|w| w.strip_prefix("0x"))
                .filter_map(|h| u64::from_str_radix(h, 16).ok())
                .collect();
            assert!(!gdb.is_empty(), "{out}");
            assert_eq!(ours, gdb, "{variant} line {line} ({marker})\n{out}");
        }
    }
}

/// Copies the -O0 program, moves its DWARF to a separate file and strips
/// it: `(stripped program, debug file)`.
fn split_debug(dir: &Path, debuglink: bool) -> (PathBuf, PathBuf) {
    let prog = common::testprog_variant("bt_chain", "O0-pie", &["-O0"]);
    let debug = dir.join("bt_chain.debug");
    let stripped = dir.join("bt_chain");
    run(Command::new("objcopy")
        .arg("--only-keep-debug")
        .arg(&prog)
        .arg(&debug));
    let mut strip = Command::new("objcopy");
    strip.arg("--strip-debug").arg("--strip-unneeded");
    if debuglink {
        strip
            .current_dir(dir)
            .arg("--add-gnu-debuglink=bt_chain.debug");
    }
    run(strip.arg(&prog).arg(&stripped));
    (stripped, debug)
}

fn lines_of_compare(sym: &Symbolizer, prog: &Path) -> (Option<String>, Option<u32>) {
    let map = fake_map(prog);
    // The address from the unstripped original (same layout).
    let original = common::testprog_variant("bt_chain", "O0-pie", &["-O0"]);
    let (_, vaddr, _) = Symbolizer::new()
        .lookup(&original, "compare")
        .into_iter()
        .next()
        .expect("compare");
    let f = sym.symbolize(&map, runtime(&map, vaddr)).pop().unwrap();
    (f.function, f.line)
}

#[test]
fn separate_debug_files_by_debuglink_and_build_id() {
    if !common::have("objcopy") {
        eprintln!("objcopy not installed: skipped");
        return;
    }
    // .gnu_debuglink next to the file.
    let dir = tmpdir("debuglink");
    let (stripped, debug) = split_debug(&dir, true);
    let (func, line) = lines_of_compare(&Symbolizer::with_debug_dirs(vec![]), &stripped);
    assert_eq!(
        func.as_deref(),
        Some("compare"),
        "symtab comes from the debug file"
    );
    assert!(line.is_some(), "lines from the debuglink file");

    // In .debug/.
    std::fs::create_dir_all(dir.join(".debug")).unwrap();
    std::fs::rename(&debug, dir.join(".debug/bt_chain.debug")).unwrap();
    assert!(
        lines_of_compare(&Symbolizer::with_debug_dirs(vec![]), &stripped)
            .1
            .is_some()
    );

    // A debuglink file with another CRC is refused, with a warning.
    let mut bytes = std::fs::read(dir.join(".debug/bt_chain.debug")).unwrap();
    bytes.push(0);
    std::fs::write(dir.join(".debug/bt_chain.debug"), bytes).unwrap();
    let sym = Symbolizer::with_debug_dirs(vec![]);
    assert_eq!(lines_of_compare(&sym, &stripped), (None, None));
    assert!(
        sym.warnings()
            .iter()
            .any(|w| w.warning == Warning::DebuglinkCrcMismatch),
        "{:?}",
        sym.warnings()
    );

    // By build-id under a debug directory.
    let dir = tmpdir("build-id");
    let (stripped, debug) = split_debug(&dir, false);
    let id = rtrace::symbols::ElfImage::open(&stripped)
        .unwrap()
        .build_id
        .expect("gcc adds a build-id");
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let root = dir.join("debug-root");
    std::fs::create_dir_all(root.join(".build-id").join(&hex[..2])).unwrap();
    std::fs::rename(
        &debug,
        root.join(".build-id")
            .join(&hex[..2])
            .join(format!("{}.debug", &hex[2..])),
    )
    .unwrap();
    assert_eq!(
        lines_of_compare(&Symbolizer::with_debug_dirs(vec![]), &stripped),
        (None, None)
    );
    let (func, line) = lines_of_compare(&Symbolizer::with_debug_dirs(vec![root]), &stripped);
    assert_eq!(func.as_deref(), Some("compare"));
    assert!(line.is_some());
}

#[test]
fn corrupt_debug_info_gives_fewer_details_not_a_panic() {
    use object::{Object, ObjectSection};
    let prog = common::testprog_variant("bt_chain", "O2-pie", &["-O2"]);
    let clean = std::fs::read(&prog).unwrap();
    let file = object::File::parse(&*clean).unwrap();
    let ranges: Vec<(u64, u64)> = file
        .sections()
        .filter(|s| {
            s.name()
                .is_ok_and(|n| n.starts_with(".debug_") || n == ".eh_frame" || n == ".symtab")
        })
        .filter_map(|s| s.file_range())
        .collect();
    let dir = tmpdir("corrupt");
    let mut seed = 0x1234_5678_u32;
    for round in 0..12 {
        let mut bytes = clean.clone();
        for &(off, len) in &ranges {
            // Overwrite a slice of every section with pseudo-random bytes.
            let n = (len / 3).max(1) as usize;
            let start = off as usize + (round * 7 % 3) * (len as usize / 3);
            for b in bytes[start..(start + n).min(off as usize + len as usize)].iter_mut() {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                *b = (seed >> 16) as u8;
            }
        }
        if round == 11 {
            bytes.truncate(bytes.len() / 2);
        }
        let path = dir.join(format!("corrupt-{round}"));
        std::fs::write(&path, &bytes).unwrap();
        let sym = Symbolizer::new();
        let map = fake_map(&path);
        for vaddr in (0x1000..0x1400).step_by(3) {
            let frames = sym.symbolize(&map, runtime(&map, vaddr));
            assert!(!frames.is_empty());
        }
        let _ = sym.lookup(&path, "*");
        let _ = sym.lines_to_addresses(&path, "bt_chain.c", 30);
        let mut mem = rtrace::engine::memory::FakeMemory::default();
        let regs = rtrace::unwind::from_prstatus_x86_64(&[0; 27]);
        let _ = rtrace::unwind::Unwinder::new().unwind(&sym, &map, &regs, &mut mem, 16);
    }
}

#[test]
fn vdso_symbols_come_from_process_memory() {
    let pid = std::process::id() as i32;
    let mut mem = ProcMem::new(pid);
    let map = ModuleMap::from_pid(pid, &mut mem).unwrap();
    let Some(vdso) = map.mappings().iter().find(|m| m.is_vdso()) else {
        eprintln!("no vDSO: skipped");
        return;
    };
    assert!(map.vdso_image().is_some());
    let sym = Symbolizer::new();
    let module = sym.module(&map, vdso).unwrap();
    let s = module.symbols().find("__vdso_clock_gettime");
    assert_eq!(s.len(), 1, "{:?}", module.symbols().symbols());
    let pc = s[0].addr + vdso.bias.unwrap() + 1;
    let f = sym.symbolize(&map, pc).pop().unwrap();
    assert_eq!(f.module, "[vdso]");
    // gdb's choice among the aliases at that address.
    assert!(
        matches!(
            f.function.as_deref(),
            Some("clock_gettime" | "__vdso_clock_gettime")
        ),
        "{f:?}"
    );
    assert_eq!(f.offset_in_function, Some(1));
}

#[inline(never)]
fn marker_function() -> u64 {
    marker_function as fn() -> u64 as usize as u64
}

#[test]
fn this_test_binary_symbolizes_itself() {
    let pid = std::process::id() as i32;
    let map = ModuleMap::from_pid(pid, &mut ProcMem::new(pid)).unwrap();
    let addr = marker_function();
    let sym = Symbolizer::new();
    let frames = sym.symbolize(&map, addr);
    let f = frames.last().unwrap();
    assert_eq!(
        f.function.as_deref(),
        Some("debugger::symbols::marker_function"),
        "{frames:?}"
    );
    assert_eq!(f.offset_in_function, Some(0));
    let file = f.file.clone().unwrap();
    assert!(file.ends_with("tests/debugger/symbols.rs"), "{f:?}");
    let line = f.line.unwrap();
    // rustc puts a function's first instruction on a line of its body, so
    // ask gdb which line that address belongs to.
    if common::have("gdb") {
        let vaddr = f.module_offset.unwrap();
        let out = run(common::gdb_batch()
            .args(["-ex", &format!("info line *{vaddr:#x}")])
            .arg(&f.module));
        assert!(
            out.contains(&format!("Line {line} of \"tests/debugger/symbols.rs\"")),
            "{out}"
        );
    }
    assert_eq!(
        f.to_string(),
        format!(
            "debugger::symbols::marker_function+0x0 ({file}:{line}) [{}]",
            f.module
        )
    );
}
