//! The module map of a process: `/proc/PID/maps`, parsed once, with the load
//! bias of every file-backed mapping and the vDSO image.

use super::elf::{bias_for_mapping, read_load_segments, LoadSegment};
use super::Bytes;
use crate::engine::memory::Memory;
use std::collections::HashMap;
use std::path::PathBuf;

/// `AT_PAGESZ` in the auxiliary vector.
const AT_PAGESZ: u64 = 6;
/// The name the kernel gives the vDSO mapping.
pub const VDSO: &str = "[vdso]";

/// One line of `/proc/PID/maps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Permissions as the kernel prints them (`r-xp`).
    pub perms: String,
    /// File offset mapped at `start`.
    pub offset: u64,
    /// Device number (`major << 32 | minor`).
    pub dev: u64,
    /// Inode of the mapped file (0 for anonymous mappings).
    pub inode: u64,
    /// Path, or a pseudo name such as `[vdso]`, `[stack]`; empty when anonymous.
    pub path: String,
    /// Runtime address minus file virtual address, when known (ELF files and
    /// the vDSO).
    pub bias: Option<u64>,
}

impl Mapping {
    /// Whether the mapping is executable.
    pub fn is_exec(&self) -> bool {
        self.perms.as_bytes().get(2) == Some(&b'x')
    }

    /// Whether this is the vDSO.
    pub fn is_vdso(&self) -> bool {
        self.path == VDSO
    }

    /// Whether the mapping is backed by a file (not anonymous, not a pseudo name).
    pub fn is_file(&self) -> bool {
        self.path.starts_with('/')
    }

    /// File virtual address of runtime address `addr` (what `strace -k`
    /// prints in brackets).
    pub fn file_vaddr(&self, addr: u64) -> Option<u64> {
        self.bias.map(|b| addr.wrapping_sub(b))
    }
}

/// The mappings of one process, sorted by address.
#[derive(Debug, Clone, Default)]
pub struct ModuleMap {
    mappings: Vec<Mapping>,
    vdso: Option<Bytes>,
    root: Option<PathBuf>,
    page_size: u64,
}

impl ModuleMap {
    /// Parses the text of a maps file. Biases are not computed: see
    /// [`ModuleMap::compute_biases`].
    pub fn parse(text: &str) -> ModuleMap {
        let mut mappings: Vec<Mapping> = text.lines().filter_map(parse_line).collect();
        mappings.sort_by_key(|m| m.start);
        ModuleMap {
            mappings,
            vdso: None,
            root: None,
            page_size: 4096,
        }
    }

    /// Reads `/proc/PID/maps`, computes biases from the files' program
    /// headers (opened through `/proc/PID/root` so mount namespaces do not
    /// matter) and reads the vDSO image through `mem`.
    pub fn from_pid(pid: i32, mem: &mut dyn Memory) -> std::io::Result<ModuleMap> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
        let mut map = ModuleMap::parse(&text);
        let root = PathBuf::from(format!("/proc/{pid}/root"));
        if root.exists() {
            map.root = Some(root);
        }
        if let Ok(auxv) = std::fs::read(format!("/proc/{pid}/auxv")) {
            if let Some(pg) = auxv_value(&auxv, AT_PAGESZ).filter(|p| p.is_power_of_two()) {
                map.page_size = pg;
            }
        }
        map.compute_biases();
        map.load_vdso(mem);
        Ok(map)
    }

    /// All mappings, sorted by start address.
    pub fn mappings(&self) -> &[Mapping] {
        &self.mappings
    }

    /// The mapping that contains `addr`.
    pub fn find(&self, addr: u64) -> Option<&Mapping> {
        let i = self.mappings.partition_point(|m| m.start <= addr);
        let m = self.mappings.get(i.checked_sub(1)?)?;
        (addr < m.end).then_some(m)
    }

    /// The vDSO image read from the process, if it has one.
    pub fn vdso_image(&self) -> Option<&Bytes> {
        self.vdso.as_ref()
    }

    /// The path to open for a mapping's file (through the process's root
    /// directory when known).
    pub fn open_path(&self, mapping: &Mapping) -> PathBuf {
        match &self.root {
            Some(root) => root.join(mapping.path.trim_start_matches('/')),
            None => PathBuf::from(&mapping.path),
        }
    }

    /// Computes the load bias of every file-backed mapping by reading each
    /// file's program headers once. A file's bias is taken from its mapping
    /// at offset 0 where there is one (unambiguous), else per mapping.
    pub fn compute_biases(&mut self) {
        let mut loads: HashMap<(u64, u64, String), Option<Vec<LoadSegment>>> = HashMap::new();
        let mut base_bias: HashMap<(u64, u64, String), u64> = HashMap::new();
        let page = self.page_size;
        for i in 0..self.mappings.len() {
            let m = &self.mappings[i];
            if !m.is_file() {
                continue;
            }
            let key = (m.dev, m.inode, m.path.clone());
            let path = self.open_path(m);
            let segs = loads
                .entry(key.clone())
                .or_insert_with(|| read_load_segments(&path).ok());
            let Some(segs) = segs else { continue };
            let own = bias_for_mapping(segs, m.start, m.offset, m.is_exec(), page);
            let bias = if m.offset == 0 {
                if let Some(b) = own {
                    base_bias.insert(key, b);
                }
                own
            } else {
                base_bias.get(&key).copied().or(own)
            };
            self.mappings[i].bias = bias;
        }
    }

    /// Reads the vDSO's bytes through `mem` and sets its bias.
    pub fn load_vdso(&mut self, mem: &mut dyn Memory) {
        let Some(m) = self.mappings.iter_mut().find(|m| m.is_vdso()) else {
            return;
        };
        let len = m.end.saturating_sub(m.start);
        if len == 0 || len > 1 << 24 {
            return;
        }
        let mut buf = vec![0u8; len as usize];
        let n = mem.read(m.start, &mut buf);
        buf.truncate(n);
        let bytes = Bytes::from(buf);
        let Ok(image) = super::elf::ElfImage::parse(bytes.clone()) else {
            return;
        };
        m.bias = image.bias_for_mapping(m.start, 0, true, self.page_size);
        self.vdso = Some(bytes);
    }
}

