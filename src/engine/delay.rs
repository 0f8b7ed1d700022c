//! Holding a tracee stopped for a while without holding up the others
//! (`-e inject=…:delay_enter=`/`delay_exit=`), as strace does with its
//! timers: the wait loop keeps the thread stopped until its time comes,
//! and a helper thread wakes the loop's blocking `wait4` then by forking a
//! child that exits at once; the loop recognises that child with
//! [`is_waker`] and ignores its exit.

use std::sync::Mutex;
use std::time::Duration;

/// Wake-up children not reaped yet.
static WAKERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Makes the wait loop's `wait4` return after `d`.
pub fn wake_after(d: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(d);
        // The lock is held across the fork so the loop cannot reap the
        // child before it is known to be ours.
        let mut w = WAKERS.lock().unwrap_or_else(|e| e.into_inner());
        // A raw clone(SIGCHLD) (fork); the child only calls the raw exit
        // syscall, touching no state shared with the parent.
        let pid = crate::sys::process::fork_exiting_child();
        if pid > 0 {
            w.push(pid);
        }
    });
}

/// Whether `pid` is a wake-up child (forgotten once asked).
pub fn is_waker(pid: i32) -> bool {
    let mut w = WAKERS.lock().unwrap_or_else(|e| e.into_inner());
    match w.iter().position(|&p| p == pid) {
        Some(i) => {
            w.swap_remove(i);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waker_child_is_recognised() {
        wake_after(Duration::from_millis(1));
        // The only child of this test process that exits soon is ours
        // (other tests' children are waited for by pid).
        for _ in 0..200 {
            let w = WAKERS.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if let Some(&pid) = w.first() {
                let r = crate::sys::process::waitpid(pid, 0).map(|(r, _)| r);
                assert_eq!(r.ok(), Some(pid));
                assert!(is_waker(pid));
                assert!(!is_waker(pid));
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("no wake-up child");
    }
}
