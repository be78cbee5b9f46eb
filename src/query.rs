//! What the query commands and the server answer: a position's value with every move, the
//! principal line, a table's statistics and the list of tables. Each answer is a `Serialize`
//! type, so `xqtb probe --json`, `xqtb stats --json` and the HTTP API print the same objects
//! with the same field names (`formats/api.md`).

use crate::chase::{chased_after, chasers, checkers};
use crate::fen::{parse_fen, to_fen, ParseError};
use crate::material::Material;
use crate::notation;
use crate::piece::{Color, Role};
use crate::position::{Move, Position};
use crate::qstring::{parse_qstring, to_qstring};
use crate::repetition::{Perpetual, PieceNames, Repetition, Ruling};
use crate::square::Square;
use crate::table::{file_name, metric_file_name, wdl_outcome, Metric, TableError};
use crate::tablebase::{Dtm, DtmMove, LineEnd, MoveValue, ProbeError, Tablebase};
use crate::value::{Outcome, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Parses a position as the query pages accept it: a FEN (`_` may stand for a space, side `w`
/// or `r` for Red, `b` for Black) or the classic query system's position string (a trailing `:`
/// asks for Black's view). Returns the position and whether Black's view was asked for.
pub fn parse_query_position(text: &str) -> Result<(Position, bool), ParseError> {
    let text = text.trim().replace('_', " ");
    if text.contains('/') {
        parse_fen(&text).map(|p| (p, false))
    } else {
        parse_qstring(&text).map(|q| (q.position, q.black_view))
    }
}

/// `"w"` for Red, `"b"` for Black.
pub fn side_name(c: Color) -> &'static str {
    match c {
        Color::Red => "w",
        Color::Black => "b",
    }
}

/// One legal move, with the value of the position it leads to for the side to move there (the
/// classic system's "(order-value)" after each move).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MoveEntry {
    /// UCCI, e.g. `h2e2`.
    #[serde(rename = "move")]
    pub ucci: String,
    /// The move captures (a conversion).
    pub capture: bool,
    /// `win`, `draw` or `loss` for the side to move after the move.
    pub result: &'static str,
    /// The order of the position after the move; null for a draw.
    pub order: Option<u16>,
    /// Its distance to conversion in plies, for the side to move there; null for a draw.
    pub distance: Option<u16>,
    /// One of the best moves (the classic `*`).
    pub best: bool,
    /// WXF notation, e.g. `C2=5`.
    pub wxf: String,
    /// Traditional Chinese notation, e.g. `炮二平五`.
    pub zh: String,
    /// The position after the move.
    pub fen: String,
    /// The move gives check (facing kings included).
    pub check: bool,
    /// The points of the pieces this quiet move chases under the Asian rules
    /// (`formats/rules.md`: a new forbidden attack, not a check), e.g. `["d7"]`; empty for a
    /// capture (it converts) and for a check.
    pub chases: Vec<String>,
    /// The distance to mate of the position after the move, for the side to move there; absent
    /// without DTM tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtm: Option<DtmEntry>,
}

/// A distance-to-mate value as the API gives it (`formats/api.md`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DtmEntry {
    /// `win`, `draw` or `loss` for the side to move.
    pub result: &'static str,
    /// Plies to mate (or to the ruling its level names); null for a draw.
    pub distance: Option<u16>,
    /// The level's phases (`[]` for a mate; `[0, 2]`: the second phase of the Asian rules in
    /// the table reached after one capture); null for a draw.
    pub level: Option<Vec<u16>>,
    /// One of the best moves under distance to mate (on moves only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<bool>,
}

impl DtmEntry {
    fn of(v: &Dtm, best: Option<bool>) -> DtmEntry {
        DtmEntry {
            result: v.outcome().name(),
            distance: v.distance(),
            level: v.level().map(|l| l.phases().to_vec()),
            best,
        }
    }
}

/// A position's value and every legal move, best first.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ProbeResult {
    /// The position as FEN.
    pub fen: String,
    /// The classic query system's position string.
    pub qstring: String,
    /// The position's material signature, e.g. `KRKA` (as on the board, not canonicalised).
    pub material: String,
    /// The side to move: `w` Red, `b` Black.
    pub side: &'static str,
    /// The side to move is in check (facing kings included).
    pub in_check: bool,
    /// `win`, `draw` or `loss` for the side to move.
    pub result: &'static str,
    /// The value's order; null for a draw.
    pub order: Option<u16>,
    /// At order 0, plies to conversion (capture or mate); above, plies until the losing side
    /// has nothing left but perpetual check or chase (see `rule`); null for a draw.
    pub distance: Option<u16>,
    /// Every legal move, best first.
    pub moves: Vec<MoveEntry>,
    /// The position's distance to mate; absent without DTM tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtm: Option<DtmEntry>,
    /// At an order above 0, the perpetual check or chase the principal line drives the loser
    /// to; absent at order 0 and for a draw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleAhead>,
}

/// The ruling a position of order above 0 is won by, as its principal line shows it: where the
/// distance runs out, the losing side's every best move checks (or chases one piece), and the
/// Asian rules forbid doing so for ever.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RuleAhead {
    /// `check` or `chase`.
    pub kind: &'static str,
    /// The side that loses: `w` Red, `b` Black.
    pub loser: &'static str,
    /// Plies until then: the position's distance.
    pub plies: u16,
    /// The points, in this position, of the loser's pieces that give that check or chase.
    pub by: Vec<String>,
    /// For a chase, the point in this position of the piece chased; null for a check.
    pub chased: Option<String>,
}

