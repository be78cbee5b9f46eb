//! Final table files: one per material (both sides to move), laid out byte by byte in
//! `formats/table.md`. Format 4: a fixed header (magic, versions, material, rule set, counts,
//! longest wins, completion record; its own crc32), then two streams of zstd-compressed blocks —
//! distance symbols (DTC, 4, 8 or 16 bits an entry) and win/draw/loss (WDL, 2 bits) — a value
//! table mapping distance symbols to (order, distance / 2) with the positions holding each
//! value and the first index of each, a block index (offset, length, crc32 per block) and a
//! trailer crc32 over the whole file.
//!
//! The distances of wins and losses at once (`(0, 1)`, `(0, 0)`) are not stored, nor are those
//! of one whole side (the *derived* side, as Syzygy's DTZ tables keep one side): they follow
//! from the position's moves ([`resolve`]), which is why [`TableFile`] returns *stored* values
//! and `Tablebase::probe_dtc` the values.
//!
//! Entries that are not legal positions (collisions, the side not to move in check) are stored
//! as "don't care": the writer repeats the previous entry's symbols there, which compresses
//! best. The reader therefore decides legality from the position itself (its [`Indexer`]
//! decodes the index), never from the stored bytes; a WDL probe reads only WDL blocks.
//!
//! Writing computes every checksum while streaming ([`TableWriter`]); reading memory-maps the
//! file, opens in O(1) (header and value table) and decompresses one block per probe through a
//! small cache ([`TableFile`]); [`TableFile::verify_checksums`] checks every byte. Corruption is
//! a typed [`TableError`], never a panic.
//!
//! [`Indexer`]: crate::index::Indexer

mod levels;
mod read;
mod stats;
mod write;

pub use levels::{BadLevels, LevelKey, Levels, Metric};

pub use read::{cache_limit, read_header, read_identity, ReadAt, TableFile};
pub use stats::{merge_tallies, Tally};
pub use write::TableWriter;

use crate::material::Material;
use crate::piece::{ByColor, Color};
use crate::value::{Outcome, Value};
use byteorder::{ByteOrder, LittleEndian as LE};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"XQTB\x1aTBL";
/// Version of the layout described in `formats/table.md`.
pub const FORMAT_VERSION: u32 = 7;
/// Entries per compressed block (both streams). Larger blocks compress better (zstd finds
/// repeats a whole defender placement apart: 8,100 entries in KRNKAABB) at the cost of a longer
/// block decompression on a cache miss; measured in `formats/table.md` §13.
pub const BLOCK_ENTRIES: u32 = 1 << 18;
/// The most entries per block a reader accepts (a 16-bit distance block of 8 MiB).
pub const MAX_BLOCK_ENTRIES: u32 = 1 << 22;
/// Header length in bytes.
pub const HEADER_LEN: usize = 256;
/// Where the header's own crc32 is (its last four bytes); the trailer leaves it out.
pub const HEADER_CRC_AT: usize = HEADER_LEN - 4;
/// Bytes of one block-index entry.
pub const INDEX_ENTRY_LEN: usize = 16;
/// Bytes of one fold-table entry: a value's order and distance (u16 each).
pub const FOLD_ENTRY_LEN: usize = 4;
/// The most entries a fold table may have: its symbols (1 + entry) are 16 bits.
pub const MAX_FOLD_ENTRIES: u32 = u16::MAX as u32 - 1;
/// Bytes of one value-table entry: order and half distance (u16 each), then per side to move
/// (Red, Black) the positions won and lost at that value and the first index of each (u64 each).
pub const VALUE_ENTRY_LEN: usize = 68;

/// The two streams of a table, in block-index order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Win/draw/loss: 2 bits per entry, four a byte (`WDL_LOSS`, `WDL_DRAW`, `WDL_WIN`).
    Wdl = 0,
    /// Distance symbols: 4, 8 or 16 bits per entry (a width byte per block), indexing the value
    /// table.
    Dtc = 1,
}

impl Stream {
    /// `"WDL"` or `"DTC"`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Wdl => "WDL",
            Stream::Dtc => "DTC",
        }
    }
}

/// WDL symbols: the outcome for the side to move.
pub const WDL_LOSS: u8 = 0;
/// WDL symbol of a draw.
pub const WDL_DRAW: u8 = 1;
/// WDL symbol of a win for the side to move.
pub const WDL_WIN: u8 = 2;

/// The outcome a (checked) WDL symbol stands for.
pub fn wdl_outcome(w: u8) -> Outcome {
    match w {
        WDL_LOSS => Outcome::Loss,
        WDL_DRAW => Outcome::Draw,
        _ => Outcome::Win,
    }
}

/// One value-table entry: the order and half the distance of a decided value (the WDL stream
/// gives the parity: a win is at `2 · half + 1`, a loss at `2 · half`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Symbol {
    /// The value's order.
    pub order: u16,
    /// Half its distance, rounded down.
    pub half: u16,
}

/// How many positions hold one value-table entry's value: won (`2 · half + 1`) and lost
/// (`2 · half`), indexed by side to move (0 Red, 1 Black). Written by the builder from the true
/// values, so they count the entries whose distance is not stored (§5 of `formats/table.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SymbolCounts {
    /// Positions won at `(order, 2 · half + 1)`, per side to move.
    pub win: [u64; 2],
    /// Positions lost at `(order, 2 · half)`, per side to move.
    pub loss: [u64; 2],
    /// The smallest index holding a win at `(order, 2 · half + 1)`, per side to move
    /// ([`NO_INDEX`] if none).
    pub first_win: [u64; 2],
    /// The smallest index holding a loss at `(order, 2 · half)`, per side ([`NO_INDEX`] if none).
    pub first_loss: [u64; 2],
}

