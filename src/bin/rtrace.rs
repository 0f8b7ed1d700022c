//! `rtrace`: the umbrella command. The command line is `rtrace::app`'s
//! (clap); `rtrace strace ARGS…` is `rstrace ARGS…`, `rtrace ltrace` is
//! `rltrace`, the other subcommands are the library's tools.

fn main() {
    std::process::exit(rtrace::app::main(std::env::args_os().skip(1).collect()));
}