/// The [`RuleAhead`] of a position of order above 0: its principal line to `(r, 0)`, then the
/// loser's first best move there, its checking or chasing pieces named by where they stand in
/// `pos` ([`PieceNames`]).
fn rule_ahead(
    tb: &Tablebase,
    pos: &Position,
    value: Value,
) -> Result<Option<RuleAhead>, ProbeError> {
    let Value::Decided { order, distance } = value else {
        return Ok(None);
    };
    if order == 0 {
        return Ok(None);
    }
    let line = tb.principal_line(pos)?;
    if line.end != LineEnd::Perpetual {
        return Ok(None);
    }
    let mut names = PieceNames::new(pos);
    let mut cur = pos.clone();
    for m in &line.moves {
        names.play(m.mv);
        cur.play(m.mv);
    }
    let Some(m) = tb.best_moves(&cur)?.into_iter().min_by_key(|m| m.mv) else {
        return Ok(None);
    };
    let mut after = cur.clone();
    after.play(m.mv);
    let named = |sq: Square| names.of(if sq == m.mv.to { m.mv.from } else { sq });
    let points = |sqs: Vec<Square>| -> Vec<String> {
        sqs.into_iter()
            .filter_map(named)
            .map(|s| s.to_string())
            .collect()
    };
    let (kind, by, chased) = if after.is_check() {
        ("check", points(checkers(&after)), None)
    } else {
        let Some(&p) = chased_after(&cur, m.mv, &after).first() else {
            return Ok(None);
        };
        let chased = names.of(p).map(|s| s.to_string());
        ("chase", points(chasers(&cur, m.mv, &after, p)), chased)
    };
    Ok(Some(RuleAhead {
        kind,
        loser: side_name(cur.turn()),
        plies: distance,
        by,
        chased,
    }))
}

/// The moves best first: Fang's Definition 9 order of their value for the mover (shortest win
/// of the lowest order, draws, then the longest loss of the highest order), ties by UCCI.
pub fn sort_best_first(moves: &mut [MoveValue]) {
    moves.sort_by_key(|m| (std::cmp::Reverse(m.for_mover().rank()), m.mv));
}

fn move_entry(pos: &Position, m: &MoveValue, best: bool) -> MoveEntry {
    let mut child = pos.clone();
    child.play(m.mv);
    MoveEntry {
        ucci: m.mv.to_string(),
        capture: m.capture,
        result: m.value.outcome().name(),
        order: m.value.order(),
        distance: m.value.distance(),
        best,
        wxf: notation::wxf(pos, m.mv).unwrap_or_default(),
        zh: notation::chinese(pos, m.mv).unwrap_or_default(),
        fen: to_fen(&child),
        check: child.is_check(),
        chases: if m.capture {
            Vec::new()
        } else {
            crate::chase::chased_after(pos, m.mv, &child)
                .iter()
                .map(|sq| sq.to_string())
                .collect()
        },
        dtm: None,
    }
}

/// Every legal move with its value, sorted best first, the best ones marked.
fn entries(pos: &Position, mut moves: Vec<MoveValue>) -> Vec<MoveEntry> {
    sort_best_first(&mut moves);
    let best = moves.first().map(|m| m.for_mover().rank());
    moves
        .iter()
        .map(|m| move_entry(pos, m, Some(m.for_mover().rank()) == best))
        .collect()
}

/// Probes a position and every move from it.
pub fn probe(tb: &Tablebase, pos: &Position) -> Result<ProbeResult, ProbeError> {
    let (value, moves) = tb.probe_with_moves(pos)?;
    ProbeResult {
        fen: to_fen(pos),
        qstring: to_qstring(pos, false),
        material: Material::of(pos).to_string(),
        side: side_name(pos.turn()),
        in_check: pos.is_check(),
        result: value.outcome().name(),
        order: value.order(),
        distance: value.distance(),
        moves: entries(pos, moves),
        dtm: None,
        rule: rule_ahead(tb, pos, value)?,
    }
    .with_dtm(tb, pos)
}

impl ProbeResult {
    /// Adds the distances to mate, if the DTM tables are there: the position's and each
    /// move's, the best moves under DTM marked.
    fn with_dtm(mut self, tb: &Tablebase, pos: &Position) -> Result<ProbeResult, ProbeError> {
        let value = match tb.probe_dtm(pos) {
            Err(ProbeError::Missing { .. }) => return Ok(self),
            v => v?,
        };
        // A supporting table's DTM file missing: the DTC answer stands alone, as without DTM.
        let moves = match tb.probe_dtm_moves(pos) {
            Err(ProbeError::Missing { .. }) => return Ok(self),
            m => m?,
        };
        let best = moves
            .iter()
            .map(DtmMove::for_mover)
            .max_by(|a, b| a.cmp_for_mover(b));
        for entry in &mut self.moves {
            let m = moves
                .iter()
                .find(|m| m.mv.to_string() == entry.ucci)
                .expect("the same legal moves");
            let is_best = Some(m.for_mover()) == best;
            entry.dtm = Some(DtmEntry::of(&m.value, Some(is_best)));
        }
        self.dtm = Some(DtmEntry::of(&value, None));
        Ok(self)
    }
}

/// One ply of the principal line.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LineStep {
    /// UCCI, e.g. `h2e2`.
    #[serde(rename = "move")]
    pub ucci: String,
    /// WXF notation, e.g. `C2=5`.
    pub wxf: String,
    /// Traditional Chinese notation, e.g. `炮二平五`.
    pub zh: String,
    /// The move captures (it ends the line).
    pub capture: bool,
    /// The move gives check (facing kings included).
    pub check: bool,
    /// The position after the move and its value for the side to move there.
    pub fen: String,
    /// `win`, `draw` or `loss` for the side to move after the move.
    pub result: &'static str,
    /// The order of the position after the move; null for a draw.
    pub order: Option<u16>,
    /// Its distance to conversion in plies; null for a draw.
    pub distance: Option<u16>,
}

/// The principal line from a position.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Mainline {
    /// The position the line starts from (the game's last position) as FEN.
    pub fen: String,
    /// `win`, `draw` or `loss` for its side to move.
    pub result: &'static str,
    /// Its value's order; null for a draw.
    pub order: Option<u16>,
    /// Its distance to conversion in plies (at order 0, the line's length to the conversion);
    /// null for a draw.
    pub distance: Option<u16>,
    /// The plies shown, at most the limit asked for.
    pub steps: Vec<LineStep>,
    /// Why the line stops: `conversion` (its last move captures), `mate` (the side to move is
    /// checkmated), `stalemate` (the side to move has no move and is not in check), `draw` (the
    /// position is drawn: best play converts nothing), `repetition` (a position of the game
    /// stands again: see `repetition`), `perpetual` (lost at distance 0 of an order above 0,
    /// and no ruling cycle was found to play out), or `limit` (the line reached the length
    /// limit first).
    pub end: &'static str,
    /// The repetition the line ends with (`end` = `repetition`), else null.
    pub repetition: Option<RepetitionEntry>,
}