/// Positions per decided value `(order, distance)` of one side to move.
pub type Histogram = std::collections::BTreeMap<(u16, u16), u64>;
/// The smallest index holding each decided value `(order, distance)` of one side to move.
pub type Firsts = std::collections::BTreeMap<(u16, u16), u64>;
/// No index: a value-table count of zero has no first index.
pub const NO_INDEX: u64 = u64::MAX;

/// A win at distance 1 of order 0: the side to move converts or mates at once.
pub const WIN_AT_ONCE: Value = Value::Decided {
    order: 0,
    distance: 1,
};
/// A loss at distance 0 of order 0: no move, or every move a capture into a won position.
pub const LOST_AT_ONCE: Value = Value::Decided {
    order: 0,
    distance: 0,
};

/// Is a decided value one whose distance the file does not store (format 4, §5)? A win at
/// `(0, 1)` and a loss at `(0, 0)` follow from the position and its children's outcomes.
pub fn distance_implied(v: Value) -> bool {
    v == WIN_AT_ONCE || v == LOST_AT_ONCE
}

pub use crate::value::DERIVED_ORDER;

/// What an entry of a derived side holds when its value is found from its moves: a stand-in
/// carrying only the outcome (distance 1 for a win, 0 for a loss).
pub fn derived_stand_in(outcome: Outcome) -> Value {
    Value::Decided {
        order: DERIVED_ORDER,
        distance: (outcome == Outcome::Win) as u16,
    }
}

/// Is a stored value the stand-in of a derived entry ([`derived_stand_in`])?
pub fn is_stand_in(v: Value) -> bool {
    v.order() == Some(DERIVED_ORDER)
}

/// Is a value a seed of an order above 0 (a loss at `(r, 0)`, `r > 0`): the one value a derived
/// side stores (format 4, §5), since its moves do not give it? In a DTM table `order` is a level
/// index: index 0 is the mates' key `()`, and a loss at distance 0 of any other level is the seed
/// of one of the table's own phases (a capture or a quiet move never leads to one).
pub fn is_order_seed(v: Value) -> bool {
    matches!(v, Value::Decided { order, distance: 0 } if order > 0 && order != DERIVED_ORDER)
}

/// A legal position's value from the value its entry stores (format 4, §5).
///
/// On a derived side the entry holds a stand-in ([`is_stand_in`]) for every value but the seeds
/// of orders above 0: `derive` finds it from the position's moves (the best value they give
/// the mover, Fang's Definition 9). Elsewhere a win whose distance is not stored is a win at
/// once: `wins_at_once` says whether the position has a capture into a position lost for the
/// opponent or a quiet move into a position lost at `(0, 0)`; if so the value is `(0, 1)`,
/// else the stored one. A loss without a legal quiet move (`has_quiet` false) can only be lost
/// at `(0, 0)`: every move captures into a won position. One piece of code for every reader
/// (the probing API, `verify`, `stats`), which differ only in how they learn the children's
/// values.
pub fn resolve<E>(
    stored: Value,
    wins_at_once: impl FnOnce() -> Result<bool, E>,
    has_quiet: impl FnOnce() -> bool,
    derive: impl FnOnce() -> Result<Value, E>,
) -> Result<Value, E> {
    if is_stand_in(stored) {
        return derive();
    }
    Ok(match stored.outcome() {
        Outcome::Draw => stored,
        Outcome::Win if stored == WIN_AT_ONCE || !wins_at_once()? => stored,
        Outcome::Win => WIN_AT_ONCE,
        Outcome::Loss if has_quiet() => stored,
        Outcome::Loss => LOST_AT_ONCE,
    })
}

/// Which rules a table's values follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum RuleSet {
    /// Distance to conversion, order 0 only: no Asian-rule (perpetual check/chase) orders;
    /// positions not resolved by plain retrograde analysis are draws.
    DtcOrder0 = 1,
    /// Distance to conversion with orders: perpetual check loses (Fang's Algorithm 8 with the
    /// checking patterns only).
    DtcCheck = 2,
    /// Distance to conversion with orders: perpetual check and forbidden perpetual chase lose
    /// (Fang's Algorithm 8, complete under the Asian rules).
    DtcAsian = 3,
    /// Distance to conversion, order 0, and the same values under every rule set: a table
    /// where no side has a rook, horse, cannon or pawn, so that no move gives check and no
    /// piece can be chased ([`Material::rules_apply`]). One such table serves the tables of
    /// every rule set.
    DtcAny = 4,
}

impl RuleSet {
    /// The rule set of a header's code (1–4); `None` for any other.
    pub fn from_u32(v: u32) -> Option<RuleSet> {
        match v {
            1 => Some(RuleSet::DtcOrder0),
            2 => Some(RuleSet::DtcCheck),
            3 => Some(RuleSet::DtcAsian),
            4 => Some(RuleSet::DtcAny),
            _ => None,
        }
    }

