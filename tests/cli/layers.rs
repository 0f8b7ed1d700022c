//! The library's layers (the table at the top of src/lib.rs): every
//! `crate::` path in src/ may only name a module of the same layer or one
//! below it, the children of a top-level module import each other without
//! loops, no module file is placed with `#[path]`, and `unsafe` appears
//! only in src/sys (and arch/, a crate of its own).
//!
//! Read from the source text: a path in code (`crate::a::b`, `use
//! crate::{a, b::c}`, or `super::a` from a top-level module's own file) is
//! an edge; comments and `#[cfg(test)] mod` blocks are not (unit tests may
//! use helpers from anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file: its path under src/ (`engine/tracer/mod.rs`) and text.
struct Source {
    rel: String,
    text: String,
}

fn sources(root: &Path) -> Vec<Source> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<Source>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                let text = std::fs::read_to_string(&p).unwrap();
                out.push(Source { rel, text });
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

/// The layer order: the `pub mod` declarations of lib.rs, bottom first.
fn layer_order(lib_rs: &str) -> Vec<String> {
    lib_rs
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

/// The code of a file: comments removed, unit-test modules cut off.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            let next = lines.peek().map(|l| l.trim_start()).unwrap_or("");
            let is_mod = |s: &str| {
                let s = s.strip_prefix("pub ").unwrap_or(s);
                s.starts_with("mod ") && s.ends_with('{')
            };
            if is_mod(t.trim_start_matches("#[cfg(test)]").trim()) || is_mod(next) {
                break;
            }
        }
        out.push_str(strip_comment(line));
        out.push('\n');
    }
    out
}

/// `line` without a `//` comment (outside string literals).
fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// The module paths a file names under `crate::` (first two segments).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::`, `rtrace_crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a, b::c, d::{e, f}}`: the top-level items.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(item.split("::").map(ident).take(2).collect());
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 && !c.is_whitespace() {
                    item.push(c);
                }
            }
            if !item.is_empty() {
                out.push(item.split("::").map(ident).take(2).collect());
            }
            continue;
        }
        let first = ident(rest);
        let after = &rest[first.len()..];
        let second = after.strip_prefix("::").map(ident).unwrap_or_default();
        out.push(vec![first, second]);
    }
    out
}

