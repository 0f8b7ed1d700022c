//! Specs resolved before the program runs: a spec that can never match,
//! or a condition that can never be read, is refused (exit 2) before the
//! command starts or before `-p` attaches; `--list` and `-D` print what
//! each spec resolved to.
//!
//! A launched program is checked as it will be at its first instruction:
//! the program, its dynamic linker and the libraries the linker loads at
//! start-up (`ld.so --list`, which runs none of the program's code), each
//! laid out at a made-up base in a [`ModuleMap`] built from their program
//! headers, so the same [`Resolver`] that places breakpoints in a running
//! process resolves them here (addresses are printed as file addresses,
//! as `nm` shows them). A running process (`-p`) is checked in its own
//! map, with its run-time addresses.
//!
//! A spec that matches nothing now may still match later, and is then
//! *pending* rather than refused:
//! - `lib:func` whose library is not loaded (yet): it may be `dlopen`ed;
//! - a plain name or `file:line` when a loaded module imports `dlopen` or
//!   `dlmopen` (it can load a library that defines it), or a function that
//!   runs another program (`execve`, `posix_spawn`, `system`, …: the new
//!   program, breakpoints re-armed at its exec, may define it).
//!
//! `*ADDR` of a program not started is left to the run (the load address
//! of a PIE is not known before). Conditions: each variable a condition
//! names must be a parameter or local in scope at the breakpoint's site
//! (where it is placed: past the prologue) of at least one of the spec's
//! functions, or a global or enumerator of a loaded module.

use super::cli::Options;
use crate::engine::spawn;
use crate::probe::cond::Expr as CondExpr;
use crate::probe::imports;
use crate::probe::resolve::{Resolver, Target};
use crate::probe::spec::{Kind, Location, Spec};
use crate::symbols::startup;
use crate::symbols::{read_load_segments, ModuleMap};
use crate::vars::{parse_path, Vars};
use std::path::PathBuf;

/// Functions that load a library at run time.
const LOADERS: &[&str] = &["dlopen", "dlmopen"];
/// Functions that run another program.
const RUNNERS: &[&str] = &[
    "execve",
    "execv",
    "execvp",
    "execvpe",
    "execl",
    "execlp",
    "execle",
    "fexecve",
    "posix_spawn",
    "posix_spawnp",
    "system",
    "popen",
];

/// One address a spec resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The address printed: the process's for `-p`, else the file's.
    pub addr: u64,
    /// The symbol found (or the label of a line or address).
    pub symbol: String,
    /// Its module's path.
    pub path: String,
    /// The file virtual address in that module.
    pub vaddr: u64,
}

/// What one spec resolved to.
#[derive(Debug)]
pub enum Found {
    /// Addresses.
    At(Vec<Site>),
    /// Nothing yet; a library or program loaded later may define it (why).
    Pending(String),
    /// `*ADDR` of a program not loaded yet: checked when it is.
    AtLoad,
}

/// One spec and what it resolved to.
#[derive(Debug)]
pub struct Checked {
    /// The spec as given.
    pub text: String,
    /// What it resolved to.
    pub found: Found,
}

impl Checked {
    /// `spec 'TEXT': 0x… sym (module), …` (or why there is no address yet).
    pub fn line(&self) -> String {
        let what = match &self.found {
            Found::At(v) => v
                .iter()
                .map(|x| format!("{:#x} {} ({})", x.addr, x.symbol, file_name(&x.path)))
                .collect::<Vec<_>>()
                .join(", "),
            Found::Pending(why) => format!("pending until a library defines it ({why})"),
            Found::AtLoad => "an address, checked when the program is loaded".into(),
        };
        format!("spec '{}': {what}", self.text)
    }
}

/// A process image the specs are checked in.
struct Image {
    map: ModuleMap,
    /// The main program's path as the map names it.
    exe: String,
    /// Addresses are the process's own (`-p`), not made up.
    live: bool,
    /// Why a name may be defined later (a module calls `dlopen` or runs
    /// programs), if anything can be.
    later: Option<String>,
}