    /// The rule set's name: `dtc-order0`, `dtc-check`, `dtc-asian` or `dtc-any`.
    pub fn name(self) -> &'static str {
        match self {
            RuleSet::DtcOrder0 => "dtc-order0",
            RuleSet::DtcCheck => "dtc-check",
            RuleSet::DtcAsian => "dtc-asian",
            RuleSet::DtcAny => "dtc-any",
        }
    }

    /// The rule set a table of `material` records when built under `self`: [`RuleSet::DtcAny`]
    /// if the rules cannot change its values, else `self`.
    pub fn for_material(self, material: Material) -> RuleSet {
        if material.rules_apply() {
            self
        } else {
            RuleSet::DtcAny
        }
    }

    /// May tables of these two rule sets be probed together (a table and one its captures lead
    /// to, or two tables of one directory)? Only if they are the same, or one is
    /// [`RuleSet::DtcAny`].
    pub fn combines_with(self, other: RuleSet) -> bool {
        self == other || self == RuleSet::DtcAny || other == RuleSet::DtcAny
    }

    /// Can a table of this rule set hold an order above 0?
    pub fn has_orders(self) -> bool {
        matches!(self, RuleSet::DtcCheck | RuleSet::DtcAsian)
    }
}

/// One table a table was built from (a table its captures lead to), as the builder read it:
/// the identity a reader compares with the file present (`formats/table.md` §4.1). The crc32
/// covers every byte of that file, its own list of supporting tables included, so the whole
/// chain of tables below is bound in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SupportingTable {
    /// Its (canonical) material.
    pub material: Material,
    /// The rule set its header records.
    pub rule_set: RuleSet,
    /// Its trailer: the crc32 of all its bytes but the last four.
    pub file_crc: u32,
    /// Its length in bytes.
    pub file_len: u64,
}

/// Bytes of one record of the supporting-table list.
pub const SUPPORT_LEN: usize = 32;

impl SupportingTable {
    fn to_bytes(self) -> [u8; SUPPORT_LEN] {
        let mut b = [0u8; SUPPORT_LEN];
        let name = self.material.to_string();
        b[..name.len()].copy_from_slice(name.as_bytes());
        LE::write_u32(&mut b[16..], self.rule_set as u32);
        LE::write_u32(&mut b[20..], self.file_crc);
        LE::write_u64(&mut b[24..], self.file_len);
        b
    }

    fn from_bytes(b: &[u8], path: &Path) -> Result<SupportingTable, TableError> {
        let bad = |what: String| TableError::BadHeader {
            path: path.to_owned(),
            what: format!("supporting table list: {what}"),
        };
        let name = text_field(&b[..16]).ok_or_else(|| bad("material is not text".into()))?;
        let material: Material = name
            .parse()
            .map_err(|e| bad(format!("material {name:?}: {e}")))?;
        let code = LE::read_u32(&b[16..]);
        Ok(SupportingTable {
            material,
            rule_set: RuleSet::from_u32(code)
                .ok_or_else(|| bad(format!("{material}: unknown rule set {code}")))?,
            file_crc: LE::read_u32(&b[20..]),
            file_len: LE::read_u64(&b[24..]),
        })
    }
}

impl SupportingTable {
    /// The record of a table withheld from a partial build (`formats/partial.md`): no file, its
    /// captures valued as the best for one side. Length 0 names no file a table can have.
    /// `file_crc` says for whom: 1 Red, 2 Black.
    pub fn withheld(material: Material, rule_set: RuleSet, best_for: Color) -> SupportingTable {
        SupportingTable {
            material,
            rule_set,
            file_crc: 1 + best_for.index() as u32,
            file_len: 0,
        }
    }

    /// Was this table withheld from the build (see [`SupportingTable::withheld`])?
    pub fn is_withheld(&self) -> bool {
        self.file_len == 0
    }

    /// For a withheld table, the side its captures were valued as the best for.
    pub fn withheld_best_for(&self) -> Option<Color> {
        match (self.file_len, self.file_crc) {
            (0, 1) => Some(Color::Red),
            (0, 2) => Some(Color::Black),
            _ => None,
        }
    }

    /// Fails unless `found`, what the file at `support` is now, is this record: the table at
    /// `table`, which recorded it, was built from that very file.
    pub fn check(
        &self,
        found: &SupportingTable,
        table: &Path,
        support: &Path,
    ) -> Result<(), TableError> {
        if self == found {
            return Ok(());
        }
        Err(TableError::SupportChanged {
            path: table.to_owned(),
            support: support.to_owned(),
            recorded: *self,
            found: *found,
        })
    }

    /// Its rule set, crc32 and length, for messages.
    pub fn describe(&self) -> String {
        format!(
            "rule set {}, crc32 {:08x}, {} bytes",
            self.rule_set.name(),
            self.file_crc,
            self.file_len
        )
    }
}

/// The bytes of a supporting-table list (`formats/table.md` §4.1).
pub(crate) fn supports_to_bytes(supports: &[SupportingTable]) -> Vec<u8> {
    supports.iter().flat_map(|s| s.to_bytes()).collect()
}

