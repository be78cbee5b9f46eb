//! The order stage shared by the builder and `verify`: Fang's Algorithm 8 (Fang 2005, Section 5.1) after the order-0
//! propagation. While patterns are left, the losses of the non-mutual checking patterns
//! (Algorithm 4, both sides) — or, if there are none, of the totally non-mutual chasing
//! patterns (Algorithm 5, every piece) — seed order `r + 1` at distance 0, and the propagation
//! passes run again (the builder's); what is never resolved is a draw.
//!
//! Kept in RAM per entry and side: the unresolved filter (the pass framework's), a dirty bit, a
//! drawn-capture bit and one candidate bit per target (below); the patterns' own sets are
//! bitmaps whose pages are touched only where members are ([`super::pattern`]), computed in
//! the memory the propagation passes lend the pattern phase, and those kept from one pattern
//! phase to the next (the warm starts below) are packed (their nonzero words alone).
//!
//! **Candidates.** A defender's entry is a loss candidate for a target (the attacker's king, or
//! one of its pieces by number) when it is unresolved, has no capture into a drawn position,
//! has a move to an unresolved entry, and every such move hits the target (checks it, or chases
//! it). Computing this needs the labels of the moves, the costliest part of the rules, so it is
//! done once for every unresolved entry after order 0 and afterwards only for the entries whose
//! children changed (the propagation marks them dirty: a child resolved as a win; a child
//! resolved as a loss resolves the entry itself): the others' moves into unresolved entries are
//! the same as before, and so is their candidacy. The entries resolved since are marked dirty
//! too (each ply's frontier), so a refresh visits only the bitmap groups with dirty marks: no
//! other group has a candidate to drop or to find (KRCKR's later orders rescan a few thousand
//! entries each, and reading every word per order was 0.02–0.03 s of each).
//!
//! One-sided tables (only one side has rooks, horses, cannons or pawns) skip all this: Fang,
//! Section 1, and `tests/engine/asian_rules.rs` checks it on several.

use super::bitmap::Bitmap;
use super::candidates::Candidates;
use super::graph::{Graph, Moves};
use super::numbering::{Numbering, KING_BIT, MAX_NUMBERED};
use super::pattern::{EntryPattern, Exclusion, PackedMarks, Region, SliceTooLarge, Space, Warm};
use super::progress::Progress;
use crate::fang::graph::{PieceId, Target};
use crate::fang::{LevelKind, Rules};
use crate::index::Split;
use crate::material::Material;
use crate::piece::{ByColor, Color, Role};
use rayon::prelude::*;
use std::time::Instant;

/// What the rule phases keep between orders.
pub struct RuleState {
    rules: Rules,
    numbering: Numbering,
    candidates: Candidates,
    /// Entries whose children changed, or that were resolved, since the candidates were
    /// computed (summarised: a refresh visits only its groups).
    pub dirty: ByColor<Bitmap>,
    /// Entries with a capture into a drawn position (never a loss candidate).
    drawn: ByColor<Bitmap>,
    /// The next refresh computes every unresolved entry.
    full: bool,
    /// The maximum patterns (both sides) the last [`RuleState::next_seeds`] found, by
    /// attacker and target, packed: the next order's warm starts ([`Warm`]).
    previous: Vec<(Color, Target, PackedMarks)>,
    /// The dirty marks since the chasing patterns were last computed (they are computed only at
    /// orders without a checking pattern, so their warm start needs the marks of several).
    since_chase: ByColor<Bitmap>,
    /// The first exclusion of each chasing pattern when it was last computed, by attacker and
    /// piece (packed): the next computation's start ([`Exclusion`]).
    exclusions: Vec<(Color, PieceId, Exclusion)>,
    /// How many of the last [`RuleState::next_seeds`]' chasing patterns excluded their
    /// defender's forced checks starting from the previous computation's.
    pub warm_exclusions: u32,
    /// With a budget: patterns are computed inside their slices ([`RuleState::use_slices`]).
    slices: Option<u64>,
}

/// The next order's seeds: the kind of the patterns that found them, and their losses.
pub struct Seeds {
    /// Checking or chasing patterns.
    pub kind: LevelKind,
    /// The losses, by side, sorted, without repeats.
    pub entries: ByColor<Vec<u64>>,
}

