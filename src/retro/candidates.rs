//! The rule passes' candidates: for each defender side and each target of the attacker (its
//! king, or one of its pieces by number), the entries that are loss candidates
//! (`formats/rules.md` §7). A maximum pattern lies among them and their predecessors.
//!
//! They are few (KCPABKAABB after order 0: 2.5 M of 1.9 e9 entries, Black's, for the two
//! targets it can hit, Red's cannon and pawn) and spread over every page of a table, so they
//! are kept as a sorted set: each member's offset in its block of 2^16 entries and the targets
//! it is forced to hit, 4 bytes a member, instead of a bitmap of the table per target. The set
//! has a budget; a refresh that would outgrow it stops with the bytes it needs.

use super::numbering::Numbering;
use super::numbering::KING_BIT;
use super::slice::{Ranks, RanksBuilder};
use crate::material::Material;
use crate::piece::{ByColor, Color, Role};
use std::ops::Range;

/// At most this many targets a side (its king and 15 numbered pieces): a member's targets
/// fit a `u16`.
const MAX_TARGETS: usize = 16;

/// One defender's candidates.
struct Side {
    /// The attacker's targets the defender can ever hit ([`Material::can_hit`]), by candidate
    /// bit (the king's [`KING_BIT`], a piece's number): a member's `hits` has bit `k` for
    /// `targets[k]`.
    targets: Vec<u32>,
    /// The candidates, sorted.
    members: Ranks,
    /// Each member's targets, in rank order (never 0).
    hits: Vec<u16>,
}

impl Side {
    /// The bytes it takes.
    fn bytes(&self) -> u64 {
        self.members.bytes() + 2 * self.hits.len() as u64
    }

    /// The members in `from..to` with their targets, in order.
    fn in_range(&self, from: u64, to: u64) -> impl Iterator<Item = (u64, u16)> + '_ {
        self.members
            .in_range(from, to)
            .map(|(rank, index)| (index, self.hits[rank as usize]))
    }
}

/// The loss candidates of both sides as defenders.
pub struct Candidates {
    sides: ByColor<Side>,
    entries: u64,
    budget: Budget,
}

/// The bytes the candidates may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The sets, between refreshes.
    pub kept: u64,
    /// During a refresh: the sets, the lists of new members and the next set beside the old
    /// (the kept budget and what the propagation lends the rule phases).
    pub refresh: u64,
}

/// A refresh would take more memory than the candidates' budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CandidatesTooMany {
    /// Bytes the refresh needed when it stopped (at least).
    pub needed: u64,
    /// The budget.
    pub budget: u64,
    /// Whether the refresh's budget was outgrown (false: the kept budget, by the set it left).
    pub during_refresh: bool,
}

/// A refresh's new candidates of one span of words (at most 1,024 words): each member's offset
/// from the span's first entry and its targets, in order.
pub type Fresh = Vec<(u16, u16)>;

/// Bytes a [`Fresh`] member takes while a refresh runs.
pub const FRESH_BYTES: u64 = std::mem::size_of::<(u16, u16)>() as u64;

impl Candidates {
    /// No candidates yet, among `entries` entries a side, for the targets each side can ever
    /// hit, within `budget` bytes.
    pub(super) fn new(
        entries: u64,
        numbering: &Numbering,
        material: Material,
        budget: Budget,
    ) -> Candidates {
        let sides = ByColor::new(|defender| {
            let owner = !defender;
            let hittable = |role: Option<Role>| role.is_some_and(|r| material.can_hit(defender, r));
            let targets: Vec<u32> = std::iter::once((KING_BIT, Some(Role::King)))
                .chain(
                    numbering
                        .pieces(owner)
                        .iter()
                        .map(|p| (u32::from(p), numbering.role(owner, p))),
                )
                .filter(|&(_, role)| hittable(role))
                .map(|(bit, _)| bit)
                .collect();
            assert!(
                targets.len() <= MAX_TARGETS,
                "a side has at most 16 targets"
            );
            Side {
                targets,
                members: Ranks::new(&[], entries),
                hits: Vec::new(),
            }
        });
        Candidates {
            sides,
            entries,
            budget,
        }
    }

