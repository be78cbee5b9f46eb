//! Accumulating a table's header counts from its entries: one piece of code for the builder's
//! final write and for `verify`, which recomputes them.

use super::{Firsts, Histogram, LongestWinEntry, SideCounts};
use crate::value::{Outcome, Value};

impl SideCounts {
    /// Counts one entry, index `index`, standing for `mult` real positions, holding `value`.
    /// Entries must come in increasing index order: the longest win kept is the first (the
    /// smallest index) of the largest distance.
    #[inline]
    pub fn count(&mut self, value: Value, mult: u64, index: u64) {
        self.legal += mult;
        match value.outcome() {
            Outcome::Draw => self.draw += mult,
            Outcome::Loss => self.loss += mult,
            Outcome::Win => {
                self.win += mult;
                let (order, distance) = (value.order().unwrap_or(0), value.distance().unwrap_or(0));
                if self.longest_win.is_none_or(|l| distance > l.distance) {
                    self.longest_win = Some(LongestWinEntry {
                        order,
                        distance,
                        index,
                    });
                }
            }
        }
    }

    /// The counts of two runs of entries together; the longest win of the two (the smaller index
    /// on a tie), so runs may be merged in any order.
    pub fn merge(self, b: SideCounts) -> SideCounts {
        let key = |l: LongestWinEntry| (l.distance, std::cmp::Reverse(l.index));
        SideCounts {
            legal: self.legal + b.legal,
            win: self.win + b.win,
            draw: self.draw + b.draw,
            loss: self.loss + b.loss,
            longest_win: match (self.longest_win, b.longest_win) {
                (Some(x), Some(y)) => Some(if key(y) > key(x) { y } else { x }),
                (x, y) => x.or(y),
            },
        }
    }
}

/// A histogram being counted, with the first index of each value. A run of entries holds few
/// distinct values, so counts go to a small direct-mapped cache first and reach the ordered
/// maps only when a slot is taken by another value and at the end (a map lookup per entry took
/// about 7 % of the samples of KRCKR's final write, 197 values: `perf record`).
pub struct Tally {
    /// `(key, count, first index)`, key [`Tally::EMPTY`] when the slot is free.
    cache: [(u32, u64, u64); Tally::SLOTS],
    hist: Histogram,
    firsts: Firsts,
}

impl Tally {
    const SLOTS: usize = 64;
    /// No value has this key: orders are at most `MAX_ORDER` = 2^14 − 1 (`formats/table.md`
    /// §7).
    const EMPTY: u32 = u32::MAX;

    /// Nothing counted yet.
    pub fn new() -> Tally {
        Tally {
            cache: [(Tally::EMPTY, 0, 0); Tally::SLOTS],
            hist: Histogram::new(),
            firsts: Firsts::new(),
        }
    }

    /// Counts `mult` positions holding `value` at entry `index` (decided values only; a draw is
    /// not counted). Entries come in increasing index order.
    #[inline]
    pub fn add(&mut self, value: Value, mult: u64, index: u64) {
        let Value::Decided { order, distance } = value else {
            return;
        };
        let key = (order as u32) << 16 | distance as u32;
        let slot = &mut self.cache[(key.wrapping_mul(0x9E37_79B1) >> 26) as usize];
        if slot.0 != key {
            if slot.0 != Tally::EMPTY {
                flush(&mut self.hist, &mut self.firsts, *slot);
            }
            *slot = (key, 0, index);
        }
        slot.1 += mult;
    }

    /// The counts as a histogram, and each value's first index.
    pub fn finish(mut self) -> (Histogram, Firsts) {
        for &slot in self.cache.iter().filter(|(k, _, _)| *k != Tally::EMPTY) {
            flush(&mut self.hist, &mut self.firsts, slot);
        }
        (self.hist, self.firsts)
    }
}

/// A cache slot into the maps: its count added, its first index kept if the value is new (the
/// maps hold only earlier entries).
fn flush(hist: &mut Histogram, firsts: &mut Firsts, (key, n, first): (u32, u64, u64)) {
    *hist.entry(split(key)).or_default() += n;
    firsts.entry(split(key)).or_insert(first);
}