/// What the rule phases take, in bitmaps of a table's entries (the plan counts both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleBitmaps {
    /// Kept from the first pattern phase to the end of the build (the [`RuleState`]).
    pub kept: u64,
    /// Kept as well where patterns start warm, not in slices ([`RuleState::use_slices`]): the
    /// dirty marks since the chasing patterns were last computed.
    pub warm: u64,
    /// Taken at once by a pattern phase's sets, memos and lists, in the memory the propagation
    /// passes lend it.
    pub patterns: u64,
}

/// The bitmaps the rule phases take for `material` under `rules`.
pub fn bitmaps(material: Material, rules: Rules) -> RuleBitmaps {
    let pieces = |c: Color| {
        Role::ALL
            .into_iter()
            .filter(|&r| r != Role::King)
            .map(move |r| material.count(c, r) as u64)
    };
    // A set's slots: at most one tracked pair of twins for each side that has one.
    let slots = |rules| match rules {
        Rules::Asian => Color::ALL
            .into_iter()
            .map(|c| if pieces(c).any(|n| n > 1) { 2 } else { 1 })
            .product(),
        _ => 1,
    };
    // A candidate bitmap for each target a side can ever hit (`Candidates::new`): the other
    // king, and under the Asian rules the other side's pieces.
    let targets = |rules| {
        let roles = |c: Color| {
            Role::ALL.into_iter().flat_map(move |r| {
                let n = match (r, rules) {
                    (Role::King, _) => 1,
                    (_, Rules::Asian) => material.count(!c, r) as u64,
                    _ => 0,
                };
                (material.can_hit(c, r)).then_some(n)
            })
        };
        Color::ALL.into_iter().flat_map(roles).sum::<u64>()
    };
    // Dirty and drawn bits, the candidates; under the Asian rules (warm) the dirty bits since
    // the last chasing patterns.
    let (kept, warm) = match rules {
        Rules::None => return RuleBitmaps::default(),
        Rules::Check => (4 + targets(rules), 0),
        Rules::Asian => (4 + targets(rules), 2),
    };
    // A pattern computation holds its set and up to three more of its size at once (the one
    // it starts warm from, the vertices it reached, the memo of its wins; or an exclusion's
    // sets), and lists its losses at 16 bytes a vertex: counted as five bitmaps and four per
    // slot (KRCKR, one slot, peaked at 8.0 bitmaps' worth; KRKNN, two slots, at 7.7).
    RuleBitmaps {
        kept,
        warm,
        patterns: 5 + 4 * slots(rules),
    }
}

impl RuleState {
    /// The state for `graph`'s material under `rules` ≠ none, its pieces numbered by
    /// `numbering` (`Numbering::kings_only` under perpetual check alone), given the entries
    /// with a capture into a drawn position (among the unresolved ones).
    pub fn new(
        graph: &Graph,
        rules: Rules,
        numbering: Numbering,
        drawn: ByColor<Bitmap>,
    ) -> RuleState {
        let n = graph.indexer().size();
        RuleState {
            rules,
            candidates: Candidates::new(n, &numbering, graph.indexer().material()),
            numbering,
            dirty: ByColor::new(|_| Bitmap::summarised(n)),
            drawn,
            full: true,
            previous: Vec::new(),
            since_chase: ByColor::new(|_| {
                Bitmap::summarised(if rules == Rules::Asian { n } else { 0 })
            }),
            exclusions: Vec::new(),
            warm_exclusions: 0,
            slices: None,
        }
    }

    /// Computes each pattern over the whole graph inside its slice
    /// ([`crate::retro::slice`]) of at most `budget` bytes: its sets then take bits per
    /// slice vertex, not per entry, and no pattern starts warm (for a streamed build whose
    /// pattern bitmaps would not fit its budget). The seeds are the same.
    pub fn use_slices(&mut self, budget: u64) {
        self.slices = Some(budget);
        // Only warm starts read them.
        self.since_chase = ByColor::new(|_| Bitmap::summarised(0));
    }