/// A position that stands again in a game, the cycle between, and the Asian rules' ruling.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RepetitionEntry {
    /// The ply of the game after which the position first stood (0: the game's start; the
    /// game's moves first, then the line's).
    pub first: usize,
    /// The ply after which it stands again.
    pub again: usize,
    /// What Red did in every one of its moves of the cycle: `check`, `chase` (one and the
    /// same piece), or null.
    pub red: Option<&'static str>,
    /// The same for Black.
    pub black: Option<&'static str>,
    /// The side that loses by the rules (`w` or `b`), or null for a draw.
    pub loser: Option<&'static str>,
    /// Why it loses: `check` (perpetual check) or `chase` (perpetual chase); null for a draw.
    pub rule: Option<&'static str>,
    /// For a perpetual chase, the point of the chased piece in the repeated position.
    pub chased: Option<String>,
}

impl RepetitionEntry {
    fn of(rep: &Repetition) -> RepetitionEntry {
        let name = |p: Option<Perpetual>| {
            p.map(|p| match p {
                Perpetual::Check => "check",
                Perpetual::Chase(_) => "chase",
            })
        };
        let [red, black] = rep.cycle.perpetual.0;
        let (loser, by) = match rep.cycle.ruling() {
            Ruling::Draw => (None, None),
            Ruling::Loses { side, by } => (Some(side_name(side)), Some(by)),
        };
        RepetitionEntry {
            first: rep.first,
            again: rep.again,
            red: name(red),
            black: name(black),
            loser,
            rule: name(by),
            chased: match by {
                Some(Perpetual::Chase(p)) => Some(p.to_string()),
                _ => None,
            },
        }
    }
}

/// The principal line ([`Tablebase::line_in_game`]: best moves, ties to the smallest move)
/// from the position the game `moves` from `start` reached, to the next conversion or mate, or
/// through a perpetual-check or chase pattern to the repetition that rules on it; at most
/// `limit` plies shown.
pub fn mainline(
    tb: &Tablebase,
    start: &Position,
    moves: &[Move],
    limit: usize,
) -> Result<Mainline, ProbeError> {
    let line = tb.line_in_game(start, moves)?;
    let mut cur = start.clone();
    for &mv in moves {
        cur.play(mv);
    }
    let value = tb.probe_dtc(&cur)?;
    let fen = to_fen(&cur);
    let mut steps = Vec::new();
    for m in line.moves.iter().take(limit) {
        let e = move_entry(&cur, m, true);
        steps.push(LineStep {
            ucci: e.ucci,
            wxf: e.wxf,
            zh: e.zh,
            capture: e.capture,
            check: e.check,
            fen: e.fen,
            result: e.result,
            order: e.order,
            distance: e.distance,
        });
        cur.play(m.mv);
    }
    let (end, repetition) = match line.end {
        _ if line.moves.len() > limit => ("limit", None),
        LineEnd::Conversion => ("conversion", None),
        LineEnd::Mate if cur.is_check() => ("mate", None),
        LineEnd::Mate => ("stalemate", None),
        LineEnd::Draw => ("draw", None),
        LineEnd::Perpetual => ("perpetual", None),
        LineEnd::Repetition(rep) => ("repetition", Some(RepetitionEntry::of(&rep))),
    };
    Ok(Mainline {
        fen,
        result: value.outcome().name(),
        order: value.order(),
        distance: value.distance(),
        steps,
        end,
        repetition,
    })
}

/// A longest win: its value and an example position.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LongestWin {
    /// The win's order.
    pub order: u16,
    /// Its distance in plies.
    pub distance: u16,
    /// A position holding it (the one at the smallest index), as FEN.
    pub fen: String,
}

/// Positions at one (order, distance).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HistogramEntry {
    /// The order.
    pub order: u16,
    /// The distance in plies: odd a win for the side to move, even a loss.
    pub distance: u16,
    /// Positions holding that value.
    pub positions: u64,
}

/// W/D/L of the positions whose most advanced pawns stand on the given ranks.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PawnRanks {
    /// How far Red's most advanced pawn stands from Red's back rank (3 or 4: not yet across the
    /// river, 9: on Black's back rank); null if Red has no pawn.
    pub red: Option<u8>,
    /// The same for Black's most advanced pawn, counted from Black's back rank.
    pub black: Option<u8>,
    /// Legal positions with these pawn ranks.
    pub legal: u64,
    /// Of them, positions won for the side to move.
    pub win: u64,
    /// Of them, drawn positions.
    pub draw: u64,
    /// Of them, positions lost for the side to move.
    pub loss: u64,
}

/// What a table holds for one side to move.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SideStats {
    /// Legal positions (real positions: mirror images both).
    pub legal: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// The longest win of the lowest order holding one, with an example position.
    pub longest_win: Option<LongestWin>,
    /// The longest win of every order that has wins, lowest order first.
    pub longest_wins: Vec<LongestWin>,
    /// Decided positions per (order, distance).
    pub histogram: Vec<HistogramEntry>,
    /// For tables with pawns: W/D/L split by the rank of each side's most advanced pawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pawn_ranks: Option<Vec<PawnRanks>>,
}

/// A table's statistics per side to move.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TableStats {
    /// The table's (canonical) material, e.g. `KRKA`.
    pub material: String,
    /// The table's file name, e.g. `KRKA.xqtb`.
    pub file: String,
    /// The file's length in bytes.
    pub file_bytes: u64,
    /// The rule set the values follow (`dtc-order0`, `dtc-check` or `dtc-asian`).
    pub rule_set: &'static str,
    /// The highest order in the table.
    pub max_order: u16,
    /// The statistics of each side to move.
    pub sides: Sides,
    /// Per order, both sides to move together: positions won and lost at it, and its longest
    /// win (Fang's levels; the seed's statistics page).
    pub orders: Vec<OrderStats>,
    /// `dtc` or `dtm`.
    pub metric: &'static str,
    /// DTM: the key of each level index (what `order` means in a DTM table: `[]` mate, `[0, 2]`
    /// the second phase of the table one capture down, `[1]` this table's first phase).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<Vec<u16>>>,
}

