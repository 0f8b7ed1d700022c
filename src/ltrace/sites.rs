//! Where rltrace's breakpoints go in one address space, and what each one
//! means.
//!
//! - A PLT stub (`.plt`, or `.plt.sec` with IBT) of a caller module: every
//!   call of that function from that module passes through it, lazily bound
//!   or not. The stub belongs to the caller, so no filtering is needed.
//! - A library function's entry, for calls a caller makes through its GOT
//!   with no stub (`-fno-plt`): the GOT slot is read once the dynamic
//!   linker has filled it (at the program's entry point, and at each later
//!   library-list change), which also gives the implementation an IFUNC
//!   selected. At a hit the return address tells the calling module; calls
//!   from other modules are stepped over unreported.
//! - `-x`: the entry of each matching function, whoever calls it.
//! - rltrace's own: the dynamic linker's `_dl_debug_state` (libraries
//!   loaded or unloaded: place again) and the program's entry point (GOT
//!   slots are final).

use crate::engine::ptrace::Tid;
use crate::probe::imports::{self, ModInfo};
use crate::probe::resolve::Resolver;
use crate::probe::space::Space;
use crate::symbols::ModuleMap;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// `AT_ENTRY` in the auxiliary vector.
const AT_ENTRY: u64 = 9;
/// `AT_BASE`: where the program interpreter (ld.so) is loaded.
const AT_BASE: u64 = 7;

/// The module name filters see for the main program.
pub const MAIN: &str = "MAIN";

/// A module whose calls are reported (for GOT-entry sites).
#[derive(Clone, Debug)]
pub struct Caller {
    /// Its executable range.
    pub start: u64,
    /// End of the range.
    pub end: u64,
    /// Its soname (printed as `soname->`).
    pub soname: String,
}

/// What a breakpoint means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `_dl_debug_state`.
    Hook,
    /// The program's entry point.
    Entry,
    /// A traced function.
    Call,
}

/// One breakpoint of rltrace's.
#[derive(Clone, Debug)]
pub struct Site {
    /// Its meaning.
    pub kind: Kind,
    /// The function's name.
    pub name: String,
    /// A PLT stub: the calling module's soname.
    pub plt_owner: Option<String>,
    /// A `-x` site: the defining module's soname (`MAIN` for the program).
    pub x_lib: Option<String>,
    /// A GOT-entry site: the callers whose calls are reported.
    pub got_callers: Vec<Caller>,
}

/// What to trace, from the options.
pub struct Selection {
    /// `-e` (or ltrace's default); `None` with `-L`.
    pub plt: Option<super::filter::Filter>,
    /// `-l` patterns.
    pub libs: Vec<String>,
    /// `-x`.
    pub x: Option<super::filter::Filter>,
    /// Only these functions (the kernel backend probes the others).
    pub only: Option<HashSet<String>>,
}

/// One traced address space.
pub struct Proc {
    /// Breakpoint bytes, out-of-line slots, the trampoline.
    pub space: Space,
    /// rltrace's meaning of each breakpoint, by address.
    pub sites: HashMap<u64, Site>,
    /// GOT slots to read: (function, runtime slot address, caller).
    got_todo: Vec<(String, u64, Caller)>,
    /// Past the program's entry point: GOT slots are filled.
    pub relocated: bool,
    /// The module map as of the last placement.
    pub map: ModuleMap,
    /// Problems already reported.
    pub warned: HashSet<String>,
    /// PLT stubs whose GOT slot is bound: where their jump leads.
    pub jump_cache: HashMap<u64, u64>,
    /// `-w`: the dynamic linker's name of each loaded object, by the
    /// path the module map gives its file (`super::linkmap`).
    pub link_names: HashMap<String, String>,
    /// The launched program's file as /proc/PID/maps names it and the
    /// command as found, whose base name ltrace gives the program
    /// (`prog->puts`, `-e puts@prog`); none when attached.
    pub launched_as: Option<(String, String)>,
}

/// Analyses of module files, by path.
#[derive(Default)]
pub struct ModCache {
    by_path: HashMap<PathBuf, Arc<ModInfo>>,
}

impl ModCache {
    fn get(&mut self, res: &Resolver, path: &str, open: PathBuf) -> Arc<ModInfo> {
        self.by_path
            .entry(open.clone())
            .or_insert_with(|| Arc::new(imports::analyze(res.symbolizer(), path, &open)))
            .clone()
    }
}

pub(super) fn auxv_value(pid: Tid, key: u64) -> Option<u64> {
    let auxv = std::fs::read(format!("/proc/{pid}/auxv")).ok()?;
    auxv.chunks_exact(16).find_map(|p| {
        let k = u64::from_ne_bytes(p[..8].try_into().ok()?);
        let v = u64::from_ne_bytes(p[8..].try_into().ok()?);
        (k == key).then_some(v)
    })
}

fn auxv_entry(pid: Tid) -> Option<u64> {
    auxv_value(pid, AT_ENTRY)
}

