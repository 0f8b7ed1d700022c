//! User strings of syscall events (`rtrace kernel trace --strings`).
//!
//! A syscall tracepoint records a `char *` argument as its address only:
//! the kernel copies the string later, in the syscall's body. Reading it
//! from the process afterwards gives whatever that memory holds by then
//! (an overwritten buffer, a freed one, nothing once the process is gone),
//! so rtrace prints the pointer, as trace-cmd does. With `--strings` it asks
//! the kernel to copy the string as the tracepoint fires: an event probe
//! (eprobe) on the tracepoint whose fetch-arg is `+0($FIELD):ustring`,
//! recorded instead of the tracepoint (same name, same fields, the string
//! in place of the pointer). Where the kernel has no event probes
//! (CONFIG_EPROBE_EVENTS), the pointers stay and rtrace says why, once.
//!
//! Scope: `syscalls:*` events only; other tracepoints' pointers are kernel
//! addresses or not strings. Not done: uprobes on libc's wrappers (they miss
//! direct syscalls and static programs) and fprobes (no fprobes here).

use super::dynevent::DynGroup;
use super::event::Formats;
use super::format::{EventFormat, FieldKind};

/// `char *` syscall arguments that are buffers with a length, not
/// NUL-terminated strings (`read`/`write`'s `buf`, `mincore`'s `vec`, …).
const BUFFERS: &[&str] = &[
    "buf",
    "ubuf",
    "vec",
    "u_msg_ptr",
    "optval",
    "list",
    "shmaddr",
];

/// The fields of `f` that are user pointers to NUL-terminated strings:
/// single `char *` arguments of a syscall event, except known buffers.
pub fn string_fields(f: &EventFormat) -> Vec<&str> {
    if f.system != "syscalls" {
        return Vec::new();
    }
    f.fields
        .iter()
        .filter(|d| {
            d.kind == FieldKind::Ptr
                && d.ctype.contains("char")
                && d.ctype.matches('*').count() == 1
                && !BUFFERS.contains(&d.name.as_str())
        })
        .map(|d| d.name.as_str())
        .collect()
}

/// The eprobe definition that records tracepoint `f` with its `strings`
/// fields copied from user memory at the event:
/// `e:GROUP/NAME SYSTEM.NAME dfd=$dfd:u64 filename=+0($filename):ustring …`.
/// Other fields keep their size; [`as_tracepoint`] restores their C types.
pub fn eprobe_def(group: &str, f: &EventFormat, strings: &[&str]) -> String {
    let mut def = format!("e:{group}/{} {}.{}", f.name, f.system, f.name);
    for d in &f.fields {
        let n = &d.name;
        if strings.contains(&n.as_str()) {
            def.push_str(&format!(" {n}=+0(${n}):ustring"));
        } else if matches!(d.kind, FieldKind::Int | FieldKind::Ptr)
            && matches!(d.size, 1 | 2 | 4 | 8)
        {
            let t = if d.kind == FieldKind::Ptr { 'x' } else { 'u' };
            def.push_str(&format!(" {n}=${n}:{t}{}", d.size * 8));
        }
    }
    def
}

/// Makes the eprobe's format (`fmt`, in rtrace's group) show as tracepoint
/// `orig`: its subsystem, and each copied field's C type, signedness and
/// kind (an `int dfd` fetched as `u64` prints as -100 again).
pub fn as_tracepoint(orig: &EventFormat, fmt: &mut EventFormat) {
    fmt.system = orig.system.clone();
    for d in &mut fmt.fields {
        if let Some(o) = orig.fields.iter().find(|o| o.name == d.name) {
            if matches!(o.kind, FieldKind::Int | FieldKind::Ptr) && o.size == d.size {
                d.ctype = o.ctype.clone();
                d.signed = o.signed;
                d.kind = o.kind.clone();
            }
        }
    }
}

