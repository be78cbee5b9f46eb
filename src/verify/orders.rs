//! Fang 5.4 for the orders, by code that shares nothing with the builder's pattern passes: every
//! order's seeds are re-derived with the in-memory reference algorithms of [`crate::fang`]
//! (Algorithms 1, 3, 4 and 5 over a generic game graph), run on a slice of the table small
//! enough to build explicitly (`formats/rules.md` §8).
//!
//! With the positions of orders below `r` known and the rest unknown ("open"), the seeds of
//! order `r` are the losses of the maximum non-mutual checking patterns of both sides (Algorithm
//! 4), or, if there are none, of the totally non-mutual chasing patterns of every piece
//! (Algorithm 5). A pattern's losses are open positions of its defender whose every move into
//! an open position hits the target and which have no capture into a drawn position (the loss
//! candidates, found here from each move's labels, forward); its wins are open positions of the
//! attacker. So the pattern lies within the slice made of the loss candidates and their open
//! children, with every move between them: the reference algorithms run on that slice as an
//! [`ExplicitGraph`] and give the same losses as on the whole table, since a defender's move
//! outside the slice never leaves a loss candidate's, and an attacker's position reached from
//! no candidate has no move a pattern's losses depend on.

use super::Values;
use crate::fang::graph::{Db, PieceId, PieceSet, Target, Vertex};
use crate::fang::{chase_pattern, non_mutual, ExplicitGraph, Rules};
use crate::fen::to_fen;
use crate::index::Indexer;
use crate::material::Material;
use crate::piece::{ByColor, Color};
use crate::retro::numbering::Numbering;
use crate::retro::{Bitmap, Graph};
use crate::table::{Header, RuleSet};
use crate::tablebase::{OpenTable, ProbeError, Tablebase};
use crate::value::{Outcome, Value};
use rayon::prelude::*;

/// A candidate mask's bit for the king: pieces use their numbers (below
/// [`crate::retro::numbering::MAX_NUMBERED`]).
const KING: u32 = 1 << 31;

/// The rules a table was built under, if they can make orders.
fn rules_of(h: &Header) -> Option<Rules> {
    match h.rule_set {
        RuleSet::DtcOrder0 => None,
        RuleSet::DtcCheck => Some(Rules::Check),
        // No rule can change a dtc-any table (no side has an attacking piece): re-deriving
        // its orders under the Asian rules must find none.
        RuleSet::DtcAsian | RuleSet::DtcAny => Some(Rules::Asian),
    }
}

/// Every order's seeds re-derived from the orders below it and compared with the table's.
pub(super) fn verify_orders(
    tb: &Tablebase,
    material: Material,
    at_once: &ByColor<Bitmap>,
    values: &Values,
    fail: &(dyn Fn(String, String) + Sync),
) -> Result<(), ProbeError> {
    let t = tb.table(material)?;
    let h = t.file.header().clone();
    let Some(mut rules) = rules_of(&h) else {
        return Ok(());
    };
    let numbering = match rules {
        Rules::Asian => Numbering::new(material),
        _ => Ok(Numbering::kings_only()),
    };
    let numbering = match numbering {
        Ok(n) => n,
        // Where no piece can be chased, the Asian rules are perpetual check alone: a material
        // whose pieces cannot be numbered (KPPPK) is checked for it.
        Err(_) if !material.chases_possible() => {
            rules = Rules::Check;
            Numbering::kings_only()
        }
        Err(e) => {
            let file = format!("header of {}", t.file.path().display());
            fail(
                file,
                format!(
                    "rule set {}, which this material cannot have: {e}",
                    h.rule_set.name()
                ),
            );
            return Ok(());
        }
    };
    let graph = Graph::new(Indexer::new(material)?);
    let sets = OrderSets {
        t: &t,
        at_once,
        values,
    };
    let (mut open, mut want) = sets.of(1)?;
    let drawn = drawn_captures(tb, t.indexer(), &open)?;
    let labels = Labels {
        indexer: t.indexer(),
        numbering: &numbering,
        rules,
    };
    let mut masks = ByColor::new(|_| vec![0u32; h.entries as usize]);
    labels.refresh(&mut masks, &open, &drawn, &open);
    for r in 1..=h.max_order + 1 {
        if r > 1 {
            let (next_open, next_want) = sets.of(r)?;
            let dirty = changed(&graph, &open, &next_open);
            labels.refresh(&mut masks, &next_open, &drawn, &dirty);
            (open, want) = (next_open, next_want);
        }
        let got = labels.next_seeds(&open, &masks, &drawn);
        report_differences(&t, r, h.max_order, &got, &want, fail);
    }
    Ok(())
}

