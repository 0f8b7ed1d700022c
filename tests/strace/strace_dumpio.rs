//! `rstrace -e read=` / `-e write=`: hex dumps after the syscall lines, for
//! plain, vectored, msghdr and mmsghdr calls (`testprogs/dumpio.c` moves
//! fixed bytes through a pipe, fds 3/4, and a socket pair, fds 5/6). The
//! dumps are checked against the bytes the program sends, and compared with
//! strace's where it is installed.

use crate::common;

use common::{have, rstrace, testprog};

const CALLS: &str = "trace=write,read,writev,readv,sendmsg,recvmsg,sendmmsg,recvmmsg";

/// The dump lines (` | …` and ` * …`/` = …` headers) rstrace or strace
/// printed for `dumpio`, with `-e` options `extra`.
fn dumps(tool: &std::path::Path, extra: &[&str]) -> String {
    let o = common::named(tool)
        .args(["-e", CALLS])
        .args(extra)
        .arg(testprog("dumpio"))
        .output()
        .expect("run tracer");
    assert!(o.status.success(), "{o:?}");
    String::from_utf8_lossy(&o.stderr)
        .lines()
        // The dynamic linker's reads of fd 3 come before the program's.
        .skip_while(|l| !l.starts_with("write(4"))
        .filter(|l| l.starts_with(" | ") || l.starts_with(" * ") || l.starts_with(" = "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// strace's dump line for `bytes` at `offset`, built independently of
/// rstrace's code: 16 bytes a line, two groups of 8, printable ASCII.
fn line(offset: usize, bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let (a, b) = hex.split_at(hex.len().min(8));
    let hex = if b.is_empty() {
        a.join(" ")
    } else {
        format!("{}  {}", a.join(" "), b.join(" "))
    };
    let ascii: String = bytes
        .iter()
        .map(|&c| {
            if c == b' ' || c.is_ascii_graphic() {
                c as char
            } else {
                '.'
            }
        })
        .collect();
    format!(" | {offset:05x}  {hex:<48}  {ascii:<16} |\n")
}

fn block(data: &[u8]) -> String {
    data.chunks(16)
        .enumerate()
        .map(|(i, c)| line(16 * i, c))
        .collect()
}

#[test]
fn dumps_show_exactly_the_bytes_moved() {
    let long = b"0123456789abcdefghijklmnopqrstuvwxyz\t\x01\xff~";
    let all = dumps(&rstrace(), &["-e", "write=4,5,9", "-e", "read=3,6"]);
    let mut want = String::new();
    want += &block(long); // write(4, long, 40)
    want += &block(long); // read(3, ..) = 40
    want += &block(b"bad"); // write(9) fails: the buffer is still shown
    want += &format!(" * 2 bytes in buffer 0\n{}", block(b"ab")); // writev stops at ""
    want += &format!(" * 5 bytes in buffer 0\n{}", block(b"abcde"));
    want += &format!(
        " * 21 bytes in buffer 1\n{}",
        block(b"fghijklmnopqrstuvwxyz")
    );
    want += &format!(" * 4 bytes in buffer 0\n{}", block(b"msg-"));
    want += &format!(" * 4 bytes in buffer 1\n{}", block(b"data"));
    want += &format!(" * 8 bytes in buffer 0\n{}", block(b"msg-data"));
    for _ in 0..2 {
        want += &format!(
            " = 1 buffers in vector 0\n * 3 bytes in buffer 0\n{}",
            block(b"one")
        );
        want += &format!(
            " = 1 buffers in vector 1\n * 6 bytes in buffer 0\n{}",
            block(b"second")
        );
    }
    assert_eq!(all, want);
    // Only the chosen descriptors and directions.
    let w = dumps(&rstrace(), &["-e", "write=9"]);
    assert_eq!(w, block(b"bad"));
    let r = dumps(&rstrace(), &["-e", "read=!3"]);
    assert!(r.starts_with(" * 8 bytes in buffer 0\n"), "{r}");
    assert_eq!(
        dumps(&rstrace(), &["-e", "read=none", "-e", "write=none"]),
        ""
    );
}

#[test]
fn bad_descriptor_sets_are_refused() {
    for (v, tok) in [("read=abc", "abc"), ("write=-1", "-1"), ("write=", "")] {
        let o = common::named(rstrace())
            .args(["-e", v, "true"])
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).lines().next(),
            Some(format!("rstrace: invalid descriptor '{tok}'").as_str())
        );
    }
}

#[test]
fn same_dumps_as_strace() {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    for sets in [
        &["-e", "write=4,5,9", "-e", "read=3,6"][..],
        &["-e", "write=all"],
        &["-e", "read=all"],
    ] {
        let strace = dumps(std::path::Path::new("strace"), sets);
        assert!(!strace.is_empty());
        assert_eq!(dumps(&rstrace(), sets), strace, "{sets:?}");
    }
}
