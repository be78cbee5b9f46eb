//! Bitmaps: one bit per index entry of one side, shared between threads, optionally with a
//! summary of the groups of words that may hold set bits. The builder's filters and frontiers,
//! the rule passes' candidates and patterns, and `verify`'s sets of entries are all bitmaps.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One bit per entry of one side, shared between threads.
pub struct Bitmap {
    words: Vec<AtomicU64>,
    /// Optionally, one bit per group of [`GROUP_WORDS`] words that may hold set bits (kept by
    /// every method that sets bits, never cleared by those that clear single bits): whole-map
    /// operations then visit only those groups. The frontiers keep one: later orders run
    /// hundreds of plies over a few thousand entries each, and scanning every word per ply
    /// was a second of KRCKR's build.
    groups: Option<Vec<AtomicU64>>,
}

/// A bitmap's set bits packed: its nonzero words and where they are, 12 bytes a word. A set
/// kept from one phase to a later one then costs its members, not the pages they are spread
/// over: a maximum pattern has a member in most pages of its bitmaps but in few of their
/// words, and the kept ones outlive the phase that lends them memory.
pub struct Packed {
    bits: u64,
    at: Vec<u32>,
    words: Vec<u64>,
}

impl Packed {
    /// The bitmap again, summarised (only its members' pages are touched).
    pub fn unpack(&self) -> Bitmap {
        let map = Bitmap::summarised(self.bits);
        for (&w, &bits) in self.at.iter().zip(&self.words) {
            map.store_word(w as usize, bits);
        }
        map
    }
}

/// Words per group of a bitmap's summary (4096 bits: a pass framework window).
const GROUP_WORDS: usize = 64;

/// Where word `w`'s group is noted in a summary: the summary word and the bit in it.
#[inline]
fn group_bit(w: usize) -> (usize, u64) {
    (w / GROUP_WORDS / 64, 1 << (w / GROUP_WORDS % 64))
}

/// Zeroed atomic words, straight from the system's zeroed pages.
fn zeroed_words(n: usize) -> Vec<AtomicU64> {
    let mut zeros = std::mem::ManuallyDrop::new(vec![0u64; n]);
    let (ptr, len, cap) = (zeros.as_mut_ptr(), zeros.len(), zeros.capacity());
    // Safety: `AtomicU64` has the same size, alignment and bit validity as `u64`, and the
    // allocation is handed over whole (pointer, length, capacity) and never used as a
    // `Vec<u64>` again.
    unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU64>(), len, cap) }
}

impl Bitmap {
    /// An empty bitmap. Its pages come zeroed from the system and cost no memory until a bit
    /// in them is set (sparse sets, like the rule passes' patterns, stay cheap).
    pub fn new(bits: u64) -> Bitmap {
        Bitmap {
            words: zeroed_words(bits.div_ceil(64) as usize),
            groups: None,
        }
    }

    /// An empty bitmap that keeps a summary of where its bits are: clearing, counting and
    /// merging it cost in proportion to the groups touched, not to its size.
    pub fn summarised(bits: u64) -> Bitmap {
        let words = bits.div_ceil(64) as usize;
        Bitmap {
            words: zeroed_words(words),
            groups: Some(zeroed_words(words.div_ceil(GROUP_WORDS).div_ceil(64))),
        }
    }

    /// Notes that word `w` may hold bits.
    #[inline]
    fn touch(&self, w: usize) {
        if let Some(g) = &self.groups {
            let (k, bit) = group_bit(w);
            // Read first: the word is shared by every thread and mostly already set.
            if g[k].load(Relaxed) & bit == 0 {
                g[k].fetch_or(bit, Relaxed);
            }
        }
    }

    /// The word ranges that may hold set bits: each group noted in the summary, or the whole
    /// map without one.
    fn spans(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.words.len();
        let Some(g) = &self.groups else {
            return self.every_group();
        };
        let mut out = Vec::new();
        for (k, word) in g.iter().enumerate() {
            let mut bits = word.load(Relaxed);
            while bits != 0 {
                let w = (k * 64 + bits.trailing_zeros() as usize) * GROUP_WORDS;
                bits &= bits - 1;
                out.push(w..(w + GROUP_WORDS).min(n));
            }
        }
        out
    }

    /// The bytes of the groups that may hold set bits (all of them without a summary): at most
    /// the memory the bitmap's touched pages take, at least its share of them.
    pub fn noted_bytes(&self) -> u64 {
        self.spans().iter().map(|s| 8 * s.len() as u64).sum()
    }