/// The file name of `path`.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The launched program as it will be mapped at its first instruction,
/// or `None` when it cannot be read (the launch says why).
fn launched(res: &Resolver, cmd: &std::ffi::OsStr) -> Option<Image> {
    let exe = spawn::resolve(cmd).ok()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    read_load_segments(&exe).ok()?;
    let data = std::fs::read(&exe).ok()?;
    let mut files = vec![exe.clone()];
    let mut unknown = None;
    if let Some(interp) = startup::interpreter(&data) {
        match startup::startup_libraries(&interp, &exe) {
            Ok(libs) => files.extend(libs),
            Err(e) => unknown = Some(format!("its libraries could not be listed: {e}")),
        }
        files.push(std::fs::canonicalize(&interp).unwrap_or(interp));
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    let map = laid_out(&files);
    let exe = exe.to_string_lossy().into_owned();
    let later = unknown.or_else(|| loads_later(res, &map));
    Some(Image {
        map,
        exe,
        live: false,
        later,
    })
}

/// A module map with each of `files` mapped as the dynamic linker maps
/// it: a position-dependent executable where it is linked, everything
/// else at its own made-up base, 4 GiB apart.
fn laid_out(files: &[PathBuf]) -> ModuleMap {
    const PAGE: u64 = 4096;
    let mut text = String::new();
    for (i, path) in files.iter().enumerate() {
        let Ok(segs) = read_load_segments(path) else {
            continue;
        };
        let low = segs.iter().map(|s| s.vaddr).min().unwrap_or(0);
        let base = if low >= 0x10000 {
            0
        } else {
            0x7e00_0000_0000 - (i as u64) * (1 << 32)
        };
        for s in &segs {
            let start = (base + s.vaddr) & !(PAGE - 1);
            let end = (base + s.vaddr + s.memsz.max(1) + PAGE - 1) & !(PAGE - 1);
            text.push_str(&format!(
                "{start:x}-{end:x} r-{}p {:08x} 00:00 {} {}\n",
                if s.exec { 'x' } else { '-' },
                s.offset & !(PAGE - 1),
                i + 1,
                path.display()
            ));
        }
    }
    let mut map = ModuleMap::parse(&text);
    map.compute_biases();
    map
}

/// Why a module of `map` can load code later: it imports a loader or
/// a function that runs another program.
fn loads_later(res: &Resolver, map: &ModuleMap) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    for m in map.mappings() {
        if !m.is_file() || !m.is_exec() || !seen.insert(m.path.clone()) {
            continue;
        }
        let info = imports::analyze(res.symbolizer(), &m.path, &map.open_path(m));
        let calls = |names: &[&str]| {
            info.plt()
                .iter()
                .chain(info.got())
                .find(|(n, _)| names.contains(&n.as_str()))
                .map(|(n, _)| n.clone())
        };
        let who = file_name(&m.path);
        if let Some(n) = calls(LOADERS) {
            return Some(format!("{who} calls {n}"));
        }
        if let Some(n) = calls(RUNNERS) {
            return Some(format!("{who} can run another program ({n})"));
        }
    }
    None
}

/// The running process `pid`, or `None` when it cannot be read (the
/// attach says why).
fn running(res: &Resolver, pid: i32) -> Option<Image> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let map = res.map(pid);
    if map.mappings().is_empty() {
        return None;
    }
    let later = loads_later(res, &map);
    Some(Image {
        map,
        exe: exe.to_string_lossy().into_owned(),
        live: true,
        later,
    })
}

/// Why nothing in `img` matching `loc` now does not refuse the spec.
fn pending(res: &Resolver, img: &Image, loc: &Location) -> Option<String> {
    match loc {
        Location::Func { lib: Some(l), .. } if !res.has_module(&img.map, l) => {
            Some(format!("{l} is not loaded yet"))
        }
        Location::Func { lib: Some(_), .. } => None,
        _ => img.later.clone(),
    }
}

/// Why `spec` matched nothing in `img` (for the refusal).
fn why_nothing(res: &Resolver, img: &Image, spec: &Spec) -> String {
    if let Some(w) = res
        .main_program_at(&img.exe, &img.map)
        .and_then(|m| m.why_not(&spec.loc))
    {
        return w;
    }
    let prog = file_name(&img.exe);
    match &spec.loc {
        Location::Func { lib: Some(l), .. } => format!("{l} has no such function"),
        Location::Func { lib: None, .. } => format!(
            "no such function in {prog} or the libraries it loads, and none of them \
             calls dlopen or runs another program"
        ),
        Location::Line { .. } => format!(
            "no code at that line in {prog} or the libraries it loads, and none of them \
             calls dlopen or runs another program"
        ),
        Location::Addr(_) => format!("not in the code of {prog}"),
    }
}

