//! Which entries are legal positions, and which hold wins or losses at once (`formats/table.md`
//! §5: the file does not store their distances), decided as [`Tablebase::probe_dtc`] decides
//! them, but table-wide: each position's moves are looked at once here, where the reader's rule
//! asks about each child's moves again.
//!
//! The reader calls a stored win a win at once if a capture reaches a lost position, or a quiet
//! move a lost position whose every move captures ([`Tablebase::wins_at_once`]); a stored loss
//! is a loss at once if its every move captures. So one scan of both sides marks the legal
//! entries and the *cornered* ones (legal, lost, without a legal quiet move): a stored loss is
//! lost at once exactly when it is cornered. Cornered entries are few, and the scan marks their
//! predecessors by a quiet move (`Position::retro_moves`) as *won quietly*; a stored win is won
//! at once when it is won quietly or a capture reaches a lost position.
//!
//! The marks need not be trusted: the entries' checks find each checked entry's value from its
//! moves, and fail an entry whose value is at once but not marked, or marked but not at once.

use crate::index::{Decoder, Indexer};
use crate::piece::{ByColor, Color};
use crate::position::{MoveList, Position};
use crate::retro::Bitmap;
use crate::table::{distance_implied, resolve};
use crate::tablebase::{OpenTable, ProbeError, Tablebase};
use crate::value::{Outcome, Value};
use rayon::prelude::*;

/// What the first two passes of `verify` find.
pub(super) struct Marks {
    /// The entries that are legal positions (the side that just moved is not in check).
    pub legal: ByColor<Bitmap>,
    /// The entries of the stored sides whose values are wins or losses at once.
    pub at_once: ByColor<Bitmap>,
}

/// Scans both sides of `t` for legal, cornered and quietly won entries, then marks the stored
/// sides' wins and losses at once. `progress` is called with entries done, `4 × entries` in all
/// (each entry of both sides in two passes).
pub(super) fn mark(
    tb: &Tablebase,
    t: &OpenTable,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Marks, ProbeError> {
    let h = t.file.header();
    let scan = Scan {
        t,
        legal: ByColor::new(|_| Bitmap::new(h.entries)),
        cornered: ByColor::new(|_| Bitmap::new(h.entries)),
        won_quietly: ByColor::new(|_| Bitmap::new(h.entries)),
    };
    for turn in Color::ALL {
        for_each_block(t, |block| {
            scan.block(turn, block)?;
            progress(h.block_len(block) as u64);
            Ok(())
        })?;
    }
    let at_once = ByColor::new(|_| Bitmap::new(h.entries));
    let marker = Marker { tb, t, scan: &scan };
    for turn in Color::ALL {
        if h.derived == Some(turn) {
            // Its values come from its moves (with its values, `verify_table`): none stored.
            progress(h.entries);
            continue;
        }
        for_each_block(t, |block| {
            marker.block(turn, block, &at_once[turn])?;
            progress(h.block_len(block) as u64);
            Ok(())
        })?;
    }
    Ok(Marks {
        legal: scan.legal,
        at_once,
    })
}

/// Runs `f` on every block of a side, in parallel.
fn for_each_block(
    t: &OpenTable,
    f: impl Fn(u64) -> Result<(), ProbeError> + Sync + Send,
) -> Result<(), ProbeError> {
    (0..t.file.header().blocks_per_side())
        .into_par_iter()
        .try_for_each(f)
}

/// The first pass's marks.
struct Scan<'a> {
    t: &'a OpenTable,
    /// Legal positions.
    legal: ByColor<Bitmap>,
    /// Legal, lost, and without a legal quiet move.
    cornered: ByColor<Bitmap>,
    /// Legal, with a quiet move into a cornered entry (marked on the stored sides only).
    won_quietly: ByColor<Bitmap>,
}

impl Scan<'_> {
    /// Marks the legal and cornered entries of `turn`'s `block`, and the cornered ones'
    /// predecessors by a quiet move.
    fn block(&self, turn: Color, block: u64) -> Result<(), ProbeError> {
        let h = self.t.file.header();
        let codes = self.t.file.read_stored_raw(turn, block)?;
        let first = block * h.block_entries as u64;
        let mut decoder = Decoder::new(self.t.indexer());
        for (k, &code) in codes.iter().enumerate() {
            let index = first + k as u64;
            let Some(pos) = decoder.decode_mut(index, turn) else {
                continue;
            };
            if pos.opponent_in_check() {
                continue;
            }
            self.legal[turn].set(index);
            let lost = Value::from_code(code).is_some_and(|v| v.outcome() == Outcome::Loss);
            if !lost || pos.has_legal_quiet() {
                continue;
            }
            self.cornered[turn].set(index);
            if h.derived != Some(!turn) {
                mark_predecessors(self.t.indexer(), pos, &self.won_quietly[!turn])?;
            }
        }
        Ok(())
    }
}

/// Marks in `won` the entries of every legal position from which a quiet move reaches `pos` or
/// its mirror image. An entry stands for a position and its mirror image unless both sides'
/// defenders are symmetric; a predecessor's defenders may be symmetric where the entry's are
/// not (a defender's move broke the symmetry), and then the predecessors of the mirror image
/// have entries of their own.
fn mark_predecessors(ix: &Indexer, pos: &Position, won: &Bitmap) -> Result<(), ProbeError> {
    for pos in [pos.clone(), pos.mirror()] {
        for mv in pos.retro_moves() {
            let mut parent = pos.clone();
            parent.unplay(mv);
            won.set(ix.encode(&parent)?);
        }
    }
    Ok(())
}

/// What marking the wins and losses at once reads: the scan's marks.
struct Marker<'a> {
    tb: &'a Tablebase,
    t: &'a OpenTable,
    scan: &'a Scan<'a>,
}

impl Marker<'_> {
    /// Marks in `at_once` the entries of `turn`'s `block` whose values are wins or losses at once.
    fn block(&self, turn: Color, block: u64, at_once: &Bitmap) -> Result<(), ProbeError> {
        let codes = self.t.file.read_stored_raw(turn, block)?;
        let first = block * self.t.file.header().block_entries as u64;
        let mut decoder = Decoder::new(self.t.indexer());
        for (k, &code) in codes.iter().enumerate() {
            let index = first + k as u64;
            let stored = Value::from_code(code);
            let (true, Some(stored)) = (self.scan.legal[turn].get(index), stored) else {
                continue;
            };
            let Some(pos) = decoder.decode_mut(index, turn) else {
                continue;
            };
            let pos = &*pos;
            let value = resolve(
                stored,
                || self.wins_at_once(pos, index),
                || !self.scan.cornered[turn].get(index),
                || self.tb.derive(pos, stored.outcome()),
            )?;
            if distance_implied(value) {
                at_once.set(index);
            }
        }
        Ok(())
    }

    /// Whether a move of `pos` (entry `index`) wins at once: a quiet move into a cornered
    /// entry, or a capture into a lost position ([`Tablebase::wins_at_once`]'s rule).
    fn wins_at_once(&self, pos: &Position, index: u64) -> Result<bool, ProbeError> {
        if self.scan.won_quietly[pos.turn()].get(index) {
            return Ok(true);
        }
        let mut captures = MoveList::new();
        pos.pseudo_captures(|mv| captures.push(mv));
        for mv in captures {
            let mut child = pos.clone();
            child.play(mv);
            if !child.opponent_in_check() && self.tb.probe_wdl(&child)? == Outcome::Loss {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
