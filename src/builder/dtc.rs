//! Distance to conversion at one order, as passes over the working state: Fang's Algorithm 8
//! (Section 5.1) for one level, in the distance-to-conversion metric (Section 5.3), with
//! children counting (Section 6, remark 3): each edge is visited at most once.
//!
//! Initialisation sets the seeds of order 0: positions without a legal move (loss at 0),
//! captures into a position lost for the opponent (win at 1), positions whose every move is a
//! capture into a position won by the opponent (loss at 0). Ply `p` then takes the frontier (the
//! entries resolved at `p − 1`) and updates its predecessors: a lost child makes them won at
//! `p`; a won child decrements their count of unresolved children, the last one making them
//! lost at `p`. What is never resolved is a draw.

use super::entry::{self, NEVER, UNCOUNTED};
use super::pass::{self, Pass};
use super::store::Chunk;
use super::sub::Subtables;
use super::work::{Select, Work, WINDOW};
use super::BuildError;
use crate::index::{Decoder, StepCache};
use crate::piece::{ByColor, Color};
use crate::position::Position;
use crate::retro::graph::{Graph, Moves, Node};
use crate::retro::Bitmap;
use crate::retro::Progress;
use crate::value::Outcome;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Positions with at most this many pseudo-legal quiet moves get their children counted at
/// initialisation, where their moves are in hand; others when a ply first needs the count.
pub const COUNT_AT_ONCE: usize = 8;

