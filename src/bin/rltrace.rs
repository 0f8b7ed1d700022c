//! `rltrace`: ltrace-compatible library-call tracing (not implemented yet).

fn main() {
    eprintln!("rltrace: not implemented yet (library-call tracing is planned; see README.md)");
    std::process::exit(1);
}
