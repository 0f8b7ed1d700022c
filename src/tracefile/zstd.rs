//! zstd for trace files (ruzstd, pure Rust): [`ZstdWriter`] writes
//! concatenated independent frames, [`Frames`] decodes such a stream as it
//! is read (memory: one frame's window, whatever the file's size), and
//! [`decompress`] decodes a whole buffer.
//!
//! A trace file may hold any number of frames (and skippable frames), as
//! `rtrace record --zstd` writes it (a frame per [`ZSTD_CHUNK`] of text or
//! per flush of the paced writer) and as `zstd` / `cat a.zst b.zst`
//! produce. Every frame decodes on its own, so a file cut short (the
//! recorder killed by SIGKILL) decodes up to its last complete frame:
//! [`Frames`] then fails with [`io::ErrorKind::UnexpectedEof`], which the
//! reader takes as "the recording was cut" rather than as damage.

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use ruzstd::encoding::{compress, CompressionLevel};
use std::io::{self, BufRead, Read, Write};

/// zstd's frame magic.
pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Uncompressed bytes per zstd frame written by [`ZstdWriter`] at most:
/// memory stays bounded by about this much, and a file cut short loses at
/// most its last frame.
pub const ZSTD_CHUNK: usize = 1 << 20;

/// Whether `bytes` start like a zstd frame.
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&ZSTD_MAGIC)
}

/// Decompresses a zstd stream held in memory: every frame in `input`, one
/// after the other (skippable frames are skipped). Truncated or corrupt
/// input is an error.
pub fn decompress(input: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    Frames::new(input).read_to_end(&mut out)?;
    Ok(out)
}

/// A source that remembers whether a read found its end: a decoding error
/// after that is a cut file, not a damaged one.
struct EofWatch<R> {
    inner: R,
    hit_eof: bool,
}

impl<R: BufRead> Read for EofWatch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.hit_eof = true;
        }
        Ok(n)
    }
}

/// Decodes concatenated zstd frames from `R` as they are read.
pub struct Frames<R> {
    src: EofWatch<R>,
    dec: FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> Frames<R> {
    pub fn new(src: R) -> Frames<R> {
        Frames {
            src: EofWatch {
                inner: src,
                hit_eof: false,
            },
            dec: FrameDecoder::new(),
            in_frame: false,
        }
    }

    /// A decoding error: [`io::ErrorKind::UnexpectedEof`] when the input
    /// ended inside a frame, [`io::ErrorKind::InvalidData`] otherwise.
    fn fail(&self, e: FrameDecoderError) -> io::Error {
        if self.src.hit_eof {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("zstd: truncated frame ({e})"),
            )
        } else {
            io::Error::new(io::ErrorKind::InvalidData, format!("zstd: {e}"))
        }
    }
}

impl<R: BufRead> Read for Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                if self.dec.can_collect() > 0 {
                    return self.dec.read(buf);
                }
                if self.dec.is_finished() {
                    self.in_frame = false;
                    continue;
                }
                if let Err(e) = self
                    .dec
                    .decode_blocks(&mut self.src, BlockDecodingStrategy::UptoBlocks(1))
                {
                    return Err(self.fail(e));
                }
                continue;
            }
            if self.src.inner.fill_buf()?.is_empty() {
                return Ok(0);
            }
            match self.dec.reset(&mut self.src) {
                Ok(()) => self.in_frame = true,
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = io::copy(
                        &mut (&mut self.src).take(u64::from(length)),
                        &mut io::sink(),
                    )?;
                    if skipped < u64::from(length) {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "zstd: truncated skippable frame",
                        ));
                    }
                }
                Err(e) => return Err(self.fail(e)),
            }
        }
    }
}

/// A `Write` that compresses into `inner` as concatenated zstd frames, one
/// per `chunk` bytes of input at most (a valid zstd stream: `zstd -d` reads
/// it whole). [`end_frame`] ends the current frame early (the recorder does
/// at every paced flush, so a killed recorder leaves decodable frames);
/// `flush` only flushes `inner`.
///
/// [`end_frame`]: ZstdWriter::end_frame
pub struct ZstdWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
    frame: Vec<u8>,
    chunk: usize,
}

