//! Verification of a table (Fang, Section 5.4): every checksum, then every entry against the
//! values of its children. A legal position without moves must be a loss at 0; otherwise its
//! value must be the best value its moves give the mover (a quiet move into a position lost
//! or won at d gives a win or loss at d + 1, a capture into a lost position a win at 1 and into
//! a won one a loss at 0; a drawn child gives a draw). This checks the seeds (terminal
//! positions and conversions, read from the supporting tables), every propagated win and loss
//! (its distance is one more than the best child's: Theorem 8) and every draw (no winning move
//! and some drawing one). Under the Asian rules (orders above 0) the same holds at every order,
//! and a seed of order `r > 0` (a loss at `(r, 0)`) must have its best move reach `(r, 1)`; then
//! the seeds of every order are re-derived: with the positions of lower orders known and the rest
//! unknown, the losses of the maximum patterns (the builder's rule passes, `formats/rules.md` §7)
//! must be exactly the table's `(r, 0)` entries, and above the highest order no pattern may be
//! left (the draws). Bits per entry in RAM, as the builder's. Entries that are not legal positions are skipped (the file stores
//! nothing for them), and the header's counts must match the entries. Streaming: blocks in parallel, children read through
//! bounded block caches. Distance-to-mate tables have their own verifier ([`verify_dtm`]).

mod at_once;
mod dtm;
mod orders;

pub use dtm::{verify_dtm, DtcCheck, DtmError, DtmReport};

use crate::fen::to_fen;
use crate::index::{Decoder, Indexer, Split};
use crate::material::Material;
use crate::piece::ByColor;
use crate::piece::Color;
use crate::position::{Move, MoveList, Position};
use crate::retro::Bitmap;
use crate::table::{
    distance_implied, is_stand_in, merge_tallies, resolve, side_char, Firsts, Header, Histogram,
    SideCounts, Tally, LOST_AT_ONCE, WIN_AT_ONCE,
};
use crate::tablebase::{MoveValue, OpenTable, ProbeError, Tablebase};
use crate::value::Outcome;
use crate::value::Value;
use crate::value::{CODE_NONE, DERIVED_ORDER};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// One entry whose value its children contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The entry's position as FEN (or, for a count mismatch, `header of <file>` or
    /// `value table of <file>`).
    pub fen: String,
    /// What is wrong, e.g. the value held against the value its moves give.
    pub what: String,
}

/// What verifying one table found.
#[derive(Debug, Default)]
pub struct Report {
    /// Index entries covered, both sides to move (illegal ones included, though skipped).
    pub entries_checked: u64,
    /// Total failures (only the first few are kept in `failures`).
    pub failure_count: u64,
    /// The first few failures found ([`Report::failure_count`] counts them all), sorted by FEN.
    pub failures: Vec<Failure>,
}

/// The values of one side's entries, read by the other side's checks: each entry's
/// [`Value::code`] ([`CODE_NONE`], or a code meaning nothing, for illegal ones) in a temporary
/// file mapped into memory. Its pages are the file's, which the system can write out: the RAM
/// `verify` needs stays a few bits an entry. A derived side's (`formats/table.md` §5) are found
/// from their moves once, and read by the orders' checks too; a stored side's are read from the
/// file once (a child's value is then one read, not a trip through the block cache).
///
/// An entry takes 2 bytes ([`Narrow`]) when the table has no order above 0 and its distances
/// fit, else 4: the record table's side is 9.8 GB rather than 19.7, and the side its checks read
/// at random stays in the page cache.
struct SideValues {
    side: Color,
    width: usize,
    map: memmap2::MmapMut,
}

impl SideValues {
    fn new(
        side: Color,
        h: &Header,
        histograms: &ByColor<Histogram>,
    ) -> Result<SideValues, ProbeError> {
        let width = if Narrow::holds(h, histograms) { 2 } else { 4 };
        let dir = std::env::temp_dir();
        let io = |e| ProbeError::Table(crate::table::TableError::io(&dir)(e));
        let file = tempfile::tempfile_in(&dir).map_err(io)?;
        file.set_len(width as u64 * h.entries).map_err(io)?;
        // Safety: the file is this process's alone (created unlinked: no other process can
        // open, truncate or write it while it is mapped).
        let map = unsafe { memmap2::MmapMut::map_mut(&file) }.map_err(io)?;
        Ok(SideValues { side, width, map })
    }