impl Default for Tally {
    fn default() -> Tally {
        Tally::new()
    }
}

/// A [`Tally`] key's `(order, distance)`.
fn split(key: u32) -> (u16, u16) {
    ((key >> 16) as u16, key as u16)
}

/// Two histograms added (the larger one kept, the smaller one's counts added to it).
fn merge_histograms(a: Histogram, b: Histogram) -> Histogram {
    let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    for (k, n) in small {
        *big.entry(k).or_default() += n;
    }
    big
}

/// Two runs' histograms and first indices together, in any order.
pub fn merge_tallies(a: (Histogram, Firsts), b: (Histogram, Firsts)) -> (Histogram, Firsts) {
    let (mut big, small) = if a.1.len() >= b.1.len() {
        (a.1, b.1)
    } else {
        (b.1, a.1)
    };
    for (k, i) in small {
        let e = big.entry(k).or_insert(i);
        *e = (*e).min(i);
    }
    (merge_histograms(a.0, b.0), big)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(distance: u16) -> Value {
        Value::Decided { order: 0, distance }
    }

    #[test]
    fn counts_weigh_entries_and_keep_the_first_longest_win() {
        let mut a = SideCounts::default();
        a.count(v(3), 2, 10);
        a.count(v(7), 1, 11);
        a.count(v(7), 2, 12);
        a.count(Value::Draw, 2, 13);
        a.count(v(4), 1, 14);
        assert_eq!((a.legal, a.win, a.draw, a.loss), (8, 5, 2, 1));
        assert_eq!(a.longest_win.map(|l| (l.distance, l.index)), Some((7, 11)));
        let mut b = SideCounts::default();
        b.count(v(7), 2, 5);
        b.count(v(9), 1, 6);
        let ab = a.merge(b);
        assert_eq!(ab, b.merge(a), "merge order does not matter");
        assert_eq!(ab.longest_win.map(|l| (l.distance, l.index)), Some((9, 6)));
        let mut c = SideCounts::default();
        c.count(v(9), 1, 2);
        assert_eq!(
            ab.merge(c).longest_win.map(|l| l.index),
            Some(2),
            "smaller index on a tie"
        );
        assert_eq!(ab.merge(SideCounts::default()), ab);
    }

    #[test]
    fn a_tally_counts_as_a_map_would() {
        // Enough distinct values (of several orders) that cache slots are shared and evicted.
        let mut tally = Tally::new();
        let mut expected = Histogram::new();
        let mut firsts = Firsts::new();
        for i in 0..5000u32 {
            let (order, distance) = ((i * 7 % 13) as u16, (i * 31 % 401) as u16);
            let mult = 1 + (i % 2) as u64;
            tally.add(Value::Decided { order, distance }, mult, 2 * i as u64);
            tally.add(Value::Draw, 1, 2 * i as u64 + 1);
            *expected.entry((order, distance)).or_default() += mult;
            firsts.entry((order, distance)).or_insert(2 * i as u64);
        }
        assert!(expected.len() > 4 * Tally::SLOTS);
        assert_eq!(tally.finish(), (expected.clone(), firsts.clone()));
        assert_eq!(Tally::new().finish(), Default::default());
        // Split anywhere, merged either way round: the same.
        let (mut a, mut b) = (Tally::new(), Tally::new());
        for i in 0..5000u32 {
            let (order, distance) = ((i * 7 % 13) as u16, (i * 31 % 401) as u16);
            let t = if i < 2100 { &mut a } else { &mut b };
            t.add(
                Value::Decided { order, distance },
                1 + (i % 2) as u64,
                2 * i as u64,
            );
        }
        let (a, b) = (a.finish(), b.finish());
        assert_eq!(
            merge_tallies(b.clone(), a.clone()),
            (expected.clone(), firsts.clone())
        );
        assert_eq!(merge_tallies(a, b), (expected, firsts));
    }
}
