//! `rtrace kernel probe SPEC…`: dynamic events from the kernel's own syntax
//! or rtrace's short forms (`u:BIN:FUNC args`, `ur:BIN:FUNC`, `k:FUNC args`,
//! `kr:FUNC`), defined in rtrace's group and removed on every exit path.

use super::cli::ProbeArgs;
use super::dwarfargs::{signature, ArgType};
use super::dynevent::{have_kprobes, DynGroup, NO_KPROBES};
use super::event::Formats;
use super::session;
use super::sink::{open_output, Sink};
use super::trace::{run_session, PidScope, Target};
use super::tracefs::{group_name, instance_name, Instance, Tracefs};
use crate::symbols::{read_load_segments, Symbolizer};
use std::path::{Path, PathBuf};

/// The kind of a probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Kernel function entry.
    Kprobe,
    /// Kernel function return.
    Kretprobe,
    /// User function entry.
    Uprobe,
    /// User function return.
    Uretprobe,
}

impl Kind {
    fn is_return(self) -> bool {
        matches!(self, Kind::Kretprobe | Kind::Uretprobe)
    }
    fn is_kernel(self) -> bool {
        matches!(self, Kind::Kprobe | Kind::Kretprobe)
    }
}

/// Where a probe goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A kernel place, verbatim (`do_mkdirat`, `vfs_read+8`).
    Kernel(String),
    /// A user binary and a symbol with an offset.
    UserSym(String, String, u64),
    /// A user place already as `PATH:0xOFFSET` (kernel syntax).
    UserRaw(String),
}

/// One parsed probe specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeSpec {
    /// Kind.
    pub kind: Kind,
    /// Event name (defaults from the function).
    pub name: Option<String>,
    /// Place.
    pub place: Place,
    /// Arguments as written.
    pub args: Vec<String>,
}

fn parse_offset(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("bad offset '{s}'"))
}

/// Parses one SPEC (a single argv string; arguments separated by spaces).
pub fn parse_spec(spec: &str) -> Result<ProbeSpec, String> {
    let mut words = spec.split_whitespace();
    let head = words.next().ok_or("empty probe spec")?;
    let mut rest: Vec<String> = words.map(str::to_string).collect();
    let short = |kind: Kind, body: &str, rest: Vec<String>| -> Result<ProbeSpec, String> {
        let place = if kind.is_kernel() {
            Place::Kernel(body.to_string())
        } else {
            let (bin, func) = body
                .rsplit_once(':')
                .ok_or_else(|| format!("'{spec}': expected u:BINARY:FUNC"))?;
            match func.split_once('+') {
                Some((f, off)) => Place::UserSym(bin.into(), f.into(), parse_offset(off)?),
                None if func.starts_with("0x") => Place::UserRaw(format!("{bin}:{func}")),
                None => Place::UserSym(bin.into(), func.into(), 0),
            }
        };
        Ok(ProbeSpec {
            kind,
            name: None,
            place,
            args: rest,
        })
    };
    for (prefix, kind) in [
        ("k:", Kind::Kprobe),
        ("kr:", Kind::Kretprobe),
        ("u:", Kind::Uprobe),
        ("ur:", Kind::Uretprobe),
    ] {
        if let Some(body) = head.strip_prefix(prefix) {
            return short(kind, body, rest);
        }
    }
    // Kernel syntax: p[:[GRP/]NAME] PLACE ARGS, r[MAXACTIVE][:[GRP/]NAME] PLACE ARGS.
    let (ty, name) = match head.split_once(':') {
        Some((t, n)) => (t, Some(n.rsplit('/').next().unwrap_or(n).to_string())),
        None => (head, None),
    };
    let ret = match ty.chars().next() {
        Some('p') if ty.len() == 1 => false,
        Some('r') if ty[1..].chars().all(|c| c.is_ascii_digit()) => true,
        _ => {
            return Err(format!(
                "'{spec}': unknown probe type '{ty}' (p:, r:, k:, kr:, u:, ur:)"
            ))
        }
    };
    if rest.is_empty() {
        return Err(format!("'{spec}': no place"));
    }
    let place = rest.remove(0);
    let user = place.contains('/') && place.contains(':');
    let kind = match (user, ret) {
        (false, false) => Kind::Kprobe,
        (false, true) => Kind::Kretprobe,
        (true, false) => Kind::Uprobe,
        (true, true) => Kind::Uretprobe,
    };
    let place = if user {
        Place::UserRaw(place.trim_end_matches("%return").to_string())
    } else {
        Place::Kernel(place)
    };
    Ok(ProbeSpec {
        kind,
        name: name.filter(|n| !n.is_empty()),
        place,
        args: rest,
    })
}

