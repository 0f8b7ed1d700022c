//! Loop device ioctls (type `L`, linux/loop.h) as strace 6.1 prints
//! them: `struct loop_info` and `struct loop_info64` (abbreviated without
//! `-v`; the encryption fields shown whenever an encryption type is set),
//! `struct loop_config`, descriptors, indices and sizes. Other requests of
//! the type go back to the generic decoder.

use crate::syscall::ioctl::misc::{cstring_field, fetch};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{dev_value, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use crate::value::StrVal;
use rtrace_arch::xlat;

/// `n` little-endian words of `size` bytes in hex, all of them.
fn x_words(b: &[u8], n: usize, size: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| {
                let o = i * size;
                xint(match size {
                    1 => b[o] as u64,
                    4 => le32(b, o),
                    _ => le64(b, o),
                })
            })
            .collect(),
        false,
    )
}

/// The encryption key: `size` bytes (at most 32) quoted.
fn key(b: &[u8], size: u64) -> Value {
    Value::Str(StrVal {
        bytes: b[..size.min(32) as usize].to_vec(),
        truncated: false,
        c_string: false,
    })
}

/// `struct loop_info`.
fn loop_info(c: &Ctx, b: &[u8]) -> Value {
    let v = c.opts.verbose;
    let enc = le32(b, 36);
    let mut f = vec![Field::new(
        "lo_number",
        Value::Int(le32(b, 0) as u32 as i32 as i64),
    )];
    if v {
        f.push(Field::new("lo_device", dev_value(c, le64(b, 8))));
        f.push(Field::new("lo_inode", Value::UInt(le64(b, 16))));
        f.push(Field::new("lo_rdevice", dev_value(c, le64(b, 24))));
    }
    f.push(Field::new("lo_offset", xint(le32(b, 32))));
    if v || enc != 0 {
        f.push(Field::new(
            "lo_encrypt_type",
            c.enum_value(enc, &xlat::LOOP_CRYPT_TYPE_OPTIONS, "LO_CRYPT_???"),
        ));
        f.push(Field::new("lo_encrypt_key_size", Value::UInt(le32(b, 40))));
    }
    f.push(Field::new(
        "lo_flags",
        xflags(c, le32(b, 44), &xlat::LOOP_FLAGS_OPTIONS, "LO_FLAGS_???"),
    ));
    f.push(Field::new("lo_name", cstring_field(&b[48..112])));
    if v || enc != 0 {
        f.push(Field::new("lo_encrypt_key", key(&b[112..144], le32(b, 40))));
    }
    if !v {
        return Value::Struct(f, true);
    }
    f.push(Field::new("lo_init", x_words(&b[144..160], 2, 8)));
    f.push(Field::new("reserved", x_words(&b[160..164], 4, 1)));
    Value::structure(f)
}

/// `struct loop_info64`.
fn loop_info64(c: &Ctx, b: &[u8]) -> Value {
    let v = c.opts.verbose;
    let enc = le32(b, 44);
    let mut f = Vec::new();
    if v {
        f.push(Field::new("lo_device", dev_value(c, le64(b, 0))));
        f.push(Field::new("lo_inode", Value::UInt(le64(b, 8))));
        f.push(Field::new("lo_rdevice", dev_value(c, le64(b, 16))));
        f.push(Field::new("lo_offset", xint(le64(b, 24))));
        f.push(Field::new("lo_sizelimit", Value::UInt(le64(b, 32))));
    } else {
        f.push(Field::new("lo_offset", xint(le64(b, 24))));
    }
    f.push(Field::new("lo_number", Value::UInt(le32(b, 40))));
    if v || enc != 0 {
        f.push(Field::new(
            "lo_encrypt_type",
            c.enum_value(enc, &xlat::LOOP_CRYPT_TYPE_OPTIONS, "LO_CRYPT_???"),
        ));
        f.push(Field::new("lo_encrypt_key_size", Value::UInt(le32(b, 48))));
    }
    f.push(Field::new(
        "lo_flags",
        xflags(c, le32(b, 52), &xlat::LOOP_FLAGS_OPTIONS, "LO_FLAGS_???"),
    ));
    f.push(Field::new("lo_file_name", cstring_field(&b[56..120])));
    if v || enc != 0 {
        f.push(Field::new("lo_crypt_name", cstring_field(&b[120..184])));
        f.push(Field::new("lo_encrypt_key", key(&b[184..216], le32(b, 48))));
    }
    if !v {
        return Value::Struct(f, true);
    }
    f.push(Field::new("lo_init", x_words(&b[216..232], 2, 8)));
    Value::structure(f)
}

/// The loop requests (type `L`).
pub(in crate::syscall::ioctl) fn loop_dev(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(&name) = names.iter().find(|n| n.starts_with("LOOP_")) else {
        return Io::Pass;
    };
    let v = match name {
        "LOOP_GET_STATUS" | "LOOP_GET_STATUS64" if c.entering() => return Io::Exit,
        "LOOP_GET_STATUS" | "LOOP_SET_STATUS" => match fetch(c, arg, 168) {
            Ok(b) => loop_info(c, &b),
            Err(v) => v,
        },
        "LOOP_GET_STATUS64" | "LOOP_SET_STATUS64" => match fetch(c, arg, 232) {
            Ok(b) => loop_info64(c, &b),
            Err(v) => v,
        },
        "LOOP_CONFIGURE" => match fetch(c, arg, 304) {
            Ok(b) => {
                let fd = c.fd_value(le32(&b, 0) as u32 as i32 as i64);
                let mut f = vec![
                    Field::new("fd", fd),
                    Field::new("block_size", Value::UInt(le32(&b, 4))),
                    Field::new("info", loop_info64(c, &b[8..240])),
                ];
                if b[240..304].iter().any(|&x| x != 0) {
                    f.push(Field::new("__reserved", x_words(&b[240..304], 8, 8)));
                }
                Value::structure(f)
            }
            Err(v) => v,
        },
        "LOOP_CLR_FD" | "LOOP_SET_CAPACITY" | "LOOP_CTL_GET_FREE" => return Io::NoArg,
        "LOOP_SET_FD" | "LOOP_CHANGE_FD" => c.fd_value(arg as i32 as i64),
        "LOOP_CTL_ADD" | "LOOP_CTL_REMOVE" => Value::Int(arg as i32 as i64),
        "LOOP_SET_DIRECT_IO" | "LOOP_SET_BLOCK_SIZE" => Value::UInt(arg),
        _ => return Io::Hex,
    };
    Io::Arg(v)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn loop_requests() {
        let mut m = FakeMemory::default();
        let mut info = vec![0u8; 232];
        info[24] = 0x10;
        info[40] = 7;
        info[52] = 1;
        info[56..59].copy_from_slice(b"img");
        let p = m.put(&info);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4c04, p], 0, &mut m),
            "ioctl(3, LOOP_SET_STATUS64, {lo_offset=0x10, lo_number=7, lo_flags=LO_FLAGS_READ_ONLY, lo_file_name=\"img\", ...}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4c05, p], -9, &mut m),
            format!("ioctl(3, LOOP_GET_STATUS64, {p:#x}) = -1 EBADF (Bad file descriptor)")
        );
    }
}
