//! Planning `rltrace --backend kernel|auto`: whether the kernel backend
//! ([`crate::ltrace::uprobe`]) can reproduce what the ptrace backend prints for a
//! command line, and if so which PLT stubs of the program to probe.
//!
//! What the kernel backend sees is what the ptrace backend traces by
//! default: the calls the main program makes through its own PLT stubs
//! (`.plt`, `.plt.sec`), per function, selected by `-e` exactly as
//! [`crate::ltrace::sites`] selects them. A stub belongs to its caller, so a uprobe
//! on each selected stub's file offset in the program sees exactly the
//! program's calls.
//!
//! Refused with a message (`--backend kernel`; `auto` takes ptrace): `-p`,
//! `-f`, `-l`, `-x`, `-L`, `-S`, `-u`, `--inject`; a program that is not a
//! dynamically linked ELF file; selected functions the program calls
//! through its GOT with no stub (`-fno-plt`); a `-e` that selects calls
//! made by a library the program loads at start-up (found with the dynamic
//! linker's `--list`), or one that could select calls made by libraries
//! loaded later when a module imports `dlopen`, unless every `+` rule of it
//! names `@MAIN`. [`crate::ltrace::uprobe`] adds what only its output needs.

use crate::engine::spawn;
use crate::ltrace::cli::Options;
use crate::ltrace::filter::Filter;
use crate::probe::imports::{self, ModInfo};
use crate::symbols::startup::{interpreter, startup_libraries};
use crate::symbols::{read_load_segments, Symbolizer};
use std::path::{Path, PathBuf};

/// One probed function: its name, as printed, and the file offset of its
/// PLT stub in the program.
#[derive(Debug, Clone)]
pub struct Func {
    /// The symbol name (as in the prototypes).
    pub name: String,
    /// As printed on a `<... name resumed>` line (demangled with `-C`).
    pub bare: String,
    /// As printed on a call line and in the `-c` table (`caller->` with `-e`).
    pub shown: String,
    /// File offset of the stub.
    pub offset: u64,
}

/// What the kernel backend runs: the program and its probes.
#[derive(Debug)]
pub struct Plan {
    /// The program (canonical path).
    pub exe: PathBuf,
    /// The selected stubs.
    pub funcs: Vec<Func>,
    /// Every function the program imports (through stubs or its GOT).
    pub imports: Vec<String>,
}

/// The message of a refusal.
pub fn refuse(what: &str) -> String {
    format!("--backend kernel: {what}; use --backend ptrace")
}

/// Why the options need ptrace, if they do.
fn options_fit(o: &Options) -> Result<(), String> {
    let checks: [(bool, &str); 9] = [
        (!o.pids.is_empty(), "-p: attaching needs ptrace"),
        (o.command.is_empty(), "a command to launch is needed"),
        (
            o.follow,
            "-f: children that exec other programs would not be counted",
        ),
        (
            !o.libs.is_empty(),
            "-l: calls from every library cannot be counted by the program's PLT stubs",
        ),
        (
            !o.x_filters.is_empty(),
            "-x: function entries are not counted",
        ),
        (o.no_plt, "-L: no library calls to count"),
        (o.syscalls, "-S: system calls need ptrace's syscall stops"),
        (
            o.user.is_some(),
            "-u: running as another user is not supported",
        ),
        (!o.injects.is_empty(), "--inject needs ptrace"),
    ];
    match checks.iter().find(|(bad, _)| *bad) {
        Some((_, why)) => Err(refuse(why)),
        None => Ok(()),
    }
}

/// Whether every chain of `-e` marks only calls made by the main program:
/// each `+` rule names `@MAIN` and no chain starts from "everything". The
/// rules are split as [`Filter::parse`] splits them (at every `+` and `-`).
fn main_only(exprs: &[String]) -> bool {
    exprs.iter().all(|e| {
        if e.is_empty() {
            return true;
        }
        let mut segs: Vec<(bool, &str)> = Vec::new();
        let (mut start, mut add) = (0, true);
        for (i, c) in e.char_indices() {
            if c == '+' || c == '-' {
                segs.push((add, &e[start..i]));
                add = c == '+';
                start = i + 1;
            }
        }
        segs.push((add, &e[start..]));
        let last = segs.len() - 1;
        segs.iter().enumerate().all(|(k, &(add, text))| {
            if text.is_empty() {
                // A trailing empty rule is nothing; any other marks (or,
                // after `-`, unmarks) everything.
                return k > 0 && (k == last || !add);
            }
            if k == 0 && text.starts_with('!') {
                return false; // starts from everything
            }
            // Exactly how a rule splits into symbol and library.
            !add || text.starts_with('!') || text.split_once('@').map(|x| x.1) == Some("MAIN")
        })
    })
}

/// The file name of `p`.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Refuses a `-e` that selects calls made by another module: the libraries
/// loaded at start-up are checked name by name; libraries a module may
/// `dlopen` later are unknown, so then only an `@MAIN`-only `-e` passes.
fn check_other_modules(
    o: &Options,
    filter: &Filter,
    sym: &Symbolizer,
    main: &ModInfo,
    interp: &Path,
    exe: &Path,
) -> Result<(), String> {
    if main_only(&o.e_filters) {
        return Ok(());
    }
    let interp_real = std::fs::canonicalize(interp).unwrap_or(interp.to_path_buf());
    let imports_dlopen = |m: &ModInfo| {
        m.plt()
            .iter()
            .chain(m.got())
            .any(|(n, _)| n == "dlopen" || n == "dlmopen")
    };
    let mut dlopen_by = imports_dlopen(main).then(|| file_name(exe));
    for lib in startup_libraries(interp, exe)? {
        if lib == interp_real {
            continue; // the dynamic linker's calls are never reported
        }
        let path = lib.to_string_lossy().into_owned();
        let info = imports::analyze(sym, &path, &lib);
        if let Some((name, _)) = info
            .plt()
            .iter()
            .chain(info.got())
            .find(|(n, _)| filter.matches_in(n, &info.soname, &path, false))
        {
            return Err(refuse(&format!(
                "-e selects calls made by {} too ({}->{name}); only the main program's \
                 calls can be counted (write the rules as NAME@MAIN)",
                info.soname, info.soname
            )));
        }
        if dlopen_by.is_none() && imports_dlopen(&info) {
            dlopen_by = Some(info.soname.clone());
        }
    }
    if let Some(m) = dlopen_by {
        return Err(refuse(&format!(
            "{m} can load libraries with dlopen, and -e could select calls they make; \
             only the main program's calls can be counted (write the rules as NAME@MAIN)"
        )));
    }
    Ok(())
}

