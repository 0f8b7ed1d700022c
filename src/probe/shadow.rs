//! The shadow stack of calls whose return address rtrace replaced with its
//! trampoline (return probes, rltrace's return hijack, and the kernel
//! backend's uretprobes): which pending calls a new entry makes stale, and
//! which pending call a return belongs to.

/// Most calls pending per thread; deeper calls are not hijacked.
pub const MAX_SHADOW: usize = 4096;

/// Stack slots closer than this below the stack pointer are on the same
/// stack (a signal's alternate stack is usually far from the thread's).
const SAME_STACK: u64 = 8 << 20;

/// Pushes `e`, whose return address is in stack slot `slot(&e)`. Pending
/// calls at or below that slot on the same stack are gone (longjmp'd over),
/// as uretprobes judges; an entry far away is on another stack
/// (sigaltstack) and stays.
pub fn push<E>(shadow: &mut Vec<E>, e: E, slot: impl Fn(&E) -> u64) {
    let sp = slot(&e);
    shadow.retain(|s| {
        let s = slot(s);
        s > sp || sp - s >= SAME_STACK
    });
    shadow.push(e);
}

/// Pushes `e` whose return address already is the trampoline: a second
/// probe on the same frame, as when a PLT stub's probe is followed by the
/// probe at the function it jumps to (`rltrace -e f -x f`). The call pending
/// at that slot is the outer one and stays; the return goes through both,
/// the inner first (its saved return address is the trampoline again).
pub fn push_nested<E>(shadow: &mut Vec<E>, e: E, slot: impl Fn(&E) -> u64) {
    let sp = slot(&e);
    shadow.retain(|s| {
        let s = slot(s);
        s >= sp || sp - s >= SAME_STACK
    });
    shadow.push(e);
}

/// The pending call a return to the trampoline ends, with `sp` the stack
/// pointer after the return: `ret` popped the trampoline's address from
/// `sp - 8`. Calls above the matching one were skipped by longjmp or an
/// exception and are dropped. Without a matching slot, the innermost call;
/// None when nothing is pending.
pub fn pop_returned<E>(shadow: &mut Vec<E>, sp: u64, slot: impl Fn(&E) -> u64) -> Option<E> {
    let want = sp.wrapping_sub(8);
    match shadow.iter().rposition(|s| slot(s) == want) {
        Some(i) => {
            let e = shadow.remove(i);
            shadow.truncate(i);
            Some(e)
        }
        None => shadow.pop(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_pop_by_slot() {
        let slot = |e: &(u64, char)| e.0;
        let mut s = Vec::new();
        for e in [(0x7000, 'a'), (0x6f00, 'b'), (0x6e00, 'c')] {
            push(&mut s, e, slot);
        }
        // b returns (its slot is sp - 8): c, above it, was skipped.
        assert_eq!(pop_returned(&mut s, 0x6f08, slot), Some((0x6f00, 'b')));
        assert_eq!(s, [(0x7000, 'a')]);
        // No slot matches: the innermost call.
        assert_eq!(pop_returned(&mut s, 0x1234, slot), Some((0x7000, 'a')));
        assert_eq!(pop_returned(&mut s, 0x1234, slot), None);
    }

    #[test]
    fn a_nested_probe_on_the_same_frame_keeps_the_outer_call() {
        let slot = |e: &(u64, char)| e.0;
        let mut s = vec![(0x7000, 'a'), (0x6f00, 'p')];
        // The function's own probe at the PLT probe's slot: both pending.
        push_nested(&mut s, (0x6f00, 'f'), slot);
        assert_eq!(s, [(0x7000, 'a'), (0x6f00, 'p'), (0x6f00, 'f')]);
        // Its return (sp = slot + 8) ends the inner one; the trampoline is
        // then hit again at the same sp and ends the outer one.
        assert_eq!(pop_returned(&mut s, 0x6f08, slot), Some((0x6f00, 'f')));
        assert_eq!(pop_returned(&mut s, 0x6f08, slot), Some((0x6f00, 'p')));
        assert_eq!(s, [(0x7000, 'a')]);
        // A plain push at the same slot is a new call: the old one is gone.
        let mut s = vec![(0x6f00, 'p')];
        push(&mut s, (0x6f00, 'q'), slot);
        assert_eq!(s, [(0x6f00, 'q')]);
    }

    #[test]
    fn entries_drop_calls_longjmped_over() {
        let slot = |e: &(u64, char)| e.0;
        let (a, b, x) = (0x7fff_f000, 0x7fff_ef00, 0x1000_0000);
        let mut s = vec![(a, 'a'), (b, 'b'), (b - 0x80, 'y'), (x, 'x')];
        // A new call at b's slot: b and y below it on this stack are gone;
        // x, on a stack far below (sigaltstack), stays, as does a above.
        push(&mut s, (b, 'c'), slot);
        assert_eq!(s, [(a, 'a'), (x, 'x'), (b, 'c')]);
    }
}
