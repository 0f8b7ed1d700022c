//! [`Decoded`] against the one renderer: for every kind of [`Value`], the
//! typed form writes the renderer's JSON, and that JSON reads back into
//! the typed form.

use super::Decoded;
use crate::value::{Field, StrVal, Value};
use serde::Deserialize;

fn s(b: &[u8], truncated: bool) -> Value {
    Value::Str(StrVal {
        bytes: b.to_vec(),
        truncated,
        c_string: true,
    })
}

fn bx(v: Value) -> Box<Value> {
    Box::new(v)
}

/// Every variant of [`Value`], alone and nested.
fn samples() -> Vec<Value> {
    let stat = Value::Struct(
        vec![
            Field::new("st_mode", Value::sym("S_IFREG|0644")),
            Field::new("st_size", Value::UInt(10)),
            Field::new("st_dev", Value::Call("makedev".into(), vec![Value::Hex(8)])),
        ],
        false,
    );
    let mut v = vec![
        Value::Int(-3),
        Value::Int(i64::MIN),
        Value::Int(0),
        Value::UInt(u64::MAX),
        Value::Hex(0x7f),
        Value::Oct(0o644),
        Value::Oct(0),
        Value::Ptr(0),
        Value::Ptr(0x7ffd_1234_5678),
        Value::Ptr(u64::MAX),
        Value::Unreadable(0x2000),
        Value::Unreadable(0),
        s(b"/etc/passwd", false),
        s(b"", false),
        s(b"...", false),
        s(b"a\"b\\c\n\x01\x7f", false),
        s("é".as_bytes(), false),
        s(b"/tmp/\xff", false),
        s(b"\xfe", false),
        s(b"long", true),
        s(b"cut\xff", true),
        Value::sym("AT_FDCWD"),
        Value::sym("S_IFREG|0644"),
        Value::sym("MAP_PRIVATE|MAP_ANONYMOUS"),
        Value::sym("O_RDONLY|0x40000"),
        Value::sym("FUTEX_OP_SET<<28|FUTEX_OP_CMP_GT<<24"),
        Value::sym("~(A|B)"),
        Value::sym_owned("0x1|0x2".into()),
        Value::Flags {
            names: vec!["O_RDONLY", "O_CLOEXEC"],
            rest: 0,
            octal_rest: false,
        },
        Value::Flags {
            names: vec!["O_WRONLY"],
            rest: 0x40000,
            octal_rest: false,
        },
        Value::Flags {
            names: vec!["S_ISUID"],
            rest: 0o755,
            octal_rest: true,
        },
        Value::Flags {
            names: vec![],
            rest: 0,
            octal_rest: false,
        },
        Value::Flags {
            names: vec![],
            rest: 0x8,
            octal_rest: false,
        },
        Value::Fd { fd: 3, path: None },
        Value::Fd {
            fd: -100,
            path: None,
        },
        Value::Fd {
            fd: 4,
            path: Some(b"/tmp/x".to_vec()),
        },
        Value::Fd {
            fd: 4,
            path: Some(b"".to_vec()),
        },
        Value::Fd {
            fd: 5,
            path: Some(b"socket:[1]\0TCP:[1.2.3.4:5]".to_vec()),
        },
        Value::Fd {
            fd: 6,
            path: Some(b"\0only details".to_vec()),
        },
        Value::Fd {
            fd: 7,
            path: Some(b"/bad\xff".to_vec()),
        },
        Value::Pid {
            pid: 42,
            comm: None,
        },
        Value::Pid {
            pid: 42,
            comm: Some(b"sh".to_vec()),
        },
        Value::Pid {
            pid: 7,
            comm: Some(b"sh\x80".to_vec()),
        },
        stat.clone(),
        Value::Struct(vec![], false),
        Value::Struct(vec![], true),
        Value::Struct(vec![Field::new("z", Value::Int(1))], true),
        // Decoder order, not sorted.
        Value::Struct(
            vec![
                Field::new("z", Value::Int(1)),
                Field::new("a", Value::Unknown),
                Field::new("m", Value::Array(vec![stat.clone()], true)),
            ],
            true,
        ),
        Value::Array(vec![], false),
        Value::Array(vec![], true),
        Value::Array(vec![Value::Int(1), Value::Int(2)], true),
        Value::Array(vec![s(b"x", false), Value::Array(vec![], false)], false),
        Value::Changed(bx(Value::Int(16)), bx(Value::Int(28))),
        Value::Changed(bx(stat.clone()), bx(Value::Unreadable(8))),
        Value::Commented(bx(Value::Hex(1)), "note".into()),
        Value::Commented(
            bx(Value::Pid { pid: 5, comm: None }),
            "in strace's PID NS".into(),
        ),
        Value::Call("makedev".into(), vec![Value::Hex(8), Value::Hex(1)]),
        Value::Joined(
            vec![
                Value::Call("WIFEXITED".into(), vec![Value::sym("s")]),
                Value::sym("WEXITSTATUS(s) == 0"),
            ],
            " && ",
        ),
        Value::Unknown,
    ];
    // Each value as a field and as an element too.
    let fields = v
        .iter()
        .enumerate()
        .map(|(i, x)| Field {
            name: format!("f{i}").into(),
            value: x.clone(),
        })
        .collect();
    v.push(Value::Struct(fields, false));
    v.push(Value::Array(v.clone(), true));
    v
}