/// The program and its probes, or why the kernel backend cannot trace
/// what `o` asks for. `filter` is `-e` (or ltrace's default).
pub fn plan(o: &Options, filter: &Filter) -> Result<Plan, String> {
    options_fit(o)?;
    let cmd = o.command[0].to_string_lossy();
    let found = spawn::resolve(&o.command[0]).map_err(|e| format!("{cmd}: {e}"))?;
    // ltrace names the program by the command it launched (`alias->puts`
    // for a link called alias), not by the file the link resolves to.
    let launched_name = file_name(&found);
    let exe = std::fs::canonicalize(&found).unwrap_or(found);
    let data = std::fs::read(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    if !data.starts_with(b"\x7fELF") {
        return Err(refuse(&format!(
            "{} is not an ELF program (a script?): its interpreter's calls are counted \
             by ptrace",
            exe.display()
        )));
    }
    let Some(interp) = interpreter(&data) else {
        return Err(refuse(&format!(
            "{} is statically linked: it calls no library through a PLT",
            exe.display()
        )));
    };
    drop(data);
    let sym = Symbolizer::new();
    let path = exe.to_string_lossy().into_owned();
    let info = imports::analyze(&sym, &path, &exe);
    // Filters see the main program's name too (`-e puts@prog`).
    let lib_name = launched_name.clone();
    let selected = |name: &str| filter.matches_in(name, &lib_name, &path, true);
    let no_stub: Vec<&str> = info
        .got()
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| selected(n))
        .collect();
    if !no_stub.is_empty() {
        return Err(refuse(&format!(
            "{} calls {} through its GOT with no PLT stub (built with -fno-plt); \
             such calls can only be caught at the function, which every module calls",
            lib_name,
            no_stub.join(", ")
        )));
    }
    if !o.e_filters.is_empty() {
        check_other_modules(o, filter, &sym, &info, &interp, &exe)?;
    }
    let segs = read_load_segments(&exe).map_err(|e| format!("{}: {e:?}", exe.display()))?;
    let mut funcs = Vec::new();
    for (name, vaddr) in info.plt() {
        if !selected(name) {
            continue;
        }
        let offset = segs
            .iter()
            .find(|s| *vaddr >= s.vaddr && *vaddr < s.vaddr + s.filesz)
            .map(|s| vaddr - s.vaddr + s.offset)
            .ok_or_else(|| format!("{name}@plt at {vaddr:#x} is in no loaded segment"))?;
        let bare = if o.demangle {
            crate::symbols::demangle(name).into_owned()
        } else {
            name.clone()
        };
        // As the ptrace backend: `caller->func` once `-e` is given.
        let shown = if o.e_filters.is_empty() {
            bare.clone()
        } else {
            format!("{launched_name}->{bare}")
        };
        funcs.push(Func {
            name: name.clone(),
            bare,
            shown,
            offset,
        });
    }
    let imports = info
        .plt()
        .iter()
        .chain(info.got())
        .map(|(n, _)| n.clone())
        .collect();
    Ok(Plan {
        exe,
        funcs,
        imports,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn main_only_filters() {
        assert!(main_only(&s(&["labs@MAIN"])));
        assert!(main_only(&s(&["labs@MAIN+abs@MAIN", "strlen@MAIN"])));
        assert!(main_only(&s(&["@MAIN-labs"])));
        assert!(main_only(&s(&["labs@MAIN-labs@libc.so*"])));
        assert!(main_only(&s(&["labs@MAIN+"])));
        assert!(!main_only(&s(&["labs"])));
        assert!(!main_only(&s(&["labs@MAIN+abs"])));
        assert!(!main_only(&s(&["-labs"])));
        assert!(!main_only(&s(&["!labs"])));
        assert!(!main_only(&s(&["+labs@MAIN"])));
        assert!(!main_only(&s(&["labs@MAIN++abs@MAIN"])));
        assert!(!main_only(&s(&["/labs@MAIN/"])));
        assert!(!main_only(&s(&["labs@MAIN", "abs"])));
        assert!(!main_only(&s(&["labs@x@MAIN"])));
        assert!(main_only(&s(&["/lab./@MAIN"])));
        // Whatever main_only accepts, the real filter marks nothing in a library.
        for e in [
            "labs@MAIN",
            "@MAIN-labs",
            "labs@MAIN-labs@libc.so*",
            "labs@MAIN+",
            "/lab./@MAIN",
        ] {
            let f = Filter::parse(&s(&[e])).unwrap();
            assert!(
                ["labs", "abs"]
                    .iter()
                    .any(|n| f.matches_in(n, "prog", "/p/prog", true)),
                "{e}"
            );
            for name in ["labs", "malloc", "x"] {
                assert!(
                    !f.matches_in(name, "libc.so.6", "/lib/libc.so.6", false),
                    "{e} {name}"
                );
            }
        }
    }
}