/// A supporting-table list from its bytes, checked against the header: its crc32, one record
/// per table `header.material`'s captures lead to, each of a rule set its material can have and
/// that combines with the header's.
pub(crate) fn supports_from_bytes(
    b: &[u8],
    header: &Header,
    crc: u32,
    path: &Path,
) -> Result<Vec<SupportingTable>, TableError> {
    let bad = |what: String| TableError::BadHeader {
        path: path.to_owned(),
        what: format!("supporting table list: {what}"),
    };
    if crc32fast::hash(b) != crc {
        return Err(bad("checksum mismatch (corrupted file)".into()));
    }
    let list = b
        .chunks_exact(SUPPORT_LEN)
        .map(|r| SupportingTable::from_bytes(r, path))
        .collect::<Result<Vec<_>, _>>()?;
    let expected = header.material.captures_into();
    let mut named: Vec<Material> = list.iter().map(|s| s.material).collect();
    named.sort();
    if named != expected {
        return Err(bad(format!(
            "names {named:?}, but {}'s captures lead to {expected:?}",
            header.material
        )));
    }
    // An earlier xqtb wrote dtc-any for materials the rules can change; a table built from one
    // may have taken wrong values through its captures.
    if let Some(s) = list
        .iter()
        .find(|s| (s.rule_set == RuleSet::DtcAny) == s.material.rules_apply())
    {
        return Err(bad(format!(
            "{} of rule set {}, which that material cannot have (an earlier xqtb wrote dtc-any \
             for every material with attacking pieces on one side only, and some of those \
             values are wrong: rebuild the table)",
            s.material,
            s.rule_set.name()
        )));
    }
    if let Some(s) = list
        .iter()
        .find(|s| !s.rule_set.combines_with(header.rule_set))
    {
        return Err(bad(format!(
            "{} of rule set {} under a table of rule set {}",
            s.material,
            s.rule_set.name(),
            header.rule_set.name()
        )));
    }
    Ok(list)
}

/// The longest win of one side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LongestWinEntry {
    /// Its order.
    pub order: u16,
    /// Its distance in plies (the largest among the side's wins).
    pub distance: u16,
    /// The smallest index holding it.
    pub index: u64,
}

/// What a table holds for one side to move. Counts are of real legal positions: a mirror-folded
/// entry counts twice (itself and its mirror image), identical pieces' permutations once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SideCounts {
    /// Legal positions (`win + draw + loss`).
    pub legal: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// The longest win; `None` if this side never wins.
    pub longest_win: Option<LongestWinEntry>,
}

/// The decoded header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The table's material (canonical orientation).
    pub material: Material,
    /// The rules the values follow.
    pub rule_set: RuleSet,
    /// The index scheme the entries are numbered by ([`crate::index::INDEX_SCHEME_VERSION`]).
    pub index_scheme: u32,
    /// Index entries per side to move.
    pub entries: u64,
    /// Entries per compressed block, both streams (a multiple of 32, at most
    /// [`MAX_BLOCK_ENTRIES`]).
    pub block_entries: u32,
    /// The highest order in the table (0 for rule set `dtc-order0`).
    pub max_order: u16,
    /// Counts and longest win per side to move.
    pub sides: ByColor<SideCounts>,
    /// Where the block index starts; it runs to the trailer.
    pub index_offset: u64,
    /// Entries of the value table (distance symbols in use), which ends where the block index
    /// starts.
    pub symbols: u32,
    /// Length of the whole file, trailer included.
    pub file_len: u64,
    /// crc32 of the value table and the block index together (`values_offset .. file_len - 4`).
    pub index_crc: u32,
    /// Which program and engine wrote the table: the completion record of the build that made
    /// it (a file with a header was finished by that build). Empty in files from before it.
    pub builder: String,
    /// The side to move whose distances are not stored but found from its moves into the
    /// other side's entries ([`resolve`]); `None` if both are stored.
    pub derived: Option<Color>,
    /// The tables its captures lead to, as the build read them (in the order of
    /// [`Material::captures_into`]).
    pub supports: Vec<SupportingTable>,
    /// Which distance the values count.
    pub metric: Metric,
    /// DTM: the level keys its values' orders index (empty for DTC, whose orders are its own).
    pub levels: Levels,
    /// Entries of each side's fold table (`formats/table.md` §7.1): the values a folded side's
    /// distance symbols name, which follow the value table; 0 for a side that is not folded.
    pub fold_entries: ByColor<u32>,
}

/// The completion record this program writes (at most 32 bytes): a table carrying another one
/// was not made by this version's builder, and `build` rebuilds it rather than trust it.
pub const BUILDER_ID: &str = concat!("xqtb ", env!("CARGO_PKG_VERSION"), " engine 2");
const BUILDER_AT: usize = 204;
const BUILDER_LEN: usize = 32;
const SYMBOLS_AT: usize = 236;
const DERIVED_AT: usize = 240;
const SUPPORTS_AT: usize = 244;
const SUPPORTS_CRC_AT: usize = 248;
const METRIC_AT: usize = 104;
const LEVELS_AT: usize = 108;
const LEVELS_LEN_AT: usize = 112;
const LEVELS_CRC_AT: usize = 116;
/// The header's `derived` field when both sides' distances are stored.
const NOT_DERIVED: u32 = u32::MAX;

impl Header {
    /// Blocks of each stream per side to move: `ceil(entries / block_entries)`.
    pub fn blocks_per_side(&self) -> u64 {
        self.entries.div_ceil(self.block_entries as u64)
    }

    /// Bytes of the supporting-table list, which follows the header.
    pub fn supports_len(&self) -> u64 {
        (self.supports.len() * SUPPORT_LEN) as u64
    }