impl Proc {
    /// A process (just exec'd, or attached: then its GOT is final).
    pub fn new(pid: Tid, attached: bool) -> Proc {
        Proc {
            space: Space::new(pid),
            sites: HashMap::new(),
            got_todo: Vec::new(),
            relocated: attached,
            map: ModuleMap::default(),
            warned: HashSet::new(),
            jump_cache: HashMap::new(),
            link_names: HashMap::new(),
            launched_as: None,
        }
    }

    /// A fork child's copy: same sites, bytes already in its memory.
    pub fn fork_copy(&self, child: Tid) -> Proc {
        Proc {
            space: self.space.fork_copy(child),
            sites: self.sites.clone(),
            got_todo: self.got_todo.clone(),
            relocated: self.relocated,
            map: self.map.clone(),
            warned: HashSet::new(),
            jump_cache: self.jump_cache.clone(),
            link_names: self.link_names.clone(),
            launched_as: self.launched_as.clone(),
        }
    }

    fn place(&mut self, addr: u64, site: Site) -> Result<(), String> {
        if let Some(s) = self.sites.get_mut(&addr) {
            // Merge: another reason to stop here.
            if s.kind == Kind::Call && site.kind == Kind::Call {
                if s.x_lib.is_none() {
                    s.x_lib = site.x_lib;
                }
                for c in site.got_callers {
                    if !s.got_callers.iter().any(|x| x.start == c.start) {
                        s.got_callers.push(c);
                    }
                }
            }
            return Ok(());
        }
        self.space.place(addr, None, &site.name)?;
        self.sites.insert(addr, site);
        Ok(())
    }

    fn call_site(name: &str) -> Site {
        Site {
            kind: Kind::Call,
            name: name.to_string(),
            plt_owner: None,
            x_lib: None,
            got_callers: Vec::new(),
        }
    }

    /// (Re)reads the module map and places every breakpoint the selection
    /// asks for in the modules mapped now. Returns problems to report.
    pub fn place_all(
        &mut self,
        res: &Resolver,
        cache: &mut ModCache,
        sel: &Selection,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        self.jump_cache.clear();
        let map = res.map(self.space.pid);
        self.space.drop_unmapped(&Resolver::exec_ranges(&map));
        let space = &self.space;
        self.sites.retain(|a, _| space.sites.contains_key(a));
        // The dynamic linker (loaded at AT_BASE): its calls are not the
        // program's, and ltrace never reports them; its hook is there.
        let interp = auxv_value(self.space.pid, AT_BASE)
            .filter(|&b| b != 0)
            .and_then(|b| map.mappings().iter().find(|m| m.start <= b && b < m.end))
            .map(|m| m.path.clone());
        if let Some(hook) = res.dl_hook(&map, interp.as_deref()) {
            let s = Site {
                kind: Kind::Hook,
                ..Self::call_site("_dl_debug_state")
            };
            if let Err(e) = self.place(hook, s) {
                problems.push(format!("libraries loaded later will not be seen: {e}"));
            }
        }
        if !self.relocated {
            if let Some(entry) = auxv_entry(self.space.pid) {
                let s = Site {
                    kind: Kind::Entry,
                    ..Self::call_site("(entry point)")
                };
                if self.place(entry, s).is_err() {
                    self.relocated = true;
                }
            } else {
                self.relocated = true;
            }
        }
        let exe = std::fs::read_link(format!("/proc/{}/exe", self.space.pid))
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Every file-backed executable module once, with its analysis.
        let mut seen = HashSet::new();
        // Per module: its analysis, bias, caller identity, whether it is
        // the main program, its path and the name filters match it by.
        let mut mods: Vec<(Arc<ModInfo>, u64, Caller, bool, String, String)> = Vec::new();
        for m in map.mappings() {
            if !(m.is_exec() && m.is_file() && seen.insert(m.path.clone())) {
                continue;
            }
            let Some(bias) = m.bias else { continue };
            let info = cache.get(res, &m.path, map.open_path(m));
            let is_main = m.path == exe;
            let launched = self
                .launched_as
                .as_ref()
                .filter(|(real, _)| is_main && *real == m.path)
                .map(|(_, shown)| shown.rsplit('/').next().unwrap_or(shown).to_string());
            let soname = launched.clone().unwrap_or_else(|| info.soname.clone());
            let caller = Caller {
                start: m.start,
                end: m.end,
                soname,
            };
            let name = launched.unwrap_or_else(|| file_name(&m.path).to_string());
            mods.push((info, bias, caller, is_main, m.path.clone(), name));
        }
        // A statically linked program: nothing to break at but `-x`
        // functions; say so rather than run it silently (ltrace refuses it
        // with "Couldn't find .dynsym or .dynstr"; rltrace runs it on).
        let wants_calls = sel.plt.is_some() || !sel.libs.is_empty();
        if wants_calls
            && sel.x.is_none()
            && mods
                .iter()
                .any(|(info, _, _, main, _, _)| *main && info.static_linked)
        {
            problems.push(format!(
                "{exe} has no dynamic library imports (statically linked): \
                 no library calls can be traced"
            ));
        }
        // Names the `-l` libraries implement.
        let mut lib_names: HashSet<&str> = HashSet::new();
        let lib_match = |so: &str| sel.libs.iter().any(|p| super::filter::lib_matches(p, so));
        for (info, _, _, _, _, _) in &mods {
            if lib_match(&info.soname) {
                lib_names.extend(info.exports().iter().map(|e| e.name.as_str()));
            }
        }
        let mut wanted: Vec<(u64, Site)> = Vec::new();
        let mut todo: Vec<(String, u64, Caller)> = Vec::new();
        for (info, bias, caller, is_main, path, file) in &mods {
            // Filters see the main program's file name too (`-e puts@prog`).
            let lib_name = if *is_main {
                file.as_str()
            } else {
                info.soname.as_str()
            };
            let from_ldso = interp.as_deref() == Some(path.as_str());
            let selected = |name: &str| {
                !from_ldso
                    && sel.only.as_ref().is_none_or(|o| o.contains(name))
                    && (sel
                        .plt
                        .as_ref()
                        .is_some_and(|f| f.matches_in(name, lib_name, path, *is_main))
                        || (!lib_match(&info.soname) && lib_names.contains(name)))
            };
            // No rule can select a call this module makes (libc's under
            // the default `@MAIN`): its imports are not even read.
            let may_call = !from_ldso
                && (sel
                    .plt
                    .as_ref()
                    .is_some_and(|f| f.may_select_in(lib_name, path, *is_main))
                    || !lib_names.is_empty() && !lib_match(&info.soname));
            let (plt, got) = match may_call {
                true => (info.plt(), info.got()),
                false => (&[][..], &[][..]),
            };
            for (name, vaddr) in plt {
                if selected(name) {
                    let mut s = Self::call_site(name);
                    s.plt_owner = Some(caller.soname.clone());
                    wanted.push((vaddr.wrapping_add(*bias), s));
                }
            }
            for (name, slot) in got {
                if selected(name) {
                    todo.push((name.clone(), slot.wrapping_add(*bias), caller.clone()));
                }
            }
            if let Some(x) = &sel.x {
                let statics = if *is_main { info.statics() } else { &[] };
                let exports = info
                    .exports()
                    .iter()
                    .filter(|e| !e.ifunc)
                    .map(|e| (&e.name, e.vaddr))
                    .chain(statics.iter().map(|(n, a)| (n, *a)));
                for (name, vaddr) in exports {
                    if x.matches_in(name, lib_name, path, *is_main) {
                        let mut s = Self::call_site(name);
                        s.x_lib = Some(if *is_main {
                            MAIN.into()
                        } else {
                            info.soname.clone()
                        });
                        wanted.push((vaddr.wrapping_add(*bias), s));
                    }
                }
            }
        }
        for (addr, s) in wanted {
            if let Err(e) = self.place(addr, s) {
                problems.push(e);
            }
        }
        for t in todo {
            if !self.got_todo.iter().any(|x| x.1 == t.1) {
                self.got_todo.push(t);
            }
        }
        self.map = map;
        if self.relocated {
            problems.extend(self.resolve_got());
        }
        problems
    }

