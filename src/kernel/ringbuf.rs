//! The per-CPU binary ring buffers (`per_cpu/cpuN/trace_pipe_raw`): page
//! headers and the compressed event headers (data, time extends, absolute
//! time stamps, padding), as `events/header_page` and `events/header_event`
//! describe them.

use super::tracefs::Tracefs;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;

const TYPE_PADDING: u32 = 29;
const TYPE_TIME_EXTEND: u32 = 30;
const TYPE_TIME_STAMP: u32 = 31;
const TS_SHIFT: u32 = 27;
/// Bits of the page's `commit` word that hold the data length.
const COMMIT_MASK: u64 = (1 << 27) - 1;
const MISSED_EVENTS: u64 = 1 << 31;
const MISSED_STORED: u64 = 1 << 30;

/// Where the page header's fields are (from `events/header_page`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLayout {
    /// Size of the `commit` word (8 on 64-bit kernels).
    pub commit_size: usize,
    /// Offset of the event data.
    pub data_offset: usize,
}

impl Default for PageLayout {
    fn default() -> Self {
        PageLayout {
            commit_size: 8,
            data_offset: 16,
        }
    }
}

impl PageLayout {
    /// Parses `events/header_page`.
    pub fn parse(text: &str) -> PageLayout {
        let mut l = PageLayout::default();
        for line in text.lines() {
            let get = |key: &str| {
                line.split(';')
                    .find_map(|p| p.trim().strip_prefix(key)?.trim().parse::<usize>().ok())
            };
            if line.contains(" commit;") {
                if let Some(s) = get("size:") {
                    l.commit_size = s;
                }
            } else if line.contains(" data;") {
                if let Some(o) = get("offset:") {
                    l.data_offset = o;
                }
            }
        }
        l
    }
}

/// What a page said besides its events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageInfo {
    /// Events were lost before this page; `Some(n)` when the kernel stored
    /// the count, `Some(0)` when it only flagged the loss.
    pub missed: Option<u64>,
    /// Records delivered.
    pub records: usize,
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(off..off + 4)?.try_into().ok()?))
}

fn word_at(b: &[u8], off: usize, size: usize) -> Option<u64> {
    match size {
        4 => u32_at(b, off).map(u64::from),
        8 => Some(u64::from_ne_bytes(b.get(off..off + 8)?.try_into().ok()?)),
        _ => None,
    }
}

/// Walks one ring-buffer page, calling `f(timestamp_ns, record)` for each
/// data record (the record starts with the event's `common_type`).
pub fn parse_page(
    page: &[u8],
    layout: PageLayout,
    mut f: impl FnMut(u64, &[u8]),
) -> Result<PageInfo, String> {
    let mut ts = word_at(page, 0, 8).ok_or("page shorter than its header")?;
    let commit = word_at(page, 8, layout.commit_size).ok_or("page shorter than its header")?;
    let size = (commit & COMMIT_MASK) as usize;
    let data = page
        .get(layout.data_offset..layout.data_offset + size)
        .ok_or_else(|| format!("page commit {size} exceeds the page"))?;
    let mut info = PageInfo::default();
    if commit & MISSED_EVENTS != 0 {
        let stored = (commit & MISSED_STORED != 0)
            .then(|| word_at(page, layout.data_offset + size, layout.commit_size))
            .flatten();
        info.missed = Some(stored.unwrap_or(0));
    }
    let mut off = 0;
    while off + 4 <= data.len() {
        let hdr = u32_at(data, off).unwrap_or(0);
        let type_len = hdr & 0x1f;
        let delta = (hdr >> 5) as u64;
        match type_len {
            TYPE_PADDING => {
                // A padding event with no delta fills the rest of the page;
                // one with a delta is a discarded event of array[0] bytes.
                if delta == 0 {
                    break;
                }
                let len = u32_at(data, off + 4).ok_or("truncated padding")? as usize;
                ts += delta;
                off += 4 + len;
            }
            TYPE_TIME_EXTEND => {
                let ext = u32_at(data, off + 4).ok_or("truncated time extend")? as u64;
                ts += (ext << TS_SHIFT) + delta;
                off += 8;
            }
            TYPE_TIME_STAMP => {
                // An absolute time stamp of 59 bits; the top bits come from
                // the page's time stamp.
                let ext = u32_at(data, off + 4).ok_or("truncated time stamp")? as u64;
                let abs = (ext << TS_SHIFT) | delta;
                ts = (ts & !((1u64 << 59) - 1)) | abs;
                off += 8;
            }
            0 => {
                let len = u32_at(data, off + 4).ok_or("truncated event length")? as usize;
                let body = len.checked_sub(4).ok_or("bad event length")?;
                let rec = data
                    .get(off + 8..off + 8 + body)
                    .ok_or("event past the page end")?;
                ts += delta;
                f(ts, rec);
                info.records += 1;
                off += 8 + ((body + 3) & !3);
            }
            n => {
                let len = n as usize * 4;
                let rec = data
                    .get(off + 4..off + 4 + len)
                    .ok_or("event past the page end")?;
                ts += delta;
                f(ts, rec);
                info.records += 1;
                off += 4 + len;
            }
        }
    }
    Ok(info)
}

/// Non-blocking readers of every CPU's `trace_pipe_raw` of an instance.
pub struct RawReader {
    cpus: Vec<(u32, File)>,
    page: Vec<u8>,
    layout: PageLayout,
    /// Events the kernel reported lost (page flags).
    pub missed: u64,
}

