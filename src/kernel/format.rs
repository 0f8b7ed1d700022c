//! Event `format` files: field layout (offset, size, signedness, arrays,
//! `__data_loc`/`__rel_loc` strings) and the decoding of one raw record's
//! payload into named [`Value`]s.

use crate::value::{StrVal, Value};

/// How a field's bytes are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A scalar integer of `size` bytes.
    Int,
    /// A pointer (printed in hex).
    Ptr,
    /// `char name[N]`: a NUL-padded string.
    CharArray,
    /// Any other fixed array of `count` elements.
    Array {
        /// Number of elements.
        count: usize,
    },
    /// `__data_loc` (offset from the record start) or `__rel_loc` (offset
    /// from the end of the field): a u32 of offset | length << 16.
    DataLoc {
        /// `__rel_loc`.
        relative: bool,
        /// The element type is char (a string).
        chars: bool,
    },
}

/// One field of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// Field name.
    pub name: String,
    /// The C type as written (`const char *`, `pid_t`).
    pub ctype: String,
    /// Byte offset in the record.
    pub offset: usize,
    /// Byte size.
    pub size: usize,
    /// Signed (the `signed:` flag, or a signed C type stored wider).
    pub signed: bool,
    /// Layout.
    pub kind: FieldKind,
}

/// The parsed `format` file of one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventFormat {
    /// Subsystem (`sched`, `syscalls`, `rtrace_123`).
    pub system: String,
    /// Event name.
    pub name: String,
    /// The type id (`common_type` of its records).
    pub id: u16,
    /// The event's own fields (after the `common_*` ones).
    pub fields: Vec<FieldDef>,
}

/// C types whose values are signed even where the kernel stores them in an
/// unsigned wider slot (syscall tracepoints store every argument as an
/// unsigned long: `int dfd` with `size:8 signed:0`).
fn c_type_signed(ctype: &str) -> bool {
    let t = ctype.trim_start_matches("const ").trim();
    if t.contains('*') || t.starts_with("unsigned") {
        return false;
    }
    matches!(
        t,
        "int"
            | "long"
            | "short"
            | "signed char"
            | "long long"
            | "pid_t"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "ssize_t"
            | "off_t"
            | "loff_t"
            | "clockid_t"
            | "key_t"
            | "time_t"
            | "int32_t"
            | "int64_t"
            | "signed"
            | "__s32"
            | "__s64"
            | "timer_t"
            | "mqd_t"
    )
}

fn parse_field(line: &str) -> Option<FieldDef> {
    let mut decl = None;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for part in line.split(';') {
        let part = part.trim();
        if let Some(d) = part.strip_prefix("field:") {
            decl = Some(d.trim());
        } else if let Some(v) = part.strip_prefix("offset:") {
            offset = v.parse().ok();
        } else if let Some(v) = part.strip_prefix("size:") {
            size = v.parse().ok();
        } else if let Some(v) = part.strip_prefix("signed:") {
            signed = v == "1";
        }
    }
    let decl = decl?;
    let (offset, size): (usize, usize) = (offset?, size?);
    let split = decl.rfind([' ', '*']).map(|i| i + 1).unwrap_or(0);
    let (ty, mut name) = (decl[..split].trim().to_string(), &decl[split..]);
    let mut count = None;
    if let Some(b) = name.find('[') {
        count = name[b + 1..].trim_end_matches(']').parse::<usize>().ok();
        name = &name[..b];
    }
    let chars = ty.contains("char") || ty == "u8";
    let kind = if let Some(rest) = ty.strip_prefix("__data_loc") {
        FieldKind::DataLoc {
            relative: false,
            chars: rest.contains("char"),
        }
    } else if let Some(rest) = ty.strip_prefix("__rel_loc") {
        FieldKind::DataLoc {
            relative: true,
            chars: rest.contains("char"),
        }
    } else if let Some(n) = count {
        if chars {
            FieldKind::CharArray
        } else {
            FieldKind::Array { count: n.max(1) }
        }
    } else if ty.contains('*') || name.starts_with("__probe_") {
        // Probe addresses (`__probe_ip`, `__probe_func`, `__probe_ret_ip`) too.
        FieldKind::Ptr
    } else {
        FieldKind::Int
    };
    Some(FieldDef {
        signed: signed || (kind == FieldKind::Int && c_type_signed(&ty)),
        name: name.to_string(),
        ctype: ty,
        offset,
        size,
        kind,
    })
}

/// Parses a `format` file of subsystem `system`.
pub fn parse_format(system: &str, text: &str) -> Result<EventFormat, String> {
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(n) = t.strip_prefix("name:") {
            name = Some(n.trim().to_string());
        } else if let Some(n) = t.strip_prefix("ID:") {
            id = n.trim().parse::<u16>().ok();
        } else if t.starts_with("field:") {
            let f = parse_field(t).ok_or_else(|| format!("bad field line: {t}"))?;
            if !f.name.starts_with("common_") {
                fields.push(f);
            }
        }
    }
    Ok(EventFormat {
        system: system.to_string(),
        name: name.ok_or("format without name")?,
        id: id.ok_or("format without ID")?,
        fields,
    })
}

