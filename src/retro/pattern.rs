//! Fang's maximum move patterns out of core ("The Nature of Retrograde Analysis for Chinese
//! Chess", Fang 2005, Section 3): Algorithm 1 (checking or chasing indefinitely), Algorithm 3's
//! exclusion, Algorithm 4 (non-mutual) and Algorithm 5 (totally non-mutual), over the builder's
//! entries. The in-memory reference is `crate::fang::pattern`; this port keeps only bits per
//! entry in RAM (Wu and Beal's point) and reads positions, never the chunk store.
//!
//! - A vertex is an entry lifted by the slots of the tracked twins ([`Vx`]; `formats/rules.md`,
//!   "Identical pieces"): a set is one bitmap per side and slot combination ([`Marks`]), its
//!   pages touched only where members are.
//! - The loss candidates of a pattern over the whole graph come from the candidates
//!   (`super::candidates::Candidates`, refreshed once per order); inside a pattern (Algorithm 3) they
//!   are found by scanning its members.
//! - Pruning is frontier driven: a loss that leaves sends its predecessors in the win set a
//!   re-check (does it still have a move into the losses?), a win that leaves removes its
//!   predecessors from the losses. A win is re-checked at most once per move it had into the
//!   losses, so no per-entry counter is kept (in RAM or on disk); the removals are monotone, so
//!   the result is the same for any order and thread count.

use super::bitmap::{Bitmap, Packed};
use super::candidates::{Candidates, TargetCandidates};
use super::graph::{Child, Graph, Moves, Node};
use super::numbering::{Labels, Numbering, KING_BIT};
use super::slice::{Ranks, Slice};
use crate::fang::graph::{PieceId, Target};
use crate::index::{Decoder, Split};
use crate::piece::{ByColor, Color};
use crate::position::{BitIter, Move, Position};
use rayon::prelude::*;
use std::sync::Arc;

/// A vertex of the (possibly lifted) graph: an entry and the slots of the tracked twins (bit
/// `i`: which of the `i`-th tracked pair it follows).
///
/// Packed: 10 bytes instead of 16, as the pattern phases' lists hold one per vertex (a slice's
/// bound, [`SLICE_VERTEX_BYTES`], is mostly two of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C, packed)]
pub struct Vx {
    /// The entry's side to move.
    pub side: Color,
    /// The entry's index.
    pub index: u64,
    /// The slots of the tracked twins: bit `i` says which of the `i`-th tracked pair is
    /// followed.
    pub slot: u8,
}

/// A set of vertices: a bitmap per side and slot combination, over every entry or over a
/// [`Slice`]'s ranks (then a vertex outside the slice is never a member, and adding it does
/// nothing: a pattern inside the slice).
pub struct Marks {
    bits: ByColor<Vec<Bitmap>>,
    slice: Option<Arc<Slice>>,
}

impl Marks {
    /// An empty set over `entries` entries per side and `slots` slot combinations (no page is
    /// touched until a member is added). Its bitmaps keep summaries: listing, clearing,
    /// copying and comparing sets visit only where members were, not every page (reading a
    /// set's untouched pages made most of the rule stage's page faults).
    pub fn new(entries: u64, slots: usize) -> Marks {
        Marks {
            bits: ByColor::new(|_| (0..slots).map(|_| Bitmap::summarised(entries)).collect()),
            slice: None,
        }
    }

    /// An empty set over `slice`'s vertices.
    pub fn in_slice(slice: Arc<Slice>, slots: usize) -> Marks {
        Marks {
            bits: ByColor::new(|side| {
                (0..slots)
                    .map(|_| Bitmap::summarised(slice.sides[side].len()))
                    .collect()
            }),
            slice: Some(slice),
        }
    }

    /// An empty set over the vertices `other` is over, with `slots` slot combinations.
    pub fn like(other: &Marks, slots: usize) -> Marks {
        match &other.slice {
            Some(slice) => Marks::in_slice(slice.clone(), slots),
            None => Marks::new(other.bits[Color::Red][0].words() as u64 * 64, slots),
        }
    }

    /// Is the set over every entry (not a slice)?
    pub fn over_entries(&self) -> bool {
        self.slice.is_none()
    }

    /// Where `v`'s bit is: its index, or its rank in the slice (`None` outside it).
    #[inline]
    fn at(&self, v: Vx) -> Option<u64> {
        match &self.slice {
            None => Some(v.index),
            Some(s) => s.rank(v.side, v.index),
        }
    }

    /// The entries of `side` whose bits `list` holds (as [`list_bits`] gives them), in place.
    fn to_entries(&self, side: Color, list: &mut [Vx]) {
        if let Some(s) = &self.slice {
            list.par_iter_mut()
                .for_each(|v| v.index = s.index(side, v.index));
        }
    }

    /// Is `v` a member?
    #[inline]
    pub fn contains(&self, v: Vx) -> bool {
        self.at(v)
            .is_some_and(|i| self.bits[v.side][v.slot as usize].get(i))
    }

    /// Adds `v`; true if it was not there (false outside the slice).
    #[inline]
    pub fn insert(&self, v: Vx) -> bool {
        self.at(v)
            .is_some_and(|i| self.bits[v.side][v.slot as usize].insert(i))
    }

    /// Removes `v`; true if it was there.
    #[inline]
    pub fn remove(&self, v: Vx) -> bool {
        self.at(v)
            .is_some_and(|i| self.bits[v.side][v.slot as usize].take(i))
    }

    /// The number of members, both sides and every slot: counted, over the groups where
    /// members were. (A shared counter kept by every insertion and removal was a cache line
    /// both threads wrote for each vertex; the count is asked for a few times a pattern.)
    pub fn len(&self) -> u64 {
        self.bits
            .iter()
            .flat_map(|(_, b)| b)
            .map(Bitmap::count_all)
            .sum()
    }

    /// Has the set no member?
    pub fn is_empty(&self) -> bool {
        self.bits.iter().flat_map(|(_, b)| b).all(Bitmap::is_clear)
    }

    /// Removes every member of one side.
    pub fn clear(&self, side: Color) {
        self.bits[side].iter().for_each(Bitmap::clear_all);
    }

    /// The set packed, to be kept from one pattern phase to a later one ([`Packed`]).
    pub fn pack(&self) -> PackedMarks {
        PackedMarks {
            bits: ByColor::new(|side| self.bits[side].iter().map(Bitmap::pack).collect()),
            slice: self.slice.clone(),
        }
    }

