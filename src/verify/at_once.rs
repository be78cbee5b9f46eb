//! Which entries are legal positions, and which hold wins or losses at once (`formats/table.md`
//! §5: the file does not store their distances), decided as [`Tablebase::probe_dtc`] decides
//! them, but table-wide: a position's moves are looked at once here, where the reader's rule
//! asks about each child's moves again.
//!
//! The reader calls a stored win a win at once if a capture reaches a lost position, or a quiet
//! move a lost position whose every move captures ([`Tablebase::wins_at_once`]); a stored loss
//! is a loss at once if its every move captures. So one scan of both sides marks the *cornered*
//! entries (legal, lost, no legal quiet move): a stored loss is lost at once exactly when it is
//! cornered, and a stored win is won at once when a capture wins or a quiet move reaches a
//! cornered entry, found by the index layer's steps without playing the move. A quiet move
//! whose position is not legal (it leaves the mover's king attacked) reaches an entry the scan
//! did not mark legal, hence not cornered: quiet moves need no king-safety test.

use super::{quiet_step, Entry};
use crate::index::Decoder;
use crate::piece::{ByColor, Color};
use crate::position::{Move, MoveList, Position};
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

/// Scans both sides of `t` for legal and cornered entries, then marks the stored sides' wins
/// and losses at once. `progress` is called with entries done, `4 × entries` in all (each entry
/// of both sides in two passes).
pub(super) fn mark(
    tb: &Tablebase,
    t: &OpenTable,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Marks, ProbeError> {
    let h = t.file.header();
    let legal = ByColor::new(|_| Bitmap::new(h.entries));
    let cornered = ByColor::new(|_| Bitmap::new(h.entries));
    for turn in Color::ALL {
        for_each_block(t, |block| {
            let codes = t.file.read_stored_raw(turn, block)?;
            let first = block * h.block_entries as u64;
            let mut decoder = Decoder::new(t.indexer());
            for (k, &code) in codes.iter().enumerate() {
                let index = first + k as u64;
                let Some(pos) = decoder.decode_mut(index, turn) else {
                    continue;
                };
                if pos.opponent_in_check() {
                    continue;
                }
                legal[turn].set(index);
                let lost = Value::from_code(code).is_some_and(|v| v.outcome() == Outcome::Loss);
                if lost && !pos.has_legal_quiet() {
                    cornered[turn].set(index);
                }
            }
            progress(codes.len() as u64);
            Ok(())
        })?;
    }
    let at_once = ByColor::new(|_| Bitmap::new(h.entries));
    let marker = Marker {
        tb,
        t,
        legal: &legal,
        cornered: &cornered,
    };
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
    Ok(Marks { legal, at_once })
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

/// What marking the wins and losses at once reads: the scan's legal and cornered entries.
struct Marker<'a> {
    tb: &'a Tablebase,
    t: &'a OpenTable,
    legal: &'a ByColor<Bitmap>,
    cornered: &'a ByColor<Bitmap>,
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
            let (true, Some(stored)) = (self.legal[turn].get(index), stored) else {
                continue;
            };
            let Some((pos, split)) = decoder.decode_split(index, turn) else {
                continue;
            };
            let at = Entry {
                pos: &*pos,
                index,
                split,
            };
            let value = resolve(
                stored,
                || self.wins_at_once(&at),
                || !self.cornered[turn].get(index),
                || self.tb.derive(at.pos, stored.outcome()),
            )?;
            if distance_implied(value) {
                at_once.set(index);
            }
        }
        Ok(())
    }

    /// Whether a move of `at` wins at once: a capture into a lost position, or a quiet move into
    /// a cornered one ([`Tablebase::wins_at_once`]'s rule).
    fn wins_at_once(&self, at: &Entry) -> Result<bool, ProbeError> {
        let pos = at.pos;
        let mut moves = MoveList::new();
        pos.pseudo_legal_moves(&mut moves);
        for &mv in moves.iter().filter(|&&mv| pos.is_capture(mv)) {
            let mut child = pos.clone();
            child.play(mv);
            if !child.opponent_in_check() && self.tb.probe_wdl(&child)? == Outcome::Loss {
                return Ok(true);
            }
        }
        let them = !pos.turn();
        for &mv in moves.iter().filter(|&&mv| !pos.is_capture(mv)) {
            let index = match quiet_step(self.t.indexer(), at, mv) {
                Some(index) => index,
                None => match self.played_quiet(pos, mv)? {
                    Some(index) => index,
                    None => continue,
                },
            };
            if self.cornered[them].get(index) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The entry of the position the quiet move `mv` reaches, found by playing it and encoding;
    /// `None` if the move is not legal.
    fn played_quiet(&self, pos: &Position, mv: Move) -> Result<Option<u64>, ProbeError> {
        let mut child = pos.clone();
        child.play(mv);
        if child.opponent_in_check() {
            return Ok(None);
        }
        Ok(Some(self.t.indexer().encode(&child)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{build, BuildOptions, Silent};
    use crate::fang::Rules;

    /// The marks of a table built in a temporary directory, and the reader's own rule applied to
    /// every entry, one position at a time ([`Tablebase::wins_at_once`],
    /// [`Position::has_legal_quiet`], [`Tablebase::derive`], as `probe_dtc` applies them).
    /// Also how many wins and how many losses at once the reference found.
    fn marks_and_reference(
        material: &str,
        rules: Rules,
    ) -> (Marks, ByColor<Bitmap>, ByColor<Bitmap>, [u64; 2]) {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = BuildOptions::new(dir.path());
        opts.rules = rules;
        let material = material.parse().unwrap();
        build(material, &opts, &Silent).unwrap();
        let tb = Tablebase::open(dir.path()).unwrap();
        let t = tb.table(material).unwrap();
        let marks = mark(&tb, &t, &|_| ()).unwrap();
        let h = t.file.header();
        let legal = ByColor::new(|_| Bitmap::new(h.entries));
        let at_once = ByColor::new(|_| Bitmap::new(h.entries));
        let mut found = [0u64; 2];
        for turn in Color::ALL {
            for block in 0..h.blocks_per_side() {
                let codes = t.file.read_stored_raw(turn, block).unwrap();
                for (k, &code) in codes.iter().enumerate() {
                    let index = block * h.block_entries as u64 + k as u64;
                    let Some(pos) = t.indexer().decode(index, turn) else {
                        continue;
                    };
                    if pos.opponent_in_check() {
                        continue;
                    }
                    legal[turn].set(index);
                    if h.derived == Some(turn) {
                        continue;
                    }
                    let stored = Value::from_code(code).unwrap();
                    let value = resolve(
                        stored,
                        || tb.wins_at_once(&pos),
                        || pos.has_legal_quiet(),
                        || tb.derive(&pos, stored.outcome()),
                    )
                    .unwrap();
                    if distance_implied(value) {
                        at_once[turn].set(index);
                        found[(value.outcome() == Outcome::Loss) as usize] += 1;
                    }
                }
            }
        }
        (marks, legal, at_once, found)
    }

    /// Asserts the marks equal the reference's, and that the table has wins at once on its
    /// stored sides (else the comparison would prove little); returns the wins and losses at once.
    fn agrees(material: &str, rules: Rules) -> [u64; 2] {
        let (marks, legal, at_once, found) = marks_and_reference(material, rules);
        for turn in Color::ALL {
            let n = legal[turn].words() as u64 * 64;
            for index in 0..n {
                assert_eq!(
                    marks.legal[turn].get(index),
                    legal[turn].get(index),
                    "{material} legal {turn:?} {index}"
                );
                assert_eq!(
                    marks.at_once[turn].get(index),
                    at_once[turn].get(index),
                    "{material} at once {turn:?} {index}"
                );
            }
        }
        assert!(found[0] > 0, "{material}: no win at once");
        found
    }

    #[test]
    fn the_marks_are_the_readers_rule_entry_by_entry() {
        let losses: u64 = [
            agrees("KRKN", Rules::None),
            agrees("KRKN", Rules::Asian),
            agrees("KRKC", Rules::Asian),
        ]
        .iter()
        .map(|found| found[1])
        .sum();
        assert!(losses > 0, "no loss at once");
    }
}
