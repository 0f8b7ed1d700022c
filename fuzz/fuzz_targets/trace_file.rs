//! The trace-file reader behind `rtrace report`, `diff` and `export`:
//! zstd frames (decompressed first when the input starts with zstd's
//! magic), JSON Lines with a header (schema version check), events and a footer,
//! then the process tree built from the events (forks, clones, execs,
//! exits, thread ranks) and tree paths (`1.2.1`) looked up in it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtrace::tracefile::tree::{ProcessTree, TreePath};
use rtrace::tracefile::Recording;

fuzz_target!(|data: &[u8]| {
    let Ok(rec) = Recording::from_bytes(data.to_vec()) else {
        return;
    };
    let tree = ProcessTree::build(&rec);
    for (i, p) in tree.processes.iter().enumerate().take(16) {
        let _ = (p.exit_status(), p.exit_code(), p.program(), tree.program(i));
        let _ = tree.find(&p.path);
        for &e in p.events.iter().take(16) {
            let _ = p.syscall_ordinal(&rec, e);
        }
        if let Some(found) = TreePath::parse(
            &p.path
                .0
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("."),
        ) {
            let _ = tree.find(&found);
        }
    }
    if let Some(line) = std::str::from_utf8(data)
        .ok()
        .and_then(|t| t.lines().last())
    {
        if let Some(path) = TreePath::parse(line) {
            let _ = tree.find(&path);
        }
    }
});