/// One order's positions, both sides to move.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct OrderStats {
    /// The order.
    pub order: u16,
    /// Positions (both sides to move) won for the side to move at this order.
    pub win: u64,
    /// Positions (both sides to move) lost for the side to move at this order.
    pub loss: u64,
    /// The longest win of this order (either side to move); null if it has no wins.
    pub longest_win: Option<LongestWin>,
}

/// Per side to move.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Sides {
    /// Red to move.
    pub w: SideStats,
    /// Black to move.
    pub b: SideStats,
}

impl Sides {
    /// Red to move first.
    pub fn iter(&self) -> impl Iterator<Item = (Color, &SideStats)> {
        [(Color::Red, &self.w), (Color::Black, &self.b)].into_iter()
    }
}

/// How far the most advanced pawn of `color` stands from its own back rank.
fn most_advanced_pawn(pos: &Position, color: Color) -> Option<u8> {
    pos.pieces(color)
        .filter(|(_, p)| p.role() == Role::Pawn)
        .map(|(sq, _)| match color {
            Color::Red => sq.rank(),
            Color::Black => 9 - sq.rank(),
        })
        .max()
}

/// Per (Red's, Black's) most advanced pawn: [loss, draw, win] positions.
type PawnTally = BTreeMap<(Option<u8>, Option<u8>), [u64; 3]>;

fn merge_pawns(mut a: PawnTally, b: PawnTally) -> PawnTally {
    for (k, c) in b {
        let e = a.entry(k).or_default();
        for j in 0..3 {
            e[j] += c[j];
        }
    }
    a
}

/// A table's statistics: the counts, the distance histogram and the first position of each
/// distance (the longest wins) come from the file's header and value table (written by the
/// builder, checked by `verify`); for tables with pawns, the split by most advanced pawns is
/// read from the entries, blocks in parallel.
pub fn table_stats(tb: &Tablebase, material: Material) -> Result<TableStats, ProbeError> {
    table_stats_of(tb, material, Metric::Dtc)
}

/// [`table_stats`] of the `metric` table (DTM: the orders are level indices, `levels` says
/// which key each is).
pub fn table_stats_of(
    tb: &Tablebase,
    material: Material,
    metric: Metric,
) -> Result<TableStats, ProbeError> {
    stats_of(tb, material, metric, true)
}

/// [`table_stats_of`] from the file's header and value table alone: no `pawn_ranks` (`None`
/// for every table), the one part that reads every entry (`docs/usage.md` gives its cost).
pub fn table_header_stats_of(
    tb: &Tablebase,
    material: Material,
    metric: Metric,
) -> Result<TableStats, ProbeError> {
    stats_of(tb, material, metric, false)
}

fn stats_of(
    tb: &Tablebase,
    material: Material,
    metric: Metric,
    pawn_ranks: bool,
) -> Result<TableStats, ProbeError> {
    use rayon::prelude::*;
    let t = tb.table_of(material, metric)?;
    let h = t.file.header().clone();
    let has_pawns = pawn_ranks
        && (h.material.count(Color::Red, Role::Pawn) > 0
            || h.material.count(Color::Black, Role::Pawn) > 0);
    let mut sides = Vec::with_capacity(2);
    for turn in Color::ALL {
        let side = turn;
        let be = h.block_entries as u64;
        let st = h.sides[side];
        let (win, draw, loss) = (st.win, st.draw, st.loss);
        let hist = t.file.histogram(side);
        let pawns = if has_pawns {
            (0..h.blocks_per_side())
                .into_par_iter()
                .map(|block| -> Result<PawnTally, ProbeError> {
                    let mut tally = PawnTally::new();
                    for (k, &w) in t.file.read_wdl_block(side, block)?.iter().enumerate() {
                        let index = block * be + k as u64;
                        let Some(pos) = t.indexer().decode(index, turn) else {
                            continue;
                        };
                        if pos.opponent_in_check() {
                            continue;
                        }
                        let key = (
                            most_advanced_pawn(&pos, Color::Red),
                            most_advanced_pawn(&pos, Color::Black),
                        );
                        tally.entry(key).or_default()[wdl_outcome(w) as usize] +=
                            t.indexer().multiplicity(index) as u64;
                    }
                    Ok(tally)
                })
                .try_reduce(PawnTally::new, |a, b| Ok(merge_pawns(a, b)))?
        } else {
            PawnTally::new()
        };
        let longest = first_longest_wins(&t, side, &hist);
        let decode =
            |order: u16, (distance, index): (u16, u64)| -> Result<LongestWin, ProbeError> {
                let pos = t.indexer().decode(index, turn).ok_or_else(|| {
                    ProbeError::Table(TableError::BadHeader {
                        path: t.file.path().to_owned(),
                        what: format!("entry {index} holds a win but is no position"),
                    })
                })?;
                Ok(LongestWin {
                    order,
                    distance,
                    fen: to_fen(&pos),
                })
            };
        let longest_wins = longest
            .iter()
            .map(|(&o, &d)| decode(o, d))
            .collect::<Result<Vec<_>, _>>()?;
        let st = h.sides[side];
        sides.push(SideStats {
            legal: st.legal,
            win,
            draw,
            loss,
            longest_win: longest_wins.first().cloned(),
            longest_wins,
            histogram: hist
                .into_iter()
                .map(|((order, distance), positions)| HistogramEntry {
                    order,
                    distance,
                    positions,
                })
                .collect(),
            pawn_ranks: has_pawns.then(|| {
                pawns
                    .into_iter()
                    .map(|((red, black), [loss, draw, win])| PawnRanks {
                        red,
                        black,
                        legal: loss + draw + win,
                        win,
                        draw,
                        loss,
                    })
                    .collect()
            }),
        });
    }
    let b = sides.pop().expect("two sides");
    let w = sides.pop().expect("two sides");
    let mut stats = TableStats {
        material: h.material.to_string(),
        file: metric_file_name(h.material, metric),
        file_bytes: h.file_len,
        rule_set: h.rule_set.name(),
        max_order: h.max_order,
        sides: Sides { w, b },
        orders: Vec::new(),
        metric: metric.name(),
        levels: (metric == Metric::Dtm).then(|| {
            (0..h.levels.len() as u16)
                .map(|i| h.levels.key(i).expect("in range").phases().to_vec())
                .collect()
        }),
    };
    stats.orders = order_stats(&stats);
    Ok(stats)
}