/// Reads, for an order `r`, the entries open before it and the table's seeds of order `r`.
struct OrderSets<'a> {
    t: &'a OpenTable,
    at_once: &'a ByColor<Bitmap>,
    values: &'a Values<'a>,
}

impl OrderSets<'_> {
    /// The entries unknown before order `r` (a draw, or of order `r` or more) and the seeds of
    /// order `r` (losses at `(r, 0)`).
    fn of(&self, r: u16) -> Result<(ByColor<Bitmap>, ByColor<Bitmap>), ProbeError> {
        let h = self.t.file.header();
        let (n, be) = (h.entries, h.block_entries as u64);
        let open = ByColor::new(|_| Bitmap::new(n));
        let seeds = ByColor::new(|_| Bitmap::new(n));
        for side in Color::ALL {
            (0..h.blocks_per_side()).into_par_iter().try_for_each(
                |block| -> Result<(), ProbeError> {
                    let codes = self.values.block(self.t, side, block)?;
                    for (k, &code) in codes.iter().enumerate() {
                        let index = block * be + k as u64;
                        if self.at_once[side].get(index) {
                            continue; // of order 0, whatever it stores
                        }
                        match Value::from_code(code) {
                            Some(Value::Draw) => open[side].set(index),
                            Some(Value::Decided { order, distance }) if order >= r => {
                                open[side].set(index);
                                if order == r && distance == 0 {
                                    seeds[side].set(index);
                                }
                            }
                            _ => {}
                        }
                    }
                    Ok(())
                },
            )?;
        }
        Ok((open, seeds))
    }
}

/// Names every entry where the seeds found (`got`) and the table's (`want`) differ.
fn report_differences(
    t: &OpenTable,
    r: u16,
    max_order: u16,
    got: &ByColor<Bitmap>,
    want: &ByColor<Bitmap>,
    fail: &(dyn Fn(String, String) + Sync),
) {
    for side in Color::ALL {
        for w in 0..got[side].words() {
            let mut bits = got[side].word(w) ^ want[side].word(w);
            while bits != 0 {
                let index = w as u64 * 64 + bits.trailing_zeros() as u64;
                bits &= bits - 1;
                let fen = t.indexer().decode(index, side).map(|p| to_fen(&p));
                let what = if want[side].get(index) {
                    format!("holds loss 0 (order {r}) but is in no maximum pattern of order {r}")
                } else if r > max_order {
                    format!(
                        "is a loss of a maximum pattern left after the last order ({max_order})"
                    )
                } else {
                    format!(
                        "is a loss of a maximum pattern of order {r} but does not hold loss 0 \
                         (order {r})"
                    )
                };
                fail(fen.unwrap_or_default(), what);
            }
        }
    }
}

/// Among the `open` entries, those with a capture into a position drawn in its table.
fn drawn_captures(
    tb: &Tablebase,
    indexer: &Indexer,
    open: &ByColor<Bitmap>,
) -> Result<ByColor<Bitmap>, ProbeError> {
    let drawn = ByColor::new(|_| Bitmap::new(indexer.size()));
    for side in Color::ALL {
        (0..open[side].words())
            .into_par_iter()
            .try_for_each(|w| -> Result<(), ProbeError> {
                let mut bits = open[side].word(w);
                while bits != 0 {
                    let index = w as u64 * 64 + bits.trailing_zeros() as u64;
                    bits &= bits - 1;
                    let Some(pos) = indexer.decode(index, side) else {
                        continue;
                    };
                    for mv in pos.legal_moves() {
                        if !pos.is_capture(mv) {
                            continue;
                        }
                        let mut child = pos.clone();
                        child.play(mv);
                        if tb.probe_wdl(&child)? == Outcome::Draw {
                            drawn[side].set(index);
                            break;
                        }
                    }
                }
                Ok(())
            })?;
    }
    Ok(drawn)
}