#[test]
fn the_typed_form_writes_what_the_renderer_writes_and_reads_it_back() {
    for v in samples() {
        let rendered = serde_json::to_string(&v).unwrap();
        let d = Decoded::from(&v);
        assert_eq!(serde_json::to_string(&d).unwrap(), rendered, "{v:?}");
        let back: Decoded = serde_json::from_str(&rendered).unwrap();
        assert_eq!(back, d, "{rendered}");
        assert!(!back.has_fallback(), "{rendered}");
        // Through an owned tree too (as a reader of `serde_json::Value`
        // lines does): same value, same JSON value.
        let tree = serde_json::to_value(&v).unwrap();
        let from_tree = Decoded::deserialize(&tree).unwrap();
        assert_eq!(serde_json::to_value(&from_tree).unwrap(), tree);
    }
}

#[test]
fn each_shape_reads_into_its_variant() {
    let d = |j: &str| serde_json::from_str::<Decoded>(j).unwrap();
    assert_eq!(d("null"), Decoded::Null);
    assert_eq!(d("-3"), Decoded::Int(-3));
    assert_eq!(d("18446744073709551615"), Decoded::Int(u64::MAX.into()));
    assert_eq!(d(r#""/x""#), Decoded::str(b"/x"));
    assert_eq!(d(r#"{"bytes_hex":"2fff"}"#), Decoded::str(b"/\xff"));
    assert!(matches!(
        d(r#"{"str":"ab","truncated":true}"#),
        Decoded::Str {
            truncated: true,
            ..
        }
    ));
    assert_eq!(
        d(r#"{"ptr":"0x10","unreadable":true}"#),
        Decoded::Ptr {
            addr: 16,
            unreadable: true
        }
    );
    assert_eq!(
        d(r#"{"flags":["A","B"],"rest":8}"#),
        Decoded::Flags {
            names: vec!["A".into(), "B".into()],
            rest: 8
        }
    );
    assert_eq!(d(r#"{"sym":"AT_FDCWD"}"#), Decoded::Sym("AT_FDCWD".into()));
    assert_eq!(d(r#"{"expr":"f(1)"}"#), Decoded::Expr("f(1)".into()));
    assert_eq!(
        d(r#"{"fd":3,"details":"TCP"}"#),
        Decoded::Fd {
            fd: 3,
            path: None,
            details: Some("TCP".into())
        }
    );
    assert!(matches!(
        d(r#"{"pid":1,"comm":"init"}"#),
        Decoded::Pid { pid: 1, .. }
    ));
    assert!(matches!(d(r#"{"in":1,"out":2}"#), Decoded::Changed(..)));
    assert!(matches!(
        d(r#"{"value":1,"comment":"c"}"#),
        Decoded::Commented(..)
    ));
    assert_eq!(
        d(r#"{"b":1,"a":2,"...":true}"#),
        Decoded::Struct(
            vec![("b".into(), Decoded::Int(1)), ("a".into(), Decoded::Int(2))],
            true
        )
    );
    assert_eq!(
        d(r#"[1,"..."]"#),
        Decoded::Array(vec![Decoded::Int(1)], true)
    );
}

/// JSON the renderer never writes still reads back to the same JSON, as
/// a structure, an array or a fallback.
#[test]
fn other_json_round_trips() {
    for j in [
        "true",
        "1.5",
        "[false,2.25]",
        r#"{"bytes_hex":"41"}"#,
        r#"{"bytes_hex":"FF"}"#,
        r#"{"bytes_hex":"f"}"#,
        r#"{"bytes_hex":3}"#,
        r#"{"ptr":"0x010"}"#,
        r#"{"ptr":"16"}"#,
        r#"{"ptr":"0x10","unreadable":false}"#,
        r#"{"unreadable":true,"ptr":"0x10"}"#,
        r#"{"flags":["A"],"rest":0}"#,
        r#"{"flags":["A",1]}"#,
        r#"{"flags":["A","..."]}"#,
        r#"{"sym":1}"#,
        r#"{"fd":"3"}"#,
        r#"{"fd":3,"path":"/x","extra":1}"#,
        r#"{"path":"/x","fd":3}"#,
        r#"{"pid":1}"#,
        r#"{"pid":1,"comm":{"str":"x","truncated":true}}"#,
        r#"{"str":"x","truncated":false}"#,
        r#"{"out":1,"in":2}"#,
        r#"{"value":1,"comment":2}"#,
        r#"{"...":true,"a":1}"#,
        r#"{"a":1,"...":false}"#,
        r#"{"a":1,"...":true,"...":true}"#,
        r#"{}"#,
        r#"["...","..."]"#,
    ] {
        let d: Decoded = serde_json::from_str(j).unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), j, "{d:?}");
    }
}
