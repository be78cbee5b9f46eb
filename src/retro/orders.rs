//! The order stage shared by the builder and `verify`: Fang's Algorithm 8 (Fang 2005, Section 5.1) after the order-0
//! propagation. While patterns are left, the losses of the non-mutual checking patterns
//! (Algorithm 4, both sides) — or, if there are none, of the totally non-mutual chasing
//! patterns (Algorithm 5, every piece) — seed order `r + 1` at distance 0, and the propagation
//! passes run again (the builder's); what is never resolved is a draw.
//!
//! Kept in RAM per entry and side: the unresolved filter (the pass framework's), a dirty bit and
//! a drawn-capture bit; the candidates (below) are a sorted set of their own, within a budget
//! ([`super::candidates`]); the patterns' own sets are
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
use super::candidates::{Budget, Candidates, CandidatesTooMany, Fresh, FRESH_BYTES};
use super::graph::{Graph, Moves};
use super::numbering::{Numbering, KING_BIT};
use super::pattern::{EntryPattern, Exclusion, PackedMarks, Region, SliceTooLarge, Space, Warm};
use super::progress::Progress;
use crate::fang::graph::{PieceId, Target};
use crate::fang::{LevelKind, Rules};
use crate::index::Split;
use crate::material::Material;
use crate::piece::{ByColor, Color, Role};
use crate::position::BitIter;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
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
    /// Kept from the first pattern phase to the end of the build (the [`RuleState`]), beside
    /// its candidates (at least [`candidate_floor`]).
    pub kept: u64,
    /// Kept as well where patterns start warm, not in slices ([`RuleState::use_slices`]): the
    /// dirty marks since the chasing patterns were last computed.
    pub warm: u64,
    /// Taken at once by a pattern phase's sets, memos and lists, in the memory the propagation
    /// passes lend it.
    pub patterns: u64,
    /// The candidates' least budget is a byte per this many entries of a side
    /// ([`candidate_floor`]).
    pub entries_per_candidate_byte: u64,
    /// Whether patterns in slices ([`RuleState::use_slices`]) take less than pattern bitmaps:
    /// where one side alone can attack (KCPABKAABB's largest slice held one entry in 440);
    /// not where both can (KRCKR's: one in 29, 50 MB against 37 MB of pattern bitmaps).
    pub slices_pay: bool,
}

/// The least budget of a rule stage's candidates ([`Candidates`], 4 bytes a member) for
/// `entries` entries a side: a byte per `per_byte` of them, 1 MiB at least.
pub fn candidate_floor(entries: u64, per_byte: u64) -> u64 {
    (entries / per_byte.max(1)).max(1 << 20)
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
    // Dirty and drawn bits; under the Asian rules (warm) the dirty bits since the last
    // chasing patterns. (The candidates are a set of their own: [`candidate_floor`].)
    let (kept, warm) = match rules {
        Rules::None => return RuleBitmaps::default(),
        Rules::Check => (4, 0),
        Rules::Asian => (4, 2),
    };
    // A pattern computation holds its set and up to three more of its size at once (the one
    // it starts warm from, the vertices it reached, the memo of its wins; or an exclusion's
    // sets), and lists its losses at 16 bytes a vertex: counted as five bitmaps and four per
    // slot (KRCKR, one slot, peaked at 8.0 bitmaps' worth; KRKNN, two slots, at 7.7).
    // Where both sides can attack, candidates are many: KRCKR's grew to one member in 50
    // entries by order 3 (a byte per 4 entries a side holds one in 32); where one side alone
    // can, few: KCPABKAABB's, one in 780 (a byte per 32 holds one in 256).
    let both_attack = Color::ALL.iter().all(|&c| material.can_hit(c, Role::King));
    RuleBitmaps {
        kept,
        warm,
        patterns: 5 + 4 * slots(rules),
        entries_per_candidate_byte: if both_attack { 4 } else { 32 },
        slices_pay: !both_attack,
    }
}