/// One maps line: `start-end perms offset major:minor inode   path`.
fn parse_line(line: &str) -> Option<Mapping> {
    let mut fields = line.splitn(6, ' ');
    let (start, end) = fields.next()?.split_once('-')?;
    let perms = fields.next()?.to_string();
    let offset = u64::from_str_radix(fields.next()?, 16).ok()?;
    let (major, minor) = fields.next()?.split_once(':')?;
    let dev = (u64::from_str_radix(major, 16).ok()? << 32) | u64::from_str_radix(minor, 16).ok()?;
    let inode = fields.next()?.parse().ok()?;
    let path = fields.next().unwrap_or("").trim_start().to_string();
    Some(Mapping {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        perms,
        offset,
        dev,
        inode,
        path,
        bias: None,
    })
}

/// The entry point of the program process `pid` runs (`AT_ENTRY` in its
/// auxiliary vector): where control reaches the program once the dynamic
/// linker has loaded and relocated the libraries it needs.
pub fn entry_point(pid: i32) -> Option<u64> {
    let auxv = std::fs::read(format!("/proc/{pid}/auxv")).ok()?;
    auxv_value(&auxv, libc::AT_ENTRY)
}

/// A value from a native-endian 64-bit auxiliary vector.
fn auxv_value(auxv: &[u8], key: u64) -> Option<u64> {
    auxv.chunks_exact(16).find_map(|pair| {
        let k = u64::from_ne_bytes(pair[..8].try_into().ok()?);
        let v = u64::from_ne_bytes(pair[8..].try_into().ok()?);
        (k == key).then_some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234                       /usr/bin/prog
55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 1234                       /usr/bin/prog
55d0c0a03000-55d0c0a04000 rw-p 00002000 08:01 1234                       /usr/bin/prog
55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000001000 rw-p 00000000 00:00 0 
7ffd1000000-7ffd1002000 r-xp 00000000 00:00 0                          [vdso]
7ffd2000000-7ffd2021000 rw-p 00000000 00:00 0                          /tmp/name with spaces (deleted)
";

    #[test]
    fn parses_every_kind_of_line() {
        let map = ModuleMap::parse(SAMPLE);
        assert_eq!(map.mappings().len(), 7);
        let m = map.find(0x55d0c0a01234).unwrap();
        assert_eq!(m.path, "/usr/bin/prog");
        assert_eq!(m.offset, 0x1000);
        assert_eq!(m.dev, (8 << 32) | 1);
        assert_eq!(m.inode, 1234);
        assert!(m.is_exec() && m.is_file());
        assert!(map.find(0x55d0c0a02000).is_none(), "gap between mappings");
        assert!(map.find(0x7ffd1000000).unwrap().is_vdso());
        assert_eq!(map.find(0x7f0000000010).unwrap().path, "");
        assert_eq!(
            map.find(0x7ffd2000010).unwrap().path,
            "/tmp/name with spaces (deleted)"
        );
        assert!(map.find(0).is_none());
        assert!(map.find(u64::MAX).is_none());
    }

    #[test]
    fn garbage_lines_are_skipped() {
        let map = ModuleMap::parse("nonsense\n1-2\nzz-yy r-xp 0 0:0 0\n\n");
        assert!(map.mappings().is_empty());
    }

    #[test]
    fn own_process_biases_match_the_executable() {
        let text = std::fs::read_to_string("/proc/self/maps").unwrap();
        let mut map = ModuleMap::parse(&text);
        map.compute_biases();
        let here = own_process_biases_match_the_executable as fn() as usize as u64;
        let m = map.find(here).unwrap();
        let bias = m.bias.expect("bias of the test executable");
        let image = super::super::elf::ElfImage::open(std::path::Path::new(&m.path)).unwrap();
        let vaddr = here - bias;
        assert!(image
            .loads
            .iter()
            .any(|l| l.exec && vaddr >= l.vaddr && vaddr < l.vaddr + l.memsz));
    }
}