/// The events to enable for tracepoints `events` (subsystem, name): each
/// tracepoint itself, or under `strings` an event probe in `group` that
/// records it with its string fields copied (same name, loaded into
/// `formats` as the tracepoint). Says once on stderr why string fields
/// print as pointers under `strings`, and with `hint` (events are printed)
/// that they do.
pub fn events_to_record(
    events: &[(String, String)],
    formats: &mut Formats,
    strings: bool,
    hint: bool,
    group: &mut DynGroup,
) -> Result<Vec<(String, String)>, String> {
    let mut enable = Vec::new();
    let mut pointers = Vec::new();
    let mut refused: Option<String> = None;
    for (s, e) in events {
        let orig = formats.load(s, e)?;
        let fields = string_fields(&orig);
        if strings && !fields.is_empty() && refused.is_none() {
            // The first refusal stands for all: the definitions differ only
            // in their fields.
            match group.add_eprobe(e, &eprobe_def(group.group(), &orig, &fields)) {
                Ok(()) => {
                    let g = group.group().to_string();
                    formats.load_with(&g, e, |f| as_tracepoint(&orig, f))?;
                    enable.push((g, e.clone()));
                    continue;
                }
                Err(err) => refused = Some(err),
            }
        }
        if !fields.is_empty() {
            pointers.push(format!("{s}:{e} {}", fields.join(",")));
        }
        enable.push((s.clone(), e.clone()));
    }
    if !pointers.is_empty() {
        let what = pointers.join("; ");
        match refused {
            Some(err) => eprintln!(
                "rtrace kernel: --strings: this kernel cannot copy user strings at the event \
                 (it needs event probes, CONFIG_EPROBE_EVENTS; {err}); {what}: printed as the \
                 pointers the tracepoint recorded (0x...)"
            ),
            None if !strings && hint => eprintln!(
                "rtrace kernel: {what}: user pointers, printed as the tracepoint recorded them \
                 (0x...); --strings asks the kernel to copy the strings at the event"
            ),
            None => {}
        }
    }
    Ok(enable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::format::{decode_field, parse_format};
    use crate::value::Value;

    /// Recorded from this machine's tracefs (Linux 6.18).
    const OPENAT: &str = "name: sys_enter_openat\nID: 782\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\
\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n\
\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n\
\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n";

    const WRITE: &str = "name: sys_enter_write\nID: 700\nformat:\n\
\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n\
\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n";

    const EXECVE: &str = "name: sys_enter_execve\nID: 701\nformat:\n\
\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:const char *const * argv;\toffset:24;\tsize:8;\tsigned:0;\n";

    #[test]
    fn string_fields_are_single_char_pointers_of_syscalls_but_buffers() {
        let f = parse_format("syscalls", OPENAT).unwrap();
        assert_eq!(string_fields(&f), ["filename"]);
        assert!(string_fields(&parse_format("syscalls", WRITE).unwrap()).is_empty());
        let e = parse_format("syscalls", EXECVE).unwrap();
        assert_eq!(string_fields(&e), ["filename"], "argv is char **");
        // The same layout in another subsystem is a kernel pointer.
        assert!(string_fields(&parse_format("sched", OPENAT).unwrap()).is_empty());
    }

    #[test]
    fn eprobe_definition_copies_every_field() {
        let f = parse_format("syscalls", OPENAT).unwrap();
        assert_eq!(
            eprobe_def("rtrace_9", &f, &string_fields(&f)),
            "e:rtrace_9/sys_enter_openat syscalls.sys_enter_openat \
             __syscall_nr=$__syscall_nr:u32 dfd=$dfd:u64 \
             filename=+0($filename):ustring flags=$flags:u64 mode=$mode:u64"
        );
    }

    /// An eprobe record as the kernel lays it out for the definition above
    /// (probe arguments in order, the string behind a `__data_loc`).
    #[test]
    fn eprobe_record_reads_as_the_tracepoint() {
        let orig = parse_format("syscalls", OPENAT).unwrap();
        let mut ep = parse_format(
            "rtrace_9",
            "name: sys_enter_openat\nID: 3000\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:u32 __syscall_nr;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:u64 dfd;\toffset:12;\tsize:8;\tsigned:0;\n\
\tfield:__data_loc char[] filename;\toffset:20;\tsize:4;\tsigned:1;\n\
\tfield:u64 flags;\toffset:24;\tsize:8;\tsigned:0;\n\
\tfield:u64 mode;\toffset:32;\tsize:8;\tsigned:0;\n",
        )
        .unwrap();
        as_tracepoint(&orig, &mut ep);
        assert_eq!(ep.system, "syscalls");
        let mut rec = vec![0u8; 40];
        rec[8..12].copy_from_slice(&257u32.to_ne_bytes());
        // glibc passes the int -100 zero-extended in the 64-bit register.
        rec[12..20].copy_from_slice(&0xffff_ff9cu64.to_ne_bytes());
        let s = b"/tmp/x\0";
        rec[20..24].copy_from_slice(&(40u32 | (s.len() as u32) << 16).to_ne_bytes());
        rec[24..32].copy_from_slice(&0o101u64.to_ne_bytes());
        rec.extend_from_slice(s);
        let v: Vec<Value> = ep
            .fields
            .iter()
            .map(|d| decode_field(d, &rec).unwrap())
            .collect();
        assert_eq!(v[0], Value::Int(257));
        assert_eq!(v[1], Value::Int(-100));
        assert!(matches!(&v[2], Value::Str(s) if s.bytes == b"/tmp/x"));
        assert_eq!(v[3], Value::Int(0o101));
        // A fetch that faulted: length 0, which is not an empty string.
        rec[20..24].copy_from_slice(&40u32.to_ne_bytes());
        assert_eq!(
            decode_field(&ep.fields[2], &rec),
            Some(Value::sym("(fault)"))
        );
    }
}