/// The variables of the condition and of the `--print` expressions (at
/// entries: a `ret:` probe has registers only) that no site of `targets`
/// can read, with the functions looked in.
fn unknown_variables(
    vars: &Vars,
    img: &Image,
    spec: &Spec,
    prints: &[(String, CondExpr)],
    targets: &[Target],
) -> Result<(), String> {
    let mut exprs: Vec<(String, &CondExpr)> = Vec::new();
    if let Some(c) = &spec.cond {
        exprs.push((spec.text.clone(), c));
    }
    if spec.kind == Kind::Entry {
        for (text, e) in prints {
            exprs.push((format!("{} --print {text}", spec.text), e));
        }
    }
    if exprs.is_empty() {
        return Ok(());
    }
    // Where the probe is placed: past the prologue for a function entry,
    // or a line on one, whose condition reads variables (as
    // `hit::Breaker` places it).
    let sites: Vec<u64> = targets
        .iter()
        .map(|t| match (&spec.loc, spec.kind) {
            (Location::Func { .. }, Kind::Entry) => vars.after_prologue(&img.map, t.addr),
            (Location::Line { .. }, Kind::Entry) if vars.is_function_entry(&img.map, t.addr) => {
                vars.after_prologue(&img.map, t.addr)
            }
            _ => t.addr,
        })
        .collect();
    for (label, leaf) in exprs
        .iter()
        .flat_map(|(l, e)| e.names().into_iter().map(move |x| (l, x)))
    {
        let CondExpr::Var(path) = leaf else {
            continue;
        };
        let (name, _) = parse_path(path).map_err(|e| format!("'{label}': {e}"))?;
        if !sites.iter().any(|&pc| vars.knows(&img.map, pc, &name)) {
            let mut funcs: Vec<String> = targets
                .iter()
                .take(4)
                .map(|t| format!("{} ({})", t.symbol, t.module))
                .collect();
            if targets.len() > 4 {
                funcs.push("…".into());
            }
            return Err(format!(
                "'{label}': no variable '{name}' in {} (no parameter or local of that name in \
                 its debug information there, nor a global or enumerator)",
                funcs.join(", ")
            ));
        }
    }
    Ok(())
}

/// Resolves every spec of `o` in the program it will launch or the
/// processes it will attach to. `Err` holds one line per refused spec.
/// Programs that cannot be read are not checked (launching or attaching
/// says why).
pub fn check(o: &Options) -> Result<Vec<Checked>, Vec<String>> {
    let res = Resolver::new();
    let vars = Vars::new(res.symbolizer());
    let mut images: Vec<Image> = o.pids.iter().filter_map(|&p| running(&res, p)).collect();
    if let Some(cmd) = o.command.first() {
        images.extend(launched(&res, cmd));
    }
    if images.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for spec in &o.specs {
        let mut at = Vec::new();
        let mut at_load = false;
        let mut later = None;
        let mut whys = Vec::new();
        for img in &images {
            if !img.live && matches!(spec.loc, Location::Addr(_)) {
                at_load = true;
                continue;
            }
            let targets = res.resolve(&img.map, &spec.loc);
            if targets.is_empty() {
                match pending(&res, img, &spec.loc) {
                    Some(w) => later = Some(w),
                    None => whys.push(why_nothing(&res, img, spec)),
                }
                continue;
            }
            if let Err(e) = unknown_variables(&vars, img, spec, &o.prints, &targets) {
                refused.push(e);
            }
            at.extend(targets.into_iter().filter_map(|t| {
                let m = img.map.find(t.addr)?;
                let vaddr = m.file_vaddr(t.addr)?;
                Some(Site {
                    addr: if img.live { t.addr } else { vaddr },
                    symbol: t.symbol,
                    path: m.path.clone(),
                    vaddr,
                })
            }));
        }
        let found = if !at.is_empty() {
            Found::At(at)
        } else if at_load {
            Found::AtLoad
        } else if let Some(w) = later {
            Found::Pending(w)
        } else {
            whys.dedup();
            refused.push(format!(
                "'{}' matched nothing ({})",
                spec.text,
                whys.join("; ")
            ));
            continue;
        };
        out.push(Checked {
            text: spec.text.clone(),
            found,
        });
    }
    if refused.is_empty() {
        Ok(out)
    } else {
        Err(refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let c = Checked {
            text: "work*".into(),
            found: Found::At(
                [(0x401136, "work_a"), (0x401150, "work_b")]
                    .map(|(a, s)| Site {
                        addr: a,
                        symbol: s.into(),
                        path: "/x/prog".into(),
                        vaddr: a,
                    })
                    .to_vec(),
            ),
        };
        assert_eq!(
            c.line(),
            "spec 'work*': 0x401136 work_a (prog), 0x401150 work_b (prog)"
        );
        let c = Checked {
            text: "libx.so:f".into(),
            found: Found::Pending("libx.so is not loaded yet".into()),
        };
        assert_eq!(
            c.line(),
            "spec 'libx.so:f': pending until a library defines it (libx.so is not loaded yet)"
        );
    }

    /// This test binary, laid out as it would be loaded, finds its own
    /// `main` where its symbol table says.
    #[test]
    fn laid_out_map_resolves_like_the_file() {
        let exe = std::env::current_exe().expect("exe");
        let exe = std::fs::canonicalize(&exe).expect("canonical");
        let map = laid_out(std::slice::from_ref(&exe));
        let res = Resolver::new();
        let loc = Location::Func {
            lib: None,
            name: "main".into(),
        };
        let t = res.resolve(&map, &loc);
        assert_eq!(t.len(), 1, "{t:?}");
        let m = map.find(t[0].addr).expect("mapped");
        let vaddr = m.file_vaddr(t[0].addr).expect("bias");
        let sym = res
            .symbolizer()
            .lookup(&exe, "main")
            .into_iter()
            .next()
            .expect("main");
        assert_eq!(vaddr, sym.1);
    }
}