    /// The candidates of `defender` for the attacker's target `bit` (its king: [`KING_BIT`]).
    pub fn of(&self, defender: Color, bit: u32) -> TargetCandidates<'_> {
        let side = &self.sides[defender];
        let k = side.targets.iter().position(|&t| t == bit);
        TargetCandidates {
            side,
            hit: k.map_or(0, |k| 1 << k),
        }
    }

    /// All of `defender`'s target bits (candidate bits, as [`RuleState`]'s labels).
    ///
    /// [`RuleState`]: super::orders::RuleState
    pub(super) fn mask(&self, defender: Color) -> u32 {
        self.sides[defender]
            .targets
            .iter()
            .fold(0, |m, b| m | 1 << b)
    }

    /// `defender`'s target bits, in the order of [`Candidates::hits_of`].
    pub(super) fn targets(&self, defender: Color) -> &[u32] {
        &self.sides[defender].targets
    }

    /// A member's targets as a [`Fresh`] entry holds them, from the target bits `labels` (a
    /// mask of candidate bits).
    pub(super) fn hits_of(&self, defender: Color, labels: u32) -> u16 {
        let targets = &self.sides[defender].targets;
        (0..targets.len()).fold(0, |h, k| h | ((labels >> targets[k] & 1) as u16) << k)
    }

    /// `defender`'s members in word `w` (entries `64 w ..`), with their targets.
    pub(super) fn in_word(
        &self,
        defender: Color,
        w: usize,
    ) -> impl Iterator<Item = (u64, u16)> + '_ {
        let from = w as u64 * 64;
        self.sides[defender].in_range(from, from + 64)
    }

    /// The members of `defender` hitting any of `bits`, sorted.
    pub fn hitting(&self, defender: Color, bits: &[u32]) -> Vec<u64> {
        let mask = bits.iter().fold(0, |m, &b| m | self.of(defender, b).hit);
        self.sides[defender]
            .in_range(0, self.entries)
            .filter(|&(_, h)| h & mask != 0)
            .map(|(i, _)| i)
            .collect()
    }

    /// The bytes the sets take.
    pub fn bytes(&self) -> u64 {
        Color::ALL.iter().map(|&s| self.sides[s].bytes()).sum()
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Replaces `defender`'s members in the words of `spans` (sorted, disjoint) with `fresh`
    /// (one list per span), keeping the others.
    pub(super) fn replace(
        &mut self,
        defender: Color,
        spans: &[Range<usize>],
        fresh: Vec<Fresh>,
    ) -> Result<(), CandidatesTooMany> {
        let fresh_len: u64 = fresh.iter().map(|f| f.len() as u64).sum();
        let old = &self.sides[defender];
        let mut members = RanksBuilder::new(self.entries);
        let mut hits = Vec::new();
        let mut from = 0u64;
        for (span, new) in spans.iter().zip(fresh) {
            let (start, end) = (span.start as u64 * 64, span.end as u64 * 64);
            assert!(end - start <= 1 << 16, "a span of at most 1,024 words");
            let new = new.into_iter().map(|(k, h)| (start + k as u64, h));
            for (i, h) in old.in_range(from, start).chain(new) {
                members.push(i);
                hits.push(h);
            }
            from = end;
            // Checked as it grows: the old set, the new one so far, the lists.
            let needed =
                self.bytes() + members.bytes() + 2 * hits.len() as u64 + FRESH_BYTES * fresh_len;
            if needed > self.budget.refresh {
                return Err(CandidatesTooMany {
                    needed,
                    budget: self.budget.refresh,
                    during_refresh: true,
                });
            }
        }
        for (i, h) in old.in_range(from, self.entries) {
            members.push(i);
            hits.push(h);
        }
        let other = self.sides[!defender].bytes();
        let needed = other + members.bytes() + 2 * hits.len() as u64;
        if needed > self.budget.kept {
            return Err(CandidatesTooMany {
                needed,
                budget: self.budget.kept,
                during_refresh: false,
            });
        }
        let side = &mut self.sides[defender];
        side.members = members.finish();
        side.hits = hits;
        Ok(())
    }
}

/// One target's candidates (of one defender).
#[derive(Clone, Copy)]
pub struct TargetCandidates<'a> {
    side: &'a Side,
    /// The target's bit in the members' targets (0: a target the defender cannot hit).
    hit: u16,
}

