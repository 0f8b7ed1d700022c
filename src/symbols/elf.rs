//! One ELF file's bytes and the few header facts the symbolizer and the
//! unwinder need, parsed once.
//!
//! The whole file is mapped ([`Bytes`]) and sections are windows on it, so
//! DWARF readers share the bytes without copying and only the pages read
//! become resident. Compressed
//! sections (`SHF_COMPRESSED`, `.zdebug_*`) are decompressed on first use and
//! kept.

use super::{Bytes, Reader, Warning};
use object::read::elf::{ElfFile, FileHeader, ProgramHeader, SectionHeader};
use object::{Object, ObjectSection, SectionKind};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// A `PT_LOAD` segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadSegment {
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_offset`.
    pub offset: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// Whether the segment is executable (`PF_X`).
    pub exec: bool,
}

/// A section header, reduced to what lookups need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// Section name (`.plt`, `.eh_frame`, ...).
    pub name: String,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_size` (of the data in the file, possibly compressed).
    pub size: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// Whether the section holds bytes in the file (not `SHT_NOBITS`).
    pub has_data: bool,
}

/// A parsed ELF file.
pub struct ElfImage {
    data: Bytes,
    endian: gimli::RunTimeEndian,
    /// `e_machine`.
    pub machine: u16,
    /// ELFCLASS64.
    pub is_64: bool,
    /// `ET_DYN` (a shared object or PIE executable).
    pub is_dyn: bool,
    /// `PT_LOAD` segments in header order.
    pub loads: Vec<LoadSegment>,
    /// Section headers in header order.
    pub sections: Vec<SectionInfo>,
    /// Contents of the GNU build-id note.
    pub build_id: Option<Vec<u8>>,
    /// `.gnu_debuglink`: file name and CRC32.
    pub debuglink: Option<(String, u32)>,
    decompressed: Mutex<HashMap<String, Option<Bytes>>>,
}

impl std::fmt::Debug for ElfImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElfImage")
            .field("len", &self.data.len())
            .field("machine", &self.machine)
            .field("is_dyn", &self.is_dyn)
            .field("loads", &self.loads)
            .finish_non_exhaustive()
    }
}

impl ElfImage {
    /// Reads and parses the file at `path`.
    pub fn open(path: &Path) -> Result<ElfImage, Warning> {
        let data = Bytes::map(path).map_err(|_| Warning::Unreadable)?;
        ElfImage::parse(data)
    }

    /// Parses ELF bytes (a file, or a vDSO image read from memory).
    pub fn parse(data: Bytes) -> Result<ElfImage, Warning> {
        match object::FileKind::parse(&*data) {
            Ok(object::FileKind::Elf64) => {
                parse_with::<object::elf::FileHeader64<object::Endianness>>(&data)
            }
            Ok(object::FileKind::Elf32) => {
                parse_with::<object::elf::FileHeader32<object::Endianness>>(&data)
            }
            _ => Err(Warning::BadElf),
        }
    }

    /// The whole file.
    pub fn data(&self) -> &Bytes {
        &self.data
    }

    /// Byte order of the file.
    pub fn endian(&self) -> gimli::RunTimeEndian {
        self.endian
    }

    /// Address size in bytes (4 or 8).
    pub fn address_size(&self) -> u8 {
        if self.is_64 {
            8
        } else {
            4
        }
    }

    /// The section header named `name`.
    pub fn section(&self, name: &str) -> Option<&SectionInfo> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// `sh_addr` of section `name`.
    pub fn section_addr(&self, name: &str) -> Option<u64> {
        self.section(name).map(|s| s.addr)
    }

