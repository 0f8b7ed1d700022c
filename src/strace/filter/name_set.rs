//! The small numbered sets of `signal=`, `status=`, `quiet=` and
//! `decode-fds=` (strace's `number_set`), their numbers and the names each
//! key accepts.

use super::{die, string_to_uint, FilterError};
/// A set of small numbers (signals 0..=255, statuses, quiet messages, fd
/// decoding kinds): a bitmap and a `not` flag, like strace's `number_set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameSet {
    bits: [u128; 2],
    not: bool,
}

impl NameSet {
    /// The empty set.
    pub fn none() -> NameSet {
        NameSet {
            bits: [0; 2],
            not: false,
        }
    }

    /// Every number.
    pub fn all() -> NameSet {
        NameSet {
            bits: [0; 2],
            not: true,
        }
    }

    /// The set of exactly these numbers.
    pub fn of(ns: &[u32]) -> NameSet {
        let mut s = NameSet::none();
        for &n in ns {
            s.add(n);
        }
        s
    }

    fn add(&mut self, n: u32) {
        if n < 256 {
            self.bits[(n / 128) as usize] |= 1u128 << (n % 128);
        }
    }

    /// Parses strace's `qualify_tokens` syntax: `[!]…all|none|NAME[,NAME]…`,
    /// `lookup` resolving one name; errors read `invalid WHAT 'TOKEN'`.
    pub fn parse(
        spec: &str,
        what: &str,
        lookup: impl Fn(&str) -> Option<u32>,
    ) -> Result<NameSet, FilterError> {
        let mut s = NameSet::none();
        let mut rest = spec;
        while let Some(r) = rest.strip_prefix('!') {
            s.not = !s.not;
            rest = r;
        }
        if rest == "none" {
            return Ok(s);
        }
        if rest == "all" {
            s.not = !s.not;
            return Ok(s);
        }
        let mut any = false;
        for token in rest.split(',').filter(|t| !t.is_empty()) {
            let n = lookup(token).ok_or_else(|| die(format!("invalid {what} '{token}'")))?;
            s.add(n);
            any = true;
        }
        if !any {
            return Err(die(format!("invalid {what} '{spec}'")));
        }
        Ok(s)
    }

    /// Is `n` in the set?
    pub fn contains(&self, n: u32) -> bool {
        let b = n < 256 && self.bits[(n / 128) as usize] & (1u128 << (n % 128)) != 0;
        b != self.not
    }

    /// Does the set hold every number below `count` (strace's `is_complete_set`)?
    pub fn is_complete(&self, count: u32) -> bool {
        (0..count).all(|n| self.contains(n))
    }

    /// Is the set empty (of the numbers below `count`)?
    pub fn is_empty_below(&self, count: u32) -> bool {
        (0..count).all(|n| !self.contains(n))
    }
}

/// `-e status=` numbers (strace's `STATUS_*`).
pub mod status {
    /// Returned without error.
    pub const SUCCESSFUL: u32 = 0;
    /// Returned an error.
    pub const FAILED: u32 = 1;
    /// Never returned (`= ?`).
    pub const UNFINISHED: u32 = 2;
    /// The return value could not be fetched.
    pub const UNAVAILABLE: u32 = 3;
    /// The tracee was detached mid-call.
    pub const DETACHED: u32 = 4;
    /// How many statuses there are.
    pub const COUNT: u32 = 5;
}

/// A `-e status=` name.
pub fn status_number(s: &str) -> Option<u32> {
    match s {
        "successful" => Some(status::SUCCESSFUL),
        "failed" => Some(status::FAILED),
        "unfinished" => Some(status::UNFINISHED),
        "unavailable" => Some(status::UNAVAILABLE),
        "detached" => Some(status::DETACHED),
        _ => None,
    }
}