    /// The values `t` stores for `side`, block by block.
    fn stored(
        t: &OpenTable,
        side: Color,
        histograms: &ByColor<Histogram>,
    ) -> Result<SideValues, ProbeError> {
        let h = t.file.header();
        let mut values = SideValues::new(side, h, histograms)?;
        let width = values.width;
        values
            .map
            .par_chunks_mut(width * h.block_entries as usize)
            .enumerate()
            .try_for_each(|(block, bytes)| -> Result<(), ProbeError> {
                let codes = t.file.read_stored_raw(side, block as u64)?;
                put_codes(width, bytes, &codes);
                Ok(())
            })?;
        Ok(values)
    }

    /// The value of entry `index` (a legal position's).
    fn get(&self, index: u64) -> Value {
        let at = self.width * index as usize;
        let code = code_at(self.width, &self.map[at..at + self.width]);
        Value::from_code(code).unwrap_or(Value::Draw)
    }

    /// The codes of `len` entries from `first`.
    fn block(&self, first: u64, len: usize) -> Vec<u32> {
        let at = self.width * first as usize;
        self.map[at..at + self.width * len]
            .chunks_exact(self.width)
            .map(|b| code_at(self.width, b))
            .collect()
    }
}

/// Writes `codes` into `bytes`, `width` bytes each.
fn put_codes(width: usize, bytes: &mut [u8], codes: &[u32]) {
    if width == 2 {
        for (b, &code) in bytes.chunks_exact_mut(2).zip(codes) {
            b.copy_from_slice(&Narrow::of(code).to_le_bytes());
        }
    } else {
        for (b, code) in bytes.chunks_exact_mut(4).zip(codes) {
            b.copy_from_slice(&code.to_le_bytes());
        }
    }
}

/// The code held in `b`, `width` bytes.
fn code_at(width: usize, b: &[u8]) -> u32 {
    if width == 2 {
        Narrow::code(u16::from_le_bytes([b[0], b[1]]))
    } else {
        u32::from_le_bytes(b.try_into().expect("4 bytes"))
    }
}

/// The 2-byte form of the codes of a table of order 0: a code below [`Narrow::STAND_IN`] is
/// itself (none, draw, and every value of order 0 and distance below `STAND_IN - 2`), and the
/// two stand-ins of a win or loss at once (`formats/table.md` §5) take the two codes above.
struct Narrow;

impl Narrow {
    const STAND_IN: u16 = u16::MAX - 1;

    /// Whether every code of the table has a 2-byte form: it has no order above 0, and its
    /// longest distance (both sides' histograms) is short enough.
    fn holds(h: &Header, histograms: &ByColor<Histogram>) -> bool {
        let longest = Color::ALL
            .iter()
            .flat_map(|&c| histograms[c].keys())
            .map(|&(_, d)| d)
            .max()
            .unwrap_or(0);
        h.max_order == 0 && (longest as u32) + 2 < Narrow::STAND_IN as u32
    }

    /// The 2-byte form of `code`. A code without one (of an order above 0: not in a table whose
    /// header says it has none, unless the file is wrong) becomes [`CODE_NONE`]: the entry holding
    /// it fails its own check, which reads the file, and the header's counts.
    fn of(code: u32) -> u16 {
        if code < Narrow::STAND_IN as u32 {
            return code as u16;
        }
        match Value::from_code(code) {
            Some(v) if is_stand_in(v) => Narrow::STAND_IN + (v.outcome() == Outcome::Win) as u16,
            _ => CODE_NONE as u16,
        }
    }

    /// The code of a 2-byte form.
    fn code(narrow: u16) -> u32 {
        if narrow < Narrow::STAND_IN {
            return narrow as u32;
        }
        let distance = if narrow == Narrow::STAND_IN { 0 } else { 1 };
        Value::Decided {
            order: DERIVED_ORDER,
            distance,
        }
        .code()
    }
}

/// Failures kept for printing.
const KEEP: usize = 20;

/// A loss at `(r, 0)`, `r > 0`, is a seed of order `r`: a loss of a maximum pattern of
/// perpetual checking or chasing, whose moves inside the pattern reach wins at `(r, 1)` and
/// whose other moves reach wins of lower orders (Theorem 8), so its best move gives `(r, 2)`.
fn order_seed(value: Value, expected: Value) -> bool {
    matches!(
        (value, expected),
        (Value::Decided { order: r, distance: 0 }, Value::Decided { order, distance: 2 })
            if r > 0 && order == r
    )
}

