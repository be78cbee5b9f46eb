//! The principal line inside a game: where best play reaches a loss by the perpetual-check or
//! chase rule (order above 0, distance 0), the line is played on until a position recurs and
//! the rule decides, as it would over a board.
//!
//! At `(r, 0)` the loser's best moves check (or chase) into the rule's pattern, where the winner
//! answers with best moves back to `(r, 0)`; sooner or later a position recurs. In a checking
//! order the cycle is a perpetual check by the loser whatever the winner picks. In a chasing
//! order a position may lie in the patterns of two of the loser's pieces, and a winner who
//! alternates between them lets the loser chase two pieces in turn, which is allowed (Fang 2005,
//! §5.2): so the winner's choices are searched, the loser keeping to its first best move, until
//! a cycle's ruling goes against the loser.

use super::{LineEnd, PrincipalLine, ProbeError, Tablebase};
use crate::piece::Color;
use crate::position::{Move, Position};
use crate::repetition::{first_repetition, judge_cycle, Repetition, Ruling};
use crate::value::Value;
use std::collections::HashMap;

/// Plies the line may take inside a pattern before the search gives up on that branch.
const PATTERN_PLIES: usize = 1000;
/// Positions the search for the winner's choices may visit.
const SEARCH_BUDGET: usize = 20_000;

impl Tablebase {
    /// The principal line from the position the game `moves` from `start` has reached, the
    /// game's positions counting for repetition. As [`Tablebase::principal_line`], except:
    /// a game that has already repeated a position gets no move and
    /// [`LineEnd::Repetition`] with the first recurrence; a line that reaches a position of the
    /// game again ends there with that repetition; and where the principal line stops at a
    /// perpetual loss ([`LineEnd::Perpetual`]) it goes on inside the rule's pattern to the
    /// first recurrence, whose ruling goes against the side that lost. Repetition plies count
    /// from `start`. [`LineEnd::Perpetual`] is left only where no such cycle was found within
    /// the search's bounds.
    pub fn line_in_game(
        &self,
        start: &Position,
        moves: &[Move],
    ) -> Result<PrincipalLine, ProbeError> {
        if let Some(rep) = first_repetition(start, moves)? {
            return Ok(PrincipalLine {
                moves: Vec::new(),
                end: LineEnd::Repetition(rep),
            });
        }
        let mut game = Game::new(start, moves);
        let mut line = self.principal_line(game.now())?;
        for (i, m) in line.moves.iter().enumerate() {
            if let Some(rep) = game.play(m.mv)? {
                line.moves.truncate(i + 1);
                line.end = LineEnd::Repetition(rep);
                return Ok(line);
            }
        }
        if line.end == LineEnd::Perpetual {
            let loser = game.now().turn();
            let limit = game.moves.len() + PATTERN_PLIES;
            let mut budget = SEARCH_BUDGET;
            if let Some(rep) = self.to_ruling(&mut game, &mut line, loser, limit, &mut budget)? {
                line.end = LineEnd::Repetition(rep);
            }
        }
        Ok(line)
    }

    /// Depth-first through the winner's best moves (the loser plays its first best move) until
    /// a recurrence rules against `loser`; `None` when every branch within the bounds fails.
    fn to_ruling(
        &self,
        game: &mut Game,
        line: &mut PrincipalLine,
        loser: Color,
        limit: usize,
        budget: &mut usize,
    ) -> Result<Option<Repetition>, ProbeError> {
        if *budget == 0 || game.moves.len() >= limit {
            return Ok(None);
        }
        *budget -= 1;
        let now = game.now().clone();
        let mut best = self.best_moves(&now)?;
        best.sort_by_key(|m| m.mv);
        if now.turn() == loser {
            best.truncate(1);
        }
        for m in best {
            // A capture would leave the table: no pattern move captures (its value would
            // have order 0 in the smaller table, not r).
            if m.capture || !matches!(m.value, Value::Decided { .. }) {
                continue;
            }
            line.moves.push(m);
            match game.play(m.mv)? {
                Some(rep) if rules_against(&rep, loser) => return Ok(Some(rep)),
                Some(_) => {}
                None => {
                    if let Some(rep) = self.to_ruling(game, line, loser, limit, budget)? {
                        return Ok(Some(rep));
                    }
                    game.take_back();
                }
            }
            line.moves.pop();
        }
        Ok(None)
    }
}

fn rules_against(rep: &Repetition, loser: Color) -> bool {
    matches!(rep.cycle.ruling(), Ruling::Loses { side, .. } if side == loser)
}

/// A game without a repetition so far: its positions and moves, and where each position stood.
struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
    ply_of: HashMap<Position, usize>,
}

impl Game {
    /// The game of legal `moves` from `start`, none of its positions recurring.
    fn new(start: &Position, moves: &[Move]) -> Game {
        let mut game = Game {
            positions: vec![start.clone()],
            moves: Vec::new(),
            ply_of: HashMap::from([(start.clone(), 0)]),
        };
        for &mv in moves {
            game.push(mv);
        }
        game
    }

    fn now(&self) -> &Position {
        self.positions.last().expect("a game has its start")
    }

    fn push(&mut self, mv: Move) {
        let mut next = self.now().clone();
        next.play(mv);
        self.moves.push(mv);
        self.ply_of.insert(next.clone(), self.moves.len());
        self.positions.push(next);
    }

    /// Plays the (legal) move `mv`; if the position it reaches stood before, the move is not
    /// kept and the repetition is returned.
    fn play(&mut self, mv: Move) -> Result<Option<Repetition>, ProbeError> {
        let mut next = self.now().clone();
        next.play(mv);
        let Some(&first) = self.ply_of.get(&next) else {
            self.push(mv);
            return Ok(None);
        };
        let mut cycle = self.moves[first..].to_vec();
        cycle.push(mv);
        let cycle = judge_cycle(&self.positions[first], &cycle)?;
        Ok(Some(Repetition {
            first,
            again: self.moves.len() + 1,
            cycle,
        }))
    }

    fn take_back(&mut self) {
        let last = self.positions.pop().expect("a move to take back");
        self.ply_of.remove(&last);
        self.moves.pop();
    }
}