/// `super::NAME` in a top-level module's own file is `crate::NAME`.
fn super_paths(code: &str) -> Vec<String> {
    code.match_indices("super::")
        .map(|(i, _)| {
            code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

/// The top-level module and the child of it a file belongs to.
fn place(rel: &str) -> (String, Option<String>) {
    let parts: Vec<&str> = rel.split('/').collect();
    let stem = |f: &str| f.trim_end_matches(".rs").to_string();
    match parts.as_slice() {
        [file] => (stem(file), None),
        [top, "mod.rs"] => (top.to_string(), None),
        [top, file] => (top.to_string(), Some(stem(file))),
        [top, child, ..] => (top.to_string(), Some(child.to_string())),
        [] => unreachable!(),
    }
}

/// Whether a file is the module file of its top-level module or of one of
/// its direct children (where `super::` means the level above).
fn super_level(rel: &str) -> usize {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        [_] | [_, "mod.rs"] => 0,
        [_, _] | [_, _, "mod.rs"] => 1,
        _ => 2,
    }
}

/// Every violation: upward imports, import loops among the children of a
/// top-level module, `#[path]` attributes.
fn violations(order: &[String], files: &[Source]) -> Vec<String> {
    let rank: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut bad = Vec::new();
    // Per top-level module: child -> children it names.
    let mut inner: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in files {
        if f.rel == "lib.rs" || f.rel.starts_with("bin/") {
            continue;
        }
        if f.text.lines().any(|l| l.trim_start().starts_with("#[path")) {
            bad.push(format!(
                "{}: #[path] (a module file belongs where its module is)",
                f.rel
            ));
        }
        if !f.rel.starts_with("sys/")
            && f.text.lines().map(strip_comment).any(|l| {
                l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .any(|w| w == "unsafe")
            })
        {
            bad.push(format!(
                "{}: unsafe outside src/sys (wrap the call there)",
                f.rel
            ));
        }
        let (top, child) = place(&f.rel);
        let Some(&me) = rank.get(top.as_str()) else {
            bad.push(format!(
                "{}: module `{top}` is not in lib.rs's layer order",
                f.rel
            ));
            continue;
        };
        let code = code(&f.text);
        let mut named: Vec<Vec<String>> = crate_paths(&code);
        match super_level(&f.rel) {
            0 => named.extend(
                super_paths(&code)
                    .into_iter()
                    .map(|s| vec![s, String::new()]),
            ),
            1 => named.extend(super_paths(&code).into_iter().map(|s| vec![top.clone(), s])),
            _ => {}
        }
        for p in named {
            let target = p[0].as_str();
            if let Some(&them) = rank.get(target) {
                if them > me {
                    bad.push(format!(
                        "{}: imports crate::{target}, a layer above it ({top} is layer {me}, {target} is {them})",
                        f.rel
                    ));
                }
            }
            if target == top {
                if let Some(c) = &child {
                    if !p[1].is_empty() && &p[1] != c {
                        inner
                            .entry(top.clone())
                            .or_default()
                            .entry(c.clone())
                            .or_default()
                            .insert(p[1].clone());
                    }
                }
            }
        }
    }
    for (top, graph) in &inner {
        for cycle in cycles(graph) {
            bad.push(format!("{top}: import loop among {}", cycle.join(", ")));
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

/// The strongly connected components of more than one node (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        if let Some(ws) = t.g.get(v) {
            for w in ws {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    visit(t, w);
                    let lw = t.low[w];
                    let lv = t.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if t.on.contains(w) {
                    let iw = t.index[w];
                    let lv = t.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn imports_only_go_down() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let order = layer_order(&lib);
    assert!(order.len() >= 10, "no layer order in lib.rs: {order:?}");
    let files = sources(&src());
    let bad = violations(&order, &files);
    assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
}

#[test]
fn the_checker_sees_what_it_must() {
    let order: Vec<String> = ["sys", "engine", "syscall", "strace"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let file = |rel: &str, text: &str| Source {
        rel: rel.into(),
        text: text.into(),
    };
    let clean = [
        file("engine/mod.rs", "use crate::sys::prog;\n"),
        file("strace/mod.rs", "use crate::{engine::Tracer, syscall};\n"),
        // Comments and unit tests may name anything.
        file(
            "engine/tracer.rs",
            "// crate::strace::run\n#[cfg(test)]\nmod tests {\n use crate::strace;\n}\n",
        ),
    ];
    assert_eq!(violations(&order, &clean), Vec::<String>::new());
    let up = [
        file("engine/tracer.rs", "fn f() { crate::strace::prog(); }\n"),
        file("sys/mod.rs", "use crate::{syscall::Ctx, engine};\n"),
        file("syscall/mod.rs", "use super::strace::Options;\n"),
    ];
    let v = violations(&order, &up);
    assert_eq!(v.len(), 4, "{v:#?}");
    assert!(
        v[0].starts_with("engine/tracer.rs: imports crate::strace"),
        "{v:#?}"
    );
    let looped = [
        file("strace/cli/mod.rs", "use crate::strace::trace::Options;\n"),
        file("strace/trace.rs", "use super::cli::Args;\n"),
        file("strace/summary.rs", "#[path = \"x.rs\"]\nmod x;\n"),
        file(
            "strace/pidns.rs",
            "// unsafe in a comment is fine\nfn f() { unsafe { g() } }\n",
        ),
        file("sys/fd.rs", "fn f() { unsafe { g() } }\n"),
    ];
    let v = violations(&order, &looped);
    assert_eq!(
        v,
        [
            "strace/pidns.rs: unsafe outside src/sys (wrap the call there)",
            "strace/summary.rs: #[path] (a module file belongs where its module is)",
            "strace: import loop among cli, trace",
        ],
    );
}
