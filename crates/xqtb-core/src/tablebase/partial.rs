//! Probing a partial table (`formats/partial.md`): its two builds, the withheld tables'
//! captures valued as the best for Red in one and for Black in the other, give each position
//! bounds on its value for the side to move, and the value itself where it is exact.

use super::{MoveValue, ProbeError, Tablebase};
use crate::piece::Color;
use crate::position::Move;
use crate::position::Position;
use crate::table::RuleSet;
use crate::value::{Outcome, Value};
use std::path::{Path, PathBuf};

/// Where `dir`'s partial tables keep the build whose withheld tables' captures are the best
/// for `best_for`: `dir/partial/red-best`, `dir/partial/black-best`.
pub fn partial_dir(dir: &Path, best_for: Color) -> PathBuf {
    dir.join("partial").join(match best_for {
        Color::Red => "red-best",
        Color::Black => "black-best",
    })
}

/// A position's value as a partial table knows it, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The worst outcome the withheld tables could make it.
    pub lower: Outcome,
    /// The best.
    pub upper: Outcome,
    /// The value, distance included, where it is exact (`formats/partial.md` §4); `None` where
    /// the bounds differ or only the outcome is exact.
    pub exact: Option<Value>,
}

impl Bounds {
    /// Do the bounds meet (the outcome is exact, perhaps not its distance)?
    pub fn decided(&self) -> bool {
        self.lower == self.upper
    }
}

/// A legal move from a position of a partial table, and the bounds of the position it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialMove {
    /// The move.
    pub mv: Move,
    /// Whether it captures.
    pub capture: bool,
    /// The bounds of the position after the move, for the side to move there.
    pub after: Bounds,
    /// Whether it is proven a best move (Fang's Definition 9): the position's value is exact
    /// and this move's exact value for the mover equals it. Where the value is not exact, no
    /// move is.
    pub best: bool,
}

/// The two builds of partial tables, each a directory ([`Tablebase::of_partial_build`]).
pub struct PartialTablebase {
    red_best: Tablebase,
    black_best: Tablebase,
}

impl PartialTablebase {
    /// The partial tables of the table directory `dir` ([`partial_dir`]).
    pub fn of_dir(dir: &Path, cache_bytes: usize) -> PartialTablebase {
        PartialTablebase::new(
            &partial_dir(dir, Color::Red),
            &partial_dir(dir, Color::Black),
            cache_bytes,
        )
    }

    /// The builds in `red_best` and `black_best`, each table with a block cache of
    /// `cache_bytes`.
    pub fn new(red_best: &Path, black_best: &Path, cache_bytes: usize) -> PartialTablebase {
        PartialTablebase {
            red_best: Tablebase::of_partial_build(red_best, cache_bytes, Color::Red),
            black_best: Tablebase::of_partial_build(black_best, cache_bytes, Color::Black),
        }
    }

    /// The bounds of a legal position's value for its side to move: the lower bound from the
    /// build best for the other side, the upper from the build best for the side to move.
    pub fn probe_bounds(&self, pos: &Position) -> Result<Bounds, ProbeError> {
        let (red, black) = (
            self.red_best.probe_dtc(pos)?,
            self.black_best.probe_dtc(pos)?,
        );
        let (best, worst) = match pos.turn() {
            Color::Red => (red, black),
            Color::Black => (black, red),
        };
        // Only a table that is there can make the builds agree (a withheld one's stand-ins
        // differ), so its rule set is looked up only then.
        let exact = match red == black {
            true => {
                let material = crate::material::Material::of(pos).canonical();
                let rule_set = self.red_best.table(material)?.file.header().rule_set;
                exact_kind(rule_set, red).then_some(red)
            }
            false => None,
        };
        Ok(Bounds {
            lower: worst.outcome(),
            upper: best.outcome(),
            exact,
        })
    }
}

impl PartialTablebase {
    /// Every legal move of `pos` with the bounds of the position it leads to, and which are
    /// proven best.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<PartialMove>, ProbeError> {
        let value = self.probe_bounds(pos)?.exact;
        let mut out = Vec::new();
        for mv in pos.legal_moves() {
            let capture = pos.piece_at(mv.to).is_some();
            let mut child = pos.clone();
            child.play(mv);
            let after = self.probe_bounds(&child)?;
            let for_mover = |v| {
                MoveValue {
                    mv,
                    capture,
                    value: v,
                }
                .for_mover()
            };
            let best = match (value, after.exact) {
                (Some(v), Some(c)) => for_mover(c).rank() == v.rank(),
                _ => false,
            };
            out.push(PartialMove {
                mv,
                capture,
                after,
                best,
            });
        }
        Ok(out)
    }
}

/// Whether a value both builds agree on is exact, distance included (`formats/partial.md`
/// §4): always but under the Asian rules, and there for draws and values of order 0.
fn exact_kind(rule_set: RuleSet, v: Value) -> bool {
    rule_set != RuleSet::DtcAsian || matches!(v, Value::Draw | Value::Decided { order: 0, .. })
}