    /// Bytes of the level table, which follows the supporting-table list (DTM only).
    pub fn levels_len(&self) -> u64 {
        match self.metric {
            Metric::Dtc => 0,
            Metric::Dtm => self.levels.to_bytes().len() as u64,
        }
    }

    /// Where the data (the distance and WDL blocks) starts: after the header, the
    /// supporting-table list and the level table.
    pub fn data_offset(&self) -> u64 {
        HEADER_LEN as u64 + self.supports_len() + self.levels_len()
    }

    /// Where the value table starts (the fold tables follow it, up to `index_offset`).
    pub fn values_offset(&self) -> u64 {
        self.fold_offset() - self.symbols as u64 * VALUE_ENTRY_LEN as u64
    }

    /// Where the fold tables start (side 0's, then side 1's; they end at `index_offset`).
    pub fn fold_offset(&self) -> u64 {
        self.index_offset - self.fold_len()
    }

    /// Bytes of both sides' fold tables.
    pub fn fold_len(&self) -> u64 {
        (self.fold_entries[Color::Red] as u64 + self.fold_entries[Color::Black] as u64)
            * FOLD_ENTRY_LEN as u64
    }

    /// Does `side`'s distance stream carry its outcomes too (a DTM table's side that is not
    /// derived, format 7: `formats/table.md` §5.1)? Its WDL blocks are then empty.
    pub fn folds(&self, side: Color) -> bool {
        self.metric == Metric::Dtm && self.derived != Some(side)
    }

    /// Bytes of the block index: two streams, two sides.
    pub fn index_len(&self) -> u64 {
        4 * self.blocks_per_side() * INDEX_ENTRY_LEN as u64
    }

    /// Where the block-index entry of (`stream`, `side`, `block`) is.
    pub fn index_entry_at(&self, stream: Stream, side: Color, block: u64) -> u64 {
        let nb = self.blocks_per_side();
        self.index_offset
            + ((stream as u64 * 2 + side.index() as u64) * nb + block) * INDEX_ENTRY_LEN as u64
    }

    /// Entries of one block (only a side's last block may be shorter).
    pub fn block_len(&self, block: u64) -> usize {
        let be = self.block_entries as u64;
        (self.entries - block * be).min(be) as usize
    }