/// Per order, the longest win of `side` (from its histogram) and the smallest index holding it
/// (from the value table, which keeps each value's first index: a derived side stores no
/// distances to search, `formats/table.md` §5).
fn first_longest_wins(
    t: &crate::tablebase::OpenTable,
    side: Color,
    hist: &crate::table::Histogram,
) -> BTreeMap<u16, (u16, u64)> {
    let firsts = t.file.firsts(side);
    let mut longest: BTreeMap<u16, (u16, u64)> = BTreeMap::new();
    for &(order, distance) in hist.keys().filter(|(_, d)| d % 2 == 1) {
        let Some(&index) = firsts.get(&(order, distance)) else {
            continue;
        };
        let e = longest.entry(order).or_insert((distance, index));
        if distance > e.0 {
            *e = (distance, index);
        }
    }
    longest
}

/// Every order with decided positions, from the histograms and longest wins of both sides.
fn order_stats(stats: &TableStats) -> Vec<OrderStats> {
    let mut orders: BTreeMap<u16, OrderStats> = BTreeMap::new();
    for (_, s) in stats.sides.iter() {
        for e in &s.histogram {
            let o = orders.entry(e.order).or_insert(OrderStats {
                order: e.order,
                win: 0,
                loss: 0,
                longest_win: None,
            });
            if e.distance % 2 == 1 {
                o.win += e.positions;
            } else {
                o.loss += e.positions;
            }
        }
    }
    for lw in longest_per_order(stats) {
        if let Some(o) = orders.get_mut(&lw.order) {
            o.longest_win = Some(lw);
        }
    }
    orders.into_values().collect()
}

/// One table in a directory, as the tables page lists it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TableSummary {
    /// The table's (canonical) material, e.g. `KRKA`.
    pub material: String,
    /// The table's file name, e.g. `KRKA.xqtb`.
    pub file: String,
    /// The file's length in bytes.
    pub file_bytes: u64,
    /// Legal positions, both sides to move.
    pub positions: u64,
    /// Percent of Red-to-move positions Red wins.
    pub red_win_pct: f64,
    /// Percent of Black-to-move positions that are draws.
    pub black_draw_pct: f64,
    /// The highest order in the table.
    pub max_order: u16,
    /// The longest win of each order (either side to move), lowest order first.
    pub longest_wins: Vec<LongestWin>,
}

fn pct(x: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        // Two decimals, so that the JSON shows what the page shows.
        (10000.0 * x as f64 / of as f64).round() / 100.0
    }
}

/// The longest win of every order over both sides to move (the longer one; Red's on a tie).
pub fn longest_per_order(stats: &TableStats) -> Vec<LongestWin> {
    let mut best: BTreeMap<u16, LongestWin> = BTreeMap::new();
    for s in [&stats.sides.b, &stats.sides.w] {
        // Red to move comes last so it wins ties.
        for lw in &s.longest_wins {
            match best.get(&lw.order) {
                Some(b) if b.distance > lw.distance => {}
                _ => {
                    best.insert(lw.order, lw.clone());
                }
            }
        }
    }
    best.into_values().collect()
}

/// A table's summary from its header alone when it holds only order 0 (the header keeps each
/// side's longest win), otherwise from its statistics (`stats` computes them when needed).
pub fn table_summary(
    tb: &Tablebase,
    material: Material,
    stats: impl FnOnce() -> Result<TableStats, ProbeError>,
) -> Result<TableSummary, ProbeError> {
    let t = tb.table(material)?;
    let h = t.file.header();
    let longest_wins = if h.max_order == 0 {
        let mut best: Option<LongestWin> = None;
        for side in Color::ALL {
            if let Some(l) = h.sides[side].longest_win {
                if best.as_ref().is_some_and(|b| b.distance >= l.distance) {
                    continue;
                }
                let pos = t.indexer().decode(l.index, side).ok_or_else(|| {
                    ProbeError::Table(TableError::BadHeader {
                        path: t.file.path().to_owned(),
                        what: format!("longest win at entry {} is no position", l.index),
                    })
                })?;
                best = Some(LongestWin {
                    order: l.order,
                    distance: l.distance,
                    fen: to_fen(&pos),
                });
            }
        }
        best.into_iter().collect()
    } else {
        longest_per_order(&stats()?)
    };
    Ok(TableSummary {
        material: h.material.to_string(),
        file: file_name(h.material),
        file_bytes: h.file_len,
        positions: h.sides[Color::Red].legal + h.sides[Color::Black].legal,
        red_win_pct: pct(h.sides[Color::Red].win, h.sides[Color::Red].legal),
        black_draw_pct: pct(h.sides[Color::Black].draw, h.sides[Color::Black].legal),
        max_order: h.max_order,
        longest_wins,
    })
}

/// The materials of the table files (`*.xqtb`) in a directory, sorted by name; a file whose name
/// is not a canonical material's table name is skipped.
pub fn table_materials(dir: &Path) -> std::io::Result<Vec<Material>> {
    crate::table::materials_in(dir, Metric::Dtc)
}

/// A position of a partial table (`formats/partial.md`): bounds on its value for the side to
/// move, and the value where it is exact.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PartialResult {
    /// The position as FEN.
    pub fen: String,
    /// Its material, e.g. `KRKN`.
    pub material: String,
    /// The side to move: `w` Red, `b` Black.
    pub side: &'static str,
    /// The side to move is in check (facing kings included).
    pub in_check: bool,
    /// The tables withheld from the partial table.
    pub without: Vec<String>,
    /// The worst outcome the withheld tables could make it: `win`, `draw` or `loss`.
    pub lower: &'static str,
    /// The best.
    pub upper: &'static str,
    /// The bounds in words: `win`, `draw`, `loss`, `at least a draw`, `at most a draw`, or
    /// `unknown`.
    pub bounds: &'static str,
    /// Where the value is exact, its order and distance; else null.
    pub order: Option<u16>,
    /// See `order`.
    pub distance: Option<u16>,
    /// Every legal move: proven best first, then by what the move is sure to give the mover.
    pub moves: Vec<PartialMoveEntry>,
    /// Where the directory has the partial table's DTM builds and the distance to mate is
    /// exact (`formats/partial.md` §9), that value; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtm: Option<DtmEntry>,
}

