// A tiny Rust program for rltrace (tests/ltrace/ltrace_langs.rs builds it
// with `rustc -C opt-level=1`): its allocations and its output reach libc
// through the GOT (Rust calls without PLT stubs), and `work` is a mangled
// Rust function for `-x` and `-w` frames. Prints "sum 6".
use std::io::Write;

#[inline(never)]
fn work(n: usize) -> usize {
    let v: Vec<usize> = (1..=n).collect();
    std::hint::black_box(&v);
    v.iter().sum()
}

fn main() {
    let s = work(std::hint::black_box(3));
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "sum {s}");
    let _ = out.flush();
}