    /// The word ranges of every group, whatever the summary notes.
    pub fn every_group(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.words.len();
        (0..n)
            .step_by(GROUP_WORDS)
            .map(|w| w..(w + GROUP_WORDS).min(n))
            .collect()
    }

    /// Sets bit `i`; true if it was clear.
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let bit = 1 << (i % 64);
        self.touch((i / 64) as usize);
        self.words[(i / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }

    /// Clears bit `i`; true if it was set.
    #[inline]
    pub fn take(&self, i: u64) -> bool {
        let bit = 1 << (i % 64);
        self.words[(i / 64) as usize].fetch_and(!bit, Relaxed) & bit != 0
    }

    /// Its set bits packed ([`Packed`]).
    pub fn pack(&self) -> Packed {
        let (mut at, mut words) = (Vec::new(), Vec::new());
        for w in self.spans().into_iter().flatten() {
            let bits = self.word(w);
            if bits != 0 {
                at.push(u32::try_from(w).expect("a bitmap has fewer than 2^32 words"));
                words.push(bits);
            }
        }
        at.shrink_to_fit();
        words.shrink_to_fit();
        Packed {
            bits: self.words.len() as u64 * 64,
            at,
            words,
        }
    }

    /// Words in the bitmap.
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// Bytes a bitmap of `bits` bits takes.
    pub fn bytes(bits: u64) -> u64 {
        bits.div_ceil(64) * 8
    }

    /// Is bit `i` set?
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize].load(Relaxed) >> (i % 64) & 1 != 0
    }

    /// Sets bit `i` (as [`Bitmap::insert`], without the answer).
    #[inline]
    pub fn set(&self, i: u64) {
        self.touch((i / 64) as usize);
        self.words[(i / 64) as usize].fetch_or(1 << (i % 64), Relaxed);
    }

    /// Clears bit `i` (as [`Bitmap::take`], without the answer).
    #[inline]
    pub fn clear(&self, i: u64) {
        self.words[(i / 64) as usize].fetch_and(!(1 << (i % 64)), Relaxed);
    }

    /// The word holding bits `64 w … 64 w + 63`.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Relaxed)
    }

    /// [`Bitmap::word`], without reading a group its summary has not noted (0 there). Reading
    /// a page never written maps the system's shared zero page, and the first write to it then
    /// takes a second fault that copies the page and flushes every core's TLB: a bitmap read
    /// before it is written (the patterns' memo) should read through this.
    #[inline]
    pub fn word_if_noted(&self, w: usize) -> u64 {
        match &self.groups {
            Some(g) if g[group_bit(w).0].load(Relaxed) & group_bit(w).1 == 0 => 0,
            _ => self.words[w].load(Relaxed),
        }
    }

    /// Sets or clears bits `64 w …` to `bits`, a whole word (one writer per word).
    #[inline]
    pub fn store_word(&self, w: usize, bits: u64) {
        if bits != 0 {
            self.touch(w);
        }
        self.words[w].store(bits, Relaxed);
    }

    /// Sets the bits `bits` of word `w` (one atomic operation).
    #[inline]
    pub fn or_word(&self, w: usize, bits: u64) {
        if bits != 0 {
            self.touch(w);
            self.words[w].fetch_or(bits, Relaxed);
        }
    }

    /// Set bits among indices `start … start + len` (`start` a multiple of 64).
    pub fn count(&self, start: u64, len: usize) -> u64 {
        let first = (start / 64) as usize;
        if let Some(g) = &self.groups {
            // Nothing to count if no group of the range was touched.
            let last = first + len.div_ceil(64);
            let touched = (first / GROUP_WORDS..last.div_ceil(GROUP_WORDS))
                .any(|k| g[k / 64].load(Relaxed) >> (k % 64) & 1 != 0);
            if !touched {
                return 0;
            }
        }
        let mut n = 0u64;
        let full = len / 64;
        for w in 0..full {
            n += self.word(first + w).count_ones() as u64;
        }
        if !len.is_multiple_of(64) {
            n += (self.word(first + full) & ((1u64 << (len % 64)) - 1)).count_ones() as u64;
        }
        n
    }

    /// Clears every bit, in parallel; only words with bits are written (a sparse bitmap's
    /// untouched pages stay untouched, and later orders' hundreds of small plies write little).
    pub fn clear_all(&self) {
        self.spans().into_par_iter().for_each(|span| {
            for w in &self.words[span] {
                if w.load(Relaxed) != 0 {
                    w.store(0, Relaxed);
                }
            }
        });
        if let Some(g) = &self.groups {
            g.iter().for_each(|w| w.store(0, Relaxed));
        }
    }

    /// Sets every bit of `other` (as long or shorter) in this bitmap, in parallel; only words
    /// with bits are written.
    pub fn or_from(&self, other: &Bitmap) {
        other.spans().into_par_iter().for_each(|span| {
            for w in span {
                let bits = other.words[w].load(Relaxed);
                if bits != 0 {
                    self.or_word(w, bits);
                }
            }
        });
    }

    /// The word ranges of `maps` (bitmaps of one length) that may hold set bits, in order, each
    /// once: the groups any of their summaries noted (every group of a map without one).
    pub fn spans_of(maps: &[&Bitmap]) -> Vec<std::ops::Range<usize>> {
        let mut all: Vec<_> = maps.iter().flat_map(|m| m.spans()).collect();
        // Spans start at group boundaries and end at the next or at the end: one start, one
        // span.
        all.sort_unstable_by_key(|r| r.start);
        all.dedup_by_key(|r| r.start);
        all
    }

    /// Is no bit set? (Checked in parallel, over the summary's groups if it has one.)
    pub fn is_clear(&self) -> bool {
        self.spans()
            .into_par_iter()
            .all(|span| self.words[span].iter().all(|w| w.load(Relaxed) == 0))
    }

    /// The number of set bits (over the summary's groups, if it has one).
    pub fn count_all(&self) -> u64 {
        self.spans()
            .into_par_iter()
            .map(|span| {
                self.words[span]
                    .iter()
                    .map(|w| w.load(Relaxed).count_ones() as u64)
                    .sum::<u64>()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmap_counts_ranges() {
        let b = Bitmap::new(200);
        for i in [0, 63, 64, 130, 199] {
            b.set(i);
        }
        assert!(b.get(63) && !b.get(62));
        assert_eq!(b.count(0, 200), 5);
        assert_eq!(b.count(64, 67), 2);
        assert_eq!(b.count(128, 2), 0);
        b.clear(64);
        assert_eq!(b.count(0, 128), 2);
    }

    /// A summarised bitmap answers as a plain one after any mix of the operations that set
    /// bits (single bits, words, merges) and clear them, across many groups.
    #[test]
    fn summarised_bitmap_agrees_with_a_plain_one() {
        let n = 5 * 4096 * 64 + 77;
        let (plain, summed) = (Bitmap::new(n), Bitmap::summarised(n));
        let (other, other_summed) = (Bitmap::new(n), Bitmap::summarised(n));
        let mut x = 12345u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..20 {
            for _ in 0..50 {
                let i = next() % n;
                match next() % 5 {
                    0 => [&plain, &summed].map(|b| b.set(i)),
                    1 => {
                        let new = [&plain, &summed].map(|b| b.insert(i));
                        assert_eq!(new[0], new[1]);
                        [(); 2]
                    }
                    2 => [&plain, &summed].map(|b| b.clear(i)),
                    3 => [&other, &other_summed].map(|b| b.set(i)),
                    _ => {
                        let w = (i / 64) as usize;
                        [&plain, &summed].map(|b| b.or_word(w, 1 << (i % 64)))
                    }
                };
            }
            if round % 3 == 0 {
                plain.or_from(&other);
                summed.or_from(&other_summed);
            }
            assert_eq!(summed.count_all(), plain.count_all());
            for b in [&plain, &summed] {
                assert_eq!(b.is_clear(), plain.count_all() == 0);
            }
            for start in (0..n).step_by(4096) {
                let len = (n - start).min(4096) as usize;
                assert_eq!(summed.count(start, len), plain.count(start, len));
            }
            for w in 0..plain.words() {
                let bits = plain.word(w);
                assert_eq!(summed.word_if_noted(w), bits, "word {w}");
                assert_eq!(plain.word_if_noted(w), bits, "word {w}");
            }
            if round % 7 == 6 {
                plain.clear_all();
                summed.clear_all();
                assert_eq!(summed.count_all(), 0);
                assert!(plain.is_clear() && summed.is_clear());
            }
        }
        assert!(plain.count_all() > 0);
        assert!(!plain.is_clear() && !summed.is_clear());
        for b in [&plain, &summed] {
            let back = b.pack().unpack();
            assert_eq!(back.words(), plain.words());
            assert!((0..plain.words()).all(|w| back.word(w) == plain.word(w)));
            assert_eq!(back.count_all(), plain.count_all());
        }
        // A group the summary notes as touched, with its only bit cleared again, is clear.
        let one = Bitmap::summarised(n);
        one.set(n - 1);
        assert!(!one.is_clear());
        one.clear(n - 1);
        assert!(one.is_clear());
        assert_eq!(summed.count_all(), plain.count_all());
    }
}
