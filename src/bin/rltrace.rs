//! `rltrace`: ltrace-compatible library-call tracing.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(rtrace::ltrace::main(&args));
}
