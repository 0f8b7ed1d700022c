//! `rstrace`: strace-compatible system-call tracing. See `rstrace -h`.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(rtrace::strace::main(&args));
}
