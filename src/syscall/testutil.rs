//! Test helpers for decoder unit tests: run a decoder at entry and exit over a
//! [`FakeMemory`] and render the call as strace prints it (without the column
//! padding before `=`).

use crate::engine::memory::FakeMemory;
use crate::syscall::ctx::FdResolver;
use crate::syscall::{decode_entry, decode_exit, Ctx, DecodeOpts, Decoder, Entry, Ret};
use crate::value::text::{render_ret, render_value, RenderOpts};
use rtrace_arch::tables::Classes;
use rtrace_arch::Arch;

/// Two little-endian 64-bit words (a `timespec`, an `rlimit`, …) as bytes.
pub(crate) fn pair(a: u64, b: u64) -> Vec<u8> {
    let mut v = a.to_le_bytes().to_vec();
    v.extend_from_slice(&b.to_le_bytes());
    v
}

/// A `-y` resolver answering from a fixed list of `(fd, path)` pairs.
pub(crate) struct FixedFds(pub Vec<(i64, &'static str)>);

impl FdResolver for FixedFds {
    fn fd_path(&mut self, _pid: i32, fd: i64) -> Option<Vec<u8>> {
        self.0
            .iter()
            .find(|e| e.0 == fd)
            .map(|e| e.1.as_bytes().to_vec())
    }
}

/// One netlink attribute: `nla_len`, `nla_type`, the data, padded to 4.
pub(crate) fn nla(ty: u16, data: &[u8]) -> Vec<u8> {
    let mut v = ((4 + data.len()) as u16).to_le_bytes().to_vec();
    v.extend(ty.to_le_bytes());
    v.extend(data);
    v.resize((v.len() + 3) & !3, 0);
    v
}

/// Runs `dec` as syscall `name` on x86_64 with default options.
pub(crate) fn run(
    dec: Decoder,
    name: &str,
    args: &[u64],
    ret: i64,
    mem: &mut FakeMemory,
) -> String {
    run_with(dec, name, args, ret, mem, &DecodeOpts::default())
}

/// Runs `dec` on x86_64 with `opts`.
pub(crate) fn run_with(
    dec: Decoder,
    name: &str,
    args: &[u64],
    ret: i64,
    mem: &mut FakeMemory,
    opts: &DecodeOpts,
) -> String {
    let env = Env {
        opts: opts.clone(),
        ..Env::default()
    };
    run_env(dec, name, args, ret, mem, &env)
}

/// Where a test call runs: options, personality and `-y` answers.
pub(crate) struct Env {
    /// Decoding options.
    pub opts: DecodeOpts,
    /// The personality.
    pub arch: Arch,
    /// `(fd, path)` pairs `-y` resolves.
    pub fds: Vec<(i64, &'static str)>,
}

impl Default for Env {
    fn default() -> Self {
        Env {
            opts: DecodeOpts::default(),
            arch: Arch::X86_64,
            fds: Vec::new(),
        }
    }
}

/// Runs `dec` in `env`; returns `name(args) = ret`.
pub(crate) fn run_env(
    dec: Decoder,
    name: &str,
    args: &[u64],
    ret: i64,
    mem: &mut FakeMemory,
    env: &Env,
) -> String {
    let (a, entry) = call(dec, args);
    let mut fds = FixedFds(env.fds.clone());
    let mut c = Ctx::new(mem, &mut fds, &env.opts, 1, env.arch, a);
    let step = decode_entry(&entry, &mut c);
    c.ret = Some(ret);
    let r = decode_exit(&entry, &mut c, step);
    render_call(name, &c, &r)
}

/// As [`run_env`], with the tracee's memory at exit `after` (what the
/// kernel wrote) instead of `before`; each side is decoded in its own
/// context, as the tracer does.
pub(crate) fn run_changed(
    dec: Decoder,
    name: &str,
    args: &[u64],
    ret: i64,
    before: &mut FakeMemory,
    after: &mut FakeMemory,
    env: &Env,
) -> String {
    let (a, entry) = call(dec, args);
    let mut fds = FixedFds(env.fds.clone());
    let mut c = Ctx::new(before, &mut fds, &env.opts, 1, env.arch, a);
    let step = decode_entry(&entry, &mut c);
    let (saved, entry_args, complete) =
        (c.saved, std::mem::take(&mut c.entry_args), c.entry_complete);
    let mut fds = FixedFds(env.fds.clone());
    let mut c = Ctx::new(after, &mut fds, &env.opts, 1, env.arch, a);
    (c.saved, c.entry_args, c.entry_complete) = (saved, entry_args, complete);
    c.ret = Some(ret);
    let r = decode_exit(&entry, &mut c, step);
    render_call(name, &c, &r)
}

/// The six arguments and a table entry for decoder `dec`.
fn call(dec: Decoder, args: &[u64]) -> ([u64; 6], Entry) {
    let mut a = [0u64; 6];
    a[..args.len()].copy_from_slice(args);
    let entry = Entry {
        name: None,
        nargs: 6,
        classes: Classes(0),
        decoder: Some(dec),
    };
    (a, entry)
}

/// `name(args) = ret` of a decoded call.
fn render_call(name: &str, c: &Ctx, r: &Ret) -> String {
    let ro = RenderOpts::default();
    let mut s = format!("{name}(");
    let n_entry = c.entry_args.len();
    for (i, v) in c.entry_args.iter().chain(c.exit_args.iter()).enumerate() {
        // After an entry marked complete, the exit values carry their own
        // separator (as rstrace's line renderer prints them).
        if i > 0 && !(c.entry_complete && i == n_entry) {
            s.push_str(", ");
        }
        render_value(&mut s, v, &ro);
    }
    s.push_str(") ");
    render_ret(&mut s, r, &ro);
    s
}