/// One legal move from a position of a partial table, with the bounds of the position it leads
/// to for the side to move there (as [`MoveEntry`] gives a value).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PartialMoveEntry {
    /// UCCI, e.g. `h2e2`.
    #[serde(rename = "move")]
    pub ucci: String,
    /// The move captures (into a withheld table: its bounds are `unknown`).
    pub capture: bool,
    /// The worst outcome for the side to move after the move.
    pub lower: &'static str,
    /// The best.
    pub upper: &'static str,
    /// The bounds in words (as [`PartialResult::bounds`]).
    pub bounds: &'static str,
    /// Where the value after the move is exact, its order and distance; else null.
    pub order: Option<u16>,
    /// See `order`.
    pub distance: Option<u16>,
    /// Proven a best move: the position's value and this move's are exact and equal (Fang's
    /// Definition 9). None is where the position's value is not exact.
    pub best: bool,
    /// WXF notation.
    pub wxf: String,
    /// Traditional Chinese notation.
    pub zh: String,
    /// The position after the move.
    pub fen: String,
    /// The move gives check.
    pub check: bool,
    /// Where the DTM builds are there and the distance to mate after the move is exact, that
    /// value, `best` saying whether the move is proven best under DTM; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtm: Option<DtmEntry>,
}

/// Partial moves proven best first, then by the outcome each is sure to give the mover, the
/// best it may give, its exact value's rank, and UCCI.
fn partial_entries(
    pos: &Position,
    mut moves: Vec<crate::tablebase::partial::PartialMove>,
) -> Vec<PartialMoveEntry> {
    use std::cmp::Reverse;
    let rank = |o: Outcome| o.flip() as u8;
    moves.sort_by_key(|m| {
        let exact = m.after.exact.map(|v| {
            let mv = MoveValue {
                mv: m.mv,
                capture: m.capture,
                value: v,
            };
            mv.for_mover().rank()
        });
        (
            Reverse(m.best),
            Reverse(rank(m.after.upper)),
            Reverse(rank(m.after.lower)),
            Reverse(exact),
            m.mv,
        )
    });
    moves
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play(m.mv);
            PartialMoveEntry {
                ucci: m.mv.to_string(),
                capture: m.capture,
                lower: m.after.lower.name(),
                upper: m.after.upper.name(),
                bounds: bounds_words(m.after.lower, m.after.upper),
                order: m.after.exact.and_then(|v| v.order()),
                distance: m.after.exact.and_then(|v| v.distance()),
                best: m.best,
                wxf: notation::wxf(pos, m.mv).unwrap_or_default(),
                zh: notation::chinese(pos, m.mv).unwrap_or_default(),
                fen: to_fen(&child),
                check: child.is_check(),
                dtm: None,
            }
        })
        .collect()
}

/// Adds to `entries` each move's exact distance to mate from `dtm_moves`, where there is one.
fn with_partial_dtm(
    mut entries: Vec<PartialMoveEntry>,
    dtm_moves: &[crate::tablebase::partial::PartialMove<Dtm>],
) -> Vec<PartialMoveEntry> {
    for e in &mut entries {
        let m = dtm_moves
            .iter()
            .find(|m| m.mv.to_string() == e.ucci)
            .expect("the same legal moves");
        e.dtm = m
            .after
            .exact
            .as_ref()
            .map(|v| DtmEntry::of(v, Some(m.best)));
    }
    entries
}

/// A probe's answer: from a complete table, or from a partial one where the directory has no
/// complete table of the position's material ([`partial_fallback`]).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum ProbeAnswer {
    /// From a complete table.
    Full(Box<ProbeResult>),
    /// From a partial table (it has `bounds`).
    Partial(Box<PartialResult>),
}

/// [`probe`], or where `dir` has no complete table of the position's material but a partial
/// one, the partial table's answer.
pub fn probe_answer(tb: &Tablebase, pos: &Position) -> Result<ProbeAnswer, ProbeError> {
    match partial_fallback(tb.dir(), pos, PARTIAL_CACHE)? {
        Some(p) => Ok(ProbeAnswer::Partial(Box::new(p))),
        None => Ok(ProbeAnswer::Full(Box::new(probe(tb, pos)?))),
    }
}

/// Block cache per table of a partial table probed through [`probe_answer`].
const PARTIAL_CACHE: usize = 1 << 20;

/// `dir`'s partial table's answer for `pos` if `dir` has no complete table of its material
/// and a partial one; `None` otherwise.
pub fn partial_fallback(
    dir: &Path,
    pos: &Position,
    cache_bytes: usize,
) -> Result<Option<PartialResult>, ProbeError> {
    let material = Material::of(pos).canonical();
    if crate::table::metric_table_path(dir, material, Metric::Dtc).exists() {
        return Ok(None);
    }
    probe_partial(dir, pos, cache_bytes)
}

/// The metrics of `dir`'s partial table of `material` (canonical): those both builds hold.
pub fn partial_metrics(dir: &Path, material: Material) -> Vec<Metric> {
    use crate::tablebase::partial::partial_dir;
    Metric::ALL
        .into_iter()
        .filter(|&t| {
            Color::ALL.iter().all(|&c| {
                crate::table::metric_table_path(&partial_dir(dir, c), material, t).exists()
            })
        })
        .collect()
}

