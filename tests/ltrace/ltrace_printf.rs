//! printf's `%s` width and precision as ltrace 0.7.3 applies them to what
//! it shows (`%.2s` shows 2 bytes, `%2s` 2, `%.*s` the argument's count,
//! but `%5.3s` and `%.0s` the whole string; after a `*` of another
//! conversion, `%*d %s`, the value of the argument before the string):
//! testprogs/lt_printf.c traced
//! by both, the same lines after normalising.

use crate::common;
use crate::ltrace_diff::{normalize, trace};

use std::path::PathBuf;
use std::process::Command;

#[test]
fn printf_widths_and_precisions_as_ltrace() {
    if !common::have("gcc") {
        eprintln!("skip: gcc is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-printf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("lt_printf");
    let src = common::workspace_dir().join("testprogs/lt_printf.c");
    // No PIE: ltrace 0.7.3 sees no call of a PIE program.
    let gcc = Command::new("gcc")
        .args(["-O0", "-no-pie", "-o"])
        .arg(&prog)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        gcc.status.success(),
        "{}",
        String::from_utf8_lossy(&gcc.stderr)
    );
    let rltrace = PathBuf::from(env!("CARGO_BIN_EXE_rltrace"));
    let ours = trace(&rltrace, &["-e", "printf"], &prog);
    assert_eq!(ours.matches("printf(").count(), 10, "{ours}");
    // Precision alone limits, a width and a digit precision together do not.
    assert!(ours.contains("\"he\", 3, \"wor\", \"xyz\")"), "{ours}");
    // After `%*d` (or `%*x`), the next `%s` shows as many bytes as the
    // argument before it says (as ltrace 0.7.3 showed them by hand).
    for want in [
        "3, 42, \"hello\", 4, 3, \"abc\", 3, 0x2, \"he\")",
        "3, 42, 0x3, \"hel\", 2, 1, \"h\", \"world\", 1, 4, \"hell\", 1, 2, \"he\")",
        "3, 42, 0.000000, \"\", 3, 42, 2.500000, \"hello\")",
    ] {
        assert!(ours.contains(want), "{want}\n{ours}");
    }
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed (apt-get install ltrace)");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let theirs = trace(std::path::Path::new("ltrace"), &["-e", "printf"], &prog);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        normalize(&ours),
        normalize(&theirs),
        "rltrace:\n{ours}\nltrace:\n{theirs}"
    );
}
