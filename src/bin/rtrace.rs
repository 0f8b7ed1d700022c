//! `rtrace`: the umbrella command. `rtrace strace ARGS…` is `rstrace ARGS…`;
//! the other subcommands are not implemented yet.

fn main() {
    let mut args = std::env::args_os().skip(1);
    match args.next().as_deref().and_then(|s| s.to_str()) {
        Some("strace") => {
            let rest: Vec<std::ffi::OsString> = args.collect();
            std::process::exit(rtrace::strace::main(&rest));
        }
        Some(
            cmd @ ("ltrace" | "break" | "watch" | "kernel" | "stat" | "record" | "diff" | "report"),
        ) => {
            eprintln!("rtrace: '{cmd}' is not implemented yet");
            std::process::exit(1);
        }
        Some("-h") | Some("--help") | None => {
            println!("usage: rtrace strace [strace options] CMD...");
            println!("       (break, watch, ltrace, kernel, stat, record, diff, report: not implemented yet)");
        }
        Some(other) => {
            eprintln!("rtrace: unknown subcommand '{other}'");
            std::process::exit(1);
        }
    }
}
