//! Landlock: landlock_create_ruleset, landlock_add_rule and
//! landlock_restrict_self, as strace 6.1's `landlock.c` prints them.

use crate::syscall::printers::{flags_arg, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("landlock_create_ruleset", landlock_create_ruleset),
    ("landlock_add_rule", landlock_add_rule),
    ("landlock_restrict_self", landlock_restrict_self),
];

/// Access rights: names, then unknown bits in hex; no known bit at all
/// prints the hex with a `/* LANDLOCK_ACCESS_FS_??? */` comment.
fn access_value(c: &Ctx, v: u64) -> Value {
    xflags(c, v, &xlat::LANDLOCK_ACCESS_FS, "LANDLOCK_ACCESS_FS_???")
}

/// `landlock_create_ruleset(attr, size, flags)`: a new descriptor.
fn landlock_create_ruleset(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(0);
    let size = c.arg_ulong(1);
    let v = if addr == 0 || size < 8 {
        Value::Ptr(addr)
    } else {
        // strace 6.1's struct landlock_ruleset_attr has this one field; a
        // larger size adds `...`.
        match c.read_bytes(addr, 8) {
            Some(b) => Value::Struct(
                vec![Field::new(
                    "handled_access_fs",
                    access_value(c, le64(&b, 0)),
                )],
                size > 8,
            ),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    c.ulong(1);
    flags_arg(
        c,
        2,
        &xlat::LANDLOCK_CREATE_RULESET_FLAGS,
        "LANDLOCK_CREATE_RULESET_???",
    );
    // LANDLOCK_CREATE_RULESET_VERSION returns the ABI version, not a descriptor.
    if c.arg(2) & 1 != 0 {
        return Step::Done(RetFmt::Int);
    }
    Step::Done(RetFmt::Fd)
}

/// `landlock_add_rule(ruleset_fd, rule_type, rule_attr, flags)`.
fn landlock_add_rule(c: &mut Ctx) -> Step {
    c.fd(0);
    let ty = c.arg(1) as u32 as u64;
    c.push(c.enum_value(ty, &xlat::LANDLOCK_RULE_TYPES, "LANDLOCK_RULE_???"));
    let addr = c.arg_ulong(2);
    let v = if addr == 0 || xlat::LANDLOCK_RULE_TYPES.lookup(ty).is_none() {
        Value::Ptr(addr)
    } else {
        // struct landlock_path_beneath_attr is packed: u64 then s32.
        match c.read_bytes(addr, 12) {
            Some(b) => {
                let fd = c.fd_value(le32(&b, 8) as u32 as i32 as i64);
                Value::structure(vec![
                    Field::new("allowed_access", access_value(c, le64(&b, 0))),
                    Field::new("parent_fd", fd),
                ])
            }
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    c.push(xint(c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

/// `landlock_restrict_self(ruleset_fd, flags)`.
fn landlock_restrict_self(c: &mut Ctx) -> Step {
    c.fd(0);
    c.push(xint(c.arg(1) as u32 as u64));
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn rulesets() {
        let mut m = FakeMemory::default();
        let attr = m.put(&0x10001u64.to_le_bytes());
        assert_eq!(
            run(landlock_create_ruleset, "landlock_create_ruleset", &[attr, 8, 0], -22, &mut m),
            "landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE|LANDLOCK_ACCESS_FS_RESOLVE_UNIX}, 8, 0) = -1 EINVAL (Invalid argument)"
        );
        let attr = m.put(&0x8000_0001u64.to_le_bytes());
        assert_eq!(
            run(landlock_create_ruleset, "landlock_create_ruleset", &[attr, 8, 0], -22, &mut m),
            "landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE|0x80000000}, 8, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(
                landlock_create_ruleset,
                "landlock_create_ruleset",
                &[0, 0, 1],
                4,
                &mut m
            ),
            "landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) = 4"
        );
        let mut pb = 5u64.to_le_bytes().to_vec();
        pb.extend_from_slice(&4u32.to_le_bytes());
        let pb = m.put(&pb);
        assert_eq!(
            run(landlock_add_rule, "landlock_add_rule", &[3, 1, pb, 0], 0, &mut m),
            "landlock_add_rule(3, LANDLOCK_RULE_PATH_BENEATH, {allowed_access=LANDLOCK_ACCESS_FS_EXECUTE|LANDLOCK_ACCESS_FS_READ_FILE, parent_fd=4}, 0) = 0"
        );
        assert_eq!(
            run(
                landlock_restrict_self,
                "landlock_restrict_self",
                &[3, 3],
                0,
                &mut m
            ),
            "landlock_restrict_self(3, 0x3) = 0"
        );
    }
}
