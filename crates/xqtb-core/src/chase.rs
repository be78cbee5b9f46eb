//! Checks and chases of a move, as the Asian rules judge perpetual play (definition, clause by
//! clause with its sources: `formats/rules.md`). Pure rules code on top of [`crate::position`].
//!
//! Fang ("The Nature of Retrograde Analysis for Chinese Chess", Section 2.2) abstracts the rules
//! as two labels of a move: `check((u, v))`, and `chase((u, v), p)` — the move is a forbidden
//! chase of the piece `p`. A move by side X chases Y's piece `p` when it is not a check and it
//! makes some X piece `a` newly have a forbidden attack `Forb(a, p, ·)` on `p` (rules summary in
//! Yen et al. 2004, Appendix A: perpetual threats on an unprotected piece, except a pawn that has not
//! crossed the river, and on a rook by cannons or horses, are forbidden; Asian rule 24: a rook
//! threatening a rook it does not pin is not forbidden).

use crate::piece::{Color, Role};
use crate::position::{Move, MoveList, Position};
use crate::square::Square;
use thiserror::Error;

/// A move given to [`gives_check`] or [`chases`] that is not legal in the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("{mv} is not a legal move in this position")]
pub struct IllegalMove {
    /// The rejected move.
    pub mv: Move,
}

/// Does the legal move `mv` of the side to move in `u` give check (facing kings included)?
pub fn gives_check(u: &Position, mv: Move) -> Result<bool, IllegalMove> {
    Ok(after(u, mv)?.is_check())
}

/// The points of the pieces giving check in `v`: those of the side not to move that attack the
/// king of the side to move, by increasing point (empty if it is not in check).
pub fn checkers(v: &Position) -> Vec<Square> {
    let Some(king) = v.king(v.turn()) else {
        return Vec::new();
    };
    let mut by = Vec::new();
    v.pseudo_captures_by(!v.turn(), |m| {
        if m.to == king {
            by.push(m.from);
        }
    });
    by.sort_unstable();
    by
}

/// The points of the pieces the legal move `mv` chases: Y's non-king pieces `p` (Y the side not
/// to move in `u`) for which some piece `a` of the mover has `Forb(a, p, v)` in the position `v`
/// after the move but not `Forb(a, p, u)` before it, the move not being a check. Points are
/// those of `v` (the chased pieces stand where they stood in `u`). By increasing point.
pub fn chases(u: &Position, mv: Move) -> Result<Vec<Square>, IllegalMove> {
    let v = after(u, mv)?;
    Ok(chased_after(u, mv, &v))
}

/// [`chases`] for a move known to be legal, `v` being the position after it (the rule passes
/// have both in hand; the legality test would cost more than the answer).
pub fn chased_after(u: &Position, mv: Move, v: &Position) -> Vec<Square> {
    if v.is_check() {
        // A check is judged as a check, never also as a chase (formats/rules.md, "Checks").
        return Vec::new();
    }
    let mut chased = Vec::new();
    each_chased(u, mv, v, |p| chased.push(p));
    chased.sort_unstable();
    chased.dedup();
    chased
}

/// Calls `f` with the point of each piece the legal move `mv` of `u` chases (a point may come
/// more than once), `v` the position after it, for a move known not to give check (a check's
/// chases do not count: see [`chased_after`]). No allocation and no copy of a position: the
/// rule passes ask this of millions of moves.
pub fn each_chased(u: &Position, mv: Move, v: &Position, mut f: impl FnMut(Square)) {
    each_new_attack(u, mv, v, |_, p| f(p));
}

/// The points of the mover's pieces whose forbidden attack on the piece on `p` the legal,
/// non-checking move `mv` of `u` makes new (`v` the position after it): the chasers of `p`.
pub fn chasers(u: &Position, mv: Move, v: &Position, p: Square) -> Vec<Square> {
    let mut by = Vec::new();
    each_new_attack(u, mv, v, |a, q| {
        if q == p {
            by.push(a);
        }
    });
    by.sort_unstable();
    by.dedup();
    by
}

