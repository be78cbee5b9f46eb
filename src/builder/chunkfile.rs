//! The chunk file's layout (`formats/build.md` §4): a header, the chunk's working entries as lz4
//! blocks of [`FRAME_ENTRIES`] entries each preceded by its length, and a crc32 of the header
//! and the entries as they are in memory (little-endian words), so a damaged block is found
//! whether or not it still decompresses.
//!
//! Why compressed: a streamed ply rewrites every chunk of the side it updates, and working
//! entries repeat (illegal runs, the same few values): lz4 makes them about ten times smaller
//! at a few GB/s a core, so a large table's plies write a tenth of the bytes and its `--tmp`
//! holds a tenth of them. Why lz4 and not zstd: per core it compresses about twice as fast
//! (`docs/performance.md`, "Beyond RAM"), and compressing is what every rewritten chunk pays.

use std::cell::RefCell;
use std::io::{Read, Write};

/// Entries compressed as one lz4 block: 256 KiB, so a worker's scratch stays small beside the
/// chunk it holds, and working entries repeat within far less.
pub const FRAME_ENTRIES: usize = 1 << 16;
/// Bytes of the header (magic, store version, side, chunk, entries, generation).
pub const HEADER: usize = 32;
/// The chunk file's magic.
pub const MAGIC: [u8; 8] = *b"XQTBCHK3";
/// A frame's bytes uncompressed.
const FRAME_BYTES: usize = 4 * FRAME_ENTRIES;

/// The most a frame's compressed block may take, as lz4 bounds it.
fn max_block() -> usize {
    lz4_flex::block::get_maximum_output_size(FRAME_BYTES)
}

/// Memory a thread that writes or reads chunk files holds for it besides the chunk: one
/// compressed frame and its length (the memory plan counts it per worker).
pub fn thread_bytes() -> u64 {
    (4 + max_block()) as u64
}

