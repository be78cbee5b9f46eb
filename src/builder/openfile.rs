//! The open-words file's layout (`formats/build.md` §4.1): the words of one chunk's unresolved
//! entries, kept apart from its chunk file between checkpoints.
//!
//! Why: a streamed decrement ply changes a few counts in every chunk of the side it updates, and
//! rewriting each whole chunk for them (lz4 both ways, most of it resolved entries that never
//! change again) was most of a large table's ply time. The entries such a ply can change are the
//! unresolved ones; this file holds only those, uncompressed: a header, the chunk's bitmap of
//! them, their words in index order (one byte each when every one is a bare children count, as in
//! every DTC build, else four), and a crc32 of all before it. The chunk file stays as the last
//! checkpoint or rewrite left it; the entries resolved since go to the chunk's resolution log,
//! whose length at the time of writing the header records (later entries are resolutions of
//! entries this file still holds as unresolved).

use super::chunkfile::Fault;
use super::entry::{ILLEGAL, UNCOUNTED};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The file's magic.
pub const MAGIC: [u8; 8] = *b"XQTBOPN1";
/// Bytes of the header.
pub const HEADER: usize = 48;
/// Bytes the reader and writer move at a time.
const PIECE: usize = 1 << 14;

/// Which chunk a file belongs to: the header's fields a reader checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The store version.
    pub version: u32,
    /// The side (0 Red, 1 Black).
    pub side: u32,
    /// The chunk's number.
    pub chunk: u32,
    /// The chunk's entries.
    pub len: u32,
    /// The generation of the chunk file the open words overlay.
    pub gen: u64,
}

/// Can the word of an open entry be stored as its low byte (an unresolved entry with no
/// pending event: bits 8–30 clear)?
#[inline]
fn is_bare_count(w: u32) -> bool {
    w & !0xFF == UNCOUNTED
}

/// The positions of the set bits of `bits`, in order.
fn positions(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(k, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                64 * k + b
            })
        })
    })
}

/// Bytes written through a fixed buffer, hashed on the way.
struct Sink<'w, W: Write> {
    out: &'w mut W,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
    size: u64,
}

impl<W: Write> Sink<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if self.buf.len() + bytes.len() > PIECE {
            self.flush()?;
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.crc.update(&self.buf);
        self.out.write_all(&self.buf)?;
        self.size += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

/// Writes the open-words file of the entries of `entries` whose bits are set in `bits` (which
/// must all be unresolved), with the resolution log's length `log_bytes`. Returns the bytes
/// written.
pub fn write(
    out: &mut impl Write,
    tag: &Tag,
    log_bytes: u64,
    bits: &[u64],
    entries: &[AtomicU32],
) -> std::io::Result<u64> {
    debug_assert_eq!(bits.len(), entries.len().div_ceil(64));
    let count: u32 = bits.iter().map(|w| w.count_ones()).sum();
    let word = |p: usize| entries[p].load(Relaxed);
    let narrow = positions(bits).all(|p| is_bare_count(word(p)));
    let mut sink = Sink {
        out,
        crc: crc32fast::Hasher::new(),
        buf: Vec::with_capacity(PIECE),
        size: 0,
    };
    sink.put(&header(tag, log_bytes, if narrow { 1 } else { 4 }, count))?;
    for w in bits {
        sink.put(&w.to_le_bytes())?;
    }
    for p in positions(bits) {
        match narrow {
            true => sink.put(&[word(p) as u8])?,
            false => sink.put(&word(p).to_le_bytes())?,
        }
    }
    sink.flush()?;
    let crc = sink.crc.clone().finalize();
    sink.out.write_all(&crc.to_le_bytes())?;
    Ok(sink.size + 4)
}

/// The header's bytes.
fn header(tag: &Tag, log_bytes: u64, width: u32, count: u32) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&tag.version.to_le_bytes());
    h[12..16].copy_from_slice(&tag.side.to_le_bytes());
    h[16..20].copy_from_slice(&tag.chunk.to_le_bytes());
    h[20..24].copy_from_slice(&tag.len.to_le_bytes());
    h[24..32].copy_from_slice(&tag.gen.to_le_bytes());
    h[32..40].copy_from_slice(&log_bytes.to_le_bytes());
    h[40..44].copy_from_slice(&width.to_le_bytes());
    h[44..48].copy_from_slice(&count.to_le_bytes());
    h
}

