//! Probing a partial table (`formats/partial.md`): its two builds, the withheld tables'
//! captures valued as the best for Red in one and for Black in the other, give each position
//! bounds on its value for the side to move, and the value itself where it is exact.

use super::{Dtm, DtmMove, MoveValue, ProbeError, Tablebase};
use crate::piece::Color;
use crate::position::Move;
use crate::position::Position;
use crate::table::{Metric, RuleSet};
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

/// The value a position of a withheld table stands in with in a build of partial tables, for
/// its side to move (`formats/partial.md` §2, §9): the best there is for the side the build
/// favours — a win at once if that side is to move (`favoured`), else a loss at once — at the
/// mates' level (order or level index 0). In DTC only its outcome counts; in DTM these are the
/// extreme values of Fang's Definition 9.
pub fn withheld_stand_in(favoured: bool) -> Value {
    Value::Decided {
        order: 0,
        distance: u16::from(favoured),
    }
}

/// A position's value as a partial table knows it, for the side to move: its outcome's bounds,
/// and its value `V` (a DTC [`Value`] or a [`Dtm`]) where exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds<V = Value> {
    /// The worst outcome the withheld tables could make it.
    pub lower: Outcome,
    /// The best.
    pub upper: Outcome,
    /// The value, distance included, where it is exact (`formats/partial.md` §4, §9); `None`
    /// where the bounds differ or only the outcome is exact.
    pub exact: Option<V>,
}

impl<V> Bounds<V> {
    /// Do the bounds meet (the outcome is exact, perhaps not its distance)?
    pub fn decided(&self) -> bool {
        self.lower == self.upper
    }
}