impl TargetCandidates<'_> {
    /// Is `index` a candidate?
    #[inline]
    pub fn contains(&self, index: u64) -> bool {
        self.hit != 0
            && self
                .side
                .members
                .rank(index)
                .is_some_and(|r| self.side.hits[r as usize] & self.hit != 0)
    }

    /// The candidates among entries `64 w .. 64 w + 64`, as the bits of a word.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        if self.hit == 0 {
            return 0;
        }
        let from = w as u64 * 64;
        self.side
            .in_range(from, from + 64)
            .filter(|&(_, h)| h & self.hit != 0)
            .fold(0, |word, (i, _)| word | 1 << (i - from))
    }

    /// How many there are.
    pub fn count(&self) -> u64 {
        self.side
            .hits
            .iter()
            .filter(|&&h| h & self.hit != 0)
            .count() as u64
    }

    /// The candidates, sorted.
    pub fn members(&self) -> Vec<u64> {
        if self.hit == 0 {
            return Vec::new();
        }
        self.side
            .in_range(0, u64::MAX)
            .filter(|&(_, h)| h & self.hit != 0)
            .map(|(i, _)| i)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Candidates with the targets `KING_BIT`, 3 and 5 for Red as defender, none for Black.
    fn empty(entries: u64, budget: Budget) -> Candidates {
        let targets = ByColor::new(|c| match c {
            Color::Red => vec![KING_BIT, 3, 5],
            Color::Black => Vec::new(),
        });
        Candidates {
            sides: ByColor::new(|c| Side {
                targets: targets[c].clone(),
                members: Ranks::new(&[], entries),
                hits: Vec::new(),
            }),
            entries,
            budget,
        }
    }

    /// Refreshes of some spans, against a plain map of each member's targets: members, words,
    /// counts and the union of targets agree, those outside the spans stay, and a budget too
    /// small is refused with what it needed, leaving the set as it was.
    #[test]
    fn refreshed_spans_agree_with_a_plain_map() {
        let entries = 3 << 16 | 777;
        let budget = Budget {
            kept: 1 << 20,
            refresh: 1 << 20,
        };
        let mut cands = empty(entries, budget);
        let mut plain: BTreeMap<u64, u16> = BTreeMap::new();
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        for round in 0..6 {
            // Spans of one group (64 words), some skipped, sorted.
            let spans: Vec<Range<usize>> = (0..entries as usize / 64)
                .step_by(64)
                .filter(|_| round == 0 || next() % 3 == 0)
                .map(|w| w..(w + 64).min(entries.div_ceil(64) as usize))
                .collect();
            let fresh: Vec<Fresh> = spans
                .iter()
                .map(|span| {
                    let start = span.start as u64 * 64;
                    let end = (span.end as u64 * 64).min(entries);
                    plain.retain(|&i, _| i < start || i >= end);
                    let mut list = Vec::new();
                    for i in start..end {
                        if next() % 17 == 0 {
                            let h = (next() % 7 + 1) as u16;
                            plain.insert(i, h);
                            list.push(((i - start) as u16, h));
                        }
                    }
                    list
                })
                .collect();
            cands.replace(Color::Red, &spans, fresh).unwrap();
            for (k, bit) in [KING_BIT, 3, 5].into_iter().enumerate() {
                let t = cands.of(Color::Red, bit);
                let want: Vec<u64> = plain
                    .iter()
                    .filter(|(_, &h)| h >> k & 1 != 0)
                    .map(|(&i, _)| i)
                    .collect();
                assert_eq!(t.members(), want, "round {round}, target {bit}");
                assert_eq!(t.count(), want.len() as u64);
                for w in (0..entries.div_ceil(64) as usize).step_by(13) {
                    let word = want
                        .iter()
                        .filter(|&&i| i / 64 == w as u64)
                        .fold(0u64, |m, &i| m | 1 << (i % 64));
                    assert_eq!(t.word(w), word, "word {w}");
                }
                for i in (0..entries).step_by(101) {
                    assert_eq!(t.contains(i), want.binary_search(&i).is_ok(), "{i}");
                }
            }
            let union: Vec<u64> = plain
                .iter()
                .filter(|(_, &h)| h & 6 != 0)
                .map(|(&i, _)| i)
                .collect();
            assert_eq!(cands.hitting(Color::Red, &[3, 5]), union);
            assert!(cands.of(Color::Red, 7).members().is_empty());
            assert!(cands.of(Color::Black, KING_BIT).count() == 0);
            // Each side's directory (5 blocks and an end), 4 bytes a member.
            assert_eq!(cands.bytes(), 2 * 4 * (4 + 1) + 4 * plain.len() as u64);
        }
        // Too small a budget, during the refresh or for the set it leaves: refused, and
        // nothing changed.
        let before = cands.of(Color::Red, KING_BIT).members();
        let bytes = cands.bytes();
        // Every entry of the first group a candidate: more than it had.
        let refresh = || {
            let spans: Vec<Range<usize>> = std::iter::once(0..64).collect();
            (spans, vec![(0..4096u16).map(|k| (k, 1u16)).collect()])
        };
        for budget in [
            Budget {
                kept: 1 << 20,
                refresh: bytes,
            },
            Budget {
                kept: bytes,
                refresh: 1 << 20,
            },
        ] {
            cands.budget = budget;
            let (spans, fresh) = refresh();
            let e = cands.replace(Color::Red, &spans, fresh).unwrap_err();
            assert!(e.needed > e.budget, "{e:?}");
            assert_eq!(e.budget, bytes, "{e:?}");
            assert_eq!(e.during_refresh, budget.refresh == bytes);
            assert_eq!(cands.of(Color::Red, KING_BIT).members(), before);
        }
    }
}