/// The legal entries and the stored sides' wins and losses at once of `material`'s table, as
/// [`verify_table`]'s first two passes mark them: `(legal, at_once)`. For tests, which compare
/// them with the reader's rule position by position.
#[doc(hidden)]
pub fn at_once_marks(
    tb: &Tablebase,
    material: Material,
) -> Result<(ByColor<Bitmap>, ByColor<Bitmap>), ProbeError> {
    let t = tb.table(material)?;
    let marks = at_once::mark(tb, &t, &|_| ())?;
    Ok((marks.legal, marks.at_once))
}

/// Passes over each entry of both sides that [`verify_table`] reports to its `progress`.
pub const PASSES: u64 = 3;

/// Checks every checksum of `material`'s table (a typed error on the first bad one), then
/// verifies every entry. `progress` is called with entries done: each entry of both sides in
/// each of [`PASSES`] passes, `2 × PASSES × entries` in all.
pub fn verify_table(
    tb: &Tablebase,
    material: Material,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Report, ProbeError> {
    let t = tb.table(material)?;
    t.file.verify_checksums()?;
    let h = t.file.header().clone();
    let failures = Mutex::new(Vec::new());
    let failure_count = AtomicU64::new(0);
    let fail = |fen: String, what: String| {
        failure_count.fetch_add(1, Relaxed);
        let mut f = failures.lock().unwrap();
        if f.len() < KEEP {
            f.push(Failure { fen, what });
        }
    };
    let be = h.block_entries as u64;
    // The legal entries, and those whose distance the file does not store (wins and losses at
    // once), found first table-wide (`at_once`): the entries' checks below then read a quiet
    // child's legality from the first and its value from the file and the second, not by
    // resolving each child from its own children.
    let at_once::Marks {
        legal: positions,
        at_once,
    } = at_once::mark(tb, &t, progress)?;
    // A derived side's values come from its moves into the other side (format 4 §5): found
    // first, and kept for the other side's checks and the orders'.
    let histograms = ByColor::new(|side| t.file.histogram(side));
    let mut derived = h
        .derived
        .map(|side| SideValues::new(side, &h, &histograms))
        .transpose()?;
    // The side whose values the file stores (the one not derived; Red's if none is).
    let stored = SideValues::stored(&t, !h.derived.unwrap_or(Color::Black), &histograms)?;
    let legal = ByColor::new(|_| Bitmap::new(h.entries));
    // The derived side first: the other side's checks read its values.
    let order = match h.derived {
        Some(Color::Black) => [Color::Black, Color::Red],
        _ => [Color::Red, Color::Black],
    };
    for side in order {
        let turn = side;
        // This side's values go to the derived store, block by block, if it is the derived side;
        // otherwise its children on the derived side are read from there.
        let (slots, lookup) = match derived.as_mut() {
            Some(d) if d.side == turn => {
                let width = d.width;
                let slots: Vec<Mutex<&mut [u8]>> = d
                    .map
                    .chunks_mut(width * be as usize)
                    .map(Mutex::new)
                    .collect();
                (Some((width, slots)), None)
            }
            other => (None, other.map(|d| &*d)),
        };
        let checker = Checker {
            tb,
            t: &t,
            at_once: &at_once,
            positions: &positions,
            derived: lookup,
            stored: &stored,
            legal: &legal,
            fail: &fail,
        };
        let (stats, (hist, firsts)) = (0..h.blocks_per_side())
            .into_par_iter()
            .map(|block| {
                let slot = slots
                    .as_ref()
                    .map(|(width, s)| (&s[block as usize], *width));
                let counts = checker.block(turn, block, slot)?;
                progress(h.block_len(block) as u64);
                Ok(counts)
            })
            .try_reduce(Default::default, |(a, ta), (b, tb)| {
                Ok::<_, ProbeError>((a.merge(b), merge_tallies(ta, tb)))
            })?;
        if hist != t.file.histogram(side) || firsts != t.file.firsts(side) {
            fail(
                format!("value table of {}", t.file.path().display()),
                format!(
                    "side {} counts {:?} per (order, distance), first at {:?}, but the entries \
                     give {hist:?}, {firsts:?}",
                    side_char(side),
                    t.file.histogram(side),
                    t.file.firsts(side),
                ),
            );
        }
        if stats != h.sides[side] {
            fail(
                format!("header of {}", t.file.path().display()),
                format!(
                    "side {} counts {:?} but the entries give {:?}",
                    side_char(side),
                    h.sides[side],
                    stats
                ),
            );
        }
    }
    let values = Values {
        derived: derived.as_ref(),
        stored: &stored,
        legal: &legal,
    };
    orders::verify_orders(tb, material, &at_once, &values, &fail)?;
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by(|a, b| a.fen.cmp(&b.fen));
    Ok(Report {
        entries_checked: 2 * h.entries,
        failure_count: failure_count.into_inner(),
        failures,
    })
}

/// What checking one side's entries needs: the table, its wins and losses at once, the derived
/// side's values (when the side checked is the other one), and where failures go.
struct Checker<'a> {
    tb: &'a Tablebase,
    t: &'a OpenTable,
    at_once: &'a ByColor<Bitmap>,
    /// The entries that are legal positions (what a quiet move's legality is read from).
    positions: &'a ByColor<Bitmap>,
    derived: Option<&'a SideValues>,
    /// The stored side's values ([`SideValues::stored`]).
    stored: &'a SideValues,
    /// Where the checks mark the legal entries with a value (for the orders' checks).
    legal: &'a ByColor<Bitmap>,
    fail: &'a (dyn Fn(String, String) + Sync),
}