impl<W: Write> ZstdWriter<W> {
    /// A writer with frames of [`ZSTD_CHUNK`] bytes.
    pub fn new(inner: W) -> ZstdWriter<W> {
        ZstdWriter::with_chunk(inner, ZSTD_CHUNK)
    }

    /// A writer with frames of `chunk` bytes of input.
    pub fn with_chunk(inner: W, chunk: usize) -> ZstdWriter<W> {
        ZstdWriter {
            inner,
            buf: Vec::with_capacity(chunk.min(ZSTD_CHUNK)),
            frame: Vec::new(),
            chunk: chunk.max(1),
        }
    }

    /// Compresses what is buffered into one frame and writes it.
    pub fn end_frame(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.frame.clear();
        // Into memory: ruzstd panics on a failing drain.
        compress(&self.buf[..], &mut self.frame, CompressionLevel::Fastest);
        self.buf.clear();
        self.inner.write_all(&self.frame)
    }

    /// Writes the last frame and flushes `inner`.
    pub fn finish(&mut self) -> io::Result<()> {
        self.end_frame()?;
        self.inner.flush()
    }

    /// The writer the frames go to.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }
}

impl<W: Write> Write for ZstdWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = data.len().min(self.chunk - self.buf.len());
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() >= self.chunk {
            self.end_frame()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> String {
        (0..n)
            .map(|i| format!("{{\"type\":\"syscall\",\"pid\":{i}}}\n"))
            .collect()
    }

    fn frames_of(text: &str, chunk: usize) -> Vec<u8> {
        let mut z = ZstdWriter::with_chunk(Vec::new(), chunk);
        for piece in text.as_bytes().chunks(1000) {
            z.write_all(piece).unwrap();
        }
        z.finish().unwrap();
        z.inner
    }

    #[test]
    fn frames_round_trip_and_skippable_frames() {
        let text = text(5000);
        let bytes = frames_of(&text, 4096);
        assert!(is_zstd(&bytes));
        let frames = bytes.windows(4).filter(|w| *w == ZSTD_MAGIC).count();
        assert!(frames >= text.len() / 4096, "{frames}");
        assert!(bytes.len() < text.len() / 2);
        assert_eq!(decompress(&bytes).unwrap(), text.as_bytes());
        // A skippable frame between frames is skipped.
        let mut with_skip = bytes.clone();
        with_skip.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        with_skip.extend_from_slice(&bytes);
        assert_eq!(decompress(&with_skip).unwrap().len(), 2 * text.len());
        // Read through a small buffer: the same text.
        let mut out = String::new();
        Frames::new(io::BufReader::with_capacity(7, &bytes[..]))
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, text);
    }

    #[test]
    fn a_cut_stream_gives_its_complete_frames_then_unexpected_eof() {
        let text = text(5000);
        let bytes = frames_of(&text, 4096);
        // Cut in the middle of the last frame: every earlier frame decodes.
        let last = bytes.windows(4).rposition(|w| w == ZSTD_MAGIC).unwrap();
        let cut = &bytes[..last + (bytes.len() - last) / 2];
        let mut out = Vec::new();
        let mut f = Frames::new(cut);
        let mut buf = [0u8; 999];
        let err = loop {
            match f.read(&mut buf) {
                Ok(0) => panic!("a cut stream must not end cleanly"),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
        assert!(out.len() >= text.len() - 4096, "{}", out.len());
        assert!(text.as_bytes().starts_with(&out));
        // Cut inside the frame magic too.
        let e = decompress(&bytes[..last + 2]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
        // Garbage after the frames is damage, not a cut.
        let mut junk = bytes.clone();
        junk.extend_from_slice(b"junk");
        assert_eq!(
            decompress(&junk).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }
}
