//! Repetition in a game under the Asian rules: when a position recurs, what each side did in
//! the cycle between its two occurrences, and who loses. Pure rules code on the move labels of
//! [`crate::chase`] (definition: `formats/rules.md`).
//!
//! Fang ("The Nature of Retrograde Analysis for Chinese Chess", 2005, §2.1) states the rule book
//! for endless play in four points: both sides check indefinitely, a draw; one side checks
//! indefinitely, it loses; otherwise one side alone chases indefinitely, it loses; otherwise a
//! draw. "Indefinitely" is his Definitions 1 and 2: every move of the side checks, or every
//! move chases one and the same piece (rule 32: chasing two pieces in turn is allowed). A game
//! that returns to a position repeats its cycle for ever if both sides keep to it, so the
//! cycle's moves decide. Tables count a repetition as endless play (Fang §2.1: in real games
//! the third repetition); [`first_repetition`] judges the first recurrence.

use crate::chase::chased_after;
use crate::piece::{ByColor, Color};
use crate::position::{Move, Position};
use crate::square::Square;
use std::collections::HashMap;
use thiserror::Error;

/// What a side did in every one of its moves of a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perpetual {
    /// Every move gave check.
    Check,
    /// Every move chased one and the same piece, which stands on this point in the cycle's
    /// first position (the lowest point, if every move chased more than one piece).
    Chase(Square),
}

/// The verdict of the Asian rules on a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// Both sides checked perpetually, both chased, or neither broke a rule: a draw.
    Draw,
    /// `side` checked perpetually, or chased perpetually while the other side did neither.
    Loses {
        /// The side that loses.
        side: Color,
        /// What it did in every one of its moves.
        by: Perpetual,
    },
}

/// What each side did in a cycle: `None` where its moves were neither all checks nor all
/// chases of one piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// Red's and Black's perpetual play in the cycle.
    pub perpetual: ByColor<Option<Perpetual>>,
}

impl Cycle {
    /// Fang's four points (§2.1), in order.
    pub fn ruling(&self) -> Ruling {
        use Perpetual::{Chase, Check};
        let [red, black] = self.perpetual.0;
        let loses = |side, by| Ruling::Loses { side, by };
        match (red, black) {
            (Some(Check), Some(Check)) => Ruling::Draw,
            (Some(Check), _) => loses(Color::Red, Check),
            (_, Some(Check)) => loses(Color::Black, Check),
            (Some(by @ Chase(_)), None) => loses(Color::Red, by),
            (None, Some(by @ Chase(_))) => loses(Color::Black, by),
            _ => Ruling::Draw,
        }
    }
}

/// A position that recurs in a game, and the cycle between its two occurrences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repetition {
    /// The ply after which the position first stood (0: the game's start).
    pub first: usize,
    /// The ply after which it stands again: the cycle is the moves `first..again`.
    pub again: usize,
    /// What each side did in the cycle.
    pub cycle: Cycle,
}

/// A game or cycle that cannot be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RepetitionError {
    /// A move is not legal where it is played.
    #[error("move {ply} ({mv}) is not legal in the position it is played in")]
    Illegal {
        /// Its number, from 1.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// The moves given as a cycle do not lead back to the position they start from.
    #[error("the {plies} moves do not lead back to the position they start from")]
    NotACycle {
        /// How many moves were given.
        plies: usize,
    },
}

/// Judges the cycle `moves` from `start`, which must lead back to `start`.
pub fn judge_cycle(start: &Position, moves: &[Move]) -> Result<Cycle, RepetitionError> {
    let mut judge = Judge::new(start);
    let mut pos = start.clone();
    for (i, &mv) in moves.iter().enumerate() {
        if !pos.legal_moves().contains(&mv) {
            return Err(RepetitionError::Illegal { ply: i + 1, mv });
        }
        let before = pos.clone();
        pos.play(mv);
        judge.add(&before, mv, &pos);
    }
    if moves.is_empty() || pos != *start {
        return Err(RepetitionError::NotACycle { plies: moves.len() });
    }
    Ok(judge.cycle())
}

/// The first position of the game `moves` from `start` that stands where it stood before (the
/// same pieces on the same points, the same side to move), judged; `None` if none recurs.
pub fn first_repetition(
    start: &Position,
    moves: &[Move],
) -> Result<Option<Repetition>, RepetitionError> {
    let mut seen = HashMap::from([(start.clone(), 0)]);
    let mut pos = start.clone();
    let mut history = vec![start.clone()];
    for (i, &mv) in moves.iter().enumerate() {
        if !pos.legal_moves().contains(&mv) {
            return Err(RepetitionError::Illegal { ply: i + 1, mv });
        }
        pos.play(mv);
        let again = i + 1;
        if let Some(&first) = seen.get(&pos) {
            let cycle = judge_cycle(&history[first], &moves[first..again])?;
            return Ok(Some(Repetition {
                first,
                again,
                cycle,
            }));
        }
        seen.insert(pos.clone(), again);
        history.push(pos.clone());
    }
    Ok(None)
}

/// The pieces of a position named by the point each stood on in it, followed through the moves
/// played since (two pieces of a kind stay apart).
#[derive(Clone, Debug)]
pub struct PieceNames {
    name: [Option<Square>; 90],
}

impl PieceNames {
    /// Names every piece of `start` by its point there.
    pub fn new(start: &Position) -> PieceNames {
        let mut name = [None; 90];
        for (sq, _) in start.all_pieces() {
            name[sq.index()] = Some(sq);
        }
        PieceNames { name }
    }

    /// Follows the move `mv` (a captured piece loses its name).
    pub fn play(&mut self, mv: Move) {
        self.name[mv.to.index()] = self.name[mv.from.index()].take();
    }

    /// The name of the piece on `sq` now: the point it stood on in the start position.
    pub fn of(&self, sq: Square) -> Option<Square> {
        self.name[sq.index()]
    }
}

/// Running labels of a cycle's moves: whether each side has checked in every move so far, and
/// which pieces it has chased in every move so far, by [`PieceNames`] of the cycle's first
/// position.
struct Judge {
    names: PieceNames,
    all_checks: ByColor<bool>,
    /// `None` until the side has moved; then the names chased by every move of it.
    chased: ByColor<Option<Vec<Square>>>,
}

impl Judge {
    fn new(start: &Position) -> Judge {
        Judge {
            names: PieceNames::new(start),
            all_checks: ByColor([true, true]),
            chased: ByColor([None, None]),
        }
    }

    /// Records the move `mv` from `before` to `after`.
    fn add(&mut self, before: &Position, mv: Move, after: &Position) {
        let side = before.turn().index();
        self.all_checks.0[side] &= after.is_check();
        let now: Vec<Square> = chased_after(before, mv, after)
            .into_iter()
            .filter_map(|p| self.names.of(p))
            .collect();
        let chased = &mut self.chased.0[side];
        match chased {
            None => *chased = Some(now),
            Some(names) => names.retain(|n| now.contains(n)),
        }
        self.names.play(mv);
    }

    fn cycle(&self) -> Cycle {
        let of = |side: usize| {
            if self.all_checks.0[side] {
                return Some(Perpetual::Check);
            }
            let names = self.chased.0[side].as_deref().unwrap_or_default();
            names.iter().min().map(|&p| Perpetual::Chase(p))
        };
        Cycle {
            perpetual: ByColor([of(0), of(1)]),
        }
    }
}
