//! printf-family functions (a prototype with a `format` parameter) under
//! the kernel backend.
//!
//! A uprobe cannot read the format before it fetches, so the entry probe
//! of such a function fetches a fixed set: every integer argument slot
//! (the 6 registers and [`super::MAX_STACK_ARGS`] stack words), the format
//! as a string, and as a string each slot that is a `%s` in some format
//! the program holds. The line is then made in rltrace from the format and
//! those raw words, by the same formatter as the ptrace backend's; the
//! output buffer of `sprintf`/`snprintf` (an out-parameter, read at return
//! by ptrace) is made by [`render_printf`] from the same values.
//!
//! Which formats a call passes is only known once it is made, and a
//! floating-point argument is in a vector register that uprobes cannot
//! fetch. So the choice is made per function from the formats the program
//! holds: every NUL-terminated string with a `%` in its data sections
//! ([`scan`]). The function stays on a ptrace breakpoint when one of them
//! has a floating-point conversion, needs more argument slots than are
//! fetched, or (for a function with an output buffer) cannot be made by
//! [`render_printf`] (`%m`, wide strings, positional arguments). A format
//! that comes from elsewhere (built at run time, from a library) and needs
//! more than was fetched is found when the call is shown ([`exact`]): it
//! is shown with what was fetched and counted, and rltrace warns at the end.

use crate::ltrace::format::{printf_types, render_printf};
use crate::ltrace::proto::{Expr, Lens, Proto, Type};
use object::{Object, ObjectSection, SectionKind};
use std::collections::BTreeSet;
use std::path::Path;

/// Integer argument slots fetched for a printf-family function.
pub const SLOTS: usize = 6 + super::MAX_STACK_ARGS;

/// What the formats a program holds need.
#[derive(Debug, Default)]
pub struct Formats {
    /// The first one with a floating-point conversion.
    float: Option<String>,
    /// The first one [`render_printf`] cannot make.
    odd: Option<String>,
    /// The most arguments one of them takes.
    most: (usize, String),
    /// Which arguments (0 = the first after the format) are `%s` in one.
    strings: BTreeSet<usize>,
}

/// The formats in `exe`'s data sections; `None` when it cannot be read.
pub fn scan(exe: &Path) -> Option<Formats> {
    let data = std::fs::read(exe).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let mut f = Formats::default();
    for sec in file.sections() {
        let data_kind = matches!(
            sec.kind(),
            SectionKind::ReadOnlyData
                | SectionKind::ReadOnlyString
                | SectionKind::ReadOnlyDataWithRel
                | SectionKind::Data
        );
        let Ok(bytes) = sec.data() else { continue };
        if !data_kind {
            continue;
        }
        for s in bytes.split(|&b| b == 0).filter(|s| s.contains(&b'%')) {
            f.add(s);
        }
    }
    Some(f)
}

impl Formats {
    fn add(&mut self, fmt: &[u8]) {
        let shown = || String::from_utf8_lossy(fmt).into_owned();
        let types = printf_types(fmt, 1);
        if self.float.is_none() && types.iter().any(|t| matches!(t, Type::Double)) {
            self.float = Some(shown());
        }
        if types.len() > self.most.0 {
            self.most = (types.len(), shown());
        }
        for (j, t) in types.iter().enumerate() {
            if matches!(t, Type::Lens(Lens::Str, _)) {
                self.strings.insert(j);
            }
        }
        // Any word stands for a string here: only whether it can be made counts.
        if self.odd.is_none() && render_printf(fmt, &[1; 64], &|_| Some(Vec::new())).is_none() {
            self.odd = Some(shown());
        }
    }
}

/// How a printf-family function's call is made from the fetched values.
#[derive(Debug, Clone)]
pub struct Printf {
    /// The format's parameter index.
    pub fmt: usize,
    /// Its output buffer (parameter 0): `None` if it has none, else the
    /// index of the parameter that limits it (`snprintf`'s size), if any.
    pub out: Option<Option<usize>>,
}

