//! `-w N`: the frames after each call's line, unwound by rtrace's DWARF
//! (CFI) unwinder, so that frames without a frame pointer
//! (`-O2 -fomit-frame-pointer`) and frames in shared libraries give the
//! true call chain; named as ltrace names them (` > FILE(symbol+0xoff)
//! [ADDR]`, an empty line after the last). testprogs/lt_where.c is a chain
//! main -> outer -> middle -> inner -> labs.

use crate::common;
use crate::ltrace_diff::{normalize, trace};
use crate::ltrace_nesting::nest_prog_with;

use std::path::{Path, PathBuf};

fn rltrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rltrace"))
}

/// The function names of the frame lines right after the first line that
/// contains `call`, up to the empty line that ends them.
fn frames_after(trace: &str, call: &str) -> Vec<String> {
    let lines: Vec<&str> = trace.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(call))
        .unwrap_or_else(|| panic!("no {call} in\n{trace}"));
    let mut names = Vec::new();
    for l in &lines[at + 1..] {
        if l.is_empty() {
            return names;
        }
        let f = l
            .strip_prefix(" > ")
            .unwrap_or_else(|| panic!("not a frame line: {l:?}\n{trace}"));
        let open = f.rfind('(').expect("(");
        let sym = &f[open + 1..f.rfind(')').expect(")")];
        let name = sym.rsplit_once('+').map_or(sym, |(n, _)| n);
        let module = f[..open].rsplit('/').next().unwrap();
        names.push(format!("{module}:{name}"));
    }
    panic!("frames not ended by an empty line:\n{trace}");
}

#[test]
fn frames_are_the_call_chain_without_frame_pointers() {
    for (variant, flags) in [
        ("O0", &["-fno-builtin", "-no-pie"][..]),
        ("O2", &["-fno-builtin", "-O2", "-fomit-frame-pointer"][..]),
    ] {
        let prog = common::testprog_variant("lt_where", variant, flags);
        let exe = prog.file_name().unwrap().to_str().unwrap().to_string();
        let t = trace(&rltrace(), &["-w", "4", "-e", "labs"], &prog);
        let want: Vec<String> = ["inner", "middle", "outer", "main"]
            .iter()
            .map(|f| format!("{exe}:{f}"))
            .collect();
        assert_eq!(frames_after(&t, "labs(-12)"), want, "{variant}\n{t}");
    }
}

/// Frames inside shared libraries, all built `-O2 -fomit-frame-pointer`:
/// func2 is called from func1 in libltnest1.so, called from main.
#[test]
fn frames_through_a_library_without_frame_pointers() {
    let dir = std::env::temp_dir().join(format!("rltrace-where-{}", std::process::id()));
    let Some(prog) = nest_prog_with(&dir, &["-O2", "-fomit-frame-pointer"]) else {
        return;
    };
    let t = trace(&rltrace(), &["-w", "2", "-e", "func2@libltnest1.so"], &prog);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        frames_after(&t, "func2(0"),
        ["libltnest1.so:func1", "ltnest:main"],
        "{t}"
    );
}

/// Whether this ltrace has `-w` (Debian's 0.7.3 is built without
/// libunwind and refuses it).
fn ltrace_has_w() -> bool {
    let out = std::process::Command::new("ltrace")
        .args(["-w", "1", "true"])
        .output()
        .expect("ltrace");
    !String::from_utf8_lossy(&out.stderr).contains("invalid option")
}

/// Each frame line's file made canonical (ltrace prints the dynamic
/// linker's name of a library, rltrace the mapped file's path; both name
/// the same file).
fn canonical_files(text: &str) -> String {
    text.lines()
        .map(
            |l| match l.strip_prefix(" > ").and_then(|f| f.split_once('(')) {
                Some((file, rest)) => {
                    let file = std::fs::canonicalize(Path::new(file))
                        .map_or(file.to_string(), |p| p.display().to_string());
                    format!(" > {file}({rest}\n")
                }
                None => format!("{l}\n"),
            },
        )
        .collect()
}