/// A little-endian/native unsigned integer of `size` bytes at `off`.
pub fn read_uint(data: &[u8], off: usize, size: usize) -> Option<u64> {
    let b = data.get(off..off + size)?;
    Some(match size {
        1 => b[0] as u64,
        2 => u16::from_ne_bytes(b.try_into().ok()?) as u64,
        4 => u32::from_ne_bytes(b.try_into().ok()?) as u64,
        8 => u64::from_ne_bytes(b.try_into().ok()?),
        _ => return None,
    })
}

fn sign_extend(v: u64, size: usize) -> i64 {
    let bits = size * 8;
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn c_string(b: &[u8]) -> Value {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    Value::Str(StrVal {
        bytes: b[..end].to_vec(),
        truncated: false,
        c_string: true,
    })
}

/// The width of a signed C type, where the kernel may store it wider.
fn c_type_width(ctype: &str) -> Option<usize> {
    match ctype.trim_start_matches("const ").trim() {
        "int" | "s32" | "pid_t" | "int32_t" | "__s32" | "clockid_t" | "key_t" | "timer_t"
        | "mqd_t" | "signed" => Some(4),
        "short" | "s16" => Some(2),
        "s8" | "signed char" => Some(1),
        _ => None,
    }
}

fn int_value(f: &FieldDef, raw: u64, size: usize) -> Value {
    if f.signed {
        let size = c_type_width(&f.ctype).map_or(size, |w| w.min(size));
        // A signed C type stored in a wider unsigned slot: the low bytes of
        // the declared width carry the value (an `int` of -100 is stored as
        // 0xffffffffffffff9c, which is -100 as i64 too).
        Value::Int(sign_extend(raw, size))
    } else {
        Value::UInt(raw)
    }
}

/// Decodes field `f` of record `data` (the whole record, common fields
/// included); `None` when the record is too short.
pub fn decode_field(f: &FieldDef, data: &[u8]) -> Option<Value> {
    match &f.kind {
        FieldKind::Int => Some(int_value(f, read_uint(data, f.offset, f.size)?, f.size)),
        FieldKind::Ptr => Some(Value::Hex(read_uint(data, f.offset, f.size)?)),
        FieldKind::CharArray => Some(c_string(data.get(f.offset..f.offset.checked_add(f.size)?)?)),
        FieldKind::Array { count } => {
            // The elements must fit in the record (a format file may claim
            // any count: the tracefs_format fuzz target found a huge one).
            data.get(f.offset..f.offset.checked_add(f.size)?)?;
            if *count == 0 || *count > f.size {
                return None;
            }
            let esz = f.size / count;
            let items = (0..*count)
                .map(|i| {
                    read_uint(data, f.offset + i * esz, esz)
                        .map(|v| int_value(f, v, esz))
                        .unwrap_or(Value::Unknown)
                })
                .collect();
            Some(Value::Array(items, false))
        }
        FieldKind::DataLoc { relative, chars } => {
            let loc = read_uint(data, f.offset, 4)?;
            let mut off = (loc & 0xffff) as usize;
            let len = (loc >> 16) as usize;
            if *relative {
                off = off.checked_add(f.offset)?.checked_add(f.size)?;
            }
            let b = data.get(off..off.checked_add(len)?)?;
            if *chars && len == 0 {
                // A probe's string fetch that faulted (unmapped or paged-out
                // user memory, a NULL pointer): the kernel stores length 0
                // and prints `(fault)`; a captured empty string has its NUL.
                Some(Value::sym("(fault)"))
            } else if *chars {
                Some(c_string(b))
            } else {
                Some(Value::Array(
                    b.iter().map(|&x| Value::Hex(x as u64)).collect(),
                    false,
                ))
            }
        }
    }
}

/// The `common_pid` and `common_type` of a record.
pub fn common(data: &[u8]) -> Option<(u16, i32)> {
    let ty = read_uint(data, 0, 2)? as u16;
    let pid = read_uint(data, 4, 4)? as u32 as i32;
    Some((ty, pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_and_strings_that_do_not_fit_are_refused() {
        let f = |kind, offset, size| FieldDef {
            name: "x".into(),
            ctype: "int x[4]".into(),
            offset,
            size,
            signed: false,
            kind,
        };
        let rec = [1u8; 16];
        // A claimed count far beyond the record (found by fuzzing).
        assert_eq!(
            decode_field(
                &f(
                    FieldKind::Array {
                        count: usize::MAX / 2
                    },
                    0,
                    16
                ),
                &rec
            ),
            None
        );
        assert_eq!(
            decode_field(&f(FieldKind::Array { count: 4 }, 8, 16), &rec),
            None
        );
        assert!(matches!(
            decode_field(&f(FieldKind::Array { count: 4 }, 0, 16), &rec),
            Some(Value::Array(v, false)) if v.len() == 4
        ));
        assert_eq!(
            decode_field(&f(FieldKind::CharArray, usize::MAX, 2), &rec),
            None
        );
    }

    /// Recorded from this machine's tracefs (Linux 6.18).
    const MKDIRAT: &str = "name: sys_enter_mkdirat\nID: 890\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\
\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:const char * pathname;\toffset:24;\tsize:8;\tsigned:0;\n\
\tfield:umode_t mode;\toffset:32;\tsize:8;\tsigned:0;\n\n\
print fmt: \"dfd: 0x%08lx\"\n";

    const UPROBE: &str = "name: up\nID: 2326\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\
\tfield:s32 a;\toffset:16;\tsize:4;\tsigned:1;\n\
\tfield:__data_loc char[] s;\toffset:20;\tsize:4;\tsigned:1;\n\
\tfield:char comm[16];\toffset:24;\tsize:16;\tsigned:0;\n";

    #[test]
    fn parses_syscall_format() {
        let f = parse_format("syscalls", MKDIRAT).unwrap();
        assert_eq!((f.name.as_str(), f.id), ("sys_enter_mkdirat", 890));
        let names: Vec<_> = f.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["__syscall_nr", "dfd", "pathname", "mode"]);
        assert_eq!(f.fields[2].kind, FieldKind::Ptr);
        assert_eq!(f.fields[2].ctype, "const char *");
        assert!(f.fields[1].signed, "int stored as unsigned long is signed");
        assert!(!f.fields[3].signed);
    }

    #[test]
    fn decodes_syscall_record() {
        let f = parse_format("syscalls", MKDIRAT).unwrap();
        let mut rec = vec![0u8; 40];
        rec[0..2].copy_from_slice(&890u16.to_ne_bytes());
        rec[4..8].copy_from_slice(&4321i32.to_ne_bytes());
        rec[8..12].copy_from_slice(&258i32.to_ne_bytes());
        rec[16..24].copy_from_slice(&(-100i64 as u64).to_ne_bytes());
        rec[24..32].copy_from_slice(&0x7ffd_1234u64.to_ne_bytes());
        rec[32..40].copy_from_slice(&0o755u64.to_ne_bytes());
        assert_eq!(common(&rec), Some((890, 4321)));
        let vals: Vec<_> = f.fields.iter().map(|x| decode_field(x, &rec)).collect();
        assert_eq!(vals[0], Some(Value::Int(258)));
        assert_eq!(vals[1], Some(Value::Int(-100)));
        assert_eq!(vals[2], Some(Value::Hex(0x7ffd_1234)));
        assert_eq!(vals[3], Some(Value::UInt(0o755)));
        assert_eq!(decode_field(&f.fields[3], &rec[..36]), None, "short record");
    }

    #[test]
    fn decodes_data_loc_and_char_arrays() {
        let f = parse_format("rtrace_1", UPROBE).unwrap();
        assert_eq!(
            f.fields[2].kind,
            FieldKind::DataLoc {
                relative: false,
                chars: true
            }
        );
        assert_eq!(f.fields[3].kind, FieldKind::CharArray);
        let mut rec = vec![0u8; 40];
        rec[16..20].copy_from_slice(&(-7i32).to_ne_bytes());
        let s = b"hello\0";
        rec[20..24].copy_from_slice(&((40u32) | ((s.len() as u32) << 16)).to_ne_bytes());
        rec[24..28].copy_from_slice(b"bash");
        rec.extend_from_slice(s);
        let str_of = |v: Option<Value>| match v {
            Some(Value::Str(s)) => String::from_utf8(s.bytes).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(decode_field(&f.fields[1], &rec), Some(Value::Int(-7)));
        assert_eq!(str_of(decode_field(&f.fields[2], &rec)), "hello");
        assert_eq!(str_of(decode_field(&f.fields[3], &rec)), "bash");
    }

    #[test]
    fn rel_loc_is_relative_to_field_end() {
        let def = parse_field("field:__rel_loc char[] n;\toffset:8;\tsize:4;\tsigned:0;").unwrap();
        let mut rec = vec![0u8; 12];
        // Offset 2 past the field's end (12): the string starts at 14.
        rec[8..12].copy_from_slice(&(2u32 | (3 << 16)).to_ne_bytes());
        rec.extend_from_slice(b"..ab\0");
        match decode_field(&def, &rec) {
            Some(Value::Str(s)) => assert_eq!(s.bytes, b"ab"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn int_arrays() {
        let def = parse_field("field:u32 v[2];\toffset:0;\tsize:8;\tsigned:0;").unwrap();
        let mut rec = 5u32.to_ne_bytes().to_vec();
        rec.extend_from_slice(&9u32.to_ne_bytes());
        assert_eq!(
            decode_field(&def, &rec),
            Some(Value::Array(vec![Value::UInt(5), Value::UInt(9)], false))
        );
    }
}