/// The bounds of a position of `dir`'s partial table of its material, if it has one
/// (`dir/partial/red-best` and `dir/partial/black-best`).
pub fn probe_partial(
    dir: &Path,
    pos: &Position,
    cache_bytes: usize,
) -> Result<Option<PartialResult>, ProbeError> {
    use crate::tablebase::partial::{partial_dir, Bounds, PartialMove, PartialTablebase};
    let material = Material::of(pos);
    let metrics = partial_metrics(dir, material.canonical());
    let Some(&first) = metrics.first() else {
        return Ok(None);
    };
    let red = partial_dir(dir, Color::Red);
    let without = withheld_from(&crate::table::metric_table_path(
        &red,
        material.canonical(),
        first,
    ))?;
    let tb = PartialTablebase::of_dir(dir, cache_bytes);
    // The outcomes' bounds are the same in both metrics (Fang's Theorem 7); DTC gives the
    // distance to conversion where there are DTC builds.
    let dtc = |b: Bounds<Dtm>| Bounds {
        lower: b.lower,
        upper: b.upper,
        exact: None,
    };
    let dtc_move = |m: PartialMove<Dtm>| PartialMove {
        mv: m.mv,
        capture: m.capture,
        after: dtc(m.after),
        best: false,
    };
    // The DTM builds' answers, once, where they are there.
    let dtm_answer = match metrics.contains(&Metric::Dtm) {
        true => Some((tb.probe_dtm_bounds(pos)?, tb.probe_dtm_moves(pos)?)),
        false => None,
    };
    let (b, moves) = match (first, &dtm_answer) {
        (Metric::Dtm, Some((b, m))) => (dtc(b.clone()), m.iter().cloned().map(dtc_move).collect()),
        _ => (tb.probe_bounds(pos)?, tb.probe_moves(pos)?),
    };
    let mut moves = partial_entries(pos, moves);
    let mut dtm = None;
    if let Some((b, m)) = &dtm_answer {
        dtm = b.exact.as_ref().map(|v| DtmEntry::of(v, None));
        moves = with_partial_dtm(moves, m);
    }
    Ok(Some(PartialResult {
        fen: to_fen(pos),
        material: material.to_string(),
        side: side_name(pos.turn()),
        in_check: pos.is_check(),
        without,
        lower: b.lower.name(),
        upper: b.upper.name(),
        bounds: bounds_words(b.lower, b.upper),
        order: b.exact.and_then(|v| v.order()),
        distance: b.exact.and_then(|v| v.distance()),
        moves,
        dtm,
    }))
}

/// The tables the build at `path` of a partial table was built without.
fn withheld_from(path: &Path) -> Result<Vec<String>, ProbeError> {
    Ok(crate::table::TableFile::open(path, 0)?
        .header()
        .supports
        .iter()
        .filter(|s| s.is_withheld())
        .map(|s| s.material.to_string())
        .collect())
}

/// Bounds in words, for the side to move.
fn bounds_words(lower: Outcome, upper: Outcome) -> &'static str {
    match (lower, upper) {
        (l, u) if l == u => l.name(),
        (Outcome::Draw, Outcome::Win) => "at least a draw",
        (Outcome::Loss, Outcome::Draw) => "at most a draw",
        _ => "unknown",
    }
}

/// How much of a partial table is resolved (`formats/partial.md` §7): its legal positions
/// (index entries, both sides to move) by what their bounds say, overall and, for a material
/// with pawns, by the most advanced pawn of each side — as Björnsson, Schaeffer and Sturtevant
/// report theirs (Tables 3–5).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PartialReport {
    /// The material, e.g. `KPKA`.
    pub material: String,
    /// The tables withheld.
    pub without: Vec<String>,
    /// All positions.
    pub all: ResolvedShare,
    /// By (Red's, Black's) most advanced pawn rank, counted from its side's back rank (null:
    /// no pawn); null for a material without pawns.
    pub by_pawns: Option<Vec<PawnShare>>,
    /// Checked against the complete table of the material where the directory has it; else
    /// null.
    pub against_full: Option<FullCheck>,
    /// The partial table's DTM builds checked against the complete DTM table, where the
    /// directory has both; else null.
    pub against_full_dtm: Option<FullCheck>,
}

/// Positions by what their bounds say, and the resolved share.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ResolvedShare {
    /// Legal positions (index entries).
    pub positions: u64,
    /// Outcome exact (win, draw or loss).
    pub exact: u64,
    /// One-sided bound: at least a draw, or at most a draw.
    pub one_sided: u64,
    /// Unknown (loss to win).
    pub unknown: u64,
    /// exact = 1, one-sided = ½, unknown = 0, as a share of the positions.
    pub resolved: f64,
}

/// One slice of [`PartialReport::by_pawns`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PawnShare {
    /// Red's most advanced pawn rank.
    pub red: Option<u8>,
    /// Black's.
    pub black: Option<u8>,
    /// Its positions.
    #[serde(flatten)]
    pub share: ResolvedShare,
}

impl ResolvedShare {
    fn add(&mut self, lower: Outcome, upper: Outcome) {
        self.positions += 1;
        match (lower, upper) {
            (l, u) if l == u => self.exact += 1,
            (Outcome::Loss, Outcome::Win) => self.unknown += 1,
            _ => self.one_sided += 1,
        }
    }

    fn merge(&mut self, other: &ResolvedShare) {
        self.positions += other.positions;
        self.exact += other.exact;
        self.one_sided += other.one_sided;
        self.unknown += other.unknown;
    }

    fn finish(mut self) -> ResolvedShare {
        let n = self.positions.max(1) as f64;
        self.resolved = (self.exact as f64 + 0.5 * self.one_sided as f64) / n;
        self
    }
}

/// The [`PartialReport`] of `dir`'s partial table of `material` (every legal position probed),
/// checked against `dir`'s complete table of it where there is one.
pub fn partial_report(dir: &Path, material: Material) -> Result<PartialReport, ProbeError> {
    use crate::tablebase::partial::{partial_dir, PartialTablebase};
    use rayon::prelude::*;
    let material = material.canonical();
    let ix = crate::index::Indexer::new(material)?;
    let tb = PartialTablebase::of_dir(dir, 16 << 20);
    let metrics = partial_metrics(dir, material);
    // The first metric the partial table has gives the bounds (the same in both: Fang's
    // Theorem 7); without any, the error names the DTC build's file.
    let first = metrics.first().copied().unwrap_or(Metric::Dtc);
    let complete = |t: Metric| crate::table::metric_table_path(dir, material, t).exists();
    let full = Tablebase::new(dir, 16 << 20);
    let check_dtc = first == Metric::Dtc && complete(Metric::Dtc);
    let check_dtm = metrics.contains(&Metric::Dtm) && complete(Metric::Dtm);
    let pawns = Color::ALL
        .iter()
        .any(|&c| material.count(c, Role::Pawn) > 0);
    let without = withheld_from(&crate::table::metric_table_path(
        &partial_dir(dir, Color::Red),
        material,
        first,
    ))?;
    let count = |mut acc: Tally, (turn, i): (Color, u64)| -> Result<Tally, ProbeError> {
        let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
            return Ok(acc);
        };
        let (lower, upper) = match first {
            Metric::Dtm => {
                let b = tb.probe_dtm_bounds(&pos)?;
                (b.lower, b.upper)
            }
            Metric::Dtc => {
                let b = tb.probe_bounds(&pos)?;
                if check_dtc {
                    let truth = full.probe_dtc(&pos)?;
                    let check = acc.check.get_or_insert_with(FullCheck::default);
                    check.add(&pos, &b, (truth, truth.outcome()));
                }
                (b.lower, b.upper)
            }
        };
        acc.all.add(lower, upper);
        if pawns {
            let key = (
                most_advanced_pawn(&pos, Color::Red),
                most_advanced_pawn(&pos, Color::Black),
            );
            acc.slices.entry(key).or_default().add(lower, upper);
        }
        Ok(acc)
    };
    let tally = Color::ALL
        .into_par_iter()
        .flat_map(|turn| (0..ix.size()).into_par_iter().map(move |i| (turn, i)))
        .try_fold(Tally::default, count)
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?;
    Ok(PartialReport {
        material: material.to_string(),
        without,
        all: tally.all.finish(),
        by_pawns: pawns.then(|| {
            tally
                .slices
                .into_iter()
                .map(|((red, black), share)| PawnShare {
                    red,
                    black,
                    share: share.finish(),
                })
                .collect()
        }),
        against_full: tally.check,
        against_full_dtm: match check_dtm {
            true => Some(check_dtm_blocks(&tb, &full, (&ix, material))?),
            false => None,
        },
    })
}

