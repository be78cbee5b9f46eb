//! How one side's entries split into chunks: `2^shift` consecutive indices each (the last one
//! shorter), so the chunk and local index of an entry are a shift and a mask.

/// Smallest chunk: 16,384 entries, so chunks hand whole words to the bitmaps and cover whole
/// resident update buckets.
pub const MIN_SHIFT: u32 = 14;

/// The chunk layout of a table (the same for both sides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    entries: u64,
    shift: u32,
}

impl Layout {
    /// Chunks of `2^shift` entries (at least [`MIN_SHIFT`], at most what covers `entries`).
    pub fn new(entries: u64, shift: u32) -> Layout {
        let cover = entries.max(1).next_power_of_two().trailing_zeros();
        Layout {
            entries,
            shift: shift.min(cover).max(MIN_SHIFT),
        }
    }

    /// The layout whose chunks hold at most `chunk_len` entries (rounded down to a power of two).
    pub fn with_len(entries: u64, chunk_len: u64) -> Layout {
        Layout::new(entries, chunk_len.max(1).ilog2())
    }

    /// Entries per side: the indices `0..entries`.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The chunk size as a power of two: chunks hold `2^shift` entries.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// Entries of a full chunk.
    pub fn chunk_len(&self) -> usize {
        1 << self.shift
    }

    /// The number of chunks per side.
    pub fn chunks(&self) -> usize {
        self.entries.div_ceil(1 << self.shift) as usize
    }

    /// The chunk holding entry `index`.
    #[inline]
    pub fn chunk(&self, index: u64) -> usize {
        (index >> self.shift) as usize
    }

    /// The position of entry `index` inside its chunk.
    #[inline]
    pub fn local(&self, index: u64) -> usize {
        (index & ((1 << self.shift) - 1)) as usize
    }

    /// First index of chunk `c`.
    #[inline]
    pub fn base(&self, c: usize) -> u64 {
        (c as u64) << self.shift
    }

    /// Entries of chunk `c`.
    pub fn len(&self, c: usize) -> usize {
        (self.entries - self.base(c)).min(1 << self.shift) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_index_once() {
        for (entries, shift) in [
            (1u64, 20),
            (16_384, 14),
            (16_385, 14),
            (100_000, 15),
            (5, 3),
        ] {
            let l = Layout::new(entries, shift);
            assert!(l.shift() >= MIN_SHIFT);
            let total: u64 = (0..l.chunks()).map(|c| l.len(c) as u64).sum();
            assert_eq!(total, entries);
            for i in [0, entries / 2, entries - 1] {
                let c = l.chunk(i);
                assert_eq!(l.base(c) + l.local(i) as u64, i);
                assert!(l.local(i) < l.len(c));
            }
        }
    }

    #[test]
    fn chunk_len_is_capped_by_the_table() {
        assert_eq!(Layout::new(100_000, 30).chunk_len(), 1 << 17);
        assert_eq!(Layout::with_len(1 << 30, 3 << 20).chunk_len(), 1 << 21);
        assert_eq!(Layout::new(10, 20).chunks(), 1);
    }
}