    /// Brings the candidate bitmaps up to date with the unresolved entries `open` (all of
    /// them after [`RuleState::rescan_all`], else those in the dirty marks' groups).
    pub fn refresh(&mut self, open: &ByColor<&Bitmap>, graph: &Graph, progress: &dyn Progress) {
        let full = self.full;
        let spans = ByColor::new(|side| {
            if full {
                self.dirty[side].every_group()
            } else {
                Bitmap::spans_of(&[&self.dirty[side]])
            }
        });
        let visited = |side: Color| spans[side].iter().map(|s| 64 * s.len() as u64).sum::<u64>();
        progress.start(
            &format!("{} rule candidates", graph.indexer().material()),
            visited(Color::Red) + visited(Color::Black),
        );
        for defender in Color::ALL {
            let attacker_open = open[!defender];
            let open = open[defender];
            let all = self.candidates.mask(defender);
            let cands = &self.candidates.bits[defender];
            let (dirty, drawn) = (&self.dirty[defender], &self.drawn[defender]);
            spans[defender].par_iter().for_each(|span| {
                let mut pos_cache = crate::index::Decoder::new(graph.indexer());
                for w in span.clone() {
                    // A candidate whose children did not change stays one while unresolved.
                    let keep = open.word(w);
                    let rescan =
                        if full { u64::MAX } else { dirty.word(w) } & keep & !drawn.word(w);
                    // At most 16 targets: a king and 15 numbered pieces (no allocation here).
                    let mut old = [0u64; 1 + MAX_NUMBERED];
                    for (slot, (_, b)) in cands.iter().enumerate() {
                        old[slot] = b.word(w);
                    }
                    let mut new = old.map(|bits| bits & keep & !rescan);
                    let mut bits = rescan;
                    while bits != 0 {
                        let k = bits.trailing_zeros();
                        bits &= bits - 1;
                        let index = w as u64 * 64 + k as u64;
                        let Some((pos, split)) = pos_cache.decode_split(index, defender) else {
                            continue;
                        };
                        let hits = self.hits(graph, attacker_open, pos, index, split, all);
                        for (slot, (bit, _)) in cands.iter().enumerate() {
                            new[slot] |= ((hits >> bit & 1) as u64) << k;
                        }
                    }
                    // Unchanged words are not written: zeros stored into a page never written
                    // would make the system copy the zero page (see `Bitmap::word_if_noted`).
                    for ((_, b), (word, was)) in cands.iter().zip(new.into_iter().zip(old)) {
                        if word != was {
                            b.store_word(w, word);
                        }
                    }
                }
                progress.advance(64 * span.len() as u64);
            });
        }
        progress.finish();
        self.note_candidates(open, graph, progress);
        if self.full {
            // Without the dirty marks since the last patterns, no warm start is sound.
            self.previous.clear();
        }
        self.full = false;
    }

