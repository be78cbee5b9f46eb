//! Algorithm 8 (Fang, Section 5.1): the complete database in the distance-to-mate/check/chase
//! metric, here distance to conversion (Section 5.3); its outcomes are Algorithm 6's complete
//! win-draw-loss database (Theorem 7).

use super::draws::{set_draws, terminal_draws};
use super::graph::{Db, GameGraph, Target, Vertex};
use super::mutual::mutual_pattern;
use super::pattern::{chase_pattern, max_pattern, non_mutual, targets, Pattern, Within};
use super::set::VertexSet;
use crate::piece::Color;
use crate::value::{Outcome, Value, MAX_ORDER};
use thiserror::Error;

/// Which of the Asian rules on endless play decide values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Endless play is a draw (the classical algorithm).
    None,
    /// Perpetual check loses.
    Check,
    /// Perpetual check loses, and so does a forbidden perpetual chase.
    Asian,
}

/// How [`solve`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Which of the Asian rules on endless play decide values ([`Rules::None`]: order 0 only).
    pub rules: Rules,
    /// Mark draws before the final phase (Algorithm 7: terminal draws, mutual checking and
    /// mutual chasing patterns). The values are the same either way (Lemma 14).
    pub early_draws: bool,
}

/// Why a solve stopped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolveError {
    /// An order's propagation ran past the largest distance a value holds (`u16::MAX` plies).
    #[error("distance overflow at order {order}: more than {} plies", u16::MAX)]
    DistanceOverflow {
        /// The order whose propagation overflowed.
        order: u16,
    },
    /// More orders than a value holds ([`MAX_ORDER`]).
    #[error("more than {MAX_ORDER} orders")]
    OrderOverflow,
}

/// What seeded an order above 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelKind {
    /// Losses of maximum patterns of non-mutual checking indefinitely (Algorithm 4).
    Check,
    /// Losses of maximum patterns of totally non-mutual chasing indefinitely (Algorithm 5).
    Chase,
}

/// One order above 0: the patterns whose losses seeded it (each non-empty one, by attacker
/// and target: the winner keeps the loser inside one of them, Section 5.2).
#[derive(Clone, Debug)]
pub struct Level {
    /// The order (1 and up).
    pub order: u16,
    /// Whether checking or chasing patterns seeded it.
    pub kind: LevelKind,
    /// The non-empty maximum patterns whose losses seeded it at distance 0.
    pub patterns: Vec<Pattern>,
}

/// The solved graph.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The value of each vertex, indexed by [`Vertex`]: (order, distance), or a draw.
    pub values: Vec<Value>,
    /// The orders above 0, in increasing order, with the patterns that seeded them.
    pub levels: Vec<Level>,
}

/// Algorithm 8: values (order, distance) or draw for every vertex of `g`.
pub fn solve<G: GameGraph>(g: &G, options: Options) -> Result<Solution, SolveError> {
    let mut state = State::new(g);
    let (losses, wins) = state.terminal_seeds(g);
    state.propagate(g, 0, losses, wins)?;
    let mut levels = Vec::new();
    let mut order = 0u16;
    loop {
        if options.early_draws {
            mark_early_draws(g, &mut state.db);
        }
        let Some((kind, patterns)) = next_patterns(g, &mut state.db, options) else {
            break;
        };
        order = order
            .checked_add(1)
            .filter(|&o| o <= MAX_ORDER)
            .ok_or(SolveError::OrderOverflow)?;
        let mut losses = VertexSet::new(g.vertex_count());
        for p in &patterns {
            losses.union_with(&p.losses);
        }
        state.propagate(g, order, losses.iter().collect(), Vec::new())?;
        levels.push(Level {
            order,
            kind,
            patterns,
        });
    }
    let values = state
        .db
        .into_iter()
        .map(|v| v.unwrap_or(Value::Draw))
        .collect();
    Ok(Solution { values, levels })
}

/// The non-empty maximum patterns that seed the next order: non-mutual checking if any
/// (Algorithm 4 for both kings), else totally non-mutual chasing (Algorithm 5 for every piece
/// of both sides), as Algorithm 6's loop body decides. `None` when none is left.
fn next_patterns<G: GameGraph>(
    g: &G,
    db: &mut Db,
    options: Options,
) -> Option<(LevelKind, Vec<Pattern>)> {
    if options.rules == Rules::None {
        return None;
    }
    let checks: Vec<Pattern> = Color::ALL
        .into_iter()
        .map(|attacker| non_mutual(g, db, attacker, Target::King, Target::King))
        .filter(|p| !p.is_empty())
        .collect();
    if !checks.is_empty() {
        return Some((LevelKind::Check, checks));
    }
    if options.rules == Rules::Check {
        return None;
    }
    if options.early_draws {
        mark_mutual_chase_draws(g, db);
    }
    let chases: Vec<Pattern> = Color::ALL
        .into_iter()
        .flat_map(|attacker| targets(g, attacker).into_iter().map(move |t| (attacker, t)))
        .filter_map(|(attacker, t)| match t {
            Target::Piece(p) => Some(chase_pattern(g, db, attacker, p)),
            Target::King => None,
        })
        .filter(|p| !p.is_empty())
        .collect();
    (!chases.is_empty()).then_some((LevelKind::Chase, chases))
}