/// The kernel's fetch-arg name of the N-th (1-based) integer argument
/// register of the native ABI: `struct pt_regs` member names, which are
/// the ptrace register names without x86-64's `r` prefix (`rdi` → `%di`;
/// `r8` stays `%r8`).
pub fn arg_register(n: usize) -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        use rtrace_arch::x86_64::{ARG_REGS, REG_NAMES};
        let name = REG_NAMES[*ARG_REGS.get(n.checked_sub(1)?)?];
        let short = name
            .strip_prefix('r')
            .filter(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
            .unwrap_or(name);
        Some(format!("%{short}"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = n;
        None
    }
}

fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn fetch_for(reg: &str, ty: &ArgType) -> Result<String, String> {
    match ty {
        ArgType::Str => Ok(format!("+0({reg}):ustring")),
        ArgType::Other(what) => Err(format!("a {what} value is not in an integer register")),
        t => Ok(format!("{reg}:{}", t.suffix().unwrap_or_default())),
    }
}

/// Turns the written arguments into fetch-args. `sig` is the function's
/// DWARF signature (user probes on binaries with DWARF).
pub fn fetch_args(
    kind: Kind,
    args: &[String],
    sig: Option<&super::dwarfargs::Signature>,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for a in args {
        if a.contains('=') {
            out.push(a.clone());
        } else if a == "$retval" {
            if !kind.is_return() {
                return Err("$retval needs a return probe (ur:, kr:, r:)".into());
            }
            let ty = sig.and_then(|s| s.ret.as_ref()).and_then(ArgType::suffix);
            out.push(match ty {
                Some(t) if !kind.is_kernel() => format!("ret=$retval:{t}"),
                _ => "ret=$retval".into(),
            });
        } else if a == "$comm" {
            out.push("comm=$comm".into());
        } else if let Some(n) = a.strip_prefix("$arg") {
            let n: usize = n.parse().map_err(|_| format!("bad argument '{a}'"))?;
            if kind.is_kernel() {
                out.push(format!("arg{n}={a}"));
            } else {
                let reg = arg_register(n)
                    .ok_or_else(|| format!("{a}: no argument register {n} on this architecture"))?;
                let ty = sig
                    .and_then(|s| s.params.get(n - 1))
                    .map(|(_, t)| t.clone())
                    .unwrap_or(ArgType::Ptr);
                out.push(format!(
                    "arg{n}={}",
                    fetch_for(&reg, &ty).unwrap_or(format!("{reg}:x64"))
                ));
            }
        } else if let Some(r) = a.strip_prefix('%') {
            out.push(format!("{}={a}", sanitize(r)));
        } else if kind.is_kernel() {
            // Kernels with BTF argument support take parameter names as is.
            out.push(a.clone());
        } else {
            if kind.is_return() {
                return Err(format!(
                    "'{a}': parameters are not available at return; use $retval"
                ));
            }
            let sig = sig.ok_or_else(|| format!("'{a}': no DWARF for this function"))?;
            let mut regno = 0;
            let mut found = None;
            for (name, ty) in &sig.params {
                if let ArgType::Other(what) = ty {
                    if name == a {
                        return Err(format!("parameter '{a}' is a {what}: not supported"));
                    }
                    // Floats and aggregates shift integer registers unpredictably here.
                    if found.is_none() {
                        return Err(format!(
                            "parameter '{a}' follows a {what} parameter: use $argN or %REG"
                        ));
                    }
                    continue;
                }
                regno += 1;
                if name == a {
                    found = Some((regno, ty.clone()));
                    break;
                }
            }
            let (n, ty) = found.ok_or_else(|| format!("function has no parameter '{a}'"))?;
            let reg = arg_register(n).ok_or_else(|| {
                format!("parameter '{a}' is passed on the stack (argument {n}); not supported")
            })?;
            out.push(format!("{}={}", sanitize(a), fetch_for(&reg, &ty)?));
        }
    }
    Ok(out)
}

fn find_binary(bin: &str) -> Result<PathBuf, String> {
    let p = if bin.contains('/') {
        PathBuf::from(bin)
    } else {
        std::env::var_os("PATH")
            .and_then(|path| {
                std::env::split_paths(&path)
                    .map(|d| d.join(bin))
                    .find(|p| p.is_file())
            })
            .ok_or_else(|| format!("'{bin}' not found in PATH"))?
    };
    p.canonicalize()
        .map_err(|e| format!("{}: {e}", p.display()))
}

/// The file offset of `func`+`off` in the ELF file `path`.
pub fn file_offset(path: &Path, func: &str, off: u64) -> Result<u64, String> {
    let module = Symbolizer::new().module_for_path(path);
    let syms = module.symbols().find(func);
    let sym = syms
        .iter()
        .find(|s| s.addr != 0)
        .ok_or_else(|| format!("no function '{func}' in {}", path.display()))?;
    let vaddr = sym.addr + off;
    let segs = read_load_segments(path).map_err(|e| format!("{}: {e:?}", path.display()))?;
    segs.iter()
        .find(|s| vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz)
        .map(|s| vaddr - s.vaddr + s.offset)
        .ok_or_else(|| format!("{func} at {vaddr:#x} is in no loaded segment"))
}

/// One resolved event definition: its name and the line for `dynamic_events`.
pub fn definition(
    spec: &ProbeSpec,
    group: &str,
    used: &mut Vec<String>,
) -> Result<(String, String), String> {
    let (place, sig, base) = match &spec.place {
        Place::Kernel(k) => (
            k.clone(),
            None,
            k.split('+').next().unwrap_or(k).to_string(),
        ),
        Place::UserRaw(r) => {
            let base = Path::new(r.split(':').next().unwrap_or(r))
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            (r.clone(), None, base)
        }
        Place::UserSym(bin, func, off) => {
            let path = find_binary(bin)?;
            let fo = file_offset(&path, func, *off)?;
            let sig = signature(&path, func).ok();
            (format!("{}:{fo:#x}", path.display()), sig, func.clone())
        }
    };
    let mut args = spec.args.clone();
    if spec.kind.is_return() && args.is_empty() {
        args.push("$retval".into());
    }
    let fetch = fetch_args(spec.kind, &args, sig.as_ref())?;
    let mut name = spec.name.clone().unwrap_or_else(|| {
        let b = sanitize(&base);
        if spec.kind.is_return() {
            format!("{b}__return")
        } else {
            b
        }
    });
    let stem = name.clone();
    let mut n = 1;
    while used.contains(&name) {
        n += 1;
        name = format!("{stem}_{n}");
    }
    used.push(name.clone());
    let t = if spec.kind.is_return() { 'r' } else { 'p' };
    let mut line = format!("{t}:{group}/{name} {place}");
    for f in fetch {
        line.push(' ');
        line.push_str(&f);
    }
    Ok((name, line))
}

/// `rtrace kernel probe ARGS`.
pub fn main(a: ProbeArgs) -> Result<i32, String> {
    let specs: Vec<ProbeSpec> = a
        .specs
        .iter()
        .map(|s| parse_spec(s))
        .collect::<Result<_, _>>()?;
    let mode = a.out.mode();
    let target = Target::new(a.out.pids, a.cmd)?;
    let out = open_output(a.out.output.as_deref())?;
    let top = Tracefs::open()?;
    if specs.iter().any(|s| s.kind.is_kernel()) && !have_kprobes(&top) {
        return Err(NO_KPROBES.into());
    }
    let me = std::process::id();
    let mut group = DynGroup::new(&top, &group_name(me));
    session::install_signals();
    let mut used = Vec::new();
    let mut formats = Formats::new(&top);
    for s in &specs {
        let (name, line) = definition(s, group.group(), &mut used)?;
        group.add(&name, &line, s.kind.is_kernel())?;
        formats.load(group.group(), &name)?;
    }
    let inst = Instance::create(&top, &instance_name(me))?;
    let mut sink = Sink::new(&top, mode, a.out.json, out);
    let names = used.clone();
    let g = group.group().to_string();
    let end = run_session(
        &top,
        &inst,
        &formats,
        &target,
        PidScope::Events,
        &mut sink,
        |fs| {
            for n in &names {
                fs.write(&format!("events/{g}/{n}/enable"), "1")?;
            }
            Ok(())
        },
    );
    // The instance goes first: the kernel keeps enabled events busy.
    drop(sink);
    drop(inst);
    drop(group);
    Ok(end?.code())
}

#[cfg(test)]
mod tests;