    /// The vertices in exactly one of `self` and `other` (sets over the same entries and
    /// slots).
    fn differing(&self, other: &Marks) -> Vec<Vx> {
        let mut out = Vec::new();
        for side in Color::ALL {
            let from = out.len();
            for (slot, (a, b)) in self.bits[side].iter().zip(&other.bits[side]).enumerate() {
                let spans = Bitmap::spans_of(&[a, b]);
                list_bits(
                    &spans,
                    |w| a.word(w) ^ b.word(w),
                    side,
                    slot as u8,
                    &mut out,
                );
            }
            self.to_entries(side, &mut out[from..]);
        }
        out
    }

    /// The vertices of its slice, if it is a set over one.
    pub fn slice_len(&self) -> Option<u64> {
        self.slice.as_ref().map(|s| s.len())
    }

    /// Members, and the bytes of the bitmap groups they are in ([`Bitmap::noted_bytes`]).
    pub fn footprint(&self) -> (u64, u64) {
        let maps = || Color::ALL.into_iter().flat_map(|side| &self.bits[side]);
        (
            maps().map(Bitmap::count_all).sum(),
            maps().map(Bitmap::noted_bytes).sum(),
        )
    }

    /// The slot bitmaps of one side, over entries (a set over a slice has its ranks' bits).
    pub fn side(&self, side: Color) -> &[Bitmap] {
        &self.bits[side]
    }

    /// The members of one side, by slot and index.
    pub fn members(&self, side: Color) -> Vec<Vx> {
        let mut out = Vec::new();
        for (slot, b) in self.bits[side].iter().enumerate() {
            list_bits(
                &Bitmap::spans_of(&[b]),
                |w| b.word(w),
                side,
                slot as u8,
                &mut out,
            );
        }
        self.to_entries(side, &mut out);
        out
    }
}

/// A set of vertices ([`Marks`]) packed.
pub struct PackedMarks {
    bits: ByColor<Vec<Packed>>,
    slice: Option<Arc<Slice>>,
}

impl PackedMarks {
    /// The set again.
    pub fn unpack(&self) -> Marks {
        Marks {
            bits: ByColor::new(|side| self.bits[side].iter().map(Packed::unpack).collect()),
            slice: self.slice.clone(),
        }
    }
}

/// Appends to `out`, in order, the vertices of `side` and `slot` whose bits are set in `word(w)`
/// for the words `w` of `spans`. Counted first, so that `out` grows once, to its size: lists
/// collected as found were copied as they grew, on fresh pages each time (listing a pattern's
/// members made a sixth of a KRCKR build's 430 K page faults).
fn list_bits(
    spans: &[std::ops::Range<usize>],
    word: impl Fn(usize) -> u64 + Sync,
    side: Color,
    slot: u8,
    out: &mut Vec<Vx>,
) {
    let counts: Vec<usize> = spans
        .par_iter()
        .map(|span| span.clone().map(|w| word(w).count_ones() as usize).sum())
        .collect();
    let start = out.len();
    let blank = Vx {
        side,
        index: 0,
        slot,
    };
    out.resize(start + counts.iter().sum::<usize>(), blank);
    // Each span's share of the list, in order.
    let mut rest = &mut out[start..];
    let mut parts = Vec::with_capacity(spans.len());
    for &n in &counts {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(n);
        parts.push(part);
        rest = tail;
    }
    parts
        .into_par_iter()
        .zip(spans.par_iter())
        .for_each(|(part, span)| {
            let found = span
                .clone()
                .flat_map(|w| BitIter(u128::from(word(w))).map(move |i| w as u64 * 64 + i as u64));
            for (v, index) in part.iter_mut().zip(found) {
                v.index = index;
            }
        });
}

/// A lazily computed yes/no per vertex of one side: two bits (known, value) in one word, set
/// together, so a reader never sees one without the other.
struct Memo {
    bits: Bitmap,
    slots: usize,
    slice: Option<Arc<Slice>>,
}

impl Memo {
    /// A memo for the vertices of one side of `set` (every entry, or its slice).
    fn new(set: &Marks, side: Color) -> Memo {
        let slots = set.bits[side].len();
        let positions = set.bits[side][0].words() as u64 * 64;
        Memo {
            bits: Bitmap::summarised(2 * positions * slots as u64),
            slots,
            slice: set.slice.clone(),
        }
    }

    /// Forgets every answer.
    fn clear(&self) {
        self.bits.clear_all();
    }

    /// The remembered answer for `v`, or `f()` computed and remembered.
    fn get_or(&self, v: Vx, f: impl FnOnce() -> bool) -> bool {
        let at = match &self.slice {
            None => Some(v.index),
            Some(s) => s.rank(v.side, v.index),
        };
        // Outside a slice: asked, not remembered (no pattern member is there).
        let Some(at) = at else { return f() };
        let i = 2 * (at as usize * self.slots + v.slot as usize);
        let (w, shift) = (i / 64, i % 64);
        let bits = self.bits.word_if_noted(w) >> shift & 3;
        if bits & 1 != 0 {
            return bits & 2 != 0;
        }
        let answer = f();
        self.bits.or_word(w, (1 | (answer as u64) << 1) << shift);
        answer
    }
}