/// `-e quiet=` numbers (strace's `QUIET_*`).
pub mod quiet {
    /// "Process N attached/detached".
    pub const ATTACH: u32 = 0;
    /// `+++ exited with N +++`.
    pub const EXIT: u32 = 1;
    /// "Requested path … resolved into …" (`-P`).
    pub const PATH_RESOLVE: u32 = 2;
    /// Personality change notices.
    pub const PERSONALITY: u32 = 3;
    /// `+++ superseded by execve in pid N +++`.
    pub const THREAD_EXECVE: u32 = 4;
}

/// A `-e quiet=` name.
pub fn quiet_number(s: &str) -> Option<u32> {
    match s {
        "attach" => Some(quiet::ATTACH),
        "exit" | "exits" => Some(quiet::EXIT),
        "path-resolution" => Some(quiet::PATH_RESOLVE),
        "personality" => Some(quiet::PERSONALITY),
        "superseded" | "thread-execve" => Some(quiet::THREAD_EXECVE),
        _ => None,
    }
}

/// `-e decode-fds=` numbers.
pub mod decode_fd {
    /// Paths (`-y`).
    pub const PATH: u32 = 0;
    /// Socket details.
    pub const SOCKET: u32 = 1;
    /// Device numbers.
    pub const DEV: u32 = 2;
    /// pidfd targets.
    pub const PIDFD: u32 = 3;
    /// eventfd counters.
    pub const EVENTFD: u32 = 4;
    /// signalfd masks.
    pub const SIGNALFD: u32 = 5;
}

/// A `-e decode-fds=` name.
pub fn decode_fd_number(s: &str) -> Option<u32> {
    match s {
        "path" => Some(decode_fd::PATH),
        "socket" => Some(decode_fd::SOCKET),
        "dev" => Some(decode_fd::DEV),
        "pidfd" => Some(decode_fd::PIDFD),
        "eventfd" => Some(decode_fd::EVENTFD),
        "signalfd" => Some(decode_fd::SIGNALFD),
        _ => None,
    }
}

/// A `-e decode-pids=` name.
pub fn decode_pid_number(s: &str) -> Option<u32> {
    match s {
        "pidns" => Some(0),
        "comm" => Some(1),
        _ => None,
    }
}

/// strace's name of signal `n` (1..=64): `SIGHUP`…`SIGSYS`, `SIGRTMIN`,
/// `SIGRT_1`…`SIGRT_32`.
fn signame(n: u32) -> Option<String> {
    if n == 0 {
        return None;
    }
    crate::syscall::ctx::signal_name(n as u64).map(|c| c.into_owned())
}

/// A signal as `-e signal=` takes it (strace's `sigstr_to_uint`): a number
/// 0..=255, or a name with or without `SIG`, in any case.
pub fn signal_number(s: &str) -> Option<u32> {
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        return string_to_uint(s, 255).map(|n| n as u32);
    }
    let bare = match s.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("SIG") => &s[3..],
        _ => s,
    };
    (1..=255).find(|&i| {
        signame(i)
            .and_then(|n| n.strip_prefix("SIG").map(|x| x.eq_ignore_ascii_case(bare)))
            .unwrap_or(false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_sets() {
        let p = |s| NameSet::parse(s, "signal", signal_number);
        let s = p("SIGINT,term").unwrap();
        assert!(s.contains(2) && s.contains(15) && !s.contains(17));
        let s = p("!SIGCHLD").unwrap();
        assert!(!s.contains(17) && s.contains(2));
        assert_eq!(p("FOO").unwrap_err().msg, "invalid signal 'FOO'");
        assert_eq!(p("").unwrap_err().msg, "invalid signal ''");
        assert_eq!(signal_number("SIGRT_2"), Some(34));
        assert_eq!(signal_number("rtmin"), Some(32));
        assert_eq!(signal_number("RT_0"), None);
        assert_eq!(signal_number("255"), Some(255));
        assert_eq!(signal_number("256"), None);
        assert_eq!(signal_number("1x"), None);
    }
}