/// The entries whose candidacy may differ between the open sets `before` and `now`: those
/// resolved since (in `before`, not in `now`) and the open ones with a move into one of them.
fn changed(graph: &Graph, before: &ByColor<Bitmap>, now: &ByColor<Bitmap>) -> ByColor<Bitmap> {
    let n = graph.indexer().size();
    let dirty = ByColor::new(|_| Bitmap::new(n));
    for side in Color::ALL {
        (0..before[side].words()).into_par_iter().for_each(|w| {
            let mut bits = before[side].word(w) & !now[side].word(w);
            while bits != 0 {
                let index = w as u64 * 64 + bits.trailing_zeros() as u64;
                bits &= bits - 1;
                dirty[side].set(index);
                let Some(pos) = graph.indexer().decode(index, side) else {
                    continue;
                };
                let emitted = graph.predecessors(&pos, index, |p| {
                    if now[p.side].get(p.index) {
                        dirty[p.side].set(p.index);
                    }
                });
                debug_assert!(emitted.is_ok());
            }
        });
    }
    dirty
}

/// The labels of a table's quiet moves, and what the order checks make of them.
struct Labels<'a> {
    indexer: &'a Indexer,
    numbering: &'a Numbering,
    rules: Rules,
}

impl Labels<'_> {
    /// The targets (a mask: [`KING`], piece numbers) a quiet move of `pos` to `child` hits:
    /// the king if it checks, else the pieces it chases (none under perpetual check alone).
    fn hits(
        &self,
        pos: &crate::position::Position,
        mv: crate::Move,
        child: &crate::Position,
    ) -> u32 {
        self.hits_among(pos, mv, child, u32::MAX)
    }

    /// [`Labels::hits`] among the targets `wanted`: the pieces chased are looked for only if
    /// some are wanted (the costly part of a move's labels).
    fn hits_among(
        &self,
        pos: &crate::position::Position,
        mv: crate::Move,
        child: &crate::Position,
        wanted: u32,
    ) -> u32 {
        if pos.may_give_check(mv) && child.is_check() {
            KING
        } else if self.rules == Rules::Asian && wanted & !KING != 0 {
            self.numbering.chased_after(pos, mv, child).0
        } else {
            0
        }
    }

    /// The targets every move of `side`'s entry `index` into an `open` entry hits (0 if it has
    /// no such move, or a capture into a drawn position).
    fn mask(
        &self,
        side: Color,
        index: u64,
        open: &ByColor<Bitmap>,
        drawn: &ByColor<Bitmap>,
    ) -> u32 {
        if !open[side].get(index) || drawn[side].get(index) {
            return 0;
        }
        let Some(pos) = self.indexer.decode(index, side) else {
            return 0;
        };
        let mut mask = u32::MAX;
        let mut inside = false;
        // Pseudo-legal moves: an illegal one reaches an illegal position, never an open entry.
        // The king's first: its steps seldom hit anything, which settles the entry at once.
        pos.pseudo_quiet_king_first_until(|mv| {
            let mut child = pos.clone();
            child.play(mv);
            let to = self
                .indexer
                .encode(&child)
                .expect("a quiet move keeps the material");
            if open[!side].get(to) {
                inside = true;
                mask &= self.hits_among(&pos, mv, &child, mask);
            }
            mask == 0
        });
        if inside {
            mask
        } else {
            0
        }
    }

    /// Recomputes the masks of the entries in `which` (those of entries not open become 0).
    fn refresh(
        &self,
        masks: &mut ByColor<Vec<u32>>,
        open: &ByColor<Bitmap>,
        drawn: &ByColor<Bitmap>,
        which: &ByColor<Bitmap>,
    ) {
        for side in Color::ALL {
            masks[side]
                .par_chunks_mut(64)
                .enumerate()
                .for_each(|(w, slots)| {
                    let mut bits = which[side].word(w);
                    while bits != 0 {
                        let k = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let mask = self.mask(side, (w * 64 + k) as u64, open, drawn);
                        // A page never written stays the system's zero page: most masks are 0.
                        if slots[k] != mask {
                            slots[k] = mask;
                        }
                    }
                });
        }
    }

    /// The next order's seeds: the losses of the non-mutual checking patterns of both sides,
    /// or if there are none (and the rules forbid chases) those of the totally non-mutual
    /// chasing patterns of every piece (one of each pair of twins, followed through the moves).
    fn next_seeds(
        &self,
        open: &ByColor<Bitmap>,
        masks: &ByColor<Vec<u32>>,
        drawn: &ByColor<Bitmap>,
    ) -> ByColor<Bitmap> {
        let n = self.indexer.size();
        let got = ByColor::new(|_| Bitmap::new(n));
        let mut seeds = 0;
        for attacker in Color::ALL {
            let slice = self.slice(attacker, KING, open, masks, drawn);
            let p = non_mutual(
                &slice.graph,
                &slice.db,
                attacker,
                Target::King,
                Target::King,
            );
            seeds += slice.mark(!attacker, p.losses.iter(), &got[!attacker]);
        }
        if seeds > 0 || self.rules != Rules::Asian {
            return got;
        }
        for attacker in Color::ALL {
            for p in self.numbering.pieces(attacker).iter() {
                let twin = self.numbering.twin(p);
                if twin.is_some_and(|t| t < p) {
                    continue; // followed as its twin
                }
                let bits = twin.iter().fold(1 << p, |m, &t| m | 1 << t);
                let slice = self.slice(attacker, bits, open, masks, drawn);
                let pattern = chase_pattern(&slice.graph, &slice.db, attacker, p);
                slice.mark(!attacker, pattern.losses.iter(), &got[!attacker]);
            }
        }
        got
    }

    /// The slice where `attacker`'s patterns against the targets `bits` lie: the defender's
    /// open entries whose mask holds one of `bits` (the loss candidates), their open children,
    /// and every quiet move between the two, with its labels.
    fn slice(
        &self,
        attacker: Color,
        bits: u32,
        open: &ByColor<Bitmap>,
        masks: &ByColor<Vec<u32>>,
        drawn: &ByColor<Bitmap>,
    ) -> Slice {
        let defender = !attacker;
        let losses: Vec<u64> = masks[defender]
            .par_iter()
            .enumerate()
            .filter(|(_, &m)| m & bits != 0)
            .map(|(i, _)| i as u64)
            .collect();
        // Every open child of a loss candidate is in the slice.
        let loss_moves: Vec<Vec<LabelledMove>> = losses
            .par_iter()
            .map(|&i| self.moves(defender, i, |to| open[attacker].get(to)))
            .collect();
        let mut wins: Vec<u64> = loss_moves.iter().flatten().map(|m| m.to).collect();
        wins.par_sort_unstable();
        wins.dedup();
        // Of the wins' moves, those into loss candidates.
        let win_moves: Vec<Vec<LabelledMove>> = wins
            .par_iter()
            .map(|&i| self.moves(attacker, i, |to| masks[defender][to as usize] & bits != 0))
            .collect();
        let mut slice = Slice::new(self.numbering);
        slice.add_side(defender, losses, |_| None);
        slice.add_side(attacker, wins, |i| {
            drawn[attacker].get(i).then_some(Outcome::Draw)
        });
        slice.add_moves(defender, &loss_moves);
        slice.add_moves(attacker, &win_moves);
        slice
    }

    /// The quiet moves of `side`'s entry `index` into the entries `to` accepts, labelled.
    fn moves(&self, side: Color, index: u64, to: impl Fn(u64) -> bool) -> Vec<LabelledMove> {
        let pos = self
            .indexer
            .decode(index, side)
            .expect("an open entry decodes");
        let mut out = Vec::new();
        // Pseudo-legal moves: an illegal one reaches an illegal position, never an open entry.
        pos.pseudo_quiet_until(|mv| {
            let mut child = pos.clone();
            child.play(mv);
            let (entry, mirrored) = self
                .indexer
                .encode_mirrored(&child)
                .expect("the same material");
            if to(entry) {
                let hits = self.hits(&pos, mv, &child);
                let entry_pos = if mirrored { child.mirror() } else { child };
                out.push(LabelledMove {
                    to: entry,
                    hits,
                    swaps: self.numbering.swaps(&pos, mv, &entry_pos, mirrored),
                });
            }
            false
        });
        out
    }
}

