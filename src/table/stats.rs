//! Accumulating a table's header counts from its entries: one piece of code for the builder's
//! final write and for `verify`, which recomputes them.

use super::{Histogram, LongestWin, SideStats};
use crate::value::{Outcome, Value};

impl SideStats {
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
                    self.longest_win = Some(LongestWin {
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
    pub fn merge(self, b: SideStats) -> SideStats {
        let key = |l: LongestWin| (l.distance, std::cmp::Reverse(l.index));
        SideStats {
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

/// Counts `mult` positions holding `value` in a histogram (decided values only).
#[inline]
pub fn count_value(hist: &mut Histogram, value: Value, mult: u64) {
    if let Value::Decided { order, distance } = value {
        *hist.entry((order, distance)).or_default() += mult;
    }
}

/// Two histograms added (the larger one kept, the smaller one's counts added to it).
pub fn merge_histograms(a: Histogram, b: Histogram) -> Histogram {
    let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    for (k, n) in small {
        *big.entry(k).or_default() += n;
    }
    big
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(distance: u16) -> Value {
        Value::Decided { order: 0, distance }
    }

    #[test]
    fn counts_weigh_entries_and_keep_the_first_longest_win() {
        let mut a = SideStats::default();
        a.count(v(3), 2, 10);
        a.count(v(7), 1, 11);
        a.count(v(7), 2, 12);
        a.count(Value::Draw, 2, 13);
        a.count(v(4), 1, 14);
        assert_eq!((a.legal, a.win, a.draw, a.loss), (8, 5, 2, 1));
        assert_eq!(a.longest_win.map(|l| (l.distance, l.index)), Some((7, 11)));
        let mut b = SideStats::default();
        b.count(v(7), 2, 5);
        b.count(v(9), 1, 6);
        let ab = a.merge(b);
        assert_eq!(ab, b.merge(a), "merge order does not matter");
        assert_eq!(ab.longest_win.map(|l| (l.distance, l.index)), Some((9, 6)));
        let mut c = SideStats::default();
        c.count(v(9), 1, 2);
        assert_eq!(
            ab.merge(c).longest_win.map(|l| l.index),
            Some(2),
            "smaller index on a tie"
        );
        assert_eq!(ab.merge(SideStats::default()), ab);
    }
}