/// Where a pattern is looked for.
#[derive(Clone, Copy)]
pub enum Region<'a> {
    /// The unresolved entries: its loss candidates come from the candidates.
    Graph(&'a Candidates),
    /// The members of a pattern (Algorithm 3's `G*(DB, G1, q)`), over its tracked slots: only
    /// the slot bits below `mask` are its.
    Sub(&'a Marks, u8),
}

/// A warm start for a pattern over the whole graph, from the one the previous order found for
/// the same attacker and target.
///
/// Why it is sound: let `P` be that maximum pattern and `P'` the one now, and `S` the members
/// of `P'` outside `P`. Call a loss candidate *changed* if its entry's children changed since
/// `P` (its moves inside the unresolved entries and its candidacy may differ). Let `T` be the
/// members of `S` from which no changed member of `S` can be reached inside `P'`. A loss in
/// `T` is unchanged: it was a candidate with the same moves inside, and each of them ends in
/// `P` or (reached from it) in `T`; a win in `T` has a move (moves only disappear as entries
/// resolve) to a loss of `P'`, in `P` or in `T`. So `P ∪ T` was a pattern of the previous
/// graph, and lies in `P`, the greatest one: `T` is empty. Hence `P'` lies in `P` and the
/// backward closure (losses among the candidates, wins among the unresolved entries) of the
/// changed candidates outside `P`'s losses — a changed member of `P` need not start it;
/// pruning from there gives `P'`, as pruning from every candidate would. (Starting the closure
/// from every changed candidate, members of `P` included, reached two thirds of KRCKR's
/// candidates after some orders and cost as much as the pruning.) Against the king, the
/// closure follows only wins in check: the paths inside `P'` run through children of losses by
/// moves inside, all checks, so no other win lies on one (KRCKR's largest closure expanded
/// 567 K vertices instead of 867 K, to the same losses).
///
/// The pruning from that start need not look at every member (`Space::warm_members`). Its
/// wins, as in any maximum pattern, are all the unresolved entries with a move into its losses:
/// `P`'s wins still unresolved, and the predecessors of its new losses. An unchanged loss of `P`
/// has the moves inside it had, all into `P`'s wins, none resolved (a child resolved as a win
/// marks it changed, one resolved as a loss resolves it), so all into the start's wins. An
/// unchanged win of `P` kept its move into `P`'s losses (its child was not resolved as a loss:
/// that would have resolved the win), so it fails only if that loss left the start while
/// unresolved (no longer a candidate). Only the changed members, the new losses and the
/// predecessors of those dropped losses can fail at first; removing the failing ones and what
/// their removal undoes ([`Space::remove`]) leaves the greatest pattern inside the start.
pub struct Warm<'a> {
    /// The previous order's maximum pattern (both sides, one bitmap per slot).
    pub previous: Marks,
    /// Each side's unresolved entries whose children changed since.
    pub changed: ByColor<&'a Bitmap>,
}

/// The first exclusion of a chasing pattern (Algorithm 3 with `q` the defender's king: where
/// the defender forces the attacker to check indefinitely), kept from one computation of the
/// pattern to start the next from (`Space::forced_again`).
pub struct Exclusion {
    /// The maximum pattern it ran inside, both sides.
    region: PackedMarks,
    /// What it found there: the greatest pattern of forced checks inside `region`.
    forced: PackedMarks,
    /// Whether it was computed from the previous one (the rule state clears it when a later
    /// phase keeps it without computing it again).
    pub warm: bool,
}

/// A quiet move of an entry's position: the child entry and the slot bits it flips.
#[derive(Clone, Copy)]
struct Step {
    mv: Move,
    child: u64,
    flips: u8,
}

/// The graph the patterns run on: the entries, the unresolved filter, and the tracked twins.
#[derive(Clone)]
pub struct Space<'a> {
    /// The material's game graph (entries, positions, quiet moves).
    pub graph: &'a Graph,
    /// How the material's pieces are numbered for the labels (checks, chases, swaps).
    pub numbering: &'a Numbering,
    /// The unresolved entries of each side: the vertices of a pattern over the whole graph.
    pub unresolved: ByColor<&'a Bitmap>,
    /// First numbers of the tracked twin pairs (bit `i` of a slot is the `i`-th).
    pub tracked: Vec<PieceId>,
    /// With a budget in bytes: a pattern over the whole graph is computed inside its [`Slice`]
    /// (its sets cost bits per slice vertex, not per entry; no warm start), refused if the
    /// slice needs more ([`SliceTooLarge`]).
    pub slices: Option<u64>,
    /// The slice the patterns over the whole graph are computed in ([`Space::sliced`]).
    pub slice: Option<Arc<Slice>>,
}

/// A pattern's slice needs more memory than the rule stage has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceTooLarge {
    /// Bytes the pattern computation in the slice may take.
    pub needed: u64,
    /// Bytes the rule stage has for it.
    pub budget: u64,
}

/// Bytes a pattern computation may take per slice vertex and slot combination: its sets, memo
/// and exclusions' sets are bits; its lists (losses being pruned, what a removal undoes, an
/// exclusion's members) are a [`Vx`] a vertex, and two may be alive at once; the rank takes 2.
/// (KRCKR forced into slices peaked no higher than with pattern bitmaps; KCPABKAABB's pattern
/// phases, 4.4 M slice vertices, 44–54 MB above the refresh before them.)
const SLICE_VERTEX_BYTES: u64 = 2 * std::mem::size_of::<Vx>() as u64 + 2;

/// A pattern over a table's entries (the in-memory reference's is `fang::Pattern`): `attacker`
/// forces the defender to hit `target` on every move; the set holds its
/// wins (attacker to move) and losses (defender to move).
pub struct EntryPattern {
    /// The side that forces the hits.
    pub attacker: Color,
    /// What the defender is forced to hit: the attacker's king or one of its pieces.
    pub target: Target,
    /// The pattern's vertices: its wins (attacker to move) and losses (defender to move).
    pub set: Marks,
}