/// The partial table's DTM builds checked against the complete DTM table, block by block (a
/// derived side's values found from the moves once a block, not once a probe).
fn check_dtm_blocks(
    tb: &crate::tablebase::partial::PartialTablebase,
    full: &Tablebase,
    (ix, material): (&crate::index::Indexer, Material),
) -> Result<FullCheck, ProbeError> {
    use rayon::prelude::*;
    let table = full.table_of(material, Metric::Dtm)?;
    let (blocks, be) = (
        table.file.header().blocks_per_side(),
        table.file.header().block_entries as u64,
    );
    let check = |side: Color, block: u64| -> Result<FullCheck, ProbeError> {
        let bounds = tb.dtm_block_bounds(material, side, block)?;
        let truth = full.dtm_block_values(material, side, block)?;
        let mut c = FullCheck::default();
        for (k, pair) in bounds.into_iter().zip(truth).enumerate() {
            if let (Some(b), Some(t)) = pair {
                let pos = ix
                    .decode(block * be + k as u64, side)
                    .expect("a legal entry");
                let o = t.outcome();
                c.add(&pos, &b, (t, o));
            }
        }
        Ok(c)
    };
    Color::ALL
        .into_par_iter()
        .flat_map(|side| (0..blocks).into_par_iter().map(move |b| (side, b)))
        .map(|(side, b)| check(side, b))
        .try_reduce(FullCheck::default, |a, b| Ok(a.merge(b)))
}

/// What [`partial_report`] counts, per worker and then merged.
#[derive(Default)]
struct Tally {
    all: ResolvedShare,
    slices: BTreeMap<(Option<u8>, Option<u8>), ResolvedShare>,
    check: Option<FullCheck>,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.all.merge(&other.all);
        for (k, v) in other.slices {
            self.slices.entry(k).or_default().merge(&v);
        }
        self.check = match (self.check, other.check) {
            (Some(a), Some(b)) => Some(a.merge(b)),
            (a, b) => a.or(b),
        };
        self
    }
}

/// A partial table checked position by position against the complete table of its material
/// (Björnsson, Schaeffer and Sturtevant's validation): every bound must hold the true outcome,
/// every exact value must be the true value.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct FullCheck {
    /// Legal positions compared.
    pub positions: u64,
    /// Positions whose true outcome lies outside their bounds.
    pub outside: u64,
    /// Positions with an exact value (distance included).
    pub exact: u64,
    /// Positions whose exact value differs from the true value.
    pub exact_differs: u64,
    /// A position of either kind (the least FEN), if any.
    pub example: Option<String>,
}

impl FullCheck {
    /// Counts `pos`, of bounds `b`, whose true value is `truth` of outcome `o`.
    fn add<V: PartialEq>(
        &mut self,
        pos: &Position,
        b: &crate::tablebase::partial::Bounds<V>,
        (truth, o): (V, Outcome),
    ) {
        self.positions += 1;
        let outside = o < b.lower || o > b.upper;
        let differs = b.exact.as_ref().is_some_and(|e| *e != truth);
        self.outside += outside as u64;
        self.exact += b.exact.is_some() as u64;
        self.exact_differs += differs as u64;
        if outside || differs {
            let fen = to_fen(pos);
            if self.example.as_ref().is_none_or(|e| fen < *e) {
                self.example = Some(fen);
            }
        }
    }

    fn merge(mut self, other: FullCheck) -> FullCheck {
        self.positions += other.positions;
        self.outside += other.outside;
        self.exact += other.exact;
        self.exact_differs += other.exact_differs;
        self.example = match (self.example, other.example) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::partial::Bounds;

    /// The check counts a true outcome outside its bounds and an exact value that is not the
    /// true one, and keeps the least FEN of them as the example.
    #[test]
    fn the_full_check_counts_what_is_wrong() {
        let pos = parse_fen("9/9/4k4/9/9/9/9/9/n8/R2K5 w").unwrap();
        let value = |d| Value::Decided {
            order: 0,
            distance: d,
        };
        let truth = |d| (value(d), value(d).outcome());
        let at_least_a_draw = Bounds {
            lower: Outcome::Draw,
            upper: Outcome::Win,
            exact: None,
        };
        let exact = Bounds {
            lower: Outcome::Win,
            upper: Outcome::Win,
            exact: Some(value(3)),
        };
        let mut c = FullCheck::default();
        c.add(&pos, &at_least_a_draw, truth(5));
        c.add(&pos, &exact, truth(3));
        assert_eq!(
            (c.positions, c.outside, c.exact, c.exact_differs),
            (2, 0, 1, 0)
        );
        assert_eq!(c.example, None);
        c.add(&pos, &at_least_a_draw, truth(2));
        c.add(&pos, &exact, truth(5));
        assert_eq!(
            (c.positions, c.outside, c.exact, c.exact_differs),
            (4, 1, 2, 1)
        );
        assert_eq!(c.example, Some(to_fen(&pos)));
    }
}