/// A quiet move of a slice's entry, labelled: the entry it reaches, the targets it hits (as in
/// a candidate mask) and the twins it trades.
struct LabelledMove {
    to: u64,
    hits: u32,
    swaps: PieceSet,
}

/// A slice of a table as an explicit game graph for the reference algorithms: every vertex
/// unknown in its database. Each side's entries are sorted, and numbered in that order after
/// the side added before.
struct Slice {
    graph: ExplicitGraph,
    db: Db,
    sides: Vec<(Color, Vec<u64>, Vertex)>,
    numbering_twins: [Option<PieceId>; 32],
}

impl Slice {
    /// An empty slice whose pieces are numbered as `numbering` numbers them (Red's first, as
    /// [`ExplicitGraph`] numbers them too).
    fn new(numbering: &Numbering) -> Slice {
        let count = |c| numbering.pieces(c).iter().count() as u8;
        let mut graph =
            ExplicitGraph::new(count(Color::Red), count(Color::Black)).expect("at most 15 pieces");
        let mut twins = [None; 32];
        for c in Color::ALL {
            for p in numbering.pieces(c).iter() {
                twins[p as usize] = numbering.twin(p);
                match numbering.twin(p) {
                    Some(t) if p < t => graph.set_twins(p, t).expect("a pair of one side"),
                    _ => {}
                }
            }
        }
        Slice {
            graph,
            db: Db::new(),
            sides: Vec::new(),
            numbering_twins: twins,
        }
    }

