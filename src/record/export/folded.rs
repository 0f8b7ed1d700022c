//! Folded stacks (`root;caller;callee;syscall weight`, the input format of
//! flamegraph.pl and inferno) from syscall records carrying a `"stack"`
//! array (recorded with `-k`; frames innermost first, each
//! `{"func":..}` or, unsymbolised, `{"pc"|"addr"|"ip":..}` with the
//! `module` and `module_offset` when the address is in a mapped file).
//! A frame is named by its function, else `module+0xoffset` (the same in
//! every process), else its bare address.
//!
//! Each line starts with the program's base name and ends with the syscall
//! name. When no record in the file has a stack, every syscall counts as
//! `program;syscall` (and the caller says so on stderr).

use crate::tracefile::tree::TreeBuilder;
use crate::tracefile::EventPass;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io;

/// What a stack is weighted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// One per syscall.
    Count,
    /// Time in the syscall, in nanoseconds.
    Time,
}

/// `libfoo.so+0x1234` for a frame without a symbol whose mapping is known:
/// the file name and the offset in it, which are the same for the same code
/// in every process (an address is not, under ASLR), so such frames merge.
fn module_frame(f: &Value) -> Option<String> {
    let module = f["module"].as_str().filter(|m| !m.is_empty())?;
    let off = match &f["module_offset"] {
        Value::String(s) => s.clone(),
        Value::Number(n) => format!("{:#x}", n.as_u64()?),
        _ => return None,
    };
    Some(format!(
        "{}+{off}",
        module.rsplit('/').next().unwrap_or(module)
    ))
}

/// A frame name fit for the folded format (no `;`, no line breaks): the
/// function, else `module+0xoffset`, else the bare address.
fn frame(f: &Value) -> String {
    let name = ["func", "function", "name", "symbol"]
        .iter()
        .find_map(|k| f[*k].as_str())
        .map(str::to_string)
        .or_else(|| module_frame(f))
        .or_else(|| {
            ["pc", "addr", "ip"].iter().find_map(|k| match &f[*k] {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => n.as_u64().map(|a| format!("{a:#x}")),
                _ => None,
            })
        })
        .or_else(|| f.as_str().map(str::to_string))
        .unwrap_or_else(|| "??".to_string());
    name.replace([';', '\n', '\r'], "_").replace(' ', "_")
}

/// The folded stacks of the recording `pass` reads (twice: whether any
/// record has a stack, then the stacks), sorted, and whether real stacks
/// were found. What is held is one weight per process and distinct stack,
/// not the events.
pub fn folded(pass: &mut EventPass, weight: Weight) -> io::Result<(BTreeMap<String, u64>, bool)> {
    let mut tree = TreeBuilder::new(false);
    let mut has_stacks = false;
    pass(&mut |i, ev| {
        tree.note_spawn(i, ev);
        has_stacks |= ev["stack"].is_array();
    })?;
    // (builder process, stack below the program) -> weight.
    let mut per_proc: HashMap<(Option<usize>, String), u64> = HashMap::new();
    pass(&mut |i, ev| {
        let owner = tree.add(i, ev).map(|(p, _)| p);
        let Some(name) = ev["syscall"].as_str() else {
            return;
        };
        if has_stacks && !ev["stack"].is_array() {
            return;
        }
        let w = match weight {
            Weight::Count => 1,
            Weight::Time => match crate::tracefile::dur_ns(ev) {
                Some(d) => d,
                None => return,
            },
        };
        if w == 0 {
            return;
        }
        let mut line = String::new();
        if let Some(stack) = ev["stack"].as_array() {
            for f in stack.iter().rev() {
                line.push(';');
                line.push_str(&frame(f));
            }
        }
        line.push(';');
        line.push_str(name);
        *per_proc.entry((owner, line)).or_default() += w;
    })?;
    // A process's program is its last exec: known once every event is read.
    let (tree, index) = tree.finish();
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for ((p, rest), w) in per_proc {
        let prog = p
            .and_then(|p| tree.program(index[p]))
            .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
            .unwrap_or_else(|| "?".into());
        *out.entry(frame(&Value::String(prog)) + &rest).or_default() += w;
    }
    Ok((out, has_stacks))
}

/// The text form: one `stack weight` line each.
pub fn to_text(stacks: &BTreeMap<String, u64>) -> String {
    stacks.iter().map(|(s, w)| format!("{s} {w}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracefile::Recording;

    #[test]
    fn stacks_are_folded_root_first_and_weighted() {
        let r = Recording::parse(
            br#"{"type":"syscall","pid":1,"syscall":"execve","args":["/bin/prog",["prog"]],"return":0,"duration":0.001,"stack":[{"func":"_start"}]}
{"type":"syscall","pid":1,"syscall":"write","return":3,"duration":0.000002,"stack":[{"func":"write"},{"func":"puts"},{"func":"main"}]}
{"type":"syscall","pid":1,"syscall":"write","return":3,"duration":0.000003,"stack":[{"func":"write"},{"func":"puts"},{"func":"main"}]}
{"type":"syscall","pid":1,"syscall":"read","return":3,"duration":0.000001,"stack":[{"pc":4096},{"func":"a;b"}]}
{"type":"syscall","pid":1,"syscall":"read","return":3,"duration":0.000001,"stack":[{"pc":"0x55550000a123","module":"/usr/lib/libx.so.1","module_offset":"0x4123"},{"pc":4096},{"func":"a;b"}]}
{"type":"syscall","pid":1,"syscall":"close","return":0,"duration":0.000001}
"#,
        )
        .unwrap();
        let (c, real) = folded(&mut *r.pass(), Weight::Count).unwrap();
        assert!(real);
        assert_eq!(
            to_text(&c),
            "prog;_start;execve 1\nprog;a_b;0x1000;libx.so.1+0x4123;read 1\n\
             prog;a_b;0x1000;read 1\nprog;main;puts;write;write 2\n"
        );
        let (t, _) = folded(&mut *r.pass(), Weight::Time).unwrap();
        assert_eq!(t["prog;main;puts;write;write"], 5000);
    }
}