#[test]
fn frames_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    if !ltrace_has_w() {
        eprintln!("skip: this ltrace was built without libunwind (no -w)");
        return;
    }
    let prog = common::PrivateCopy::new(&common::testprog_variant(
        "lt_where",
        "O0",
        &["-fno-builtin", "-no-pie"],
    ));
    // Frames inside the program only: for a library without `.symtab`
    // libunwind names a local function by the closest exported symbol
    // before it, where rltrace reads the separate debug file's symbols.
    for opts in [
        &["-w", "3", "-e", "labs"][..],
        &["-w", "1", "-e", "labs"],
        &["-w", "2", "-L", "-x", "middle"],
    ] {
        let want = normalize(&canonical_files(&trace(Path::new("ltrace"), opts, &prog)));
        let got = normalize(&canonical_files(&trace(&rltrace(), opts, &prog)));
        assert_eq!(got, want, "{opts:?}");
    }
}

/// A `-fno-plt` call and its `-x` entry share one breakpoint: both calls
/// get the frames they get on a PLT build (the second through the first's
/// hijacked return address), the same as on the PLT build.
#[test]
fn frames_of_nested_probes_same_without_plt() {
    let root = std::env::temp_dir().join(format!("rltrace-where-nest-{}", std::process::id()));
    let mut traces = Vec::new();
    for (name, flags) in [("plt", &[][..]), ("noplt", &["-fno-plt"][..])] {
        let dir = root.join(name);
        let Some(prog) = nest_prog_with(&dir, flags) else {
            return;
        };
        let t = trace(&rltrace(), &["-w", "2", "-efunc1", "-xfunc1"], &prog);
        assert_eq!(
            common::count_lines(&t, "(main+0x"),
            6,
            "{name}: two frames' first line per call\n{t}"
        );
        // The offsets in main differ: `call *GOT` is a byte longer.
        let t = t.replace(&format!("{}/", dir.display()), "DIR/");
        let offsets = regex_lite::Regex::new(r"\+0x[0-9a-f]+\)").unwrap();
        traces.push(normalize(&offsets.replace_all(&t, "+OFF)")));
    }
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(traces[0], traces[1]);
}

/// The names gdb gives the loaded libraries (`info sharedlibrary`, read
/// from the dynamic linker's `link_map` list), stopped in `func`.
fn gdb_library_names(prog: &Path, func: &str) -> Vec<String> {
    let out = common::gdb_batch()
        .args([
            "-ex",
            "set breakpoint pending on",
            "-ex",
            &format!("break {func}"),
            "-ex",
            "run",
        ])
        .args(["-ex", "info sharedlibrary", "-ex", "kill"])
        .arg(prog)
        .output()
        .expect("gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.starts_with("0x"))
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect()
}

/// A library found through a search path with `..` in it: the dynamic
/// linker names it `DIR/sub/../libltnest1.so` (what ltrace prints, and
/// what gdb shows), /proc/PID/maps `DIR/libltnest1.so`. ltrace here has
/// no `-w`, so the oracle is gdb's list of the linker's names.
#[test]
fn frame_modules_are_the_dynamic_linkers_names() {
    if !common::have("gdb") {
        eprintln!("skip: gdb is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-where-lm-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    let rpath = format!("-Wl,-rpath,{}/sub/..", dir.display());
    let Some(prog) = nest_prog_with(&dir, &[&rpath]) else {
        return;
    };
    let names = gdb_library_names(&prog, "func2");
    let t = trace(&rltrace(), &["-w", "2", "-e", "func2@libltnest1.so"], &prog);
    let _ = std::fs::remove_dir_all(&dir);
    let want = names
        .iter()
        .find(|n| n.ends_with("/libltnest1.so"))
        .unwrap_or_else(|| panic!("gdb did not list libltnest1.so: {names:?}"));
    assert!(want.contains("/sub/../"), "the case occurs: {want}");
    let lines: Vec<&str> = t.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("func2(0"))
        .unwrap_or_else(|| panic!("no func2 call:\n{t}"));
    let frame = lines[at + 1];
    let module = frame
        .strip_prefix(" > ")
        .and_then(|f| f.split_once('('))
        .map(|(m, _)| m)
        .unwrap_or_else(|| panic!("not a frame line: {frame:?}\n{t}"));
    assert_eq!(module, want, "{t}");
}