    /// Adds `side`'s `entries` (sorted) as unknown vertices, with their exits.
    fn add_side(&mut self, side: Color, entries: Vec<u64>, exit: impl Fn(u64) -> Option<Outcome>) {
        let first = self.db.len();
        for &i in &entries {
            self.graph.add_vertex(side, exit(i));
            self.db.push(None);
        }
        self.sides.push((side, entries, first));
    }

    /// The vertex of `side`'s entry `index`, if it is in the slice.
    fn vertex(&self, side: Color, index: u64) -> Option<Vertex> {
        let (entries, first) = self.side(side);
        entries.binary_search(&index).ok().map(|k| first + k)
    }

    /// `side`'s entries (sorted) and the vertex of the first.
    fn side(&self, side: Color) -> (&[u64], Vertex) {
        let (_, entries, first) = self
            .sides
            .iter()
            .find(|(s, _, _)| *s == side)
            .expect("both sides are added before their moves");
        (entries, *first)
    }

    /// Adds the moves of `side`'s entries (`moves[k]`: those of its `k`-th entry).
    fn add_moves(&mut self, side: Color, moves: &[Vec<LabelledMove>]) {
        let first = self.side(side).1;
        for (k, moves) in moves.iter().enumerate() {
            for m in moves {
                let to = self.vertex(!side, m.to).expect("a move into the slice");
                let (check, chases) = match m.hits {
                    KING => (true, Vec::new()),
                    pieces => (false, PieceSet(pieces).iter().collect()),
                };
                // One piece of each traded pair names it.
                let named: Vec<PieceId> = m
                    .swaps
                    .iter()
                    .filter(|&p| self.numbering_twins[p as usize].is_some_and(|t| p < t))
                    .collect();
                self.graph
                    .add_move_swapping(first + k, to, check, &chases, &named)
                    .expect("a move between the two sides, chasing the mover's opponent's pieces");
            }
        }
    }

    /// Marks the entries of `side`'s vertices `losses` in `seeds`; returns how many.
    fn mark(&self, side: Color, losses: impl Iterator<Item = Vertex>, seeds: &Bitmap) -> u64 {
        let (entries, first) = self.side(side);
        losses.map(|v| seeds.set(entries[v - first])).count() as u64
    }
}