    /// Up to `len` bytes of the file's code at virtual address `vaddr`
    /// (from the executable `PT_LOAD` segment holding it; fewer at the
    /// segment's end), or `None` when no such segment holds it.
    pub fn code(&self, vaddr: u64, len: usize) -> Option<&[u8]> {
        let seg = self
            .loads
            .iter()
            .find(|l| l.exec && l.vaddr <= vaddr && vaddr < l.vaddr.saturating_add(l.filesz))?;
        let start = seg.offset.checked_add(vaddr - seg.vaddr)?;
        let end = seg
            .offset
            .saturating_add(seg.filesz)
            .min(start.saturating_add(len as u64));
        self.data
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// The (decompressed) contents of section `name` as a reader, or `None`
    /// when the file has no such section with bytes. `.zdebug_*` sections are
    /// found under their `.debug_*` names.
    pub fn section_reader(&self, name: &str) -> Result<Option<Reader>, Warning> {
        if let Some(cached) = self.lock_decompressed().get(name) {
            return Ok(cached.clone().map(|d| Reader::new(d, self.endian)));
        }
        let file = object::File::parse(&*self.data).map_err(|_| Warning::BadElf)?;
        let Some(section) = file.section_by_name(name) else {
            return Ok(None);
        };
        if section.kind() == SectionKind::UninitializedData {
            return Ok(None);
        }
        // A compressed section declares its size: an absurd one (more than
        // zlib's 1032:1 ratio allows, or over 2 GiB) is corrupt, and would
        // otherwise be allocated before decompression fails (found by the
        // `dwarf` fuzz target).
        if let Ok(r) = section.compressed_file_range() {
            if r.format != object::CompressionFormat::None
                && (r.uncompressed_size > r.compressed_size.saturating_mul(1032) + 4096
                    || r.uncompressed_size > 2 << 30)
            {
                self.lock_decompressed().insert(name.to_string(), None);
                return Err(Warning::BadCompression);
            }
        }
        match section.uncompressed_data() {
            Ok(Cow::Borrowed(bytes)) => {
                if bytes.is_empty() {
                    return Ok(None);
                }
                // `bytes` is a window on `self.data`: find where it starts.
                let start = bytes.as_ptr() as usize - self.data.as_ptr() as usize;
                let whole = Reader::new(self.data.clone(), self.endian);
                Ok(Some(whole.range(start..start + bytes.len())))
            }
            Ok(Cow::Owned(bytes)) => {
                let arc = Bytes::from(bytes);
                self.lock_decompressed()
                    .insert(name.to_string(), Some(arc.clone()));
                Ok(Some(Reader::new(arc, self.endian)))
            }
            Err(_) => {
                self.lock_decompressed().insert(name.to_string(), None);
                Err(Warning::BadCompression)
            }
        }
    }

    fn lock_decompressed(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<Bytes>>> {
        self.decompressed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Load bias of a mapping of this file: see [`bias_for_mapping`].
    pub fn bias_for_mapping(
        &self,
        start: u64,
        offset: u64,
        exec: bool,
        page_size: u64,
    ) -> Option<u64> {
        bias_for_mapping(&self.loads, start, offset, exec, page_size)
    }
}

/// Load bias of a mapping that starts at `start` and maps file offset
/// `offset` of a file with segments `loads`: runtime address minus file
/// virtual address. The segment is the one the dynamic loader mapped there:
/// it starts in the mapping's first page; `exec` (the mapping is executable)
/// picks among several such segments.
pub fn bias_for_mapping(
    loads: &[LoadSegment],
    start: u64,
    offset: u64,
    exec: bool,
    page_size: u64,
) -> Option<u64> {
    let mask = !(page_size.max(1) - 1);
    let mut candidates = loads.iter().filter(|l| l.offset & mask == offset);
    let first = candidates.clone().next()?;
    let seg = candidates.find(|l| l.exec == exec).unwrap_or(first);
    // The vaddr that file offset `offset` is linked at.
    let vaddr = seg.vaddr.wrapping_sub(seg.offset).wrapping_add(offset);
    Some(start.wrapping_sub(vaddr))
}

/// Reads only the ELF header and program headers of the file at `path`
/// (what a load bias needs), without reading the whole file.
pub fn read_load_segments(path: &Path) -> Result<Vec<LoadSegment>, Warning> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).map_err(|_| Warning::Unreadable)?;
    let mut head = vec![0u8; 64];
    let n = file
        .read_at(&mut head, 0)
        .map_err(|_| Warning::Unreadable)?;
    head.truncate(n);
    let (phoff, phnum, phentsize): (u64, u64, u64) = match object::FileKind::parse(&*head) {
        Ok(object::FileKind::Elf64) => {
            let h = object::elf::FileHeader64::<object::Endianness>::parse(&*head)
                .map_err(|_| Warning::BadElf)?;
            let e = h.endian().map_err(|_| Warning::BadElf)?;
            (h.e_phoff(e), h.e_phnum(e).into(), h.e_phentsize(e).into())
        }
        Ok(object::FileKind::Elf32) => {
            let h = object::elf::FileHeader32::<object::Endianness>::parse(&*head)
                .map_err(|_| Warning::BadElf)?;
            let e = h.endian().map_err(|_| Warning::BadElf)?;
            (
                h.e_phoff(e).into(),
                h.e_phnum(e).into(),
                h.e_phentsize(e).into(),
            )
        }
        _ => return Err(Warning::BadElf),
    };
    let end = phoff.saturating_add(phnum.saturating_mul(phentsize));
    if end > 1 << 20 {
        return Err(Warning::BadElf);
    }
    let mut buf = vec![0u8; end as usize];
    let n = file.read_at(&mut buf, 0).map_err(|_| Warning::Unreadable)?;
    buf.truncate(n);
    let image = ElfImage::parse_headers_only(Bytes::from(buf))?;
    Ok(image.loads)
}

impl ElfImage {
    /// Parses only the file and program headers (the section table may be
    /// missing from `data`).
    fn parse_headers_only(data: Bytes) -> Result<ElfImage, Warning> {
        fn loads<Elf: FileHeader<Endian = object::Endianness>>(
            data: &[u8],
        ) -> Result<(Vec<LoadSegment>, bool, u16, bool), Warning> {
            let h = Elf::parse(data).map_err(|_| Warning::BadElf)?;
            let e = h.endian().map_err(|_| Warning::BadElf)?;
            let phdrs = h.program_headers(e, data).map_err(|_| Warning::BadElf)?;
            Ok((
                load_segments::<Elf>(phdrs, e),
                h.is_type_64(),
                h.e_machine(e).0,
                e == object::Endianness::Big,
            ))
        }
        let (loads, is_64, machine, big) = match object::FileKind::parse(&*data) {
            Ok(object::FileKind::Elf64) => {
                loads::<object::elf::FileHeader64<object::Endianness>>(&data)?
            }
            Ok(object::FileKind::Elf32) => {
                loads::<object::elf::FileHeader32<object::Endianness>>(&data)?
            }
            _ => return Err(Warning::BadElf),
        };
        Ok(ElfImage {
            data,
            endian: if big {
                gimli::RunTimeEndian::Big
            } else {
                gimli::RunTimeEndian::Little
            },
            machine,
            is_64,
            is_dyn: false,
            loads,
            sections: Vec::new(),
            build_id: None,
            debuglink: None,
            decompressed: Mutex::new(HashMap::new()),
        })
    }
}

fn load_segments<Elf: FileHeader<Endian = object::Endianness>>(
    phdrs: &[Elf::ProgramHeader],
    endian: object::Endianness,
) -> Vec<LoadSegment> {
    phdrs
        .iter()
        .filter(|p| p.p_type(endian) == object::elf::PT_LOAD)
        .map(|p| LoadSegment {
            vaddr: p.p_vaddr(endian).into(),
            offset: p.p_offset(endian).into(),
            filesz: p.p_filesz(endian).into(),
            memsz: p.p_memsz(endian).into(),
            exec: p.p_flags(endian).0 & object::elf::PF_X.0 != 0,
        })
        .collect()
}

fn parse_with<Elf: FileHeader<Endian = object::Endianness>>(
    data: &Bytes,
) -> Result<ElfImage, Warning> {
    let file = ElfFile::<Elf, &[u8]>::parse(&**data).map_err(|_| Warning::BadElf)?;
    let endian = file.endian();
    let header = file.elf_header();
    let loads = load_segments::<Elf>(file.elf_program_headers(), endian);
    let sections = file
        .sections()
        .map(|s| {
            let h = s.elf_section_header();
            let entsize: u64 = h.sh_entsize(endian).into();
            let has_data = h.sh_type(endian) != object::elf::SHT_NOBITS;
            SectionInfo {
                name: s.name().unwrap_or("").to_string(),
                addr: s.address(),
                size: s.size(),
                entsize,
                has_data,
            }
        })
        .collect();
    let build_id = file.build_id().ok().flatten().map(<[u8]>::to_vec);
    let debuglink = file
        .gnu_debuglink()
        .ok()
        .flatten()
        .map(|(name, crc)| (String::from_utf8_lossy(name).into_owned(), crc));
    Ok(ElfImage {
        data: data.clone(),
        endian: if endian == object::Endianness::Big {
            gimli::RunTimeEndian::Big
        } else {
            gimli::RunTimeEndian::Little
        },
        machine: header.e_machine(endian).0,
        is_64: header.is_type_64(),
        is_dyn: header.e_type(endian) == object::elf::ET_DYN,
        loads,
        sections,
        build_id,
        debuglink,
        decompressed: Mutex::new(HashMap::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_test_binary_itself() {
        let exe = std::env::current_exe().unwrap();
        let image = ElfImage::open(&exe).unwrap();
        assert!(!image.loads.is_empty());
        assert!(image.section(".text").is_some());
        assert!(image.section_reader(".eh_frame").unwrap().is_some());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert_eq!(
            ElfImage::parse(Bytes::from(vec![0u8; 100])).unwrap_err(),
            Warning::BadElf
        );
        let mut bytes = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        bytes.truncate(200);
        assert!(ElfImage::parse(Bytes::from(bytes)).is_err());
    }

    #[test]
    fn bias_of_a_pie_mapping() {
        let image = ElfImage {
            data: Bytes::from(Vec::new()),
            endian: gimli::RunTimeEndian::Little,
            machine: 62,
            is_64: true,
            is_dyn: true,
            loads: vec![
                LoadSegment {
                    vaddr: 0,
                    offset: 0,
                    filesz: 0x500,
                    memsz: 0x500,
                    exec: false,
                },
                LoadSegment {
                    vaddr: 0x1000,
                    offset: 0x1000,
                    filesz: 0x200,
                    memsz: 0x200,
                    exec: true,
                },
                LoadSegment {
                    vaddr: 0x3db8,
                    offset: 0x2db8,
                    filesz: 0x258,
                    memsz: 0x260,
                    exec: false,
                },
            ],
            sections: Vec::new(),
            build_id: None,
            debuglink: None,
            decompressed: Mutex::new(HashMap::new()),
        };
        let base = 0x5555_5555_4000;
        assert_eq!(image.bias_for_mapping(base, 0, false, 4096), Some(base));
        assert_eq!(
            image.bias_for_mapping(base + 0x1000, 0x1000, true, 4096),
            Some(base)
        );
        // The data segment: offset 0x2000 maps at vaddr 0x3000.
        assert_eq!(
            image.bias_for_mapping(base + 0x3000, 0x2000, false, 4096),
            Some(base)
        );
        assert_eq!(image.bias_for_mapping(base, 0x9000, false, 4096), None);
    }
}