/// A legal move from a position of a partial table, and the bounds of the position it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialMove<V = Value> {
    /// The move.
    pub mv: Move,
    /// Whether it captures.
    pub capture: bool,
    /// The bounds of the position after the move, for the side to move there.
    pub after: Bounds<V>,
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

    /// The bounds of a legal position's value for its side to move, from the DTC builds: the
    /// lower bound from the build best for the other side, the upper from the build best for
    /// the side to move.
    pub fn probe_bounds(&self, pos: &Position) -> Result<Bounds, ProbeError> {
        let red = self.red_best.probe_dtc(pos)?;
        let black = self.black_best.probe_dtc(pos)?;
        let exact = |v: &Value| matches!(v, Value::Draw | Value::Decided { order: 0, .. });
        self.bounds(pos, Metric::Dtc, (red, black), (|v| v.outcome(), exact))
    }

    /// The same from the DTM builds: a value both builds agree on is exact where it is a draw
    /// or a mate (the mates' level), or under other rules than the Asian (`formats/partial.md`
    /// §9).
    pub fn probe_dtm_bounds(&self, pos: &Position) -> Result<Bounds<Dtm>, ProbeError> {
        let red = self.red_best.probe_dtm(pos)?;
        let black = self.black_best.probe_dtm(pos)?;
        self.bounds(pos, Metric::Dtm, (red, black), (Dtm::outcome, mate_or_draw))
    }

    /// Bounds from the two builds' values `(red, black)` of `metric`: the value is exact where
    /// they agree and, under the Asian rules, `exact_under_asian` holds of it.
    fn bounds<V: Clone + PartialEq>(
        &self,
        pos: &Position,
        metric: Metric,
        (red, black): (V, V),
        (outcome, exact_under_asian): (fn(&V) -> Outcome, impl Fn(&V) -> bool),
    ) -> Result<Bounds<V>, ProbeError> {
        // Only a table that is there can make the builds agree (a withheld one's stand-ins
        // differ), so its rule set is looked up only then.
        let asian = match red == black {
            true => {
                let material = crate::material::Material::of(pos).canonical();
                let t = self.red_best.table_of(material, metric)?;
                t.file.header().rule_set == RuleSet::DtcAsian
            }
            false => false,
        };
        let exact = move |v: &V| !asian || exact_under_asian(v);
        Ok(bounds_of(pos.turn(), (red, black), (outcome, exact)))
    }

    /// The DTM bounds of one block of `side`'s entries of `material`'s partial table (to move
    /// in them), in index order (`None` for entries that are not legal positions): what
    /// [`PartialTablebase::probe_dtm_bounds`] gives each, from whole blocks of both builds.
    pub fn dtm_block_bounds(
        &self,
        material: crate::material::Material,
        side: Color,
        block: u64,
    ) -> Result<Vec<Option<Bounds<Dtm>>>, ProbeError> {
        let red = self.red_best.dtm_block_values(material, side, block)?;
        let black = self.black_best.dtm_block_values(material, side, block)?;
        let t = self.red_best.table_of(material, Metric::Dtm)?;
        let asian = t.file.header().rule_set == RuleSet::DtcAsian;
        let exact = |v: &Dtm| !asian || mate_or_draw(v);
        Ok(red
            .into_iter()
            .zip(black)
            .map(|pair| match pair {
                (Some(r), Some(b)) => Some(bounds_of(side, (r, b), (Dtm::outcome, exact))),
                _ => None,
            })
            .collect())
    }

    /// Every legal move of `pos` with the DTC bounds of the position it leads to, and which are
    /// proven best.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<PartialMove>, ProbeError> {
        let value = self.probe_bounds(pos)?.exact;
        self.moves(
            pos,
            |p| self.probe_bounds(p),
            |mv, capture, after| {
                let for_mover = MoveValue {
                    mv,
                    capture,
                    value: *after,
                }
                .for_mover();
                value.is_some_and(|v| for_mover.rank() == v.rank())
            },
        )
    }

    /// The same with the DTM bounds, best moves by Definition 9 with levels.
    pub fn probe_dtm_moves(&self, pos: &Position) -> Result<Vec<PartialMove<Dtm>>, ProbeError> {
        let value = self.probe_dtm_bounds(pos)?.exact;
        self.moves(
            pos,
            |p| self.probe_dtm_bounds(p),
            |mv, capture, after| {
                let for_mover = DtmMove {
                    mv,
                    capture,
                    value: after.clone(),
                }
                .for_mover();
                value.as_ref() == Some(&for_mover)
            },
        )
    }

    /// Every legal move with `probe`'s bounds after it; `best` says whether a move whose value
    /// after it is exact is proven best.
    fn moves<V>(
        &self,
        pos: &Position,
        probe: impl Fn(&Position) -> Result<Bounds<V>, ProbeError>,
        best: impl Fn(Move, bool, &V) -> bool,
    ) -> Result<Vec<PartialMove<V>>, ProbeError> {
        let mut out = Vec::new();
        for mv in pos.legal_moves() {
            let capture = pos.piece_at(mv.to).is_some();
            let mut child = pos.clone();
            child.play(mv);
            let after = probe(&child)?;
            let best = after.exact.as_ref().is_some_and(|v| best(mv, capture, v));
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

/// Bounds for the side to move `turn` from the two builds' values `(red, black)`: the lower
/// bound from the build best for the other side, the upper from the build best for the side to
/// move; the value where they agree and `exact` holds of it.
fn bounds_of<V: PartialEq>(
    turn: Color,
    (red, black): (V, V),
    (outcome, exact): (fn(&V) -> Outcome, impl Fn(&V) -> bool),
) -> Bounds<V> {
    let (lower, upper) = match turn {
        Color::Red => (outcome(&black), outcome(&red)),
        Color::Black => (outcome(&red), outcome(&black)),
    };
    let exact = (red == black && exact(&red)).then_some(red);
    Bounds {
        lower,
        upper,
        exact,
    }
}

/// A DTM value a partial table keeps under the Asian rules where both builds agree on it: a draw
/// or a mate (`formats/partial.md` §9).
fn mate_or_draw(v: &Dtm) -> bool {
    v.level().is_none_or(|l| l.is_mate())
}