    pub(crate) fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[8..], FORMAT_VERSION);
        LE::write_u32(&mut b[12..], self.index_scheme);
        LE::write_u32(&mut b[16..], self.rule_set as u32);
        let name = self.material.to_string();
        b[20..20 + name.len()].copy_from_slice(name.as_bytes());
        LE::write_u32(&mut b[36..], self.block_entries);
        LE::write_u64(&mut b[40..], self.entries);
        LE::write_u32(&mut b[48..], self.blocks_per_side() as u32);
        LE::write_u32(&mut b[52..], self.max_order as u32);
        for (side, st) in self.sides.iter() {
            let o = 56 + 64 * side.index();
            LE::write_u64(&mut b[o..], st.legal);
            LE::write_u64(&mut b[o + 8..], st.win);
            LE::write_u64(&mut b[o + 16..], st.draw);
            LE::write_u64(&mut b[o + 24..], st.loss);
            let lw = st.longest_win;
            LE::write_u16(&mut b[o + 32..], lw.map_or(0, |l| l.order));
            LE::write_u16(&mut b[o + 34..], lw.map_or(0, |l| l.distance));
            LE::write_u32(&mut b[o + 36..], self.fold_entries[side]);
            LE::write_u64(&mut b[o + 40..], lw.map_or(u64::MAX, |l| l.index));
        }
        LE::write_u64(&mut b[184..], self.index_offset);
        LE::write_u64(&mut b[192..], self.file_len);
        LE::write_u32(&mut b[200..], self.index_crc);
        LE::write_u32(&mut b[SYMBOLS_AT..], self.symbols);
        LE::write_u32(
            &mut b[DERIVED_AT..],
            self.derived.map_or(NOT_DERIVED, |s| s.index() as u32),
        );
        LE::write_u32(&mut b[SUPPORTS_AT..], self.supports.len() as u32);
        LE::write_u32(
            &mut b[SUPPORTS_CRC_AT..],
            crc32fast::hash(&supports_to_bytes(&self.supports)),
        );
        LE::write_u32(&mut b[METRIC_AT..], self.metric as u32);
        if self.metric == Metric::Dtm {
            let levels = self.levels.to_bytes();
            LE::write_u32(&mut b[LEVELS_AT..], self.levels.phase0() as u32);
            LE::write_u32(&mut b[LEVELS_LEN_AT..], levels.len() as u32);
            LE::write_u32(&mut b[LEVELS_CRC_AT..], crc32fast::hash(&levels));
        }
        let id = self.builder.as_bytes();
        let n = id.len().min(BUILDER_LEN);
        b[BUILDER_AT..BUILDER_AT + n].copy_from_slice(&id[..n]);
        let crc = crc32fast::hash(&b[..HEADER_LEN - 4]);
        LE::write_u32(&mut b[HEADER_LEN - 4..], crc);
        b
    }

    /// The header of `b`, its supporting-table list and level table still empty, and what it
    /// says of them (they follow the header: [`supports_from_bytes`], [`Levels::from_bytes`]).
    pub(crate) fn from_bytes(
        b: &[u8; HEADER_LEN],
        path: &Path,
    ) -> Result<HeaderFields, TableError> {
        let bad = |what: String| TableError::BadHeader {
            path: path.to_owned(),
            what,
        };
        if b[0..8] != MAGIC {
            return Err(TableError::BadMagic(path.to_owned()));
        }
        let version = LE::read_u32(&b[8..]);
        if (1..FORMAT_VERSION).contains(&version) {
            return Err(TableError::OldFormat {
                path: path.to_owned(),
                version,
                material: material_field(b).unwrap_or_else(|| "<MATERIAL>".into()),
            });
        }
        if version != FORMAT_VERSION {
            return Err(TableError::UnsupportedVersion {
                path: path.to_owned(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let crc = crc32fast::hash(&b[..HEADER_LEN - 4]);
        if crc != LE::read_u32(&b[HEADER_LEN - 4..]) {
            return Err(TableError::HeaderChecksum(path.to_owned()));
        }
        let index_scheme = LE::read_u32(&b[12..]);
        if index_scheme != crate::index::INDEX_SCHEME_VERSION {
            return Err(bad(format!(
                "index scheme {index_scheme}, this program reads {}",
                crate::index::INDEX_SCHEME_VERSION
            )));
        }
        let rule_set = RuleSet::from_u32(LE::read_u32(&b[16..]))
            .ok_or_else(|| bad(format!("unknown rule set {}", LE::read_u32(&b[16..]))))?;
        let name = material_field(b).ok_or_else(|| bad("material is not text".into()))?;
        let material: Material = name
            .parse()
            .map_err(|e| bad(format!("material {name:?}: {e}")))?;
        let block_entries = LE::read_u32(&b[36..]);
        let entries = LE::read_u64(&b[40..]);
        // Readers decompress a block whole (and the builder packs whole 64-bit words of 2-bit
        // entries): a block is a multiple of 32 entries and at most 2^22, whatever a file says.
        if block_entries == 0 || block_entries % 32 != 0 || block_entries > MAX_BLOCK_ENTRIES {
            return Err(bad(format!(
                "{block_entries} entries per block (a multiple of 32 up to {MAX_BLOCK_ENTRIES} expected)"
            )));
        }
        let mut sides = ByColor::<SideCounts>::default();
        for (side, st) in sides.iter_mut() {
            let o = 56 + 64 * side.index();
            let index = LE::read_u64(&b[o + 40..]);
            *st = SideCounts {
                legal: LE::read_u64(&b[o..]),
                win: LE::read_u64(&b[o + 8..]),
                draw: LE::read_u64(&b[o + 16..]),
                loss: LE::read_u64(&b[o + 24..]),
                longest_win: (index != u64::MAX).then(|| LongestWinEntry {
                    order: LE::read_u16(&b[o + 32..]),
                    distance: LE::read_u16(&b[o + 34..]),
                    index,
                }),
            };
        }
        let h = Header {
            material,
            rule_set,
            index_scheme,
            entries,
            block_entries,
            max_order: LE::read_u32(&b[52..]) as u16,
            sides,
            index_offset: LE::read_u64(&b[184..]),
            symbols: LE::read_u32(&b[SYMBOLS_AT..]),
            file_len: LE::read_u64(&b[192..]),
            index_crc: LE::read_u32(&b[200..]),
            builder: {
                let id = &b[BUILDER_AT..BUILDER_AT + BUILDER_LEN];
                let end = id.iter().position(|&c| c == 0).unwrap_or(BUILDER_LEN);
                String::from_utf8_lossy(&id[..end]).into_owned()
            },
            derived: match LE::read_u32(&b[DERIVED_AT..]) {
                NOT_DERIVED => None,
                s @ (0 | 1) => Some(Color::ALL[s as usize]),
                s => return Err(bad(format!("derived side {s} (0, 1 or none expected)"))),
            },
            supports: Vec::new(),
            metric: Metric::from_u32(LE::read_u32(&b[METRIC_AT..]))
                .ok_or_else(|| bad(format!("unknown metric {}", LE::read_u32(&b[METRIC_AT..]))))?,
            levels: Levels::default(),
            fold_entries: ByColor::new(|side| LE::read_u32(&b[56 + 64 * side.index() + 36..])),
        };
        for side in Color::ALL {
            let n = h.fold_entries[side];
            if n > MAX_FOLD_ENTRIES || (n > 0 && !h.folds(side)) {
                return Err(bad(format!(
                    "a fold table of {n} entries for side {}, {}",
                    side_char(side),
                    if n > MAX_FOLD_ENTRIES {
                        "more than its symbols can name"
                    } else {
                        "which is not folded"
                    }
                )));
            }
        }
        let levels = LevelsField {
            count: LE::read_u32(&b[LEVELS_AT..]),
            len: LE::read_u32(&b[LEVELS_LEN_AT..]),
            crc: LE::read_u32(&b[LEVELS_CRC_AT..]),
        };
        if h.metric == Metric::Dtc && levels != LevelsField::default() {
            return Err(bad("a level table in a DTC table".into()));
        }
        if !h.rule_set.has_orders() && h.max_order != 0 {
            return Err(bad(format!(
                "max order {} in a table of rule set {}, which has order 0 only",
                h.max_order,
                h.rule_set.name()
            )));
        }
        if (h.rule_set == RuleSet::DtcAny) == h.material.rules_apply() {
            return Err(bad(format!(
                "rule set {} for {}, {}",
                h.rule_set.name(),
                h.material,
                if h.material.rules_apply() {
                    "whose values the rules on endless play can change (an earlier xqtb wrote \
                     dtc-any for every material with attacking pieces on one side only, and \
                     some of those values are wrong: rebuild the table)"
                } else {
                    "which only rule set dtc-any describes (no rules change its values)"
                }
            )));
        }
        if LE::read_u32(&b[48..]) as u64 != h.blocks_per_side() {
            return Err(bad("block count does not match the entry count".into()));
        }
        if h.blocks_per_side() > u32::MAX as u64 {
            return Err(bad("more than 2^32 - 1 blocks per side".into()));
        }
        // Every sum below is of numbers under 2^60 (blocks < 2^32, entries of 16 bytes): no
        // overflow.
        let supports = LE::read_u32(&b[SUPPORTS_AT..]);
        if supports as usize > MAX_SUPPORTS {
            return Err(bad(format!("{supports} supporting tables")));
        }
        let tail = h.symbols as u64 * VALUE_ENTRY_LEN as u64 + h.fold_len();
        if h.index_offset
            < HEADER_LEN as u64 + supports as u64 * SUPPORT_LEN as u64 + levels.len as u64 + tail
            || h.index_offset.checked_add(h.index_len() + 4) != Some(h.file_len)
        {
            return Err(bad(
                "value table and block index do not end where the trailer starts".into(),
            ));
        }
        Ok(HeaderFields {
            header: h,
            supports,
            supports_crc: LE::read_u32(&b[SUPPORTS_CRC_AT..]),
            levels,
        })
    }
}

/// What the fixed header says of the lists that follow it.
pub(crate) struct HeaderFields {
    /// The header, its lists still empty.
    pub header: Header,
    /// Records of the supporting-table list.
    pub supports: u32,
    /// Its crc32.
    pub supports_crc: u32,
    /// The level table's keys, bytes and crc32.
    pub levels: LevelsField,
}

/// The header's description of the level table (`formats/table.md` §4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LevelsField {
    /// Keys of phase 0.
    pub count: u32,
    /// Bytes.
    pub len: u32,
    /// crc32 of the bytes.
    pub crc: u32,
}

/// The most supporting tables a header may name: a capture of each of 7 roles of 2 colours.
const MAX_SUPPORTS: usize = 14;

/// The material field (bytes 20..36) as text, up to its first NUL.
fn material_field(b: &[u8; HEADER_LEN]) -> Option<String> {
    text_field(&b[20..36])
}

/// A NUL-padded ASCII field as text, up to its first NUL.
fn text_field(field: &[u8]) -> Option<String> {
    let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
    std::str::from_utf8(&field[..end]).ok().map(str::to_owned)
}

/// The rule set of every table file in `dir` whose header reads (`*.xqtb`, by path; files
/// that cannot be read are left out: opening them says why).
pub fn rule_sets_in(dir: &Path) -> Vec<(PathBuf, RuleSet)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, RuleSet)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "xqtb"))
        .filter_map(|p| read_header(&p).ok().map(|h| (p, h.rule_set)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The file name of a material's table: `KRKAABB.xqtb` (always the canonical orientation).
pub fn file_name(material: Material) -> String {
    format!("{}.xqtb", material.canonical())
}

/// The path of a material's table in `dir`.
pub fn table_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(file_name(material))
}

/// The file name of a material's table in `metric`: `KRKAABB.xqtb` (DTC), `KRKAABB.xqdtm` (DTM).
pub fn metric_file_name(material: Material, metric: Metric) -> String {
    match metric {
        Metric::Dtc => file_name(material),
        Metric::Dtm => format!("{}.xqdtm", material.canonical()),
    }
}

/// The path of a material's table in `metric` in `dir`.
pub fn metric_table_path(dir: &Path, material: Material, metric: Metric) -> PathBuf {
    dir.join(metric_file_name(material, metric))
}

/// The materials of the `metric` table files in `dir` (`KRKA.xqtb`, `KRKA.xqdtm`), by name; a
/// file whose name is not a canonical material's table name is skipped.
pub fn materials_in(dir: &Path, metric: Metric) -> std::io::Result<Vec<Material>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let name = e?.file_name();
        let Some(name) = name.to_str() else { continue };
        let material = name.split_once('.').and_then(|(stem, _)| stem.parse().ok());
        // The name the table would have: canonical, spelt as the code spells it.
        if let Some(m) = material.filter(|&m| metric_file_name(m, metric) == name) {
            out.push(m);
        }
    }
    out.sort_by_key(|m| m.to_string());
    Ok(out)
}