    /// `-w`: reads the dynamic linker's object names again (after
    /// [`Proc::place_all`], at each change of the library list).
    pub fn read_link_names(&mut self) {
        let pid = self.space.pid;
        let phdr = auxv_value(pid, libc::AT_PHDR);
        let phnum = auxv_value(pid, libc::AT_PHNUM);
        if let (Some(phdr), Some(phnum)) = (phdr, phnum) {
            self.link_names = super::linkmap::names_by_path(pid, phdr, phnum, &self.map);
        }
    }

    /// Places entry breakpoints for GOT slots that now point at code.
    pub fn resolve_got(&mut self) -> Vec<String> {
        let mut problems = Vec::new();
        let todo = std::mem::take(&mut self.got_todo);
        for (name, slot, caller) in todo {
            let mut b = [0u8; 8];
            let target = self
                .space
                .mem
                .read(slot, &mut b)
                .then(|| u64::from_le_bytes(b));
            let ok = target.filter(|&t| {
                self.map.find(t).is_some_and(|m| m.is_exec())
                    && !(caller.start..caller.end).contains(&t)
            });
            match ok {
                Some(t) => {
                    let mut s = Self::call_site(&name);
                    s.got_callers.push(caller);
                    if let Err(e) = self.place(t, s) {
                        problems.push(e);
                    }
                }
                // Not filled yet (a library being loaded): later.
                None => self.got_todo.push((name, slot, caller)),
            }
        }
        problems
    }
}

impl crate::probe::tasks::Owner for Proc {
    fn space(&self) -> &crate::probe::space::Space {
        &self.space
    }
    fn space_mut(&mut self) -> &mut crate::probe::space::Space {
        &mut self.space
    }
    fn fork_copy(&self, child: Tid) -> Proc {
        Proc::fork_copy(self, child)
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
