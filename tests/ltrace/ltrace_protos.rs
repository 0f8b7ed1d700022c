//! Prototypes from a `-F` file, compared with ltrace 0.7.3 on the same
//! program (testprogs/lt_proto.c calling testprogs/lt_proto_lib.c): enums
//! with negative values and other integer widths (`enum[long]`,
//! `enum[short]`), display lenses (`hex`, `oct`), and structs of floats
//! passed and returned in vector registers (ltrace's `hfa_*` checks),
//! including those returned in two registers (rax and rdx, xmm0 and xmm1).

use crate::common;
use crate::ltrace_diff::trace;

use std::path::{Path, PathBuf};
use std::process::Command;

const CONF: &str = "\
typedef myenum = enum(A=-1, B, C=5);
int p_enum(myenum);
hex(int) p_lens(hex(int), oct(uint), hex(long));
typedef neg = enum[long](MINUS_FIVE=-5, ZERO=0);
neg p_neg(neg, enum[short](M3=-3), oct(char));
typedef f3 = struct(float, float, float);
typedef f4 = struct(float, float, float, float);
typedef d2 = struct(double, double);
typedef li = struct(long, int);
typedef ld = struct(long, double);
float hfa_f3(f3);
float hfa_f4(f4);
double hfa_d2(d2);
f3 mk_f3(float);
f4 mk_f4(float);
d2 mk_d2(double);
li mk_li(long);
ld mk_ld(long);
";

/// Builds the library and the program (no PIE: ltrace 0.7.3 sees no call
/// of a PIE program) in `dir`.
fn build(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let src = common::workspace_dir().join("testprogs");
    let gcc = |args: &[&str]| {
        let o = Command::new("gcc")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "gcc {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let path = |f: &str| src.join(f).to_str().unwrap().to_string();
    gcc(&[
        "-shared",
        "-fPIC",
        "-O0",
        "-o",
        "libltproto.so",
        &path("lt_proto_lib.c"),
    ]);
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    gcc(&[
        "-O0",
        "-no-pie",
        "-o",
        "ltproto",
        &path("lt_proto.c"),
        "-L.",
        "-lltproto",
        &rpath,
    ]);
    std::fs::write(dir.join("proto.conf"), CONF).unwrap();
    dir.join("ltproto")
}

#[test]
fn prototypes_as_ltrace() {
    if !common::have("gcc") {
        eprintln!("skip: gcc is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-protos-{}", std::process::id()));
    let prog = build(&dir);
    let conf = dir.join("proto.conf");
    let opts = ["-F", conf.to_str().unwrap(), "-e", "p_*+hfa_*+mk_*"];
    let ours = trace(Path::new(env!("CARGO_BIN_EXE_rltrace")), &opts, &prog);
    // The second register of a struct returned in two: was read as 0.
    let squashed: String = ours.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "mk_f3(1.250000) = { 1.250000, 2.500000, 3.750000 }",
        "mk_d2(2.500000) = { 2.500000, -2.500000 }",
        "mk_li(-9) = { -9, 9 }",
        "mk_ld(6) = { 6, 1.500000 }",
        "p_enum(A) = -1",
        "p_neg(MINUS_FIVE, M3, 0376) = MINUS_FIVE",
    ] {
        assert!(squashed.contains(want), "{want} not in:\n{ours}");
    }
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed (apt-get install ltrace)");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let theirs = trace(Path::new("ltrace"), &opts, &prog);
    let _ = std::fs::remove_dir_all(&dir);
    // No addresses or pids in these lines: compared with their floats,
    // which `normalize` would blur.
    let squash = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        squash(&ours),
        squash(&theirs),
        "rltrace:\n{ours}\nltrace:\n{theirs}"
    );
}

/// A `-F` file with errors: a typedef defined twice (the first stays), a
/// struct of an unknown type and a prototype using it. ltrace names each
/// bad line on stderr and traces with the rest; so must rltrace, with the
/// same trace and the same lines named.
#[test]
fn config_errors_reported_and_tracing_goes_on_as_ltrace() {
    if !common::have("gcc") {
        eprintln!("skip: gcc is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-badconf-{}", std::process::id()));
    let prog = build(&dir);
    let conf = dir.join("bad.conf");
    std::fs::write(
        &conf,
        "typedef myenum = enum(A=-1, B, C=5);\n\
         typedef myenum = enum(X);\n\
         typedef bs = struct(int, nosuchtype);\n\
         void broken(bs);\n\
         int p_enum(myenum);\n\
         hex(int) p_lens(hex(int), oct(uint), hex(long));\n",
    )
    .unwrap();
    let run = |tool: &Path| {
        let out = dir.join(format!(
            "{}.out",
            tool.file_name().unwrap().to_string_lossy()
        ));
        let o = Command::new(tool)
            .args(["-F", conf.to_str().unwrap(), "-e", "p_enum+p_lens", "-o"])
            .arg(&out)
            .arg(&prog)
            .output()
            .unwrap();
        let trace = std::fs::read_to_string(&out).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        // ltrace reports the bad lines in its output (`bad.conf:N: error:
        // …`): their numbers, and the calls without them.
        let (errors, calls): (Vec<&str>, Vec<&str>) =
            // ltrace quotes the rest of the line with its newline: `'` alone.
            trace.lines().partition(|l| l.contains("bad.conf:") || *l == "'");
        let mut lines: Vec<u32> = errors
            .iter()
            .filter_map(|l| l.split_once("bad.conf:")?.1.split(':').next()?.parse().ok())
            .collect();
        lines.dedup();
        let squashed = calls
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        (o.status.code(), squashed, lines, trace + &stderr)
    };
    let ours = run(Path::new(env!("CARGO_BIN_EXE_rltrace")));
    assert_eq!(ours.0, Some(0), "{}", ours.3);
    assert!(
        ours.3
            .contains("bad.conf:2: error: Redefinition of typedef 'myenum'"),
        "{}",
        ours.3
    );
    assert_eq!(ours.2, [2, 3, 4], "{}", ours.3);
    // The first definition of myenum stays.
    assert!(ours.1.contains("p_enum(A) = -1"), "{}", ours.1);
    assert!(
        ours.1
            .contains("p_lens(0xff, 010, 0xfffffffffffffffe) = 0xff"),
        "{}",
        ours.1
    );
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed (apt-get install ltrace)");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let theirs = run(Path::new("ltrace"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        (&ours.1, &ours.2),
        (&theirs.1, &theirs.2),
        "rltrace:\n{}\nltrace:\n{}",
        ours.3,
        theirs.3
    );
}
