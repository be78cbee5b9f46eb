//! A side's unresolved filter parked in the store (`formats/build.md` §7.4): when the budget
//! holds one side's filter but not both (the record table KCPAABBKAABB: 615 MB a side at
//! `--memory 1G`), the side no pass updates is compressed to a file and read back when a pass
//! turns to it. A pass from one side updates only the other side's entries, so one side's
//! filter is all a pass needs.
//!
//! The file: a 32-byte header (magic, side, chunks, words, the park's sequence number), then per
//! chunk the filter's words of its entries (little-endian u64) as one lz4 block after its u32
//! length, then the crc32 of the header and every word uncompressed.

use crate::piece::Color;
use crate::retro::Bitmap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The parked filter's magic.
pub const MAGIC: [u8; 8] = *b"XQTBPRK1";
/// Bytes of the header.
const HEADER: usize = 32;

/// What a parked filter's header says: which side, how it is cut, and which park wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The side whose filter it is.
    pub side: Color,
    /// Chunks (one block each).
    pub chunks: u32,
    /// Words of the whole filter.
    pub words: u64,
    /// Counts the parks of a build, so a file of an earlier park is never taken for this one.
    pub sequence: u64,
}

impl Tag {
    fn header(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[..8].copy_from_slice(&MAGIC);
        h[8] = self.side.index() as u8;
        h[12..16].copy_from_slice(&self.chunks.to_le_bytes());
        h[16..24].copy_from_slice(&self.words.to_le_bytes());
        h[24..32].copy_from_slice(&self.sequence.to_le_bytes());
        h
    }
}

/// A parked filter's file fails a check.
fn damaged(path: &Path, why: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("parked unresolved filter {}: {why}", path.display()),
    )
}

/// Writes a parked filter a chunk at a time ([`Writer::chunk`]), in chunk order.
pub struct Writer {
    path: PathBuf,
    out: BufWriter<File>,
    crc: crc32fast::Hasher,
    written: u64,
    left: u32,
    bytes: Vec<u8>,
    block: Vec<u8>,
}

impl Writer {
    /// Starts the file at `path` (replacing any) for the filter `tag` describes.
    pub fn create(path: &Path, tag: Tag) -> std::io::Result<Writer> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        let header = tag.header();
        out.write_all(&header)?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&header);
        Ok(Writer {
            path: path.to_owned(),
            out,
            crc,
            written: HEADER as u64,
            left: tag.chunks,
            bytes: Vec::new(),
            block: Vec::new(),
        })
    }

    /// Appends the next chunk's words.
    pub fn chunk(&mut self, words: impl Iterator<Item = u64>) -> std::io::Result<()> {
        if self.left == 0 {
            return Err(damaged(&self.path, "more chunks than its header says"));
        }
        self.left -= 1;
        self.bytes.clear();
        self.bytes.extend(words.flat_map(u64::to_le_bytes));
        self.crc.update(&self.bytes);
        let bound = lz4_flex::block::get_maximum_output_size(self.bytes.len());
        self.block.resize(bound, 0);
        let n = lz4_flex::block::compress_into(&self.bytes, &mut self.block)
            .map_err(|e| std::io::Error::other(format!("lz4: {e}")))?;
        self.out.write_all(&(n as u32).to_le_bytes())?;
        self.written += 4 + n as u64;
        self.out.write_all(&self.block[..n])
    }

    /// Ends the file with its crc32 (every chunk written); returns its length.
    pub fn finish(mut self) -> std::io::Result<u64> {
        if self.left != 0 {
            return Err(damaged(&self.path, "ended before its last chunk"));
        }
        let crc = self.crc.clone().finalize();
        self.out.write_all(&crc.to_le_bytes())?;
        self.out.flush()?;
        Ok(self.written + 4)
    }
}

/// Parks `map` to `path` as `tag` says, with chunk `c`'s words `ranges(c)`; returns the bytes
/// written.
pub fn park(
    path: &Path,
    tag: Tag,
    map: &Bitmap,
    ranges: impl Fn(usize) -> Range<usize>,
) -> std::io::Result<u64> {
    let mut w = Writer::create(path, tag)?;
    for c in 0..tag.chunks as usize {
        w.chunk(ranges(c).map(|i| map.word(i)))?;
    }
    w.finish()
}