/// Why a table file cannot be used. Every variant names the file.
#[derive(Debug, Error)]
pub enum TableError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{0}: not an xqtb table file (bad magic)")]
    BadMagic(PathBuf),
    /// The path is a directory, FIFO, socket or device, not a plain file.
    #[error("{path}: not a regular file (it is {kind}): a table must be a plain file")]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead, e.g. `"a directory"`.
        kind: &'static str,
    },
    /// A format version this program does not know (newer than [`FORMAT_VERSION`], or 0).
    #[error("{path}: table format version {found}, this program reads version {supported}")]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version the file has.
        found: u32,
        /// The version this program reads.
        supported: u32,
    },
    /// A table of an earlier format version, which this program no longer reads.
    #[error(
        "{path}: table format version {version}, which this program no longer reads (it reads \
         version {reads}): rebuild it with `xqtb build {material} --dir <DIR>` (build replaces \
         it), or read it with an xqtb release of format {version}",
        reads = FORMAT_VERSION
    )]
    OldFormat {
        /// The file.
        path: PathBuf,
        /// The version the file has.
        version: u32,
        /// Its material as the header names it (for the rebuild command), or `<MATERIAL>`.
        material: String,
    },
    /// The header's crc32 does not match its bytes.
    #[error("{0}: header checksum mismatch (corrupted file)")]
    HeaderChecksum(PathBuf),
    /// A header field is invalid or inconsistent with the others or with the index.
    #[error("{path}: bad header: {what}")]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The file is shorter than a header, or not as long as its header says.
    #[error("{path}: truncated or extended: header says {expected} bytes, file has {found}")]
    Length {
        /// The file.
        path: PathBuf,
        /// The length expected.
        expected: u64,
        /// The file's length.
        found: u64,
    },
    /// The crc32 of the value table and block index does not match the header's.
    #[error("{0}: value table or block index checksum mismatch (corrupted file)")]
    IndexChecksum(PathBuf),
    /// A block cannot be read: its index entry points outside the data, its checksum or
    /// decompression fails, its content is malformed, or an index or symbol is out of range.
    #[error("{path}: {stream} block {block} of side {side}: {what}")]
    Block {
        /// The file.
        path: PathBuf,
        /// The stream's name ([`Stream::name`]).
        stream: &'static str,
        /// The side to move ([`side_char`]: `w` or `b`).
        side: char,
        /// The block's number within its side.
        block: u64,
        /// What is wrong.
        what: String,
    },
    /// The value table holds an impossible value or disagrees with the header's counts.
    #[error("{path}: value table: {what}")]
    ValueTable {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The trailer's crc32 over the whole file does not match.
    #[error("{0}: whole-file checksum mismatch (corrupted file)")]
    FileChecksum(PathBuf),
    /// A table's rule set differs from that of another table of its directory (`dtc-any`
    /// tables aside): tables of two rule sets are never probed together.
    #[error(
        "{path} holds rule set {}, but {other} in the same directory holds rule set {}: a \
         directory holds tables of one rule set (move one of them to another directory)",
        rule_set.name(),
        other_rule_set.name()
    )]
    RuleSetMismatch {
        /// The table refused.
        path: PathBuf,
        /// Its rule set.
        rule_set: RuleSet,
        /// A table of the directory's other rule set.
        other: PathBuf,
        /// That table's rule set.
        other_rule_set: RuleSet,
    },
    /// A table was built from another file than the supporting table present: the two do not
    /// belong together (one of them was rebuilt, replaced or built under other rules).
    #[error(
        "{path} was built from a {} of {}, but the {} present is of {}: the two tables do not \
         belong together (rebuild {} with `xqtb build`, which rebuilds what depends on it)",
        recorded.material,
        recorded.describe(),
        support.display(),
        found.describe(),
        recorded.material
    )]
    SupportChanged {
        /// The table that recorded its supporting table.
        path: PathBuf,
        /// The supporting table's file.
        support: PathBuf,
        /// What the table recorded of it.
        recorded: SupportingTable,
        /// What the file present is.
        found: SupportingTable,
    },
    /// The table is one of the two builds of a partial table (`formats/partial.md`): it was
    /// built with a supporting table withheld, its captures there valued as the best for one
    /// side, so its values are bounds, not values.
    #[error(
        "{path} was built with the {withheld} table withheld (one build of a partial table: \
         its values are bounds, not values); build it with {withheld} present to probe it"
    )]
    BuiltWithout {
        /// The table.
        path: PathBuf,
        /// A supporting table it was built without.
        withheld: Material,
    },
    /// The file holds another material than the one its name or its caller expects.
    #[error("{path}: material {found}, expected {expected}")]
    WrongMaterial {
        /// The file.
        path: PathBuf,
        /// The material expected.
        expected: Material,
        /// The material in the header.
        found: Material,
    },
}