/// Calls `f(a, p)` for each forbidden attack of the mover's piece on `a` on the piece on `p`
/// that `v` has and `u` had not.
fn each_new_attack(u: &Position, mv: Move, v: &Position, mut f: impl FnMut(Square, Square)) {
    // Where each of the mover's pieces stood in `u`: only the moved one changed point.
    let before = |a: Square| if a == mv.to { mv.from } else { a };
    // Only pieces the mover could take in `v` can be newly attacked: its captures there
    // narrow the search to those.
    v.pseudo_captures_by(u.turn(), |m| {
        if forbidden_attack(v, m.from, m.to) && !forbidden_attack(u, before(m.from), m.to) {
            f(m.from, m.to);
        }
    });
}

/// `Forb(a, p, w)`: the piece on `a` may capture the enemy piece on `p` in `w` (whoever is to
/// move there), and a perpetual threat to do so is forbidden (clauses 1–5 of
/// `formats/rules.md`).
pub fn forbidden_attack(w: &Position, a: Square, p: Square) -> bool {
    let (Some(attacker), Some(victim)) = (w.piece_at(a), w.piece_at(p)) else {
        return false;
    };
    if attacker.color() == victim.color() || victim.role() == Role::King {
        return false;
    }
    // Clause 1: kings and pawns may chase.
    if matches!(attacker.role(), Role::King | Role::Pawn) {
        return false;
    }
    // Clause 2: a pawn on its own side of the river may be chased.
    if victim.role() == Role::Pawn && !crossed_river(victim.color(), p) {
        return false;
    }
    if !legal_capture(w, a, p) {
        return false;
    }
    // Clause 3: a horse or cannon may never chase a rook, protected or not.
    if victim.role() == Role::Rook && matches!(attacker.role(), Role::Horse | Role::Cannon) {
        return true;
    }
    // Clause 4: a threat between pieces of one kind is mutual unless the victim cannot take back.
    if victim.role() == attacker.role() && legal_capture(w, p, a) {
        return false;
    }
    // Clauses 4 and 5: only an unprotected piece may not be chased.
    !protected(w, a, p)
}

/// Has a pawn of `color` on `sq` crossed the river (into the opponent's half)?
pub fn crossed_river(color: Color, sq: Square) -> bool {
    match color {
        Color::Red => sq.rank() >= 5,
        Color::Black => sq.rank() <= 4,
    }
}

/// Could the piece on `from` legally capture the piece on `to` if its side were to move in `w`?
/// Legal: a move of the piece's kind that leaves its own king neither attacked nor facing the
/// other king (pins and the flying-general rule).
pub fn legal_capture(w: &Position, from: Square, to: Square) -> bool {
    let Some(piece) = w.piece_at(from) else {
        return false;
    };
    let mut pos = w.clone();
    pos.set_turn(piece.color());
    let m = Move::new(from, to);
    let mut pseudo = false;
    pos.pseudo_captures(|c| pseudo |= c == m);
    pseudo && keeps_king_safe(&mut pos, m)
}

/// After the piece on `a` takes the piece on `p` in `w`, can `p`'s side legally take back on
/// `p`? Its king counts; a pinned defender, or a recapture that leaves its king attacked or
/// facing the other king, does not. `a` must be able to capture `p` ([`legal_capture`]).
pub fn protected(w: &Position, a: Square, p: Square) -> bool {
    let Some(attacker) = w.piece_at(a) else {
        return false;
    };
    let mut pos = w.clone();
    pos.set_turn(attacker.color());
    pos.play(Move::new(a, p));
    let mut recaptures = MoveList::new();
    pos.pseudo_captures(|m| {
        if m.to == p {
            recaptures.push(m);
        }
    });
    recaptures.iter().any(|&m| keeps_king_safe(&mut pos, m))
}

/// Does the pseudo-legal move `m` of the side to move leave its own king safe?
fn keeps_king_safe(pos: &mut Position, m: Move) -> bool {
    let us = pos.turn();
    let undo = pos.play(m);
    let safe = !pos.in_check(us);
    pos.undo(m, undo);
    safe
}

/// The position after the legal move `mv`, or the error if `mv` is not legal in `u`.
fn after(u: &Position, mv: Move) -> Result<Position, IllegalMove> {
    if !u.legal_moves().contains(&mv) {
        return Err(IllegalMove { mv });
    }
    let mut v = u.clone();
    v.play(mv);
    Ok(v)
}