impl Checker<'_> {
    /// Checks one block of `turn`'s entries against their children; returns its counts and, if
    /// `slot` is given (the derived side), stores the entries' values there.
    fn block(
        &self,
        turn: Color,
        block: u64,
        slot: Option<(&Mutex<&mut [u8]>, usize)>,
    ) -> Result<(SideCounts, (Histogram, Firsts)), ProbeError> {
        // Raw codes: this pass decides legality itself (the file stores nothing for illegal
        // entries).
        let codes = self.t.file.read_stored_raw(turn, block)?;
        let first = block * self.t.file.header().block_entries as u64;
        let mut st = SideCounts::default();
        let mut tally = Tally::new();
        // Only the derived side's values are kept (for the other side's checks).
        let mut values = slot.map(|_| vec![CODE_NONE; codes.len()]);
        let mut decoder = Decoder::new(self.t.indexer());
        // Each entry's moves and their values, the buffer reused from entry to entry.
        let mut moves = Vec::new();
        for (k, &code) in codes.iter().enumerate() {
            let index = first + k as u64;
            let Some((pos, split)) = decoder.decode_split(index, turn) else {
                continue;
            };
            let at = Entry {
                pos: &*pos,
                index,
                split,
            };
            let Some(value) = self.entry(&at, code, slot.is_some(), &mut moves)? else {
                continue;
            };
            self.legal[turn].set(index);
            if let Some(values) = values.as_mut() {
                values[k] = value.code();
            }
            let mult = self.t.indexer().multiplicity(index) as u64;
            st.count(value, mult, index);
            tally.add(value, mult, index);
        }
        if let (Some((slot, width)), Some(values)) = (slot, values) {
            put_codes(width, &mut slot.lock().unwrap(), &values);
        }
        Ok((st, tally.finish()))
    }

    /// Checks entry `index` of `turn` (stored `code`) against its children; returns its value,
    /// or `None` if it is not a legal position (or holds no value: a failure). `derived`: the
    /// entry is on the derived side (no wins or losses at once are marked there).
    fn entry(
        &self,
        at: &Entry,
        code: u32,
        derived: bool,
        moves: &mut Vec<MoveValue>,
    ) -> Result<Option<Value>, ProbeError> {
        let fail = self.fail;
        let (pos, index, turn) = (at.pos, at.index, at.pos.turn());
        if pos.opponent_in_check() {
            return Ok(None);
        }
        let Some(stored) = Value::from_code(code) else {
            fail(
                to_fen(pos),
                format!("legal position without a value (code {code:#x})"),
            );
            return Ok(None);
        };
        child_values(self, at, moves)?;
        let expected = moves
            .iter()
            .map(|m| m.for_mover())
            .max_by_key(|v| v.rank())
            .unwrap_or(LOST_AT_ONCE);
        // The reader's rule (format 4 §5), the children's outcomes read from their values here.
        let value = resolve(
            stored,
            || Ok::<_, ProbeError>(moves.iter().any(|m| m.for_mover() == WIN_AT_ONCE)),
            || moves.iter().any(|m| !m.capture),
            || Ok(expected),
        )?;
        if is_stand_in(stored) && stored.outcome() != value.outcome() {
            let held = stored.outcome();
            fail(
                to_fen(pos),
                format!("holds a {held:?} but its moves give {value}"),
            );
        }
        if !derived && distance_implied(value) != self.at_once[turn].get(index) {
            fail(
                to_fen(pos),
                format!("holds {value} by its moves' values but not by their outcomes"),
            );
        }
        if value != expected && !order_seed(value, expected) {
            fail(
                to_fen(pos),
                format!("holds {value}, its moves give {expected}"),
            );
        }
        Ok(Some(value))
    }
}

