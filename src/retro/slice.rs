//! The part of a table a pattern over the whole graph can hold, numbered densely: a target's
//! loss candidates (the defender's side) and the unresolved entries they reach by a quiet move
//! (the attacker's side). A maximum pattern's losses lie among the candidates, and a win
//! matters to them only as a child of a loss (`formats/rules.md` §8, step 3), so the greatest
//! pattern inside the slice has the same losses as the one over every unresolved entry. Its
//! sets then cost bits per slice vertex instead of bits per entry: a streamed table's slices
//! are a few thousandths of its entries, spread over all its pages
//! (`docs/design-rule-stage-out-of-core.md`).

use crate::piece::{ByColor, Color};

/// Entries per block of the rank directory (a member's offset in its block fits a `u16`).
const BLOCK_BITS: u32 = 16;

/// A sorted set of one side's entries, each numbered by its rank: a directory of the first
/// rank in each block of 2^16 entries, and each member's offset in its block (2 bytes a
/// member, 4 bytes per 65,536 entries).
pub struct Ranks {
    /// `starts[b]`: the rank of block `b`'s first member; one more for the end.
    starts: Vec<u32>,
    /// Each member's offset in its block, in rank order.
    offsets: Vec<u16>,
}

impl Ranks {
    /// The set of `members` (sorted, without repeats) among `entries` entries.
    pub fn new(members: &[u64], entries: u64) -> Ranks {
        let mut ranks = RanksBuilder::new(entries);
        members.iter().for_each(|&i| ranks.push(i));
        ranks.finish()
    }

    /// The members.
    pub fn len(&self) -> u64 {
        self.offsets.len() as u64
    }

    /// Has the set no member?
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// The rank of `index`, if it is a member.
    #[inline]
    pub fn rank(&self, index: u64) -> Option<u64> {
        let b = (index >> BLOCK_BITS) as usize;
        let (from, to) = (
            *self.starts.get(b)? as usize,
            *self.starts.get(b + 1)? as usize,
        );
        let block = &self.offsets[from..to];
        block
            .binary_search(&(index as u16))
            .ok()
            .map(|k| (from + k) as u64)
    }

    /// The members in `from..to`, in order, each with its rank.
    pub fn in_range(&self, from: u64, to: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let blocks = self.starts.len() as u64 - 1;
        let first = from >> BLOCK_BITS;
        let last = to.saturating_sub(1) >> BLOCK_BITS;
        (first..=last.min(blocks.saturating_sub(1)))
            .filter(move |_| from < to)
            .flat_map(move |b| {
                let (start, end) = (
                    self.starts[b as usize] as usize,
                    self.starts[b as usize + 1] as usize,
                );
                let block = &self.offsets[start..end];
                let base = b << BLOCK_BITS;
                // The block's part inside the range (a bound outside the block keeps its end).
                let lo = block.partition_point(|&o| base + (o as u64) < from);
                let hi = block.partition_point(|&o| base + (o as u64) < to);
                (lo..hi).map(move |k| ((start + k) as u64, base | block[k] as u64))
            })
    }

    /// Bytes it takes.
    pub fn bytes(&self) -> u64 {
        4 * self.starts.len() as u64 + 2 * self.offsets.len() as u64
    }

    /// The member of rank `rank`.
    #[inline]
    pub fn index(&self, rank: u64) -> u64 {
        let b = self.starts.partition_point(|&s| s as u64 <= rank) - 1;
        (b as u64) << BLOCK_BITS | self.offsets[rank as usize] as u64
    }
}

/// Builds a [`Ranks`] from its members pushed in increasing order, without a list of them.
pub struct RanksBuilder {
    entries: u64,
    starts: Vec<u32>,
    offsets: Vec<u16>,
    /// The last member pushed (checked in debug builds).
    last: Option<u64>,
}

impl RanksBuilder {
    /// An empty set among `entries` entries.
    pub fn new(entries: u64) -> RanksBuilder {
        RanksBuilder {
            entries,
            starts: Vec::new(),
            offsets: Vec::new(),
            last: None,
        }
    }

    /// Adds `index`, greater than every member so far.
    pub fn push(&mut self, index: u64) {
        debug_assert!(index < self.entries);
        debug_assert!(
            self.last.is_none_or(|l| l < index),
            "members are pushed in increasing order"
        );
        self.last = Some(index);
        let len = u32::try_from(self.offsets.len()).expect("a set of fewer than 2^32 members");
        let block = (index >> BLOCK_BITS) as usize;
        while self.starts.len() <= block {
            self.starts.push(len);
        }
        self.offsets.push(index as u16);
    }

    /// The members pushed so far.
    pub fn len(&self) -> u64 {
        self.offsets.len() as u64
    }

    /// Has nothing been pushed?
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Bytes it takes so far.
    pub fn bytes(&self) -> u64 {
        4 * self.starts.len() as u64 + 2 * self.offsets.len() as u64
    }

    /// The set.
    pub fn finish(mut self) -> Ranks {
        let len = u32::try_from(self.offsets.len()).expect("a set of fewer than 2^32 members");
        let blocks = self.entries.div_ceil(1 << BLOCK_BITS) as usize;
        while self.starts.len() <= blocks {
            self.starts.push(len);
        }
        Ranks {
            starts: self.starts,
            offsets: self.offsets,
        }
    }
}

/// Both sides of a slice ([`Ranks`]).
pub struct Slice {
    /// Each side's members.
    pub sides: ByColor<Ranks>,
}

impl Slice {
    /// The rank of `index` on `side`, if it is in the slice.
    #[inline]
    pub fn rank(&self, side: Color, index: u64) -> Option<u64> {
        self.sides[side].rank(index)
    }

    /// The entry of rank `rank` on `side`.
    #[inline]
    pub fn index(&self, side: Color, rank: u64) -> u64 {
        self.sides[side].index(rank)
    }

    /// Both sides' members.
    pub fn len(&self) -> u64 {
        Color::ALL.into_iter().map(|s| self.sides[s].len()).sum()
    }

    /// Is the slice empty?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranks agree with a plain sorted list: members found at their position, others absent,
    /// across block boundaries and in empty blocks.
    #[test]
    fn ranks_agree_with_a_sorted_list() {
        let entries = 5 << BLOCK_BITS;
        let members: Vec<u64> = vec![0, 1, 65_535, 65_536, 70_000, 3 << BLOCK_BITS, entries - 1];
        let ranks = Ranks::new(&members, entries);
        assert_eq!(ranks.len(), 7);
        for i in (0..entries).step_by(97).chain(members.iter().copied()) {
            assert_eq!(
                ranks.rank(i),
                members.binary_search(&i).ok().map(|r| r as u64),
                "{i}"
            );
        }
        for (r, &i) in members.iter().enumerate() {
            assert_eq!(ranks.index(r as u64), i);
        }
        assert_eq!(ranks.rank(entries + 1), None);
        // Ranges: within a block, across blocks, empty, past the end.
        for (from, to) in [
            (0, 2),
            (1, 65_537),
            (65_536, 65_536),
            (60_000, entries + 9),
            (0, u64::MAX),
            (70_001, 3 << BLOCK_BITS),
        ] {
            let want: Vec<(u64, u64)> = members
                .iter()
                .enumerate()
                .filter(|(_, &i)| (from..to).contains(&i))
                .map(|(r, &i)| (r as u64, i))
                .collect();
            assert_eq!(
                ranks.in_range(from, to).collect::<Vec<_>>(),
                want,
                "{from}..{to}"
            );
        }
        assert!(Ranks::new(&[], entries).is_empty());
    }
}
