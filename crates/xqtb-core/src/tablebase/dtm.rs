//! Distance-to-mate probes (Fang, "The Nature of Retrograde Analysis for Chinese Chess", 2005,
//! Section 5.1), from a directory's DTM tables (`<M>.xqdtm`, built with `--metric dtm`).
//!
//! A DTM value is a distance in plies to mate and a **level**: the key `()` for a mate (through
//! any captures), otherwise where the Asian rules' ruling falls: `(0, …, 0, k)` is the `k`-th
//! phase of the table reached after as many captures as zeros (`formats/dtm.md`). Best moves
//! follow Fang's Definition 9 with the level in place of the order: the winner takes the lowest
//! level, then the shortest mate; the loser the highest level, then the longest. Along best moves
//! the distance falls by one a ply and the level stays (Theorem 8), through captures too.

use super::{LineEnd, ProbeError, Tablebase};
use crate::material::Material;
use crate::piece::Color;
use crate::position::{Move, Position};
use crate::table::{is_stand_in, LevelKey, Metric, TableError};
use crate::value::{Outcome, Value};
use std::cmp::Ordering;

/// The distance-to-mate value of a legal position for its side to move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dtm {
    /// A draw.
    Draw,
    /// A decided position: `distance` plies to mate (odd a win for the side to move, even a
    /// loss), or to a ruling on perpetual check or chase if `level` is not `()`.
    Decided {
        /// Where the count ends: `()` at mate.
        level: LevelKey,
        /// Plies.
        distance: u16,
    },
}

impl Dtm {
    /// Win, draw or loss for the side to move.
    pub fn outcome(&self) -> Outcome {
        match self {
            Dtm::Draw => Outcome::Draw,
            Dtm::Decided { distance, .. } if distance % 2 == 1 => Outcome::Win,
            Dtm::Decided { .. } => Outcome::Loss,
        }
    }

    /// The distance of a decided value.
    pub fn distance(&self) -> Option<u16> {
        match self {
            Dtm::Draw => None,
            Dtm::Decided { distance, .. } => Some(*distance),
        }
    }

    /// The level of a decided value.
    pub fn level(&self) -> Option<&LevelKey> {
        match self {
            Dtm::Draw => None,
            Dtm::Decided { level, .. } => Some(level),
        }
    }

    /// How `self` compares with `other` for the side to move (Fang's Definition 9): a win is
    /// better than a draw, a draw better than a loss; among wins the lower level, then the
    /// shorter distance; among losses the higher level, then the longer distance.
    pub fn cmp_for_mover(&self, other: &Dtm) -> Ordering {
        let class = |v: &Dtm| match v.outcome() {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        };
        let key = |v: &Dtm| match v {
            Dtm::Draw => None,
            Dtm::Decided { level, distance } => Some((level.clone(), *distance)),
        };
        class(self)
            .cmp(&class(other))
            .then_with(|| match self.outcome() {
                Outcome::Win => key(other).cmp(&key(self)),
                _ => key(self).cmp(&key(other)),
            })
    }
}

impl std::fmt::Display for Dtm {
    /// `mate in 37`, `loses to mate in 36`, `win 17 (level (0, 2))`, `draw`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dtm::Draw => write!(f, "draw"),
            Dtm::Decided { level, distance } if level.is_mate() => match self.outcome() {
                Outcome::Win => write!(f, "mate in {distance}"),
                _ => write!(f, "mated in {distance}"),
            },
            Dtm::Decided { level, distance } => {
                write!(f, "{} {distance} (level {level})", self.outcome().name())
            }
        }
    }
}

/// One legal move and the distance-to-mate value of the position it leads to, for the side to
/// move there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DtmMove {
    /// The move.
    pub mv: Move,
    /// Whether it captures (its position is in a smaller table, whose levels `value` is in).
    pub capture: bool,
    /// The value after the move, for the opponent.
    pub value: Dtm,
}

impl DtmMove {
    /// What the move is worth to the mover: a win (loss) at one ply more than the opponent's
    /// loss (win), its level one capture up if it captures.
    pub fn for_mover(&self) -> Dtm {
        match &self.value {
            Dtm::Draw => Dtm::Draw,
            Dtm::Decided { level, distance } => Dtm::Decided {
                level: if self.capture {
                    level.through_capture()
                } else {
                    level.clone()
                },
                distance: distance.saturating_add(1),
            },
        }
    }
}