impl TableError {
    /// An I/O error on `path`, as a closure for `map_err`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
        move |source| TableError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// The side letter used in messages and JSON: `w` Red to move, `b` Black to move.
pub fn side_char(side: Color) -> char {
    match side {
        Color::Red => 'w',
        Color::Black => 'b',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::Tablebase;

    #[test]
    fn a_directory_lists_the_tables_under_their_own_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "KRKA.xqtb",
            "KAKR.xqtb", // the twin's name: the table would be KRKA.xqtb
            "KRKA.xqdtm",
            "KCPKAABB.xqdtm", // a DTM table without its DTC table
            "KRKA.xqtb.part", // a write in progress
            "krka.xqtb",
            "KXKA.xqtb",
            "notes.txt",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let names_of = |metric| -> Vec<String> {
            let found = materials_in(dir.path(), metric).unwrap();
            found.iter().map(Material::to_string).collect()
        };
        assert_eq!(names_of(Metric::Dtc), ["KRKA"]);
        assert_eq!(names_of(Metric::Dtm), ["KCPKAABB", "KRKA"]);
        let tb = Tablebase::open(dir.path()).unwrap();
        assert_eq!(tb.largest().unwrap(), 8);
        std::fs::remove_file(dir.path().join("KCPKAABB.xqdtm")).unwrap();
        assert_eq!(tb.largest().unwrap(), 4);
    }
}