/// Reads the parked filter at `path` into `map` (every word), checking that its header is
/// `tag`'s and that its words match the crc32 it ends with; returns the bytes read.
pub fn unpark(
    path: &Path,
    tag: Tag,
    map: &Bitmap,
    ranges: impl Fn(usize) -> Range<usize>,
) -> std::io::Result<u64> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 20, file);
    let short = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => damaged(path, "ends early"),
        _ => e,
    };
    let mut header = [0u8; HEADER];
    r.read_exact(&mut header).map_err(short)?;
    if header != tag.header() {
        return Err(damaged(path, "is of another filter or park"));
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&header);
    let (mut at, mut block, mut bytes) = (HEADER as u64, Vec::new(), Vec::new());
    for c in 0..tag.chunks as usize {
        let range = ranges(c);
        let mut n = [0u8; 4];
        r.read_exact(&mut n).map_err(short)?;
        let n = u32::from_le_bytes(n) as usize;
        bytes.resize(8 * range.len(), 0);
        at += 4 + n as u64;
        if n > lz4_flex::block::get_maximum_output_size(bytes.len()) || at + 4 > size {
            return Err(damaged(
                path,
                "names a block longer than the file or any chunk's",
            ));
        }
        block.resize(n, 0);
        r.read_exact(&mut block).map_err(short)?;
        match lz4_flex::block::decompress_into(&block, &mut bytes) {
            Ok(k) if k == bytes.len() => {}
            _ => return Err(damaged(path, "a block does not decompress to its chunk")),
        }
        crc.update(&bytes);
        for (i, w) in range.zip(bytes.chunks_exact(8)) {
            map.store_word(i, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
    }
    let mut tail = [0u8; 4];
    r.read_exact(&mut tail).map_err(short)?;
    if at + 4 != size {
        return Err(damaged(path, "runs on past its checksum"));
    }
    if u32::from_le_bytes(tail) != crc.finalize() {
        return Err(damaged(path, "its words do not match its checksum"));
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three chunks of 4, 4 and 2 words.
    fn ranges(c: usize) -> Range<usize> {
        4 * c..(4 * c + 4).min(10)
    }

    fn tag() -> Tag {
        Tag {
            side: Color::Black,
            chunks: 3,
            words: 10,
            sequence: 7,
        }
    }

    fn filled() -> Bitmap {
        let map = Bitmap::new(640);
        for i in 0..10 {
            map.store_word(i, (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        map
    }

    #[test]
    fn a_parked_filter_comes_back_word_for_word() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let map = filled();
        let written = park(&path, tag(), &map, ranges).unwrap();
        assert_eq!(written, std::fs::metadata(&path).unwrap().len());
        let back = Bitmap::new(640);
        assert_eq!(unpark(&path, tag(), &back, ranges).unwrap(), written);
        assert!((0..10).all(|i| back.word(i) == map.word(i)));
    }

    #[test]
    fn every_damaged_byte_and_another_park_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        park(&path, tag(), &filled(), ranges).unwrap();
        let good = std::fs::read(&path).unwrap();
        let later = Tag {
            sequence: 8,
            ..tag()
        };
        let err = unpark(&path, later, &Bitmap::new(640), ranges).unwrap_err();
        assert!(err.to_string().contains("another filter or park"), "{err}");
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            std::fs::write(&path, &bad).unwrap();
            let r = unpark(&path, tag(), &Bitmap::new(640), ranges);
            assert!(r.is_err(), "byte {at} flipped, yet read");
        }
        for len in [good.len() - 1, good.len() + 1] {
            let mut bad = good.clone();
            bad.resize(len, 0);
            std::fs::write(&path, &bad).unwrap();
            assert!(unpark(&path, tag(), &Bitmap::new(640), ranges).is_err());
        }
    }
}