/// An entry being checked: its position (the decoder's board), index and the index taken apart
/// (`Indexer::split`: what a defender's step starts from).
struct Entry<'a> {
    pos: &'a Position,
    index: u64,
    split: Split,
}

/// The entry the quiet move `mv` of `at` reaches, by the index layer's steps: a rank update for
/// an attacker's move (`Indexer::moved`), table look-ups for a defender's
/// (`Indexer::moved_defender`). `None` where no step applies. The move need not be legal: the
/// entry is then one whose position is not legal.
fn quiet_step(ix: &Indexer, at: &Entry, mv: Move) -> Option<u64> {
    let pos = at.pos;
    let code = pos.piece_at(mv.from).map_or(0, |p| p.code());
    ix.moved(at.index, code, mv.from, mv.to, pos).or_else(|| {
        ix.moved_defender(&at.split, pos.turn(), mv.from, mv.to)
            .map(|(index, _)| index)
    })
}

/// Every [`STEP_CHECK`]-th entry has each quiet move's entry and legality found both ways.
const STEP_CHECK: u64 = 61;

/// The value of every legal move of `at`'s position (of the checked table's material), into `out`
/// (cleared first; a buffer reused from entry to entry), as
/// [`Tablebase::probe_moves`] gives them, but for captures: a capture's worth to the mover
/// depends only on the outcome it reaches ([`MoveValue::for_mover`]: it converts), so the value
/// at once of that outcome stands for the position's (its WDL probe reads a supporting table's
/// derived side directly, where its value would be a search of its moves). Quiet moves are read
/// from the stored values (the checker's
/// [`SideValues::stored`], or the file) with the wins and losses at once its `at_once` marks,
/// or from the `derived` side's values.
fn child_values(c: &Checker, at: &Entry, out: &mut Vec<MoveValue>) -> Result<(), ProbeError> {
    let (tb, t, at_once, derived) = (c.tb, c.t, c.at_once, c.derived);
    let pos = at.pos;
    let mut moves = MoveList::new();
    pos.pseudo_legal_moves(&mut moves);
    out.clear();
    for mv in moves {
        let capture = pos.is_capture(mv);
        let value = if capture {
            let mut child = pos.clone();
            child.play(mv);
            if child.opponent_in_check() {
                continue;
            }
            match tb.probe_wdl(&child)? {
                Outcome::Win => WIN_AT_ONCE,
                Outcome::Loss => LOST_AT_ONCE,
                Outcome::Draw => Value::Draw,
            }
        } else {
            let side = !pos.turn();
            let Some(index) = c.quiet_child(at, mv)? else {
                continue;
            };
            if let Some(d) = derived.filter(|d| d.side == side) {
                out.push(MoveValue {
                    mv,
                    capture,
                    value: d.get(index),
                });
                continue;
            }
            let stored = match c.stored.side == side {
                true => c.stored.get(index),
                false => t.file.stored_legal(side, index)?,
            };
            match stored.outcome() {
                _ if !at_once[side].get(index) => stored,
                Outcome::Win => WIN_AT_ONCE,
                _ => LOST_AT_ONCE,
            }
        };
        out.push(MoveValue { mv, capture, value });
    }
    Ok(())
}