impl RuleState {
    /// The state for `graph`'s material under `rules` ≠ none, its pieces numbered by
    /// `numbering` (`Numbering::kings_only` under perpetual check alone), given the entries
    /// with a capture into a drawn position (among the unresolved ones); its loss candidates
    /// take at most `candidate_budget`.
    pub fn new(
        graph: &Graph,
        rules: Rules,
        numbering: Numbering,
        drawn: ByColor<Bitmap>,
        candidate_budget: Budget,
    ) -> RuleState {
        let n = graph.indexer().size();
        let material = graph.indexer().material();
        RuleState {
            rules,
            candidates: Candidates::new(n, &numbering, material, candidate_budget),
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

    /// Brings the candidates up to date with the unresolved entries `open` (all of them after
    /// [`RuleState::rescan_all`], else those in the dirty marks' groups); an error if they
    /// would outgrow their budget.
    pub fn refresh(
        &mut self,
        open: &ByColor<&Bitmap>,
        graph: &Graph,
        progress: &dyn Progress,
    ) -> Result<(), CandidatesTooMany> {
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
            let fresh = self.fresh_candidates(open, graph, defender, &spans[defender], progress)?;
            self.candidates.replace(defender, &spans[defender], fresh)?;
        }
        progress.finish();
        self.note_candidates(open, graph, progress);
        if self.full {
            // Without the dirty marks since the last patterns, no warm start is sound.
            self.previous.clear();
        }
        self.full = false;
        Ok(())
    }

    /// `defender`'s candidates in the words of `spans` (one list per span): those whose
    /// children did not change stay candidates while unresolved; the others are computed.
    /// Stops early if their lists would outgrow the candidates' budget.
    fn fresh_candidates(
        &self,
        open: &ByColor<&Bitmap>,
        graph: &Graph,
        defender: Color,
        spans: &[std::ops::Range<usize>],
        progress: &dyn Progress,
    ) -> Result<Vec<Fresh>, CandidatesTooMany> {
        let cands = &self.candidates;
        let (attacker_open, open) = (open[!defender], open[defender]);
        let all = cands.mask(defender);
        let (dirty, drawn) = (&self.dirty[defender], &self.drawn[defender]);
        let fresh_members = AtomicU64::new(0);
        let needed = |members: u64| cands.bytes() + FRESH_BYTES * members;
        let budget = cands.budget().refresh;
        let fresh: Vec<Fresh> = spans
            .par_iter()
            .map(|span| {
                if needed(fresh_members.load(Relaxed)) > budget {
                    return Vec::new();
                }
                let mut pos_cache = crate::index::Decoder::new(graph.indexer());
                let mut out = Vec::new();
                for w in span.clone() {
                    let keep = open.word(w);
                    let rescan =
                        if self.full { u64::MAX } else { dirty.word(w) } & keep & !drawn.word(w);
                    let mut hits = [0u16; 64];
                    let mut present = 0u64;
                    for (index, h) in cands.in_word(defender, w) {
                        let k = index % 64;
                        if (keep & !rescan) >> k & 1 != 0 {
                            hits[k as usize] = h;
                            present |= 1 << k;
                        }
                    }
                    for k in BitIter(u128::from(rescan)) {
                        let index = w as u64 * 64 + k as u64;
                        let Some((pos, split)) = pos_cache.decode_split(index, defender) else {
                            continue;
                        };
                        let labels = self.hits(graph, attacker_open, pos, index, split, all);
                        hits[k as usize] = cands.hits_of(defender, labels);
                        present |= u64::from(labels != 0) << k;
                    }
                    let at = ((w - span.start) * 64) as u16;
                    out.extend(
                        BitIter(u128::from(present)).map(|k| (at + k as u16, hits[k as usize])),
                    );
                }
                progress.advance(64 * span.len() as u64);
                fresh_members.fetch_add(out.len() as u64, Relaxed);
                out
            })
            .collect();
        let needed = needed(fresh_members.into_inner());
        if needed > budget {
            return Err(CandidatesTooMany {
                needed,
                budget,
                during_refresh: true,
            });
        }
        Ok(fresh)
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
            let targets: Vec<String> = self
                .candidates
                .targets(defender)
                .iter()
                .map(|&bit| {
                    let members = self.candidates.of(defender, bit).members();
                    let reached = match members.is_empty() {
                        true => 0,
                        false => space.children_inside(&members, defender),
                    };
                    let c = members.len();
                    format!("{} {c} + {reached}", self.target_name(!defender, bit))
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
                let slice = p
                    .set
                    .slice_len()
                    .map_or(String::new(), |v| format!(" in a slice of {v} vertices"));
                progress.detail(&format!(
                    "{:?} forced to hit {attacker:?}'s {}{slice}: {members} vertices left \
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
