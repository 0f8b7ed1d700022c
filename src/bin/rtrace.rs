//! `rtrace`: the umbrella command. `rtrace strace ARGS…` is `rstrace ARGS…`,
//! `rtrace break` and `rtrace watch` are the debugger tools.

use std::ffi::OsString;

const USAGE: &str = "\
usage: rtrace strace [strace options] CMD...     (same as rstrace)
       rtrace break SPEC... [options] [-p PID | -- CMD...]
       rtrace watch EXPR|*ADDR[:LEN] [options] [-p PID | -- CMD...]
       rtrace ltrace [ltrace options] CMD...     (same as rltrace)
       rtrace kernel list|trace|probe|ftrace|cleanup ...
       rtrace stat [-e EVENTS] [-r N] [-p PID | -- CMD...]
       rtrace record [-o FILE] [--zstd] [--libcalls] [-k] [options] [-p PID | -- CMD...]
       rtrace report FILE [--json] [--normalize] [--top N]
       rtrace diff A B [--json] [--context N]
       rtrace export --format chrome|folded|flamegraph [--weight count|time] [-o OUT] FILE
       rtrace -V|--version

`rtrace SUBCOMMAND --help` describes each subcommand.
";

fn main() {
    let mut args = std::env::args_os().skip(1);
    let sub = args.next();
    let rest: Vec<OsString> = args.collect();
    let code = match sub.as_ref().and_then(|s| s.to_str()) {
        Some("strace") => rtrace::strace::main(&rest),
        Some("break") => rtrace::breakpoint::main(&rest),
        Some("watch") => rtrace::watchpoint::main(&rest),
        Some("ltrace") => rtrace::ltrace::main(&rest),
        Some("kernel") => rtrace::kernel::main(&rest),
        Some("stat") => rtrace::kernel::stat_main(&rest),
        Some("record") => rtrace::record::capture::main(&rest),
        Some("report") => rtrace::record::report::main(&rest),
        Some("diff") => rtrace::record::diff::main(&rest),
        Some("export") => rtrace::record::export::main(&rest),
        Some("-h") | Some("--help") => {
            print!("{USAGE}");
            0
        }
        Some("-V") | Some("--version") => {
            println!("rtrace {}", env!("CARGO_PKG_VERSION"));
            0
        }
        None => {
            eprint!("{USAGE}");
            1
        }
        Some(other) => {
            eprintln!("rtrace: unknown subcommand '{other}'");
            eprint!("{USAGE}");
            1
        }
    };
    std::process::exit(code);
}