/// Reads an open-words file of `size` bytes from `r` that should belong to `tag`: fills `bits`
/// with its bitmap and stores its words at their entries of `entries` (the chunk's length),
/// every other entry left as it is or, with `fill`, made [`ILLEGAL`]. Returns the resolution
/// log's length it records.
pub fn read(
    r: &mut impl Read,
    size: u64,
    tag: &Tag,
    bits: &mut Vec<u64>,
    entries: &[AtomicU32],
    fill: bool,
) -> Result<u64, Fault> {
    let short = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Fault::Length,
        _ => Fault::Io(e),
    };
    let mut crc = crc32fast::Hasher::new();
    let mut h = [0u8; HEADER];
    r.read_exact(&mut h).map_err(short)?;
    crc.update(&h);
    let u32_at = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().unwrap());
    let log_bytes = u64::from_le_bytes(h[32..40].try_into().unwrap());
    let (width, count) = (u32_at(40), u32_at(44));
    if header(tag, log_bytes, width, count) != h || !matches!(width, 1 | 4) {
        return Err(Fault::Header);
    }
    let words = entries.len().div_ceil(64);
    let expect = (HEADER + 8 * words + 4) as u64 + count as u64 * width as u64;
    if entries.len() != tag.len as usize || size != expect {
        return Err(Fault::Length);
    }
    let mut piece = vec![0u8; PIECE];
    bits.clear();
    let mut left = 8 * words;
    while left > 0 {
        let n = left.min(PIECE);
        r.read_exact(&mut piece[..n]).map_err(short)?;
        crc.update(&piece[..n]);
        let whole = piece[..n].chunks_exact(8);
        bits.extend(whole.map(|b| u64::from_le_bytes(b.try_into().unwrap())));
        left -= n;
    }
    let tail = entries.len() % 64;
    let stray = tail != 0 && bits[words - 1] >> tail != 0;
    if stray || bits.iter().map(|w| w.count_ones()).sum::<u32>() != count {
        return Err(Fault::Checksum);
    }
    if fill {
        entries.iter().for_each(|e| e.store(ILLEGAL, Relaxed));
    }
    let mut at = positions(bits);
    let width = width as usize;
    let mut left = count as usize * width;
    while left > 0 {
        let n = left.min(PIECE);
        r.read_exact(&mut piece[..n]).map_err(short)?;
        crc.update(&piece[..n]);
        for w in piece[..n].chunks_exact(width) {
            let word = match width {
                1 => UNCOUNTED | w[0] as u32,
                _ => u32::from_le_bytes(w.try_into().unwrap()),
            };
            entries[at.next().expect("as many words as bits")].store(word, Relaxed);
        }
        left -= n;
    }
    let mut trailer = [0u8; 4];
    r.read_exact(&mut trailer).map_err(short)?;
    if crc.finalize() != u32::from_le_bytes(trailer) {
        return Err(Fault::Checksum);
    }
    Ok(log_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::entry::{pending, resolved, unresolved};

    const TAG: Tag = Tag {
        version: 4,
        side: 1,
        chunk: 7,
        len: 1000,
        gen: 3,
    };

    /// A chunk of `TAG.len` entries, every third unresolved (count `k % 200`, or `wide` at 5),
    /// the rest resolved; and the bitmap of the unresolved ones.
    fn sample(wide: Option<u32>) -> (Vec<AtomicU32>, Vec<u64>) {
        let mut bits = vec![0u64; (TAG.len as usize).div_ceil(64)];
        let entries = (0..TAG.len as usize)
            .map(|k| {
                if k % 3 != 0 {
                    return AtomicU32::new(resolved(0, k as u16));
                }
                bits[k / 64] |= 1 << (k % 64);
                let w = match (k, wide) {
                    (5, Some(w)) | (6, Some(w)) => w,
                    _ => unresolved((k % 200) as u8),
                };
                AtomicU32::new(w)
            })
            .collect();
        (entries, bits)
    }

    fn round_trip(entries: &[AtomicU32], bits: &[u64], width: u64) {
        let mut file = Vec::new();
        let size = write(&mut file, &TAG, 4096, bits, entries).unwrap();
        assert_eq!(size, file.len() as u64);
        let count = bits.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        assert_eq!(size, 48 + 8 * 16 + width * count + 4, "width {width}");
        let back: Vec<AtomicU32> = (0..TAG.len).map(|_| AtomicU32::new(0)).collect();
        let mut got = Vec::new();
        let log = read(&mut &file[..], size, &TAG, &mut got, &back, true).unwrap();
        assert_eq!((log, &got[..]), (4096, bits));
        for (k, (a, b)) in entries.iter().zip(&back).enumerate() {
            let open = bits[k / 64] >> (k % 64) & 1 == 1;
            let want = if open { a.load(Relaxed) } else { ILLEGAL };
            assert_eq!(b.load(Relaxed), want, "entry {k}");
        }
    }

    #[test]
    fn bare_counts_take_a_byte_and_other_words_four() {
        let (entries, bits) = sample(None);
        round_trip(&entries, &bits, 1);
        // A DTM entry's pending event does not fit a byte: every word takes four.
        let (entries, bits) = sample(Some(pending(3, 2, 9)));
        round_trip(&entries, &bits, 4);
    }

    #[test]
    fn damage_and_other_chunks_are_refused() {
        let (entries, bits) = sample(None);
        let mut file = Vec::new();
        write(&mut file, &TAG, 4096, &bits, &entries).unwrap();
        let back: Vec<AtomicU32> = (0..TAG.len).map(|_| AtomicU32::new(0)).collect();
        let try_read = |bytes: &[u8], tag: &Tag| {
            let mut got = Vec::new();
            read(
                &mut &bytes[..],
                bytes.len() as u64,
                tag,
                &mut got,
                &back,
                true,
            )
            .map(|_| ())
        };
        assert!(try_read(&file, &TAG).is_ok());
        for k in 0..file.len() {
            let mut bad = file.clone();
            bad[k] ^= 0x04;
            assert!(try_read(&bad, &TAG).is_err(), "byte {k} flipped");
        }
        assert!(try_read(&file[..file.len() - 1], &TAG).is_err());
        let other = Tag { gen: 4, ..TAG };
        assert!(matches!(try_read(&file, &other), Err(Fault::Header)));
    }
}
