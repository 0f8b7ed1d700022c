// rtrace watch on Rust statics (tests/debugger/watch_langs.rs): an
// `AtomicU64` static and a `static mut`, named by their crate paths
// (`wp_rust::TOTAL`, `wp_rust::LAST`), each written four times with a
// changing value (gdb reports only changes). Prints both at the end.
use std::sync::atomic::{AtomicU64, Ordering};

pub static TOTAL: AtomicU64 = AtomicU64::new(0);
static mut LAST: u32 = 0;

#[inline(never)]
fn add(i: u64) {
    TOTAL.fetch_add(i * 2 + 1, Ordering::SeqCst);
    // SAFETY: one thread.
    unsafe {
        LAST = i as u32 * 5 + 2;
    }
}

fn main() {
    for i in 0..4 {
        add(std::hint::black_box(i));
    }
    // SAFETY: one thread.
    let last = unsafe { LAST };
    println!("{} {}", TOTAL.load(Ordering::SeqCst), last);
}