/// What a DTM entry holds: a value, or the outcome of a derived entry.
enum Stored {
    Value(Dtm),
    StandIn(Outcome),
}

/// A value of `file`'s DTM table (not a stand-in) with its level index read as its key.
fn dtm_of(file: &crate::table::TableFile, v: Value) -> Result<Dtm, TableError> {
    Ok(match v {
        Value::Draw => Dtm::Draw,
        Value::Decided { order, distance } => Dtm::Decided {
            level: file.header().levels.key(order).cloned().ok_or_else(|| {
                TableError::BadHeader {
                    path: file.path().to_owned(),
                    what: format!("level {order} is not in the level table"),
                }
            })?,
            distance,
        },
    })
}

/// The principal line from a position to mate (or to a ruling): best moves for both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DtmLine {
    /// The moves played, each with the value of the position it leads to.
    pub moves: Vec<DtmMove>,
    /// Why the line stops: mate, a draw, or a ruling on perpetual check or chase (never a
    /// conversion: the count goes on through captures).
    pub end: LineEnd,
}

impl Tablebase {
    /// The distance-to-mate value of a legal position, from its material's DTM table. On the
    /// table's derived side (`formats/table.md` §5) the value comes from the moves
    /// ([`Tablebase::derive_dtm`]).
    pub fn probe_dtm(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        if let Some(Value::Decided { distance, .. }) = self.withheld_value(pos) {
            return Ok(Dtm::Decided {
                level: LevelKey::mate(),
                distance,
            });
        }
        let stored = self.locate_in(Metric::Dtm, pos, |t, side, index| {
            let v = t.file.stored_legal(side, index)?;
            Ok(match v {
                v if is_stand_in(v) => Stored::StandIn(v.outcome()),
                v => Stored::Value(dtm_of(&t.file, v)?),
            })
        })?;
        match stored {
            Stored::Value(v) => Ok(v),
            Stored::StandIn(outcome) => self.derive_dtm(pos, outcome),
        }
    }

    /// The value of a legal position of a DTM table's derived side whose outcome is `outcome`:
    /// the best its moves give the mover (Definition 9 with levels). A win looks only at the
    /// moves into lost positions, a loss at every move (each into a won position; none at all is
    /// mate). The quiet moves reach the table's stored side; a capture may reach a smaller
    /// table's derived side, one level down a recursion as deep as the pieces captured.
    pub fn derive_dtm(&self, pos: &Position, outcome: Outcome) -> Result<Dtm, ProbeError> {
        let mut best: Option<Dtm> = None;
        for mv in pos.legal_moves() {
            let mut child = pos.clone();
            child.play(mv);
            if outcome == Outcome::Win && self.dtm_outcome(&child)? != Outcome::Loss {
                continue;
            }
            let m = DtmMove {
                mv,
                capture: pos.is_capture(mv),
                value: self.probe_dtm(&child)?,
            };
            let v = m.for_mover();
            if best.as_ref().is_none_or(|b| v.cmp_for_mover(b).is_gt()) {
                best = Some(v);
            }
        }
        match best {
            Some(v) if v.outcome() == outcome => Ok(v),
            None if outcome == Outcome::Loss => Ok(Dtm::Decided {
                level: LevelKey::mate(),
                distance: 0,
            }),
            _ => Err(ProbeError::Inconsistent {
                fen: crate::fen::to_fen(pos),
            }),
        }
    }

    /// The outcome of a legal position from its DTM table's own WDL stream (the DTC table need
    /// not be there).
    fn dtm_outcome(&self, pos: &Position) -> Result<Outcome, ProbeError> {
        if let Some(v) = self.withheld_value(pos) {
            return Ok(v.outcome());
        }
        self.locate_in(Metric::Dtm, pos, |t, side, index| {
            t.file.outcome_legal(side, index)
        })
    }