    /// The graph the patterns run on: the unresolved entries `open`, nothing tracked.
    fn space<'a>(&'a self, open: &ByColor<&'a Bitmap>, graph: &'a Graph) -> Space<'a> {
        Space {
            graph,
            numbering: &self.numbering,
            unresolved: ByColor::new(|side| open[side]),
            tracked: Vec::new(),
            slices: self.slices,
            slice: None,
        }
    }

    /// A target of `owner` by its candidate bit, for people: `king`, or its role and number
    /// (`cannon 0`).
    fn target_name(&self, owner: Color, bit: u32) -> String {
        match self.numbering.role(owner, bit as PieceId) {
            Some(role) if bit != KING_BIT => format!("{role:?} {bit}").to_lowercase(),
            _ => "king".to_string(),
        }
    }

    /// With `--verbose`: per side, the unresolved entries, and per target the candidates and
    /// the unresolved entries they reach by a quiet move (what a pattern over them can hold).
    fn note_candidates(&self, open: &ByColor<&Bitmap>, graph: &Graph, progress: &dyn Progress) {
        if !progress.wants_detail() {
            return;
        }
        let space = self.space(open, graph);
        for defender in Color::ALL {
            let targets: Vec<String> = self.candidates.bits[defender]
                .iter()
                .map(|(bit, b)| {
                    let c = b.count_all();
                    let reached = if c > 0 {
                        space.children_inside(b, defender)
                    } else {
                        0
                    };
                    format!("{} {c} + {reached}", self.target_name(!defender, *bit))
                })
                .collect();
            progress.detail(&format!(
                "{defender:?} to move: {} unresolved; candidates + their children inside, by target: {}",
                open[defender].count_all(),
                targets.join(", ")
            ));
        }
    }

    /// The targets (a mask) that every move of `pos` into an unresolved entry hits, among
    /// `mask`; 0 if there is no such move.
    fn hits(
        &self,
        graph: &Graph,
        open: &Bitmap,
        pos: &crate::position::Position,
        index_of_pos: u64,
        split: Split,
        mask: u32,
    ) -> u32 {
        let hittable = mask;
        let mut mask = mask;
        let mut inside = false;
        // Most moves a defender's refresh looks at go to resolved entries (three quarters of
        // KRCKR's, most of them rook moves that hang it); a king step into an unresolved one
        // that hits nothing settles the entry at once.
        graph.any_child_split(
            pos,
            index_of_pos,
            Some(split),
            Moves::KingFirst,
            |mv, child, index, _| {
                if !open.get(index) {
                    return false;
                }
                inside = true;
                let child = child.position();
                let checks = pos.may_give_check(mv) && child.is_check();
                // (Chases are numbered, so asked, under the Asian rules only.)
                if cfg!(debug_assertions) && (checks || self.rules == Rules::Asian) {
                    let hit = match checks {
                        true => 1 << KING_BIT,
                        false => self.numbering.chased_after(pos, mv, child).0,
                    };
                    debug_assert_eq!(hit & !hittable, 0, "`Material::can_hit` misses a target");
                }
                // Most moves cannot check: no attack on the king to look for.
                mask &= if checks {
                    1 << KING_BIT
                } else if mask & !(1 << KING_BIT) != 0 {
                    self.numbering.chased_after(pos, mv, child).0
                } else {
                    0
                };
                mask == 0
            },
        );
        if inside {
            mask
        } else {
            0
        }
    }

    /// The next refresh computes every unresolved entry's candidacy (its dirty marks are not
    /// known).
    pub fn rescan_all(&mut self) {
        self.full = true;
    }

    /// Computes the patterns that seed the next order among the unresolved entries `open`, and
    /// returns their kind and losses (the seeds, sorted, by side); `None` when no pattern is left, an error when a pattern's
    /// slice is larger than the budget [`RuleState::use_slices`] gave. Patterns the previous
    /// call found start warm from it ([`Warm`]); the dirty marks are consumed.
    pub fn next_seeds(
        &mut self,
        open: &ByColor<&Bitmap>,
        graph: &Graph,
        progress: &dyn Progress,
    ) -> Result<Option<Seeds>, SliceTooLarge> {
        if self.rules == Rules::Asian && self.slices.is_none() {
            for side in Color::ALL {
                self.since_chase[side].or_from(&self.dirty[side]);
            }
        }
        let mut carried = Carried {
            previous: std::mem::take(&mut self.previous),
            found: Vec::new(),
            exclusions: std::mem::take(&mut self.exclusions),
        };
        // Those this call does not compute again are not this call's warm ones.
        carried
            .exclusions
            .iter_mut()
            .for_each(|(_, _, e)| e.warm = false);
        let next = self.find_seeds(open, graph, &mut carried, progress)?;
        let Carried {
            previous,
            mut found,
            exclusions,
        } = carried;
        self.warm_exclusions = exclusions.iter().filter(|(_, _, e)| e.warm).count() as u32;
        self.exclusions = exclusions;
        let chased = found.iter().any(|(_, t, _)| *t != Target::King);
        // Chasing patterns not computed now keep their previous ones for a later warm start.
        found.extend(
            previous
                .into_iter()
                .filter(|(_, t, _)| !chased && *t != Target::King),
        );
        self.previous = found;
        for side in Color::ALL {
            self.dirty[side].clear_all();
            if chased {
                self.since_chase[side].clear_all();
            }
        }
        Ok(next)
    }

    /// [`RuleState::next_seeds`] given what the previous call left ([`Carried`]).
    fn find_seeds(
        &self,
        open: &ByColor<&Bitmap>,
        graph: &Graph,
        carried: &mut Carried,
        progress: &dyn Progress,
    ) -> Result<Option<Seeds>, SliceTooLarge> {
        let Carried {
            previous,
            found,
            exclusions,
        } = carried;
        let note = |attacker: Color, target: Target, p: &EntryPattern, start: Instant| {
            if progress.wants_detail() {
                let (members, bytes) = p.set.footprint();
                progress.detail(&format!(
                    "{:?} forced to hit {attacker:?}'s {}: {members} vertices left \
                     ({} losses), their bitmaps' groups {bytes} bytes, {:.2} s",
                    !attacker,
                    self.target_name(
                        attacker,
                        match target {
                            Target::King => KING_BIT,
                            Target::Piece(p) => u32::from(p),
                        }
                    ),
                    p.set
                        .side(!attacker)
                        .iter()
                        .map(Bitmap::count_all)
                        .sum::<u64>(),
                    start.elapsed().as_secs_f64()
                ));
            }
        };
        let mut warm = |attacker: Color, target: Target| {
            if self.slices.is_some() {
                return None;
            }
            let i = previous
                .iter()
                .position(|(a, t, _)| (*a, *t) == (attacker, target))?;
            let changed = ByColor::new(|side| match target {
                Target::King => &self.dirty[side],
                Target::Piece(_) => &self.since_chase[side],
            });
            Some(Warm {
                previous: previous.swap_remove(i).2.unpack(),
                changed,
            })
        };
        let space = self.space(open, graph);
        let region = Region::Graph(&self.candidates);
        let mut seeds = ByColor::new(|_| Vec::new());
        for attacker in Color::ALL {
            let start = Instant::now();
            let (p, max) =
                space.non_mutual_check(region, attacker, warm(attacker, Target::King))?;
            note(attacker, Target::King, &p, start);
            add_losses(&mut seeds[!attacker], &p);
            found.push((attacker, Target::King, max));
        }
        if seeds.iter().any(|(_, s)| !s.is_empty()) {
            return Ok(Some(Seeds {
                kind: LevelKind::Check,
                entries: seeds,
            }));
        }
        if self.rules != Rules::Asian {
            return Ok(None);
        }
        for attacker in Color::ALL {
            for t in space.targets(attacker) {
                if let Target::Piece(piece) = t {
                    let old = exclusions
                        .iter()
                        .position(|(a, q, _)| (*a, *q) == (attacker, piece))
                        .map(|i| exclusions.swap_remove(i).2);
                    let start = Instant::now();
                    let (p, max, exclusion) = space.chase_pattern(
                        region,
                        attacker,
                        piece,
                        warm(attacker, t),
                        old.as_ref(),
                    )?;
                    note(attacker, t, &p, start);
                    add_losses(&mut seeds[!attacker], &p);
                    found.push((attacker, t, max));
                    exclusions.extend(exclusion.map(|e| (attacker, piece, e)));
                }
            }
        }
        let any = seeds.iter().any(|(_, s)| !s.is_empty());
        Ok(any.then_some(Seeds {
            kind: LevelKind::Chase,
            entries: seeds,
        }))
    }
}

/// What one [`RuleState::find_seeds`] starts from and leaves for the next.
struct Carried {
    /// The previous call's maximum patterns, taken as they start this call's warm.
    previous: Vec<(Color, Target, PackedMarks)>,
    /// This call's maximum patterns.
    found: Vec<(Color, Target, PackedMarks)>,
    /// The chasing patterns' first exclusions, replaced by those computed now.
    exclusions: Vec<(Color, PieceId, Exclusion)>,
}

/// Adds a pattern's losses (its defender's members, every slot) to `seeds` (sorted, without
/// repeats).
fn add_losses(seeds: &mut Vec<u64>, p: &EntryPattern) {
    seeds.extend(p.set.members(!p.attacker).into_iter().map(|v| v.index));
    seeds.par_sort_unstable();
    seeds.dedup();
}
