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
        assert!(
            u32::try_from(members.len()).is_ok(),
            "a slice side holds fewer than 2^32 members"
        );
        debug_assert!(members.windows(2).all(|w| w[0] < w[1]));
        let blocks = entries.div_ceil(1 << BLOCK_BITS) as usize;
        let mut starts = Vec::with_capacity(blocks + 1);
        let mut next = 0usize;
        for b in 0..=blocks as u64 {
            // Members before block `b`.
            next += members[next..].partition_point(|&i| i >> BLOCK_BITS < b);
            starts.push(next as u32);
        }
        Ranks {
            starts,
            offsets: members.iter().map(|&i| i as u16).collect(),
        }
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

    /// The member of rank `rank`.
    #[inline]
    pub fn index(&self, rank: u64) -> u64 {
        let b = self.starts.partition_point(|&s| s as u64 <= rank) - 1;
        (b as u64) << BLOCK_BITS | self.offsets[rank as usize] as u64
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
        assert!(Ranks::new(&[], entries).is_empty());
    }
}
