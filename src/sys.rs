//! The process's own facts and libc calls that every layer may need: the
//! name rtrace was run as, and the C library's error messages.
//!
//! This is the lowest layer above `rtrace_arch`: it imports nothing from the
//! crate, so anything may use it.

/// The name this process was run as (argv[0]), as strace prints it in
/// its own messages (`strace: umovestr: ...`); "strace" when it has none.
pub fn prog() -> &'static str {
    static PROG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PROG.get_or_init(|| {
        std::env::args_os()
            .next()
            .map(|a| a.to_string_lossy().into_owned())
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| "strace".to_string())
    })
}

/// The C library's message for `errno` (`strerror`), as strace prints it.
pub fn strerror(errno: i32) -> String {
    // SAFETY: strerror returns a pointer to a static or thread-local,
    // NUL-terminated message; it is copied out before any other call.
    let p = unsafe { libc::strerror(errno) };
    if p.is_null() {
        return format!("Unknown error {errno}");
    }
    // SAFETY: non-null, NUL-terminated (see above).
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}