/// The spec of function `name` with prototype `p` that has a `format`
/// parameter: `(printf, string slots)`, or why it stays on ptrace.
/// `formats` are the program's ([`scan`]).
pub fn plan(
    name: &str,
    p: &Proto,
    formats: Option<&Formats>,
) -> Result<(Printf, Vec<usize>), String> {
    let params = p.params();
    let fi = params
        .iter()
        .position(|x| matches!(x.ty, Type::Format))
        .ok_or_else(|| format!("{name} has no format"))?;
    if fi + 1 != params.len() {
        return Err(format!("{name}'s format is not its last parameter"));
    }
    let mut strings = vec![fi];
    let mut out = None;
    for (k, param) in params[..fi].iter().enumerate() {
        let limit = match &param.ty {
            Type::Lens(Lens::Str, inner) => match &**inner {
                Type::Pointer(a) => match &**a {
                    Type::Char => Some(None),
                    Type::Array(el, Expr::Zero(max)) if matches!(**el, Type::Char) => {
                        match max.as_deref() {
                            None => Some(None),
                            Some(Expr::Arg(n)) if (1..=fi).contains(n) => Some(Some(n - 1)),
                            Some(_) => None,
                        }
                    }
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        match (param.out, limit) {
            (true, Some(l)) if k == 0 => out = Some(l),
            (false, Some(None)) => strings.push(k),
            (false, None) if super::fetch_of(&param.ty) == Some(super::Fetch::Word) => {}
            _ => {
                return Err(format!(
                    "{name}'s argument {} is not fetched with a format",
                    k + 1
                ))
            }
        }
    }
    let Some(f) = formats else {
        return Err(format!("{name}: the program's formats could not be read"));
    };
    if let Some(s) = &f.float {
        return Err(format!(
            "{name}: the program has a floating-point format ({s:?}; uprobes fetch no vector register)"
        ));
    }
    if fi + 1 + f.most.0 > SLOTS {
        return Err(format!(
            "{name}: the program has a format with more than {} arguments ({:?})",
            SLOTS - fi - 1,
            f.most.1
        ));
    }
    if let (Some(_), Some(s)) = (out, &f.odd) {
        return Err(format!(
            "{name}: the program has a format whose output cannot be made here ({s:?})"
        ));
    }
    strings.extend(f.strings.iter().map(|j| fi + 1 + j));
    Ok((Printf { fmt: fi, out }, strings))
}

/// Whether a call of a function planned as `p` with format `fmt` (`None`
/// if it was not fetched) is shown exactly from `ints` slots and the
/// strings fetched at `strings`; with an output buffer, also its contents
/// (`strs` gives the fetched string at an address).
pub fn exact(
    p: &Printf,
    fmt: Option<&[u8]>,
    ints: &[u64],
    strings: &[usize],
    strs: &dyn Fn(u64) -> Option<Vec<u8>>,
) -> (bool, Option<Vec<u8>>) {
    let addr = ints.get(p.fmt).copied().unwrap_or(0);
    let Some(fmt) = fmt else {
        // An unreadable format is shown as its address by both backends.
        return (addr == 0 || p.out.is_none(), None);
    };
    let first = p.fmt + 1;
    let types = printf_types(fmt, first + 1);
    let fits = first + types.len() <= ints.len()
        && types.iter().enumerate().all(|(j, t)| match t {
            Type::Double => false,
            Type::Lens(Lens::Str, _) => strings.contains(&(first + j)),
            _ => true,
        });
    let Some(limit) = p.out else {
        return (fits, None);
    };
    let Some(mut text) = render_printf(fmt, &ints[first.min(ints.len())..], strs) else {
        return (false, None);
    };
    if let Some(k) = limit {
        // snprintf writes at most size - 1 bytes; for size 0 nothing, and
        // the buffer is then shown as at most 0 bytes: `""` either way.
        let n = ints.get(k).copied().unwrap_or(0);
        text.truncate(usize::try_from(n.saturating_sub(1)).unwrap_or(usize::MAX));
    }
    (fits, Some(text))
}