impl Space<'_> {
    fn slots(&self) -> usize {
        1 << self.tracked.len()
    }

    fn entries(&self) -> u64 {
        self.graph.indexer().size()
    }

    /// The position of a member of a set or region (a legal entry: no legality test).
    fn position(&self, side: Color, index: u64) -> Option<Position> {
        self.graph.indexer().decode(index, side)
    }

    /// Calls `f` with the quiet moves of `pos` (entry `at`'s position; pseudo-legal, as
    /// [`Graph::any_child_among`] gives them), their children and slot flips, until it returns
    /// true; true if it did.
    fn any_step(
        &self,
        pos: &Position,
        at: u64,
        split: Option<Split>,
        moves: Moves,
        mut f: impl FnMut(Step, &mut Child) -> bool,
    ) -> bool {
        let step = |mv, child: &mut Child, index, mirrored| {
            let mut flips = 0;
            if !self.tracked.is_empty() {
                let child = child.position();
                let swaps = if mirrored {
                    self.numbering.swaps(pos, mv, &child.mirror(), true)
                } else {
                    self.numbering.swaps(pos, mv, child, false)
                };
                for (i, &p) in self.tracked.iter().enumerate() {
                    flips |= (swaps.contains(p) as u8) << i;
                }
            }
            f(
                Step {
                    mv,
                    child: index,
                    flips,
                },
                child,
            )
        };
        self.graph.any_child_split(pos, at, split, moves, step)
    }

    /// Does a move with `labels` from slot `slot` hit `target`?
    fn hits(&self, labels: &Labels, target: Target, slot: u8) -> bool {
        match target {
            Target::King => labels.check,
            Target::Piece(_) => labels
                .chases
                .contains(self.target_bit(target, slot) as PieceId),
        }
    }

    fn inside(&self, region: Region, v: Vx) -> bool {
        match region {
            Region::Graph(_) => self.unresolved[v.side].get(v.index),
            Region::Sub(m, mask) => m.contains(Vx {
                slot: v.slot & mask,
                ..v
            }),
        }
    }

    /// Calls `f` with the vertices `(w, σ)` inside `region` that have a move into `v` (a
    /// vertex may come more than once: callers' set operations make repeats harmless).
    fn each_predecessor(&self, region: Region, v: Vx, mut f: impl FnMut(Vx)) {
        let side = !v.side;
        let Some(child) = self.position(v.side, v.index) else {
            return;
        };
        if self.tracked.is_empty() {
            let emitted = self.graph.predecessors(&child, v.index, |n| {
                let u = Vx {
                    side,
                    index: n.index,
                    slot: 0,
                };
                if self.inside(region, u) {
                    f(u);
                }
            });
            emitted.expect("a retro move keeps the material");
            return;
        }
        // Tracked: a parent's slot is found from its moves into `v` (their swaps).
        let mut parents = Vec::new();
        self.graph
            .predecessors(&child, v.index, |n| parents.push(n.index))
            .expect("a retro move keeps the material");
        parents.sort_unstable();
        parents.dedup();
        for w in parents {
            let Some(pos) = self.graph.position(Node { side, index: w }) else {
                continue;
            };
            let mut seen = 0u8;
            self.any_step(&pos, w, None, Moves::Quiet, |s, _| {
                let u = Vx {
                    side,
                    index: w,
                    slot: v.slot ^ s.flips,
                };
                if s.child == v.index && seen & 1 << u.slot == 0 && self.inside(region, u) {
                    seen |= 1 << u.slot;
                    f(u);
                }
                false
            });
        }
    }

    /// The vertices inside `region` with a move into one of `from` that `admit` accepts (it
    /// notes them as seen, and accepts only those not seen before): one step of a backward
    /// closure.
    fn unseen_predecessors(
        &self,
        region: Region,
        from: &[Vx],
        admit: impl Fn(Vx) -> bool + Sync,
    ) -> Vec<Vx> {
        from.par_iter()
            .flat_map_iter(|&x| {
                let mut next = Vec::new();
                self.each_predecessor(region, x, |w| {
                    if admit(w) {
                        next.push(w);
                    }
                });
                next
            })
            .collect()
    }

    /// Is the defender's vertex `u` a loss candidate of a pattern inside a sub-region: every
    /// move inside hits `target`, and one does?
    fn sub_candidate(&self, region: Region, u: Vx, target: Target) -> bool {
        let Some(pos) = self.position(u.side, u.index) else {
            return false;
        };
        // Against the king, first a move inside that may check, generated apart at a fraction of
        // the cost: KRCKR's exclusions of mutual checks ask every win of a checking pattern, and
        // 1.27 M of the 2.0 M asked have none (their exclusions took 0.27-0.29 s, not 0.32).
        if target == Target::King
            && !self.any_step(&pos, u.index, None, Moves::Checks, |s, _| {
                self.inside(
                    region,
                    Vx {
                        side: !u.side,
                        index: s.child,
                        slot: u.slot ^ s.flips,
                    },
                )
            })
        {
            return false;
        }
        let mut inside = 0;
        let escapes = self.any_step(&pos, u.index, None, Moves::Quiet, |s, child| {
            let v = Vx {
                side: !u.side,
                index: s.child,
                slot: u.slot ^ s.flips,
            };
            if !self.inside(region, v) {
                return false;
            }
            inside += 1;
            let child = child.position();
            let hit = match target {
                // A check needs no chase computed (the costlier label).
                Target::King => pos.may_give_check(s.mv) && child.is_check(),
                Target::Piece(_) => {
                    let labels = self.numbering.labels_after(&pos, s.mv, child);
                    self.hits(&labels, target, u.slot)
                }
            };
            !hit
        });
        !escapes && inside > 0
    }

    /// Does `u` have a move among `moves` to a vertex `v` (on the other side) with `f(v)`?
    /// Narrower than all quiet moves where the caller knows the others cannot have `f`: a
    /// loss of a pattern against the king enters its region only by checking; a child of one
    /// is in check.
    fn any_child(&self, u: Vx, moves: Moves, mut f: impl FnMut(Vx) -> bool) -> bool {
        let Some(pos) = self.position(u.side, u.index) else {
            return false;
        };
        self.any_step(&pos, u.index, None, moves, |s, _| {
            f(Vx {
                side: !u.side,
                index: s.child,
                slot: u.slot ^ s.flips,
            })
        })
    }

    /// Does `u` have a move to a vertex of `set` on the other side (or, with `outside`, to a
    /// vertex inside `region` that is not in `set`)? `moves` as for [`Space::any_child`].
    fn moves_to(&self, u: Vx, set: &Marks, region: Region, outside: bool, moves: Moves) -> bool {
        self.any_child(u, moves, |v| {
            if outside {
                self.inside(region, v) && !set.contains(v)
            } else {
                set.contains(v)
            }
        })
    }

    /// The candidate bit of `target` for a vertex in slot `slot`.
    fn target_bit(&self, target: Target, slot: u8) -> u32 {
        match target {
            Target::King => KING_BIT,
            Target::Piece(p) => match self.tracked.iter().position(|&t| t == p) {
                Some(i) => (p + (slot >> i & 1)) as u32,
                None => p as u32,
            },
        }
    }

    /// The backward closure of the changed candidates outside the previous pattern's losses
    /// ([`Warm`]): with those losses, the defender's vertices a warm-started pattern can have.
    /// `None` when those changed candidates are so many that starting from every candidate
    /// costs less.
    fn warm_start(
        &self,
        candidates: &Candidates,
        attacker: Color,
        target: Target,
        warm: &Warm,
    ) -> Option<Marks> {
        let defender = !attacker;
        let is_candidate = |v: Vx| {
            candidates
                .of(defender, self.target_bit(target, v.slot))
                .contains(v.index)
        };
        let region = Region::Graph(candidates);
        let changed = warm.changed[defender];
        let spans = Bitmap::spans_of(&[changed]);
        // Changed candidates outside the previous losses, by slot and word: those inside it are
        // in the start already, and only the others can bring new members ([`Warm`]).
        let slots: Vec<(TargetCandidates, &Bitmap)> = (0..self.slots() as u8)
            .map(|slot| {
                let cand = candidates.of(defender, self.target_bit(target, slot));
                (cand, &warm.previous.side(defender)[slot as usize])
            })
            .collect();
        let start_bits = |slot: u8, w: usize| {
            let (cand, previous) = slots[slot as usize];
            cand.word(w) & changed.word(w) & !previous.word(w)
        };
        // The closure expands every vertex it reaches, about as costly per vertex as pruning;
        // KRCKR's check patterns: warm was faster at 13 % and 29 % changed, even at 26 % and
        // 39 %, slower at 55 % and 61 % (0.53 s against 0.31 s cold). Counted before anything
        // is built: KRCKR's first cold orders decide it at once.
        let all: u64 = slots.iter().map(|(cand, _)| cand.count()).sum();
        let starting: u64 = (0..self.slots() as u8)
            .map(|slot| {
                spans
                    .par_iter()
                    .flat_map_iter(|span| span.clone())
                    .map(|w| start_bits(slot, w).count_ones() as u64)
                    .sum::<u64>()
            })
            .sum();
        if starting * 3 > all {
            return None;
        }
        let reached = Marks::new(self.entries(), self.slots());
        let mut frontier: Vec<Vx> = Vec::new();
        for slot in 0..self.slots() as u8 {
            let found: Vec<Vx> = spans
                .par_iter()
                .flat_map_iter(|span| span.clone())
                .flat_map_iter(|w| {
                    BitIter(u128::from(start_bits(slot, w))).map(move |i| Vx {
                        side: defender,
                        index: w as u64 * 64 + i as u64,
                        slot,
                    })
                })
                .filter(|&v| reached.insert(v))
                .collect();
            frontier.extend(found);
        }
        // Against the king, the wins that matter are children of losses, in check (a loss's
        // moves inside all check): the others are noted as seen but not followed further.
        let in_check = |w: Vx| {
            self.position(w.side, w.index)
                .is_some_and(|pos| pos.is_check())
        };
        let admit = |w: Vx| {
            if w.side == attacker {
                reached.insert(w) && (target != Target::King || in_check(w))
            } else {
                is_candidate(w) && reached.insert(w)
            }
        };
        while !frontier.is_empty() {
            frontier = self.unseen_predecessors(region, &frontier, admit);
        }
        Some(reached)
    }

    /// Fills `p` (empty) with the losses of a warm-started pattern ([`Warm`]): the previous
    /// pattern's and those `reached`, among the candidates. If most of them were the previous
    /// pattern's, also with its wins (the unresolved entries with a move into those losses),
    /// and returns the members that may fail the pattern's conditions at first, the only ones
    /// that can; otherwise `None`: pruning the losses costs less than following each new
    /// one's predecessors (KRCKR's checking patterns are new at every order: the previous
    /// one's losses all became seeds).
    fn warm_members(
        &self,
        candidates: &Candidates,
        p: &EntryPattern,
        warm: &Warm,
        reached: &Marks,
    ) -> Option<Vec<Vx>> {
        let (attacker, defender) = (p.attacker, !p.attacker);
        let region = Region::Graph(candidates);
        // By slot: new losses, dropped losses still unresolved, and changed members.
        let (mut new, mut dropped, mut suspects) = (Vec::new(), Vec::new(), Vec::new());
        for slot in 0..self.slots() {
            let cand = candidates.of(defender, self.target_bit(p.target, slot as u8));
            let (old_l, more) = (
                &warm.previous.side(defender)[slot],
                &reached.side(defender)[slot],
            );
            let old_w = &warm.previous.side(attacker)[slot];
            let losses = &p.set.side(defender)[slot];
            let vx = |side, w: usize, bits: u64| {
                BitIter(u128::from(bits)).map(move |i| Vx {
                    side,
                    index: w as u64 * 64 + i as u64,
                    slot: slot as u8,
                })
            };
            let lists: Vec<(Vec<Vx>, Vec<Vx>, Vec<Vx>)> = Bitmap::spans_of(&[old_l, more, old_w])
                .into_par_iter()
                .map(|span| {
                    let (mut n, mut d, mut c) = (Vec::new(), Vec::new(), Vec::new());
                    for w in span {
                        let l = cand.word(w) & (old_l.word(w) | more.word(w));
                        losses.store_word(w, l);
                        n.extend(vx(defender, w, l & !old_l.word(w)));
                        let open = self.unresolved[defender].word(w);
                        d.extend(vx(defender, w, old_l.word(w) & !l & open));
                        let changed = warm.changed[defender].word(w);
                        c.extend(vx(defender, w, l & old_l.word(w) & changed));
                        let win = old_w.word(w) & self.unresolved[attacker].word(w);
                        c.extend(vx(attacker, w, win & warm.changed[attacker].word(w)));
                    }
                    (n, d, c)
                })
                .collect();
            for (n, d, c) in lists {
                new.extend(n);
                dropped.extend(d);
                suspects.extend(c);
            }
        }
        if 2 * new.len() as u64 > p.set.len() {
            return None;
        }
        for slot in 0..self.slots() {
            let (old_w, wins) = (
                &warm.previous.side(attacker)[slot],
                &p.set.side(attacker)[slot],
            );
            Bitmap::spans_of(&[old_w])
                .into_par_iter()
                .flat_map_iter(|span| span)
                .for_each(|w| {
                    wins.store_word(w, old_w.word(w) & self.unresolved[attacker].word(w))
                });
        }
        new.par_iter().for_each(|&u| {
            self.each_predecessor(region, u, |w| {
                p.set.insert(w);
            })
        });
        suspects.extend(new);
        suspects.extend(self.unseen_predecessors(region, &dropped, |w| p.set.contains(w)));
        suspects.sort_unstable();
        suspects.dedup();
        let loss_moves = match p.target {
            Target::King => Moves::Checks,
            Target::Piece(_) => Moves::Quiet,
        };
        let failing = suspects
            .into_par_iter()
            .filter(|&v| {
                if v.side == defender {
                    self.moves_to(v, &p.set, region, true, loss_moves)
                } else {
                    !self.moves_to(v, &p.set, region, false, Moves::Quiet)
                }
            })
            .collect();
        Some(failing)
    }

    /// Algorithm 1: the maximum pattern in which `attacker` forces the defender to hit `target`
    /// on every move, inside `region`; over the whole graph, warm-started if `warm` is given.
    pub fn max_pattern(
        &self,
        region: Region,
        attacker: Color,
        target: Target,
        warm: Option<Warm>,
    ) -> EntryPattern {
        let defender = !attacker;
        let set = match region {
            Region::Graph(_) => match &self.slice {
                Some(slice) => Marks::in_slice(slice.clone(), self.slots()),
                None => Marks::new(self.entries(), self.slots()),
            },
            Region::Sub(m, _) => Marks::like(m, self.slots()),
        };
        let pattern = EntryPattern {
            attacker,
            target,
            set,
        };
        let set = &pattern.set;
        let mut was_warm = false;
        match region {
            Region::Graph(candidates) => {
                let start = warm.filter(|_| self.slice.is_none()).and_then(|w| {
                    let reached = self.warm_start(candidates, attacker, target, &w)?;
                    Some((w, reached))
                });
                if let Some((w, reached)) = start {
                    was_warm = true;
                    match self.warm_members(candidates, &pattern, &w, &reached) {
                        Some(failing) => self.remove(&pattern, region, failing),
                        None => self.prune(&pattern, region),
                    }
                } else {
                    for slot in 0..self.slots() as u8 {
                        let cand = candidates.of(defender, self.target_bit(target, slot));
                        cand.members().par_chunks(4096).for_each(|part| {
                            for &index in part {
                                set.insert(Vx {
                                    side: defender,
                                    index,
                                    slot,
                                });
                            }
                        });
                    }
                    self.prune(&pattern, region);
                }
            }
            Region::Sub(m, _) => {
                let lifted = self.lift(m, defender);
                lifted.par_iter().for_each(|&u| {
                    if self.sub_candidate(region, u, target) {
                        set.insert(u);
                    }
                });
                self.prune(&pattern, region);
            }
        }
        debug_assert!(
            !was_warm
                || pattern
                    .set
                    .differing(&self.max_pattern(region, attacker, target, None).set)
                    .is_empty(),
            "a warm maximum pattern agrees with a cold one"
        );
        pattern
    }

    /// Prunes `p` to the greatest pattern inside its losses (its wins are ignored and found
    /// again): Algorithm 1's fixed point from a start set.
    fn prune(&self, p: &EntryPattern, region: Region) {
        let defender = !p.attacker;
        p.set.clear(p.attacker);
        let mut losses = p.set.members(defender);
        // First rounds, while they remove much: a loss goes if one of its children inside is
        // not a win (has no move into the losses); wins are asked for lazily, only for the
        // children the losses reach, and remembered for the round (most candidates go at the
        // first child asked).
        // One memo for every round, cleared where it was written: a fresh one per round cost
        // its pages' faults and zeroing each time (the rounds' page faults were a tenth of
        // KRCKR's pruning).
        let memo = Memo::new(&p.set, p.attacker);
        // Against the king, a loss enters the region only by checking (its other moves are not
        // looked at), and its children there are in check (only their evasions are).
        let (loss_moves, win_moves) = if p.target == Target::King {
            (Moves::Checks, Moves::Evasions)
        } else {
            (Moves::Quiet, Moves::Quiet)
        };
        loop {
            memo.clear();
            let is_win =
                |c: Vx| memo.get_or(c, || self.moves_to(c, &p.set, region, false, win_moves));
            let total = losses.len();
            // The losses come sorted: a decoder per task keeps what consecutive ones share.
            let fails: Vec<bool> = losses
                .par_iter()
                .map_init(
                    || Decoder::new(self.graph.indexer()),
                    |decoder, &u| {
                        decoder
                            .decode_split(u.index, u.side)
                            .is_some_and(|(pos, split)| {
                                self.any_step(pos, u.index, Some(split), loss_moves, |s, _| {
                                    let v = Vx {
                                        side: !u.side,
                                        index: s.child,
                                        slot: u.slot ^ s.flips,
                                    };
                                    self.inside(region, v) && !is_win(v)
                                })
                            })
                    },
                )
                .collect();
            // The losses that fail leave the set, and the list in place (new lists cost page
            // faults: most of the first round's losses fail).
            losses.par_iter().zip(&fails).for_each(|(&u, &fails)| {
                if fails {
                    p.set.remove(u);
                }
            });
            let mut failed = fails.iter();
            losses.retain(|_| !failed.next().is_some_and(|&f| f));
            if (total - losses.len()) * 8 <= total {
                break;
            }
        }
        // Then the wins as a set (the losses' predecessors inside), and the removals followed
        // one by one.
        losses.par_iter().for_each(|&u| {
            self.each_predecessor(region, u, |w| {
                p.set.insert(w);
            })
        });
        let unfit: Vec<Vx> = losses
            .into_par_iter()
            .filter(|&u| self.moves_to(u, &p.set, region, true, loss_moves))
            .collect();
        if !prune_broken() {
            self.remove(p, region, unfit);
        }
    }

    /// The members of one side of a sub-region's pattern, lifted to this space's slots.
    fn lift(&self, m: &Marks, side: Color) -> Vec<Vx> {
        let outer = m.side(side).len();
        let mut out = Vec::new();
        for v in m.members(side) {
            for extra in 0..(self.slots() / outer) as u8 {
                out.push(Vx {
                    slot: v.slot | (extra * outer as u8),
                    ..v
                });
            }
        }
        out
    }

    /// Removes `gone` from the pattern and whatever then no longer qualifies (Algorithm 3's
    /// pruning): a loss with a move to a removed win, a win without a move left into the
    /// losses.
    pub fn remove(&self, p: &EntryPattern, region: Region, gone: Vec<Vx>) {
        let before = p.set.len();
        let mut frontier: Vec<Vx> = gone.into_iter().filter(|&v| p.set.remove(v)).collect();
        if 2 * frontier.len() as u64 > before {
            // Most of the pattern goes (an exclusion, typically): pruning what is left costs
            // less than following every removal back, and gives the same, the greatest
            // pattern inside what is left (pruning needs no more than its start set).
            self.prune(p, region);
            return;
        }
        while !frontier.is_empty() {
            frontier = frontier
                .par_iter()
                .flat_map_iter(|&x| {
                    let was_loss = x.side != p.attacker;
                    let mut left = Vec::new();
                    self.each_predecessor(region, x, |w| {
                        let gone = if was_loss {
                            p.set.contains(w)
                                && !self.moves_to(w, &p.set, region, false, Moves::Quiet)
                                && p.set.remove(w)
                        } else {
                            p.set.remove(w)
                        };
                        if gone {
                            left.push(w);
                        }
                    });
                    left
                })
                .collect();
        }
    }

    /// Algorithm 3: removes from `p` the positions where its defender can force its attacker to
    /// hit `q` (a piece of the defender, or its king) indefinitely inside it. True if anything
    /// was removed. A `q` with a twin is tracked (both identities at once).
    pub fn exclude(&self, p: &EntryPattern, region: Region, q: Target) -> bool {
        let mut inner = self.clone();
        if let Target::Piece(piece) = q {
            if self.numbering.twin(piece).is_some() && !self.tracked.contains(&piece) {
                inner.tracked.push(piece);
            }
        }
        let mask = (self.slots() - 1) as u8;
        let forced = inner.max_pattern(Region::Sub(&p.set, mask), !p.attacker, q, None);
        self.remove_forced(p, region, &forced.set)
    }

    /// Removes from `p` the members of `forced` (a pattern inside it, over this space's slots
    /// or more) and whatever then no longer qualifies; true if there were any.
    fn remove_forced(&self, p: &EntryPattern, region: Region, forced: &Marks) -> bool {
        if forced.is_empty() {
            return false;
        }
        let mask = (self.slots() - 1) as u8;
        let mut gone: Vec<Vx> = Color::ALL
            .into_iter()
            .flat_map(|side| forced.members(side))
            .map(|v| Vx {
                slot: v.slot & mask,
                ..v
            })
            .collect();
        gone.sort_unstable();
        gone.dedup();
        self.remove(p, region, gone);
        true
    }

    /// Algorithm 3's first step for `p` (a maximum chasing pattern) and the defender's king,
    /// started from the previous computation's: the greatest pattern inside `p` in which `p`'s
    /// defender forces `p`'s attacker to check. `None` when the patterns differ too much for a
    /// warm start to pay.
    ///
    /// Why it is sound: let `F` be the old result, inside the old region `R`, and `F'` the new
    /// one, inside `p` (`R'`). Call a vertex changed if it is in `R'` but not in `R`, or has a
    /// move to a vertex in one of them only: every other vertex of `R'` has the same moves
    /// inside as before, so the same candidacy. The part of `F'` from which no changed vertex
    /// can be reached inside `F'` is then, with `F`, a pattern inside `R`, so it lies in `F`.
    /// Hence `F'` lies in `S` = (`F` ∩ `R'`) ∪ the changed vertices' backward closure inside
    /// `R'`, and in `S` only members of that closure can fail the conditions at first (a
    /// member of `F` outside it keeps its moves, and their ends stay in `S`): removing those
    /// that fail, and what their removal undoes, leaves the greatest pattern inside `S`, `F'`.
    fn forced_again(&self, p: &EntryPattern, old: &Exclusion) -> Option<EntryPattern> {
        // Sets over two slices do not line up word by word.
        if !p.set.over_entries() || old.region.slice.is_some() {
            return None;
        }
        let mask = (self.slots() - 1) as u8;
        let sub = Region::Sub(&p.set, mask);
        let moved = p.set.differing(&old.region.unpack());
        if moved.len() as u64 * 4 > p.set.len() {
            return None;
        }
        // The changed vertices: new members, and members with a move to a vertex whose
        // membership changed.
        let closure = Marks::like(&p.set, self.slots());
        let mut frontier: Vec<Vx> = moved
            .iter()
            .copied()
            .filter(|&v| p.set.contains(v) && closure.insert(v))
            .collect();
        frontier.extend(self.unseen_predecessors(sub, &moved, |w| closure.insert(w)));
        let mut changed = frontier.clone();
        while !frontier.is_empty() {
            frontier = self.unseen_predecessors(sub, &frontier, |w| closure.insert(w));
            changed.extend_from_slice(&frontier);
        }
        // S, then what fails in it at first: only closure members can.
        let old_forced = old.forced.unpack();
        let set = Marks::like(&p.set, self.slots());
        for side in Color::ALL {
            for slot in 0..self.slots() {
                let (f, r, c) = (
                    &old_forced.bits[side][slot],
                    &p.set.bits[side][slot],
                    &closure.bits[side][slot],
                );
                Bitmap::spans_of(&[f, c])
                    .into_par_iter()
                    .flat_map_iter(|span| span)
                    .for_each(|w| {
                        let bits = (f.word(w) & r.word(w)) | c.word(w);
                        if bits != 0 {
                            set.bits[side][slot].store_word(w, bits);
                        }
                    });
            }
        }
        let forced = EntryPattern {
            attacker: !p.attacker,
            target: Target::King,
            set,
        };
        let failing: Vec<Vx> = changed
            .into_par_iter()
            .filter(|&v| {
                if v.side == p.attacker {
                    // A loss: forced to check on every move inside, all of them into S.
                    !self.sub_candidate(sub, v, Target::King)
                        || self.moves_to(v, &forced.set, sub, true, Moves::Quiet)
                } else {
                    // A win: a move into S's losses.
                    !self.moves_to(v, &forced.set, sub, false, Moves::Quiet)
                }
            })
            .collect();
        self.remove(&forced, sub, failing);
        Some(forced)
    }

    /// How many unresolved entries of `!side` the members of `from` (of `side`) reach by a
    /// quiet move: with `from` a target's candidates, the wins its patterns can have (the rule
    /// stage's slice beside the candidates, `docs/design-rule-stage-out-of-core.md`).
    pub fn children_inside(&self, from: &[u64], side: Color) -> u64 {
        self.open_children(from, side).len() as u64
    }

    /// The unresolved entries of `!side` that `from` (entries of `side`, sorted) reach by a
    /// quiet move, sorted, without repeats; found in index order by parts of `from`.
    fn open_children(&self, from: &[u64], side: Color) -> Vec<u64> {
        let mut out: Vec<u64> = from
            .par_chunks(4096)
            .flat_map_iter(|part| {
                let mut decoder = Decoder::new(self.graph.indexer());
                let mut out = Vec::new();
                for &index in part {
                    let Some((pos, split)) = decoder.decode_split(index, side) else {
                        continue;
                    };
                    self.any_step(pos, index, Some(split), Moves::Quiet, |s, _| {
                        if self.unresolved[!side].get(s.child) {
                            out.push(s.child);
                        }
                        false
                    });
                }
                // Repeats go early: a part's children are its candidates' neighbours.
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        out.par_sort_unstable();
        out.dedup();
        out
    }

    /// This space, with the slice its patterns over the whole graph in which `attacker` forces
    /// the defender to hit `target` are computed in, if it computes them in slices.
    pub fn sliced(
        &self,
        region: Region,
        attacker: Color,
        target: Target,
    ) -> Result<Space<'_>, SliceTooLarge> {
        let mut space = self.clone();
        let (Some(budget), Region::Graph(candidates)) = (self.slices, region) else {
            return Ok(space);
        };
        let slice = self.slice(candidates, attacker, target);
        // An exclusion inside tracks the defender's twins, if it has a pair: twice the slots.
        let defender_twins = self
            .numbering
            .pieces(!attacker)
            .iter()
            .any(|p| self.numbering.twin(p).is_some());
        let slots = self.slots() as u64 * if defender_twins { 2 } else { 1 };
        let needed = slice.len() * slots * SLICE_VERTEX_BYTES;
        if needed > budget {
            return Err(SliceTooLarge { needed, budget });
        }
        space.slice = Some(Arc::new(slice));
        Ok(space)
    }

    /// The slice of a pattern over the whole graph in which `attacker` forces the defender to
    /// hit `target`: the defender's candidates for it (any slot), and the unresolved entries
    /// they reach by a quiet move.
    fn slice(&self, candidates: &Candidates, attacker: Color, target: Target) -> Slice {
        let defender = !attacker;
        let mut bits: Vec<u32> = (0..self.slots() as u8)
            .map(|slot| self.target_bit(target, slot))
            .collect();
        bits.dedup();
        let losses = candidates.hitting(defender, &bits);
        let wins = self.open_children(&losses, defender);
        let n = self.entries();
        Slice {
            sides: ByColor::new(|side| {
                Ranks::new(if side == defender { &losses } else { &wins }, n)
            }),
        }
    }

    /// The targets of one side a pattern is checked against: its king and its pieces, one of
    /// each pair of twins (tracked, it stands for both).
    pub fn targets(&self, owner: Color) -> Vec<Target> {
        let pieces = self.numbering.pieces(owner);
        std::iter::once(Target::King)
            .chain(
                pieces
                    .iter()
                    .filter(|&p| self.numbering.twin(p).is_none_or(|t| p < t))
                    .map(Target::Piece),
            )
            .collect()
    }

    /// Algorithm 4 for checking: `attacker` forces perpetual check, and the defender cannot
    /// force it to check back indefinitely inside. Also returns the maximum pattern it started
    /// from, packed (the next order's [`Warm`] start).
    pub fn non_mutual_check(
        &self,
        region: Region,
        attacker: Color,
        warm: Option<Warm>,
    ) -> Result<(EntryPattern, PackedMarks), SliceTooLarge> {
        let space = self.sliced(region, attacker, Target::King)?;
        let p = space.max_pattern(region, attacker, Target::King, warm);
        let max = p.set.pack();
        while !p.set.is_empty() && space.exclude(&p, region, Target::King) {}
        Ok((p, max))
    }

    /// Algorithm 5 for `attacker`'s piece `piece` (tracked if it has a twin): the maximum
    /// pattern of totally non-mutual chasing, pruned against every target of the defender until
    /// none prunes (Lemma 10: the order does not matter). Also returns the maximum pattern it
    /// started from, packed (the next order's [`Warm`] start).
    ///
    /// The first exclusion, against the defender's king, starts from `previous` (the one the
    /// last computation for this piece returned) if given, and this one's is returned for the
    /// next (`Space::forced_again`): KRCKR's chasing patterns repeat, each time with a first
    /// exclusion removing most of the pattern.
    pub fn chase_pattern(
        &self,
        region: Region,
        attacker: Color,
        piece: PieceId,
        warm: Option<Warm>,
        previous: Option<&Exclusion>,
    ) -> Result<(EntryPattern, PackedMarks, Option<Exclusion>), SliceTooLarge> {
        let mut space = self.clone();
        if self.numbering.twin(piece).is_some() {
            space.tracked = vec![piece];
        }
        let space = space.sliced(region, attacker, Target::Piece(piece))?;
        let p = space.max_pattern(region, attacker, Target::Piece(piece), warm);
        let max = p.set.pack();
        let exclusion = (!p.set.is_empty()).then(|| space.first_exclusion(&p, region, previous));
        let defender_targets = space.targets(!attacker);
        loop {
            let mut pruned = false;
            for &q in &defender_targets {
                if p.set.is_empty() {
                    return Ok((p, max, exclusion));
                }
                pruned |= space.exclude(&p, region, q);
            }
            if !pruned {
                return Ok((p, max, exclusion));
            }
        }
    }

    /// Excludes from the maximum chasing pattern `p` the defender's forced checks (Algorithm
    /// 3 against its king), warm from `previous` where that pays; returns what the next
    /// computation starts from.
    fn first_exclusion(
        &self,
        p: &EntryPattern,
        region: Region,
        previous: Option<&Exclusion>,
    ) -> Exclusion {
        let inside = p.set.pack();
        let mask = (self.slots() - 1) as u8;
        let cold = || self.max_pattern(Region::Sub(&p.set, mask), !p.attacker, Target::King, None);
        let again = previous.and_then(|old| self.forced_again(p, old));
        let warm = again.is_some();
        let forced = again.unwrap_or_else(cold);
        debug_assert!(
            forced.set.differing(&cold().set).is_empty(),
            "a warm exclusion agrees with a cold one"
        );
        self.remove_forced(p, region, &forced.set);
        Exclusion {
            region: inside,
            forced: forced.set.pack(),
            warm,
        }
    }
}

/// A test hook: with `XQTB_TEST_BREAK_PRUNE` set, a pattern's pruning stops before its last
/// step (the losses with a move inside to a position that is no win stay), a deliberately
/// broken prune that `verify`, which shares no code
/// with this module, must catch (`tests/engine/asian_rules.rs`).
fn prune_broken() -> bool {
    std::env::var_os("XQTB_TEST_BREAK_PRUNE").is_some()
}
