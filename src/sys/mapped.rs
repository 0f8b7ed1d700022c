//! A file's bytes as the symbol and DWARF readers see them
//! (the symbol layer re-exports this type as its `Bytes`): mapped
//! read-only from the file (only the pages a lookup touches become
//! resident, and nothing is copied onto the heap), or owned bytes for
//! images read from memory (the vDSO) and decompressed sections. Cheap to
//! clone: every reader is a window on one shared backing.
//!
//! A mapped file that another process truncates while rtrace reads it
//! makes the read fault (SIGBUS), as with any debugger that maps its
//! files; rebuilding tools write a new file (a new inode) instead.

use std::fs::File;
use std::num::NonZeroUsize;
use std::ops::Deref;
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;

enum Backing {
    Owned(Box<[u8]>),
    Mapped { ptr: NonNull<u8>, len: usize },
}

// SAFETY: the mapping is read-only and private, never written or remapped
// while shared, and unmapped only when the last owner drops it.
unsafe impl Send for Backing {}
unsafe impl Sync for Backing {}

impl Drop for Backing {
    fn drop(&mut self) {
        if let Backing::Mapped { ptr, len } = *self {
            // SAFETY: the mapping made in `Bytes::map`, unmapped once.
            let _ = unsafe { nix::sys::mman::munmap(ptr.cast(), len) };
        }
    }
}

/// Shared, immutable bytes (see the module doc).
#[derive(Clone)]
pub struct Bytes(Arc<Backing>);

impl Bytes {
    /// Maps the file at `path` (an empty file gives empty bytes).
    pub fn map(path: &Path) -> std::io::Result<Bytes> {
        use nix::sys::mman::{mmap, MapFlags, ProtFlags};
        let file = File::open(path)?;
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        let Some(n) = NonZeroUsize::new(len) else {
            return Ok(Bytes::from(Vec::new()));
        };
        // SAFETY: a fresh private read-only mapping of an open file; the
        // descriptor may close once it exists.
        let ptr = unsafe {
            mmap(
                None,
                n,
                ProtFlags::PROT_READ,
                MapFlags::MAP_PRIVATE,
                &file,
                0,
            )
        }?;
        Ok(Bytes(Arc::new(Backing::Mapped {
            ptr: ptr.cast(),
            len,
        })))
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes(Arc::new(Backing::Owned(v.into_boxed_slice())))
    }
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &*self.0 {
            Backing::Owned(b) => b,
            // SAFETY: the mapping lives as long as `self.0`.
            Backing::Mapped { ptr, len } => unsafe {
                std::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
        }
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &*self.0 {
            Backing::Owned(_) => "owned",
            Backing::Mapped { .. } => "mapped",
        };
        write!(f, "Bytes({kind}, {} bytes)", self.len())
    }
}

// SAFETY: the bytes never move while any clone exists: both backings live
// behind the shared `Arc`, and clones point at the same bytes.
unsafe impl gimli::StableDeref for Bytes {}
unsafe impl gimli::CloneStableDeref for Bytes {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_and_owned_bytes_read_the_same() {
        let path = std::env::temp_dir().join(format!("rtrace-bytes-{}", std::process::id()));
        std::fs::write(&path, b"\x7fELF and more").unwrap();
        let mapped = Bytes::map(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(&*mapped, b"\x7fELF and more");
        assert!(format!("{mapped:?}").contains("mapped"));
        let clone = mapped.clone();
        drop(mapped);
        assert_eq!(&clone[..4], b"\x7fELF");
        assert_eq!(&*Bytes::from(b"xy".to_vec()), b"xy");
        let empty = std::env::temp_dir().join(format!("rtrace-bytes0-{}", std::process::id()));
        std::fs::write(&empty, b"").unwrap();
        assert!(Bytes::map(&empty).unwrap().is_empty());
        let _ = std::fs::remove_file(&empty);
    }
}
