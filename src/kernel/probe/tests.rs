//! Unit tests of the probe spec parser and the event-definition generator
//! (kprobe paths included, so they are tested on kernels without kprobes).

use super::*;
use crate::kernel::dwarfargs::Signature;

fn spec(s: &str) -> ProbeSpec {
    parse_spec(s).unwrap()
}

#[test]
fn short_forms() {
    let p = spec("u:/bin/prog:compute n s");
    assert_eq!(p.kind, Kind::Uprobe);
    assert_eq!(
        p.place,
        Place::UserSym("/bin/prog".into(), "compute".into(), 0)
    );
    assert_eq!(p.args, ["n", "s"]);
    assert_eq!(
        spec("ur:prog:f+0x10").place,
        Place::UserSym("prog".into(), "f".into(), 16)
    );
    assert_eq!(
        spec("u:/bin/x:0x1130").place,
        Place::UserRaw("/bin/x:0x1130".into())
    );
    let k = spec("kr:do_mkdirat");
    assert_eq!(
        (k.kind, k.place),
        (Kind::Kretprobe, Place::Kernel("do_mkdirat".into()))
    );
    assert!(parse_spec("u:nocolon").is_err());
    assert!(parse_spec("x:foo").is_err());
}

#[test]
fn kernel_syntax() {
    let p = spec("p:grp/mk do_mkdirat pathname=+0(%si):string mode=%dx");
    assert_eq!(p.kind, Kind::Kprobe);
    assert_eq!(p.name.as_deref(), Some("mk"));
    assert_eq!(p.args, ["pathname=+0(%si):string", "mode=%dx"]);
    let r = spec("r:rv /bin/bash:0x4f2a0 $retval");
    assert_eq!(r.kind, Kind::Uretprobe);
    assert_eq!(r.place, Place::UserRaw("/bin/bash:0x4f2a0".into()));
    assert_eq!(spec("r5 vfs_read").kind, Kind::Kretprobe);
    assert!(parse_spec("p:x").is_err(), "no place");
}

#[test]
fn kprobe_definitions() {
    let mut used = Vec::new();
    let (n, l) = definition(&spec("k:do_mkdirat $arg2 mode=%dx"), "rtrace_9", &mut used).unwrap();
    assert_eq!(n, "do_mkdirat");
    assert_eq!(l, "p:rtrace_9/do_mkdirat do_mkdirat arg2=$arg2 mode=%dx");
    let (n, l) = definition(&spec("kr:do_mkdirat"), "rtrace_9", &mut used).unwrap();
    assert_eq!(n, "do_mkdirat__return");
    assert_eq!(l, "r:rtrace_9/do_mkdirat__return do_mkdirat ret=$retval");
    // The same function twice gets distinct names; a user group is replaced.
    let (n, l) = definition(&spec("p:mine/x vfs_read+4 $comm"), "rtrace_9", &mut used).unwrap();
    assert_eq!(
        (n.as_str(), l.as_str()),
        ("x", "p:rtrace_9/x vfs_read+4 comm=$comm")
    );
    let (n, _) = definition(&spec("k:do_mkdirat"), "rtrace_9", &mut used).unwrap();
    assert_eq!(n, "do_mkdirat_2");
}

#[test]
fn uprobe_raw_definition() {
    let mut used = Vec::new();
    let (n, l) = definition(&spec("r /bin/true:0x1000 $retval"), "g", &mut used).unwrap();
    assert_eq!(n, "true__return");
    assert_eq!(l, "r:g/true__return /bin/true:0x1000 ret=$retval");
}

#[cfg(target_arch = "x86_64")]
#[test]
fn dwarf_names_to_registers() {
    let sig = Signature {
        params: vec![
            (
                "n".into(),
                ArgType::Int {
                    bytes: 4,
                    signed: true,
                },
            ),
            ("s".into(), ArgType::Str),
            ("p".into(), ArgType::Ptr),
            ("d".into(), ArgType::Other("float".into())),
            (
                "late".into(),
                ArgType::Int {
                    bytes: 8,
                    signed: false,
                },
            ),
        ],
        ret: Some(ArgType::Int {
            bytes: 8,
            signed: true,
        }),
    };
    let args: Vec<String> = ["n", "s", "p", "$arg1", "%ax"].map(String::from).to_vec();
    let f = fetch_args(Kind::Uprobe, &args, Some(&sig)).unwrap();
    assert_eq!(
        f,
        [
            "n=%di:s32",
            "s=+0(%si):ustring",
            "p=%dx:x64",
            "arg1=%di:s32",
            "ax=%ax"
        ]
    );
    let r = fetch_args(Kind::Uretprobe, &["$retval".into()], Some(&sig)).unwrap();
    assert_eq!(r, ["ret=$retval:s64"]);
    assert!(fetch_args(Kind::Uprobe, &["d".into()], Some(&sig)).is_err());
    assert!(fetch_args(Kind::Uprobe, &["late".into()], Some(&sig)).is_err());
    assert!(fetch_args(Kind::Uprobe, &["nope".into()], Some(&sig)).is_err());
    assert!(fetch_args(Kind::Uprobe, &["$retval".into()], Some(&sig)).is_err());
    assert!(fetch_args(Kind::Uretprobe, &["n".into()], Some(&sig)).is_err());
    assert_eq!(arg_register(5).as_deref(), Some("%r8"));
    assert_eq!(arg_register(7), None);
}