    /// The values of one block of `side`'s entries of `material`'s DTM table, in index order,
    /// as [`Value::code`]s of its level indices ([`crate::value::CODE_NONE`] for entries that
    /// are not legal positions): the derived side's found from the moves as
    /// [`Tablebase::probe_dtm`] finds them. For tools that read a whole table (the builder
    /// reading a supporting table, `verify`, a comparison with another solver).
    pub fn dtm_block_codes(
        &self,
        material: Material,
        side: Color,
        block: u64,
    ) -> Result<Vec<u32>, ProbeError> {
        let t = self.table_of(material, Metric::Dtm)?;
        let (h, be) = (t.file.header(), t.file.header().block_entries as u64);
        let mut codes = t.file.read_stored(side, block)?;
        for (k, c) in codes.iter_mut().enumerate() {
            let Some(stand_in) = Value::from_code(*c).filter(|&v| is_stand_in(v)) else {
                continue;
            };
            let pos = t
                .indexer()
                .decode(block * be + k as u64, side)
                .expect("a legal entry decodes");
            *c = match self.derive_dtm(&pos, stand_in.outcome())? {
                Dtm::Draw => Value::Draw,
                Dtm::Decided { level, distance } => Value::Decided {
                    order: h
                        .levels
                        .index_of(&level)
                        .ok_or_else(|| TableError::BadHeader {
                            path: t.file.path().to_owned(),
                            what: format!(
                                "a derived value's level {level} is not in the level table"
                            ),
                        })?,
                    distance,
                },
            }
            .code();
        }
        Ok(codes)
    }

    /// [`Tablebase::dtm_block_codes`] as values (`None` for entries that are not legal
    /// positions): for tools that compare whole tables.
    pub fn dtm_block_values(
        &self,
        material: Material,
        side: Color,
        block: u64,
    ) -> Result<Vec<Option<Dtm>>, ProbeError> {
        let codes = self.dtm_block_codes(material, side, block)?;
        let t = self.table_of(material, Metric::Dtm)?;
        let value = |c| Value::from_code(c).map(|v| dtm_of(&t.file, v)).transpose();
        Ok(codes.into_iter().map(value).collect::<Result<_, _>>()?)
    }

    /// Every legal move with the distance-to-mate value of its resulting position.
    pub fn probe_dtm_moves(&self, pos: &Position) -> Result<Vec<DtmMove>, ProbeError> {
        pos.legal_moves()
            .into_iter()
            .map(|mv| {
                let mut child = pos.clone();
                child.play(mv);
                Ok(DtmMove {
                    mv,
                    capture: pos.is_capture(mv),
                    value: self.probe_dtm(&child)?,
                })
            })
            .collect()
    }

    /// The best moves of a legal position under distance to mate (Definition 9 with levels), in
    /// move order; empty without a legal move.
    pub fn best_dtm_moves(&self, pos: &Position) -> Result<Vec<DtmMove>, ProbeError> {
        let moves = self.probe_dtm_moves(pos)?;
        let Some(best) = moves
            .iter()
            .map(DtmMove::for_mover)
            .max_by(|a, b| a.cmp_for_mover(b))
        else {
            return Ok(moves);
        };
        Ok(moves
            .into_iter()
            .filter(|m| m.for_mover() == best)
            .collect())
    }

    /// The principal line from a legal position to mate: both sides play a best move (the
    /// smallest [`Move`] where several are best) until a position without a legal move, or one
    /// lost at distance 0 of a level other than `()` (the loser can only check or chase forever:
    /// Theorem 8). Each move shortens the distance by exactly one.
    pub fn dtm_line(&self, pos: &Position) -> Result<DtmLine, ProbeError> {
        let mut line = DtmLine {
            moves: Vec::new(),
            end: LineEnd::Draw,
        };
        let mut value = self.probe_dtm(pos)?;
        let mut cur = pos.clone();
        while let Dtm::Decided { level, distance } = &value {
            if *distance == 0 && !level.is_mate() {
                line.end = LineEnd::Perpetual;
                break;
            }
            let Some(step) = self.best_dtm_moves(&cur)?.into_iter().min_by_key(|m| m.mv) else {
                line.end = LineEnd::Mate;
                break;
            };
            cur.play(step.mv);
            if step.value.distance() != distance.checked_sub(1) {
                return Err(ProbeError::Inconsistent {
                    fen: crate::fen::to_fen(&cur),
                });
            }
            value = step.value.clone();
            line.moves.push(step);
        }
        Ok(line)
    }
}
