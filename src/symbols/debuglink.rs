//! Finding a module's separate debug file, as gdb does: by build-id
//! (`<debug dir>/.build-id/xx/rest.debug`), then by `.gnu_debuglink` name in
//! the file's directory, its `.debug/` subdirectory and `<debug dir>/<file's
//! directory>/`, accepting a debuglink candidate only when its CRC32 matches.

use super::elf::ElfImage;
use super::{Bytes, Warning};
use std::path::{Path, PathBuf};

/// The global debug directories searched by default.
pub const DEFAULT_DEBUG_DIRS: &[&str] = &["/usr/lib/debug"];

/// The debug file for `image` (found at `path`), parsed, or `None`. Warnings
/// report candidates that were rejected.
pub fn find_debug_file(
    path: &Path,
    image: &ElfImage,
    debug_dirs: &[PathBuf],
    warnings: &mut Vec<Warning>,
) -> Option<(PathBuf, ElfImage)> {
    if let Some(id) = image.build_id.as_deref().filter(|id| id.len() >= 2) {
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        for dir in debug_dirs {
            let candidate = dir
                .join(".build-id")
                .join(&hex[..2])
                .join(format!("{}.debug", &hex[2..]));
            if !candidate.is_file() || same_file(&candidate, path) {
                continue;
            }
            match ElfImage::open(&candidate) {
                Ok(debug) if debug.build_id.as_deref() == Some(id) => {
                    return Some((candidate, debug))
                }
                Ok(_) => warnings.push(Warning::BuildIdMismatch),
                Err(w) => warnings.push(w),
            }
        }
    }
    let (name, crc) = image.debuglink.as_ref()?;
    let dir = path.parent().unwrap_or(Path::new("/"));
    let mut candidates = vec![dir.join(name), dir.join(".debug").join(name)];
    for d in debug_dirs {
        candidates.push(d.join(dir.strip_prefix("/").unwrap_or(dir)).join(name));
    }
    for candidate in candidates {
        if !candidate.is_file() || same_file(&candidate, path) {
            continue;
        }
        let Ok(bytes) = Bytes::map(&candidate) else {
            continue;
        };
        if crc32(&bytes) != *crc {
            warnings.push(Warning::DebuglinkCrcMismatch);
            continue;
        }
        match ElfImage::parse(bytes) {
            Ok(debug) => return Some((candidate, debug)),
            Err(w) => warnings.push(w),
        }
    }
    None
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// CRC-32 (IEEE 802.3, as zlib and `.gnu_debuglink` use).
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[[u32; 256]; 4]> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = [[0u32; 256]; 4];
        for i in 0..256u32 {
            let mut c = i;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            t[0][i as usize] = c;
        }
        for i in 0..256 {
            for k in 1..4 {
                let prev = t[k - 1][i];
                t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            }
        }
        t
    });
    let mut crc = !0u32;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let x = crc ^ u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        crc = t[3][(x & 0xff) as usize]
            ^ t[2][((x >> 8) & 0xff) as usize]
            ^ t[1][((x >> 16) & 0xff) as usize]
            ^ t[0][(x >> 24) as usize];
    }
    for &b in chunks.remainder() {
        crc = t[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_known_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414f_a339
        );
    }
}