/// The initial entry of a legal position: a seed of order 0, or unresolved.
/// `in_check`: whether the side to move is in check.
pub fn initial(pos: &mut Position, in_check: bool, subs: &Subtables) -> Result<u32, BuildError> {
    let mut drawn = false;
    let mut failed = None;
    // A capture into a lost position ends the walk: the quiet moves of a win at 1 are never
    // generated (most of them in the KRN family are Red's captures of a defender).
    let quiet = pos.legal_captures(in_check, COUNT_AT_ONCE, |pos, m| {
        let victim = pos.piece_at(m.to).expect("a capture takes a piece");
        let undo = pos.play(m);
        let outcome = subs.outcome(victim.code(), pos);
        pos.undo(m, undo);
        match outcome {
            Ok(Outcome::Loss) => true,
            Ok(Outcome::Draw) => {
                drawn = true;
                false
            }
            Ok(Outcome::Win) => false,
            Err(e) => {
                failed = Some(e);
                true
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let Some((quiet, counted)) = quiet else {
        return Ok(entry::resolved(0, 1));
    };
    Ok(if drawn {
        // A drawn capture is a child that never resolves: the count can never run out.
        entry::unresolved(NEVER)
    } else if quiet > 0 && counted {
        // Few moves, counted now while they are in hand.
        entry::unresolved(quiet as u8)
    } else if quiet > 0 {
        // Many moves: counted when a ply first decrements the entry (many never need their
        // count; it is the same either way).
        UNCOUNTED
    } else {
        // No move, or only captures into positions won by the opponent.
        entry::resolved(0, 0)
    })
}

/// What a propagation must do besides its plies: DTM's capture events
/// ([`super::dtm::Events`]), fired after the passes of their ply.
pub trait Scheduled {
    /// Does what is due at `ply`, after its passes (entries it resolves join the next frontier).
    fn fire(&mut self, work: &mut Work, ply: u32) -> Result<(), BuildError>;
    /// Is anything due after `ply`?
    fn later(&self, ply: u32) -> bool;
}

/// Nothing scheduled (DTC: captures are settled at initialisation).
pub struct Unscheduled;

impl Scheduled for Unscheduled {
    fn fire(&mut self, _: &mut Work, _: u32) -> Result<(), BuildError> {
        Ok(())
    }

    fn later(&self, _: u32) -> bool {
        false
    }
}

/// What the frontiers hold after `ply` of `order`: the entries resolved at `ply` start the next
/// ply; the entries at `ply + 1` (wins at 1 set by initialisation) join the one after.
pub fn select(order: u16, ply: u32) -> Select {
    let at = |d: u32| u16::try_from(d).map_or(u32::MAX - 1, |d| entry::resolved(order, d));
    Select {
        frontier: at(ply),
        next: at(ply + 1),
    }
}

/// The initialisation pass: both sides' entries of every chunk, each index decoded once, each
/// legal position's entry from `initial(position, in check)`; `done(side, chunk, entries)`
/// sees each chunk before it is stored.
pub fn initialise(
    work: &mut Work,
    graph: &Graph,
    initial: impl Fn(&mut Position, bool) -> Result<u32, BuildError> + Sync,
    mut done: impl FnMut(Color, usize, &Chunk),
    progress: &dyn Progress,
) -> Result<(), BuildError> {
    let layout = work.layout();
    progress.start(&format!("{} init", work.material()), 2 * layout.entries());
    for c in 0..layout.chunks() {
        let (base, len) = (layout.base(c), layout.len(c));
        let chunks = [Chunk::new(len), Chunk::new(len)];
        chunks[0]
            .entries
            .par_chunks(WINDOW)
            .zip(chunks[1].entries.par_chunks(WINDOW))
            .enumerate()
            .try_for_each(|(w, (red, black))| -> Result<(), BuildError> {
                let first = base + (w * WINDOW) as u64;
                let mut decoder = Decoder::new(graph.indexer());
                for (k, (r, b)) in red.iter().zip(black).enumerate() {
                    let Some(pos) = decoder.decode_mut(first + k as u64, Color::Red) else {
                        r.store(entry::ILLEGAL, Relaxed);
                        b.store(entry::ILLEGAL, Relaxed);
                        continue;
                    };
                    // Each side's check decides one side's legality and the other's moves.
                    let checked = [pos.in_check(Color::Red), pos.in_check(Color::Black)];
                    for (side, e) in [(Color::Red, r), (Color::Black, b)] {
                        pos.set_turn(side);
                        let v = if checked[(!side).index()] {
                            entry::ILLEGAL
                        } else {
                            initial(pos, checked[side.index()])?
                        };
                        e.store(v, Relaxed);
                    }
                }
                progress.advance(2 * red.len() as u64);
                Ok(())
            })?;
        let [red, black] = chunks;
        done(Color::Red, c, &red);
        done(Color::Black, c, &black);
        let seeds = select(0, 0);
        work.put_chunk(Color::Red, c, red, &seeds)?;
        work.put_chunk(Color::Black, c, black, &seeds)?;
    }
    progress.finish();
    Ok(())
}

/// One ply from one side: the frontier's predecessors on the other side.
struct Ply<'a> {
    graph: &'a Graph,
    /// The frontier's entries are lost for their side to move (even distance).
    child_lost: bool,
    /// The entry a resolved predecessor gets.
    to: u32,
    /// The predecessors' side to move.
    dst: Color,
    /// Entries whose children changed (for the rule passes' candidates).
    dirty: Option<&'a ByColor<Bitmap>>,
}

impl Pass for Ply<'_> {
    /// A decoder, and where defender steps lead from its pair.
    type Scratch<'p>
        = (Decoder<'p>, StepCache)
    where
        Self: 'p;

    fn scratch(&self) -> (Decoder<'_>, StepCache) {
        (Decoder::new(self.graph.indexer()), StepCache::new())
    }

    #[inline]
    fn updates(
        &self,
        node: Node,
        (decoder, steps): &mut (Decoder<'_>, StepCache),
        emit: &mut impl FnMut(u64),
    ) -> Result<(), BuildError> {
        let pos = decoder.decode_mut(node.index, node.side).ok_or_else(|| {
            BuildError::Inconsistent(format!(
                "frontier entry {} of side {:?} does not decode",
                node.index, node.side
            ))
        })?;
        self.graph
            .predecessors_with(pos, node.index, Some(steps), |p| emit(p.index))
            .map_err(Into::into)
    }

    fn resolves_to(&self) -> Option<u32> {
        self.child_lost.then_some(self.to)
    }

    #[inline]
    fn apply(
        &self,
        e: &std::sync::atomic::AtomicU32,
        index: u64,
        exclusive: bool,
        (decoder, _): &mut (Decoder<'_>, StepCache),
    ) -> bool {
        if self.child_lost {
            return entry::resolve(e, self.to, exclusive);
        }
        if let Some(dirty) = self.dirty {
            // Read first: an entry is decremented by several children of a ply, and a set bit
            // needs no atomic write.
            if !dirty[self.dst].get(index) {
                dirty[self.dst].set(index);
            }
        }
        entry::decrement(e, self.to, exclusive, || {
            // Only unresolved entries are counted, and they are legal positions.
            decoder
                .decode_mut(index, self.dst)
                .map_or(1, Graph::quiet_moves)
        })
    }
}

/// Whether a win ply from the `total` frontier entries of `src` costs less pulled
/// ([`pull_wins`]) than pushed: with the unresolved filter, and at most 1.5 unresolved entries
/// on the other side per frontier entry. A frontier entry pushes to all its predecessors (about
/// 20 in the KRN family, most already resolved); an unresolved entry pulls until its first move
/// into the frontier. KRNKAABB, resident, 2 threads: a pushed entry cost 216 ns of CPU and a
/// pulled one 146 ns (ply 5: 8.6 M frontier entries pushed in 0.93 s, 7.1 M unresolved pulled
/// in 0.52 s); ply 3 (6.9 M frontier, 14.1 M unresolved) took 0.71 s pushed and 1.13 s pulled.
/// Late in a table few entries are left unresolved while the frontiers are still large (ply 9:
/// 5.3 M frontier, 1.1 M unresolved: 0.53 s pushed, 0.05 s pulled). Streaming, a pull also
/// saves the update logs: each chunk with unresolved entries is read and written once.
fn pull_pays(work: &Work, src: Color, total: u64) -> bool {
    work.pull()
        && work.frontiers.lists().is_none()
        && work.unresolved[!src]
            .as_ref()
            .is_some_and(|open| 2 * open.count_all() <= 3 * total)
}

/// A win ply pulled instead of pushed (direction-optimising, as in breadth-first search): each
/// unresolved entry of `dst` looks among its quiet moves for one into the frontier of the other
/// side (lost at the ply before), and is won at `to` if it finds one. The moves from an entry
/// and the retro moves into one are the same edges ([`Graph::any_child_among`],
/// [`Graph::predecessors`]), so the entries resolved are the push's, in either order. Needs the
/// unresolved filter ([`pull_pays`]); streaming, each chunk with unresolved entries is read,
/// pulled and, if anything resolved, written back ([`Work::update_entries`]).
fn pull_wins(
    work: &mut Work,
    graph: &Graph,
    dst: Color,
    to: u32,
    progress: &dyn Progress,
) -> Result<(), BuildError> {
    let layout = work.layout();
    let open = work.unresolved[dst].as_ref();
    let pulled: Vec<usize> = (0..layout.chunks())
        .filter(|&c| open.is_some_and(|open| open.count(layout.base(c), layout.len(c)) > 0))
        .collect();
    work.update_entries(dst, &pulled, |work, range, view| {
        pull_range(work, graph, dst, to, range, |i| view.entry(i), progress) > 0
    })
}

/// [`pull_wins`] over the entries `range` of `dst` (whole bitmap words), `entry` giving each
/// one's working entry; returns the entries resolved.
fn pull_range<'e>(
    work: &Work,
    graph: &Graph,
    dst: Color,
    to: u32,
    range: std::ops::Range<u64>,
    entry: impl Fn(u64) -> &'e std::sync::atomic::AtomicU32 + Sync,
    progress: &dyn Progress,
) -> u64 {
    let open = work.unresolved[dst]
        .as_ref()
        .expect("pulled plies have the unresolved filter");
    let frontier = work.frontiers.now_bits(!dst);
    let next = work
        .frontiers
        .next_bits(dst)
        .expect("pulled plies have frontier bitmaps");
    let per_window = (WINDOW / 64) as u64;
    let (first, end) = (range.start / 64, range.end.div_ceil(64));
    (first..end)
        .step_by(per_window as usize)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|w| {
            let mut decoder = Decoder::new(graph.indexer());
            let (mut seen, mut resolved) = (0, 0);
            for i in w..(w + per_window).min(end) {
                let mut bits = open.word(i as usize);
                while bits != 0 {
                    let index = i * 64 + bits.trailing_zeros() as u64;
                    bits &= bits - 1;
                    seen += 1;
                    let Some((pos, split)) = decoder.decode_split(index, dst) else {
                        continue;
                    };
                    let pos: &Position = pos;
                    let split = Some(split);
                    if graph.any_child_split(pos, index, split, Moves::Quiet, |_, _, child, _| {
                        frontier.get(child)
                    })
                        // This task is the only one that looks at the entries of its window.
                        && entry::resolve(entry(index), to, true)
                    {
                        open.clear(index);
                        next.set(index);
                        resolved += 1;
                    }
                }
            }
            progress.advance(seen);
            resolved
        })
        .sum()
}

/// Propagates `order` from the ply after `ply` until no frontier is left and nothing
/// `scheduled` is due; `after_ply` runs after each ply (checkpoints). Entries a won child decrements are marked in `dirty`, if
/// given, and so is every entry resolved (each ply's frontier, the seeds included: the rule
/// passes' refresh visits only the groups with marks). Returns the last ply.
pub fn propagate(
    work: &mut Work,
    graph: &Graph,
    (order, mut ply): (u16, u32),
    progress: &dyn Progress,
    dirty: Option<&ByColor<Bitmap>>,
    scheduled: &mut dyn Scheduled,
    mut after_ply: impl FnMut(&mut Work, u32) -> Result<(), BuildError>,
) -> Result<u32, BuildError> {
    // Resumed after the last ply: nothing is left, and that ply stays the last.
    let empty = |side| work.frontier_in_all(side) == 0 && work.frontiers.next_in_all(side) == 0;
    if Color::ALL.into_iter().all(empty) && !scheduled.later(ply) {
        return Ok(ply);
    }
    loop {
        ply += 1;
        if let Some(dirty) = dirty {
            for side in Color::ALL {
                let at = (&work.store, work.layout());
                work.frontiers.mark_now(at, side, &dirty[side])?;
            }
        }
        let distance = u16::try_from(ply).map_err(|_| BuildError::Overflow {
            material: work.material(),
            ply,
            max: entry::MAX_DISTANCE,
        })?;
        for src in work.pass_order() {
            let total = work.frontier_in_all(src);
            if total == 0 {
                continue;
            }
            let step = Ply {
                graph,
                child_lost: (ply - 1).is_multiple_of(2),
                to: entry::resolved(order, distance),
                dst: !src,
                dirty,
            };
            let label = format!(
                "{} ply {ply} {}",
                work.material(),
                ["w→b", "b→w"][src.index()]
            );
            if step.child_lost && pull_pays(work, src, total) {
                let open = work.unresolved[!src].as_ref().map_or(0, Bitmap::count_all);
                progress.start(&format!("{label} (pulled)"), open);
                pull_wins(work, graph, !src, step.to, progress)?;
            } else {
                progress.start(&label, total);
                pass::run(work, src, &step, progress)?;
            }
            progress.finish();
        }
        scheduled.fire(work, ply)?;
        let next = work.advance()?;
        after_ply(work, ply)?;
        if next == 0 && !scheduled.later(ply) {
            return Ok(ply);
        }
    }
}