/// Algorithm 7 from the terminal draws and the maximum pattern of mutual checking (both valid
/// seed draws, Section 4.2).
fn mark_early_draws<G: GameGraph>(g: &G, db: &mut Db) {
    let seeds = terminal_draws(g, db);
    set_draws(g, db, seeds);
    let mutual = mutual_pattern(g, db, Target::King, Target::King);
    set_draws(g, db, mutual.iter());
}

/// Algorithm 7 from each maximum pattern of mutual chasing inside which neither side can be
/// forced to check indefinitely (Section 3.3: only then are they safely draws). Pieces with a
/// twin are left out: their patterns would need both followed, and marking these draws early
/// is optional (Lemma 14).
fn mark_mutual_chase_draws<G: GameGraph>(g: &G, db: &mut Db) {
    let single = |owner| {
        let pieces = g.pieces(owner);
        pieces.iter().filter(move |&p| g.twin(p).is_none())
    };
    for p in single(Color::Red) {
        for q in single(Color::Black) {
            let set = mutual_pattern(g, db, Target::Piece(q), Target::Piece(p));
            if set.is_empty() {
                continue;
            }
            let forced_check = Color::ALL.into_iter().any(|attacker| {
                !max_pattern(g, Within::Sub(&set), attacker, Target::King).is_empty()
            });
            if !forced_check {
                set_draws(g, db, set.iter());
            }
        }
    }
}

/// The database and, per vertex, its moves not yet known to be won by the opponent (children
/// counting: the last one makes it lost; a drawn exit is a move that never is).
struct State {
    db: Db,
    open: Vec<u32>,
}

impl State {
    fn new<G: GameGraph>(g: &G) -> State {
        let n = g.vertex_count();
        let open = (0..n)
            .map(|u| g.move_count(u) as u32 + (g.exit(u) == Some(Outcome::Draw)) as u32)
            .collect();
        State {
            db: vec![None; n],
            open,
        }
    }

    /// Order 0's seeds (Section 5.3): losses (no move, or only moves out of the graph into
    /// positions the opponent wins) and wins at 1 (a move out into a position the opponent
    /// loses).
    fn terminal_seeds<G: GameGraph>(&self, g: &G) -> (Vec<Vertex>, Vec<Vertex>) {
        let n = g.vertex_count();
        let losses = (0..n)
            .filter(|&u| self.open[u] == 0 && g.exit(u) != Some(Outcome::Win))
            .collect();
        let wins = (0..n)
            .filter(|&u| g.exit(u) == Some(Outcome::Win))
            .collect();
        (losses, wins)
    }

    /// The propagation phase of one order: ply `d` sets the losses (even) or wins (odd) found at
    /// `d − 1`; `wins` are extra seeds at distance 1.
    fn propagate<G: GameGraph>(
        &mut self,
        g: &G,
        order: u16,
        mut losses: Vec<Vertex>,
        mut wins: Vec<Vertex>,
    ) -> Result<(), SolveError> {
        let mut preds = Vec::new();
        let mut d: u32 = 0;
        while !losses.is_empty() || !wins.is_empty() {
            let distance = u16::try_from(d).map_err(|_| SolveError::DistanceOverflow { order })?;
            let value = Some(Value::Decided { order, distance });
            let losing = d.is_multiple_of(2);
            let (now, next) = if losing {
                (std::mem::take(&mut losses), &mut wins)
            } else {
                (std::mem::take(&mut wins), &mut losses)
            };
            for u in now {
                if self.db[u].is_some() {
                    continue;
                }
                self.db[u] = value;
                preds.clear();
                g.predecessors(u, &mut preds);
                for &w in preds.iter().filter(|&&w| self.db[w].is_none()) {
                    if losing {
                        next.push(w);
                    } else {
                        self.open[w] -= 1;
                        if self.open[w] == 0 {
                            next.push(w);
                        }
                    }
                }
            }
            d += 1;
        }
        Ok(())
    }
}