impl RawReader {
    /// Opens the readers of instance directory `fs`; `top` has `events/header_page`.
    pub fn open(top: &Tracefs, fs: &Tracefs) -> Result<RawReader, String> {
        let layout = top
            .read("events/header_page")
            .map(|t| PageLayout::parse(&t))
            .unwrap_or_default();
        let sub_kb: usize = fs
            .read("buffer_subbuf_size_kb")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(4);
        let mut cpus = Vec::new();
        for cpu in fs.cpus() {
            let p = fs.path(&format!("per_cpu/cpu{cpu}/trace_pipe_raw"));
            let f = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&p)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            cpus.push((cpu, f));
        }
        if cpus.is_empty() {
            return Err(format!("no per_cpu buffers in {}", fs.root().display()));
        }
        Ok(RawReader {
            cpus,
            page: vec![0; (sub_kb * 1024).max(4096)],
            layout,
            missed: 0,
        })
    }

    /// Reads every page available now, calling `f(cpu, ts, record)`;
    /// returns the number of records.
    pub fn drain(&mut self, mut f: impl FnMut(u32, u64, &[u8])) -> Result<usize, String> {
        let mut n = 0;
        for (cpu, file) in &mut self.cpus {
            loop {
                let got = match file.read(&mut self.page) {
                    Ok(0) => break,
                    Ok(k) => k,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(format!("reading cpu{cpu} buffer: {e}")),
                };
                let c = *cpu;
                let info = parse_page(&self.page[..got], self.layout, |ts, r| f(c, ts, r))?;
                n += info.records;
                if let Some(m) = info.missed {
                    self.missed += m.max(1);
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(type_len: u32, delta: u32) -> [u8; 4] {
        (type_len | (delta << 5)).to_ne_bytes()
    }

    /// Builds a page: header (ts, commit) then `data`.
    fn page(ts: u64, commit_flags: u64, data: &[u8]) -> Vec<u8> {
        let mut p = ts.to_ne_bytes().to_vec();
        p.extend_from_slice(&(data.len() as u64 | commit_flags).to_ne_bytes());
        p.extend_from_slice(data);
        p.resize(4096, 0);
        p
    }

    #[test]
    fn header_page_layout() {
        // This machine's events/header_page.
        let text = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
        assert_eq!(PageLayout::parse(text), PageLayout::default());
    }

    #[test]
    fn small_and_large_records_extends_stamps_and_padding() {
        let mut d = Vec::new();
        // A 8-byte record (type_len 2), delta 10.
        d.extend_from_slice(&hdr(2, 10));
        d.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        // A time extend of 1<<27 + 5.
        d.extend_from_slice(&hdr(TYPE_TIME_EXTEND, 5));
        d.extend_from_slice(&1u32.to_ne_bytes());
        // A type-0 record with a 6-byte body (length word 10), padded to 8.
        d.extend_from_slice(&hdr(0, 1));
        d.extend_from_slice(&10u32.to_ne_bytes());
        d.extend_from_slice(&[9, 9, 9, 9, 9, 9, 0, 0]);
        // A discarded event (padding with a delta): its length word counts
        // itself and the 4 bytes after it.
        d.extend_from_slice(&hdr(TYPE_PADDING, 2));
        d.extend_from_slice(&8u32.to_ne_bytes());
        d.extend_from_slice(&[0xee; 4]);
        // An absolute time stamp.
        d.extend_from_slice(&hdr(TYPE_TIME_STAMP, 7));
        d.extend_from_slice(&3u32.to_ne_bytes());
        d.extend_from_slice(&hdr(1, 0));
        d.extend_from_slice(&[4, 4, 4, 4]);
        // End-of-page padding.
        d.extend_from_slice(&hdr(TYPE_PADDING, 0));
        d.extend_from_slice(&0u32.to_ne_bytes());
        let p = page(1000, 0, &d);
        let mut got = Vec::new();
        let info = parse_page(&p, PageLayout::default(), |ts, r| {
            got.push((ts, r.to_vec()))
        })
        .unwrap();
        assert_eq!(info.records, 3);
        assert_eq!(info.missed, None);
        assert_eq!(got[0], (1010, vec![1, 2, 3, 4, 5, 6, 7, 8]));
        let t1 = 1010 + (1 << 27) + 5 + 1;
        assert_eq!(got[1], (t1, vec![9; 6]));
        assert_eq!(got[2], ((3 << 27) | 7, vec![4, 4, 4, 4]));
    }

    #[test]
    fn missed_events_flag_and_count() {
        let mut d = hdr(1, 3).to_vec();
        d.extend_from_slice(&[1, 2, 3, 4]);
        let mut p = page(50, MISSED_EVENTS | MISSED_STORED, &d);
        p[16 + 8..16 + 16].copy_from_slice(&17u64.to_ne_bytes());
        let info = parse_page(&p, PageLayout::default(), |_, _| {}).unwrap();
        assert_eq!((info.records, info.missed), (1, Some(17)));
        let p = page(50, MISSED_EVENTS, &d);
        let info = parse_page(&p, PageLayout::default(), |_, _| {}).unwrap();
        assert_eq!(info.missed, Some(0));
    }

    #[test]
    fn corrupt_lengths_are_errors_not_panics() {
        let mut d = hdr(0, 0).to_vec();
        d.extend_from_slice(&4000u32.to_ne_bytes());
        assert!(parse_page(&page(0, 0, &d), PageLayout::default(), |_, _| {}).is_err());
        let mut p = page(0, 0, &[]);
        p[8..16].copy_from_slice(&5000u64.to_ne_bytes());
        assert!(parse_page(&p, PageLayout::default(), |_, _| {}).is_err());
    }
}
