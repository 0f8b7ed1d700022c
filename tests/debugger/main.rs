//! The debugger side: `rtrace break` (specs, counts, return probes,
//! conditions, both backends), `rtrace watch` (hardware watchpoints),
//! DWARF variables and backtraces of live processes against gdb, and
//! symbolization (symbols, PLT names, source lines, debug files).

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod break_bt;
mod break_hits;
mod break_langs;
mod break_names;
mod break_place;
mod break_spec;
mod breakpoint;
mod bt_entry;
mod bt_optimized;
mod bt_run;
mod disasm;
mod dwarf_vars;
mod pinning;
mod symbols;
mod unwind;
mod watch_gdb;
mod watch_langs;
mod watch_local;
mod watchpoint;