thread_local! {
    /// The calling thread's compressed frame, its length first, made once: a frame goes to
    /// and from the file in one call.
    static FRAME: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with the calling thread's frame buffer, [`thread_bytes`] long.
fn with_frame<T>(f: impl FnOnce(&mut [u8]) -> T) -> T {
    FRAME.with_borrow_mut(|b| {
        b.resize(thread_bytes() as usize, 0);
        f(b)
    })
}

/// Why a chunk file's bytes were refused.
#[derive(Debug)]
pub enum Fault {
    /// The file ends early, runs on, or names a block longer than any lz4 block of a frame.
    Length,
    /// A block does not decompress to its frame, or the entries do not match the crc32.
    Checksum,
    /// The header is not the one expected (another chunk, side, generation, length or
    /// version).
    Header,
    /// Reading failed.
    Io(std::io::Error),
}

/// Writes a chunk file to `out`: `header`, then `words` (the entries, little-endian) in frames,
/// then the crc32 of `header` and `words`. Returns the bytes written and the crc32.
pub fn write(
    out: &mut impl Write,
    header: &[u8; HEADER],
    words: &[u8],
) -> std::io::Result<(u64, u32)> {
    let crc = crc_of(header, words);
    out.write_all(header)?;
    let mut size = (HEADER + 4) as u64;
    for piece in words.chunks(FRAME_BYTES) {
        with_frame(|frame| -> std::io::Result<()> {
            let n = lz4_flex::block::compress_into(piece, &mut frame[4..])
                .map_err(|e| std::io::Error::other(format!("lz4: {e}")))?;
            frame[..4].copy_from_slice(&(n as u32).to_le_bytes());
            out.write_all(&frame[..4 + n])?;
            size += 4 + n as u64;
            Ok(())
        })?;
    }
    out.write_all(&crc.to_le_bytes())?;
    Ok((size, crc))
}

/// The crc32 a chunk file ends with: of its header and its entries uncompressed.
fn crc_of(header: &[u8; HEADER], words: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(header);
    h.update(words);
    h.finalize()
}

/// Reads a chunk file of `size` bytes from `r` whose header should be `expect`: fills `words`
/// (its entries, little-endian) and returns the crc32 the file ends with, after checking that
/// it is that of the header and the entries.
pub fn read(
    r: &mut impl Read,
    size: u64,
    expect: &[u8; HEADER],
    words: &mut [u8],
) -> Result<u32, Fault> {
    let short = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Fault::Length,
        _ => Fault::Io(e),
    };
    let mut header = [0u8; HEADER];
    r.read_exact(&mut header).map_err(short)?;
    if header != *expect {
        return Err(Fault::Header);
    }
    let mut at = HEADER as u64;
    for piece in words.chunks_mut(FRAME_BYTES) {
        let mut n = [0u8; 4];
        r.read_exact(&mut n).map_err(short)?;
        let n = u32::from_le_bytes(n) as usize;
        at += 4 + n as u64;
        if n > max_block() || at + 4 > size {
            return Err(Fault::Length);
        }
        with_frame(|frame| -> Result<(), Fault> {
            r.read_exact(&mut frame[..n]).map_err(short)?;
            match lz4_flex::block::decompress_into(&frame[..n], piece) {
                Ok(k) if k == piece.len() => Ok(()),
                _ => Err(Fault::Checksum),
            }
        })?;
    }
    if at + 4 != size {
        return Err(Fault::Length);
    }
    let mut trailer = [0u8; 4];
    r.read_exact(&mut trailer).map_err(short)?;
    let crc = u32::from_le_bytes(trailer);
    if crc_of(&header, words) != crc {
        return Err(Fault::Checksum);
    }
    Ok(crc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header and words of a chunk file of `n` entries, and their crc32.
    fn sample(n: usize) -> ([u8; HEADER], Vec<u8>, u32) {
        let mut header = [7u8; HEADER];
        header[..8].copy_from_slice(&MAGIC);
        let words: Vec<u8> = (0..n as u32)
            .flat_map(|k| (k / 3 % 5).wrapping_mul(0x9E37_79B9).to_le_bytes())
            .collect();
        let mut h = crc32fast::Hasher::new();
        h.update(&header);
        h.update(&words);
        (header, words, h.finalize())
    }

    #[test]
    fn frames_are_lz4_blocks_after_their_lengths() {
        // Two frames: one full, one of 1000 entries.
        let (header, words, crc) = sample(FRAME_ENTRIES + 1000);
        let mut file = Vec::new();
        let (size, written_crc) = write(&mut file, &header, &words).unwrap();
        assert_eq!(written_crc, crc);
        assert_eq!(size, file.len() as u64);
        assert_eq!(file[..HEADER], header);
        // Each block decompresses on its own, with lz4's own decoder, to its frame.
        let mut at = HEADER;
        let mut back = Vec::new();
        for _ in 0..2 {
            let n = u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
            let frame_len = (words.len() - back.len()).min(4 * FRAME_ENTRIES);
            back.extend(lz4_flex::block::decompress(&file[at + 4..at + 4 + n], frame_len).unwrap());
            at += 4 + n;
        }
        assert_eq!(back, words);
        assert_eq!(file[at..], crc.to_le_bytes());
        assert!(file.len() < words.len() / 4, "repeating words compress");
        let mut read_back = vec![0u8; words.len()];
        let got = read(&mut &file[..], size, &header, &mut read_back).unwrap();
        assert_eq!(got, crc);
        assert_eq!(read_back, words);
    }

    #[test]
    fn damage_is_refused() {
        let (header, words, _) = sample(3000);
        let mut file = Vec::new();
        write(&mut file, &header, &words).unwrap();
        let try_read = |bytes: &[u8], len: usize| {
            let mut out = vec![0u8; len];
            read(&mut &bytes[..], bytes.len() as u64, &header, &mut out).map(|_| ())
        };
        // Every single flipped byte is found: in the header as another header, in the trailer
        // by the crc32, in a block by lz4 or by the crc32, in a length by either or the
        // file's length.
        for k in 0..file.len() {
            let mut bad = file.clone();
            bad[k] ^= 0x10;
            assert!(try_read(&bad, words.len()).is_err(), "byte {k} flipped");
        }
        assert!(matches!(
            try_read(&file[..file.len() - 1], words.len()),
            Err(Fault::Length)
        ));
        let mut longer = file.clone();
        longer.push(0);
        assert!(matches!(try_read(&longer, words.len()), Err(Fault::Length)));
        assert!(try_read(&file, words.len()).is_ok());
        let mut other = header;
        other[20] ^= 1;
        let mut out = vec![0u8; words.len()];
        assert!(matches!(
            read(&mut &file[..], file.len() as u64, &other, &mut out),
            Err(Fault::Header)
        ));
    }
}