impl Checker<'_> {
    /// The entry the quiet move `mv` of `at` reaches, `None` if the move is not legal: by
    /// [`quiet_step`], its legality read from the scan's legal entries, else by playing the
    /// move and encoding. The steps are the index layer's, which the builder uses too; so that
    /// the verifier still tests them rather than trusts them, every [`STEP_CHECK`]-th entry's
    /// moves are also played, tested for king safety and encoded from scratch, and a difference
    /// fails the table.
    fn quiet_child(&self, at: &Entry, mv: Move) -> Result<Option<u64>, ProbeError> {
        let ix = self.t.indexer();
        let side = !at.pos.turn();
        let stepped = quiet_step(ix, at, mv);
        let Some(index) = stepped.filter(|_| !at.index.is_multiple_of(STEP_CHECK)) else {
            let mut child = at.pos.clone();
            child.play(mv);
            let legal = !child.opponent_in_check();
            let encoded = if legal {
                Some(ix.encode(&child)?)
            } else {
                None
            };
            if let Some(index) = stepped {
                self.check_step(at, mv, index, encoded);
            }
            return Ok(encoded);
        };
        Ok(self.positions[side].get(index).then_some(index))
    }

    /// Fails the table if the quiet move `mv` of `at` steps to `index` where playing it gives
    /// `encoded` (`None`: the move is not legal).
    fn check_step(&self, at: &Entry, mv: Move, index: u64, encoded: Option<u64>) {
        let side = !at.pos.turn();
        let stepped_legal = self.positions[side].get(index);
        let what = match encoded {
            Some(e) if e != index => {
                format!("steps to entry {index}, but its position encodes to {e}")
            }
            Some(_) if !stepped_legal => {
                format!("steps to entry {index}, not marked legal, but the move is legal")
            }
            None if stepped_legal => {
                format!("steps to entry {index}, marked legal, but the move is not legal")
            }
            _ => return,
        };
        (self.fail)(to_fen(at.pos), format!("the move {mv} {what}"));
    }
}

/// Every entry's value as the entries' checks found them, for the orders' checks: the derived
/// side's and the stored side's, and which entries are legal positions with a value.
struct Values<'a> {
    derived: Option<&'a SideValues>,
    stored: &'a SideValues,
    legal: &'a ByColor<Bitmap>,
}

impl Values<'_> {
    /// The codes of `side`'s block `block` of `t` ([`CODE_NONE`] for entries that are not
    /// legal positions with a value): read from memory, not decompressed and decoded again at
    /// every order.
    fn block(&self, t: &OpenTable, side: Color, block: u64) -> Result<Vec<u32>, ProbeError> {
        let h = t.file.header();
        let (first, len) = (block * h.block_entries as u64, h.block_len(block));
        let mut codes = match (self.derived, self.stored) {
            (Some(d), _) if d.side == side => d.block(first, len),
            (_, s) if s.side == side => s.block(first, len),
            _ => return Ok(t.file.read_stored(side, block)?),
        };
        for (k, c) in codes.iter_mut().enumerate() {
            if !self.legal[side].get(first + k as u64) {
                *c = CODE_NONE;
            }
        }
        Ok(codes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code a table of order 0 can hold, stand-ins included, keeps its value through the
    /// 2-byte form; a code of an order above 0 has none.
    #[test]
    fn the_narrow_form_keeps_every_code_of_order_0() {
        let mut codes = vec![CODE_NONE, Value::Draw.code()];
        for distance in [0, 1, 2, 3, 254, 255, 256, 1000, 0xFFFB] {
            codes.push(Value::Decided { order: 0, distance }.code());
        }
        for distance in [0, 1] {
            codes.push(
                Value::Decided {
                    order: DERIVED_ORDER,
                    distance,
                }
                .code(),
            );
        }
        for &code in &codes {
            assert_eq!(Narrow::code(Narrow::of(code)), code, "{code:#x}");
        }
        let mut narrow: Vec<u16> = codes.iter().map(|&c| Narrow::of(c)).collect();
        narrow.sort();
        narrow.dedup();
        assert_eq!(narrow.len(), codes.len(), "two codes share a form");
        let order_1 = Value::Decided {
            order: 1,
            distance: 3,
        }
        .code();
        assert_eq!(Narrow::of(order_1), CODE_NONE as u16);
        // The two widths read back what they wrote.
        for width in [2, 4] {
            let mut bytes = vec![0u8; width * codes.len()];
            put_codes(width, &mut bytes, &codes);
            let back: Vec<u32> = bytes
                .chunks_exact(width)
                .map(|b| code_at(width, b))
                .collect();
            assert_eq!(back, codes, "width {width}");
        }
    }
}
