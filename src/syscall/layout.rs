//! Kernel structures read by field name.
//!
//! A structure's layout is declared once, with [`kstruct!`]: each field's
//! name, byte offset and type, as in the kernel header. The macro makes a
//! view over a byte slice (the bytes read from the tracee) with one accessor
//! per field, so decoders say `IfInfoMsg(&b).index()` rather than
//! `le32(&b, 4)`:
//!
//! ```ignore
//! kstruct! {
//!     /// `struct ifinfomsg`.
//!     pub(in crate::syscall) struct IfInfoMsg size 16 {
//!         family: u8 @ 0,
//!         type_: u16 @ 2,
//!         index: i32 @ 4,
//!         flags: u32 @ 8,
//!         change: u32 @ 12,
//!     }
//! }
//! ```
//!
//! Field types: `u8`…`u64` and `i8`…`i64` (little-endian, the byte order of
//! the architectures traced), `be16`/`be32` (network byte order, read as
//! `u16`/`u32`) and `[u8; N]` (a copy of the bytes). A field past the end of
//! a short slice reads as 0 (zero bytes for an array), as
//! [`crate::syscall::printers::le32`] always did; decoders check a
//! structure's `SIZE` before they read it. No `unsafe` and no crate: the
//! accessors are `from_le_bytes` over `slice::get`.
//!
//! [`le`], [`be16`], [`be32`] and [`nth`] are the one reader of numbers in
//! kernel memory that the views and the rest of `src/syscall` share.

/// A number read from kernel memory: its size and its little-endian decoding.
pub(in crate::syscall) trait Scalar: Copy + Default {
    /// `sizeof` the C type.
    const SIZE: usize;
    /// The value of exactly `SIZE` little-endian bytes.
    fn from_le(b: &[u8]) -> Self;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn from_le(b: &[u8]) -> Self {
                let mut w = [0u8; std::mem::size_of::<$t>()];
                w.copy_from_slice(b);
                <$t>::from_le_bytes(w)
            }
        }
    )*};
}
scalar!(u8, u16, u32, u64, i8, i16, i32, i64);

/// The little-endian `T` at byte `off` of `b` (0 when `b` is too short).
pub(in crate::syscall) fn le<T: Scalar>(b: &[u8], off: usize) -> T {
    off.checked_add(T::SIZE)
        .and_then(|end| b.get(off..end))
        .map_or_else(T::default, T::from_le)
}

/// The unsigned little-endian number of `n` bytes (1 to 8) at `off` of `b`
/// (0 when `b` is too short): for field tables whose sizes vary.
pub(in crate::syscall) fn le_uint(b: &[u8], off: usize, n: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(s) = off.checked_add(n).and_then(|end| b.get(off..end)) {
        w[..n].copy_from_slice(s);
    }
    u64::from_le_bytes(w)
}

/// Element `i` of an array of `T` at the start of `b` (0 past the end).
pub(in crate::syscall) fn nth<T: Scalar>(b: &[u8], i: usize) -> T {
    i.checked_mul(T::SIZE).map_or_else(T::default, |o| le(b, o))
}

/// The big-endian (network order) `u16` at `off` of `b` (0 past the end).
pub(in crate::syscall) fn be16(b: &[u8], off: usize) -> u16 {
    le::<u16>(b, off).swap_bytes()
}

/// The big-endian (network order) `u32` at `off` of `b` (0 past the end).
pub(in crate::syscall) fn be32(b: &[u8], off: usize) -> u32 {
    le::<u32>(b, off).swap_bytes()
}

/// The `N` bytes at `off` of `b` (zeros past the end).
pub(in crate::syscall) fn bytes<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
    let mut w = [0u8; N];
    if let Some(s) = b.get(off.min(b.len())..) {
        let n = s.len().min(N);
        w[..n].copy_from_slice(&s[..n]);
    }
    w
}

/// Declares a kernel structure's layout: a view over `&[u8]` named after
/// it, `SIZE`, and one accessor per field (see the module documentation).
macro_rules! kstruct {
    ($(#[$m:meta])* $vis:vis struct $name:ident size $size:literal {
        $($(#[$fm:meta])* $field:ident : $ty:tt @ $off:literal),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy)]
        $vis struct $name<'a>(pub &'a [u8]);

        #[allow(dead_code)]
        impl $name<'_> {
            /// `sizeof` the structure.
            pub const SIZE: usize = $size;
            $(
                $(#[$fm])*
                pub fn $field(&self) -> $crate::syscall::layout::kstruct!(@ty $ty) {
                    $crate::syscall::layout::kstruct!(@get self.0, $off, $ty)
                }
            )*
        }
    };
    (@ty be16) => { u16 };
    (@ty be32) => { u32 };
    (@ty [u8; $n:literal]) => { [u8; $n] };
    (@ty $t:ty) => { $t };
    (@get $b:expr, $o:expr, be16) => { $crate::syscall::layout::be16($b, $o) };
    (@get $b:expr, $o:expr, be32) => { $crate::syscall::layout::be32($b, $o) };
    (@get $b:expr, $o:expr, [u8; $n:literal]) => {
        $crate::syscall::layout::bytes::<$n>($b, $o)
    };
    (@get $b:expr, $o:expr, $t:ty) => { $crate::syscall::layout::le::<$t>($b, $o) };
}
pub(in crate::syscall) use kstruct;

#[cfg(test)]
mod tests {
    use super::*;

    kstruct! {
        /// A test structure.
        struct T size 12 {
            a: u8 @ 0,
            port: be16 @ 2,
            n: i32 @ 4,
            raw: [u8; 4] @ 8,
        }
    }

    #[test]
    fn fields_and_short_slices() {
        let b = [7, 0, 0x12, 0x34, 0xfe, 0xff, 0xff, 0xff, 1, 2, 3, 4];
        let t = T(&b);
        assert_eq!(
            (t.a(), t.port(), t.n(), t.raw(), T::SIZE),
            (7, 0x1234, -2, [1, 2, 3, 4], 12)
        );
        let t = T(&b[..9]);
        assert_eq!((t.n(), t.raw()), (-2, [1, 0, 0, 0]));
        assert_eq!((T(&[]).n(), T(&[]).raw()), (0, [0; 4]));
        assert_eq!(nth::<u16>(&b, 1), 0x3412);
        assert_eq!(le::<u64>(&b, usize::MAX), 0);
        assert_eq!(be32(&b, 2), 0x1234_feff);
        assert_eq!(le_uint(&b, 3, 3), 0xfffe34);
    }
}
