//! The board, making and unmaking moves, check detection, legal move generation and retro
//! (un-move) generation. Pure rules code: no I/O, and no allocation (move lists live on the stack).

use crate::geometry::{
    Steps, ADVISOR_STEPS, ADVISOR_STEP_MASKS, ELEPHANT_STEPS, ELEPHANT_STEP_MASKS, HORSE_LEG_MASKS,
    HORSE_SOURCES, HORSE_SOURCE_MASKS, HORSE_STEPS, HORSE_STEP_MASKS, KING_STEPS, KING_STEP_MASKS,
    LINE_MASKS, PAWN_SOURCES, PAWN_SOURCE_MASKS, PAWN_STEPS, PAWN_STEP_MASKS, RAYS, RAY_ASCENDS,
    RAY_MASKS,
};
use crate::piece::{Color, Piece, Role};
use crate::square::Square;
use arrayvec::ArrayVec;
use std::fmt;

/// A move from one point to another, printed in UCCI form (`h2e2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The point the piece leaves.
    pub from: Square,
    /// The point the piece goes to (capturing whatever stands there).
    pub to: Square,
}

impl Move {
    /// The move from `from` to `to`.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// Parses UCCI notation such as `h2e2`.
    pub fn parse(s: &str) -> Option<Move> {
        if s.len() != 4 || !s.is_ascii() {
            return None;
        }
        Some(Move::new(Square::parse(&s[..2])?, Square::parse(&s[2..])?))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// Upper bound on the moves of one side in any position (pseudo-legal moves of a full army are
/// at most 34 + 34 + 16 + 15 + 4 + 8 + 8 = 119).
pub const MAX_MOVES: usize = 128;

/// A stack-allocated list of moves.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// What [`Position::play`] took off the board, to put back with [`Position::undo`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: u8,
}

impl Undo {
    /// The piece the move captured, if any.
    pub fn captured(self) -> Option<Piece> {
        Piece::from_code(self.captured)
    }
}

/// A Xiangqi position: the pieces and the side to move. Move counters are not kept: they play no
/// part in the value of an endgame position.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: [u8; 90],
    occ: [u128; 2],
    /// Pieces on the board by piece code: `put` keeps each within its role's maximum, so move
    /// lists never overflow.
    counts: [u8; 16],
    /// King points; 90 while a colour has no king (only during construction).
    king: [u8; 2],
    turn: Color,
}

const NO_KING: u8 = 90;

#[inline]
const fn code(color: Color, role: Role) -> u8 {
    Piece::new(color, role).code()
}

impl Position {
    /// An empty board with `turn` to move.
    pub const fn empty(turn: Color) -> Position {
        Position {
            board: [0; 90],
            occ: [0; 2],
            counts: [0; 16],
            king: [NO_KING; 2],
            turn,
        }
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Sets the side to move, leaving the pieces as they are.
    #[inline]
    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board[sq.index()])
    }

    /// Places a piece; returns false (and changes nothing) if the point is taken or the colour
    /// already has as many pieces of this role as it can ever have (one king, five pawns, two of
    /// the others).
    #[inline]
    pub fn put(&mut self, sq: Square, piece: Piece) -> bool {
        let i = sq.index();
        let code = piece.code() as usize;
        if self.board[i] != 0 || self.counts[code] >= piece.role().max_count() {
            return false;
        }
        self.counts[code] += 1;
        self.board[i] = piece.code();
        self.occ[piece.color().index()] |= 1u128 << i;
        if piece.role() == Role::King {
            self.king[piece.color().index()] = i as u8;
        }
        true
    }

    /// Removes and returns the piece on a point.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let i = sq.index();
        let p = Piece::from_code(self.board[i])?;
        self.counts[p.code() as usize] -= 1;
        self.board[i] = 0;
        self.occ[p.color().index()] &= !(1u128 << i);
        if p.role() == Role::King {
            self.king[p.color().index()] = NO_KING;
        }
        Some(p)
    }

    /// Piece codes by point (0 = empty), for the index's tight loops.
    #[inline]
    pub(crate) fn codes(&self) -> &[u8; 90] {
        &self.board
    }

    /// Points with a piece of either colour, as bits.
    #[inline]
    pub(crate) fn occupied(&self) -> u128 {
        self.occ[0] | self.occ[1]
    }

    /// The points of `color`'s pieces, as a bit set.
    #[inline]
    pub(crate) fn occupied_by(&self, color: Color) -> u128 {
        self.occ[color.index()]
    }

    /// The king of a colour, if it is on the board.
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        let k = self.king[color.index()];
        (k != NO_KING).then(|| Square::new(k))
    }

    /// All pieces of a colour, by increasing point.
    pub fn pieces(&self, color: Color) -> impl Iterator<Item = (Square, Piece)> + '_ {
        BitIter(self.occ[color.index()]).map(move |i| {
            (
                Square::new(i),
                Piece::from_code(self.board[i as usize]).unwrap(),
            )
        })
    }

    /// All pieces on the board, by increasing point.
    pub fn all_pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        BitIter(self.occ[0] | self.occ[1]).map(move |i| {
            (
                Square::new(i),
                Piece::from_code(self.board[i as usize]).unwrap(),
            )
        })
    }

    /// Number of pieces of a colour and role.
    #[inline]
    pub fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[Piece::new(color, role).code() as usize]
    }

    /// Do both sides' defenders (king, advisors, elephants) stand mirror-symmetrically? Then the
    /// index numbers a position and its mirror image separately (see `formats/index.md`).
    pub fn defenders_symmetric(&self) -> bool {
        self.all_pieces().all(|(sq, p)| {
            !matches!(p.role(), Role::King | Role::Advisor | Role::Elephant)
                || self.board[sq.mirror().index()] == p.code()
        })
    }

    /// Left–right mirror image (same side to move).
    pub fn mirror(&self) -> Position {
        self.transformed(|sq| sq.mirror(), false)
    }

    /// The colour-flipped twin: board turned 180°, colours swapped, the other side to move.
    /// It has the same value, and is how a table serves both a material and its twin.
    pub fn flip_colors(&self) -> Position {
        self.transformed(|sq| sq.rotate(), true)
    }

    fn transformed(&self, map: impl Fn(Square) -> Square, swap: bool) -> Position {
        let mut out = Position::empty(if swap { !self.turn } else { self.turn });
        for (sq, p) in self.all_pieces() {
            let p = if swap {
                Piece::new(!p.color(), p.role())
            } else {
                p
            };
            out.put(map(sq), p);
        }
        out
    }

    /// Is `color`'s king attacked (including by the facing enemy king)? False without a king.
    /// Assumes every piece stands on a point it can occupy (as every parsed or decoded position
    /// does): an advisor or elephant put by hand in the enemy half is not seen as attacking.
    pub fn in_check(&self, color: Color) -> bool {
        let k = self.king[color.index()];
        k != NO_KING
            && self.attacked(
                color,
                k as usize,
                self.occ[0] | self.occ[1],
                self.occ[(!color).index()],
            )
    }

    /// Would `color`'s king be attacked on `k` with `occ` the occupied points and `theirs` the
    /// enemy's? Lines and horse legs are read in `occ` and pieces on the board, so a king's
    /// step or capture (the king's old point out of `occ`, the captured piece out of `theirs`)
    /// is tested without playing it: no attack comes from either point.
    #[inline]
    fn attacked(&self, color: Color, k: usize, occ: u128, theirs: u128) -> bool {
        let them = !color;
        let (rook, cannon, king) = (
            code(them, Role::Rook),
            code(them, Role::Cannon),
            code(them, Role::King),
        );
        // Along each line the first piece (a rook, or the king facing along the file) and the
        // second (a cannon over its screen) are found by bit scans. Without enemy rooks and
        // cannons only the facing king's line is looked at; kinds the enemy lacks are skipped
        // (endgames have few).
        let has = |c: u8| self.counts[c as usize] > 0;
        let sliders = has(rook) || has(cannon);
        let cannons = has(cannon);
        let enemy_king = self.king[them.index()];
        // The enemy pieces that can check along a line: without rooks and cannons only the
        // king. A line without one gives no check (one mask test, and one for all four).
        let along = if sliders {
            theirs
        } else if enemy_king == NO_KING {
            0
        } else {
            1u128 << enemy_king
        };
        if LINE_MASKS[k] & along != 0 {
            for (d, &ascends) in RAY_ASCENDS.iter().enumerate() {
                let ray = RAY_MASKS[k][d];
                if ray & along != 0
                    && line_attacks(
                        ray & occ,
                        ascends,
                        |s| self.board[s],
                        (rook, cannon, king),
                        cannons,
                    )
                {
                    return true;
                }
            }
        }
        let horse = code(them, Role::Horse);
        // Most positions have no enemy piece on a horse's or pawn's source point: one mask test.
        if has(horse) && HORSE_SOURCE_MASKS[k] & theirs != 0 {
            for (o, leg) in HORSE_SOURCES[k].with_aux() {
                if self.board[o as usize] == horse && occ >> leg & 1 == 0 {
                    return true;
                }
            }
        }
        let pawn = code(them, Role::Pawn);
        has(pawn)
            && PAWN_SOURCE_MASKS[them.index()][k] & theirs != 0
            && PAWN_SOURCES[them.index()][k]
                .targets()
                .iter()
                .any(|&o| self.board[o as usize] == pawn)
    }

    /// Is the side to move in check?
    #[inline]
    pub fn is_check(&self) -> bool {
        self.in_check(self.turn)
    }

    /// A position can arise in play only if the side that just moved is not in check.
    #[inline]
    pub fn opponent_in_check(&self) -> bool {
        self.in_check(!self.turn)
    }

    /// Is this a capture in this position?
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        self.board[m.to.index()] != 0
    }

    /// Plays a (pseudo-legal) move and passes the turn.
    #[inline]
    pub fn play(&mut self, m: Move) -> Undo {
        let (f, t) = (m.from.index(), m.to.index());
        let p = self.board[f];
        let captured = self.board[t];
        let us = self.turn.index();
        if captured != 0 {
            self.occ[1 - us] &= !(1u128 << t);
            self.counts[captured as usize] -= 1;
            if captured & 7 == Role::King as u8 {
                // Only in an illegal position; keep the king table true to the board.
                self.king[1 - us] = NO_KING;
            }
        }
        self.board[t] = p;
        self.board[f] = 0;
        self.occ[us] ^= (1u128 << f) | (1u128 << t);
        if p & 7 == Role::King as u8 {
            self.king[us] = t as u8;
        }
        self.turn = !self.turn;
        Undo { captured }
    }

    /// Takes back a move made with [`Position::play`].
    #[inline]
    pub fn undo(&mut self, m: Move, undo: Undo) {
        self.turn = !self.turn;
        let (f, t) = (m.from.index(), m.to.index());
        let us = self.turn.index();
        let p = self.board[t];
        self.board[f] = p;
        self.board[t] = undo.captured;
        self.occ[us] ^= (1u128 << f) | (1u128 << t);
        if undo.captured != 0 {
            self.occ[1 - us] |= 1u128 << t;
            self.counts[undo.captured as usize] += 1;
            if undo.captured & 7 == Role::King as u8 {
                self.king[1 - us] = t as u8;
            }
        }
        if p & 7 == Role::King as u8 {
            self.king[us] = f as u8;
        }
    }

    /// Takes back a non-capturing move `m` that the side not to move made: its piece goes from
    /// `m.to` back to `m.from`, and that side is to move again.
    #[inline]
    pub fn unplay(&mut self, m: Move) {
        self.turn = !self.turn;
        self.play(m.reversed_quiet());
        self.turn = !self.turn;
    }

    /// Every pseudo-legal move of the side to move (may leave its own king in check).
    pub fn pseudo_legal_moves(&self, out: &mut MoveList) {
        let us = self.turn;
        let own = self.occ[us.index()];
        let b = &self.board;
        for i in BitIter(own) {
            let from = Square::new(i);
            let s = i as usize;
            let mut step = |to: u8| {
                if own & (1u128 << to) == 0 {
                    out.push(Move::new(from, Square::new(to)));
                }
            };
            match Role::from_u8(b[s] & 7) {
                Some(Role::King) => KING_STEPS[s].targets().iter().for_each(|&t| step(t)),
                Some(Role::Advisor) => ADVISOR_STEPS[s].targets().iter().for_each(|&t| step(t)),
                Some(Role::Elephant) => blocked_steps(&ELEPHANT_STEPS[s], b, step),
                Some(Role::Horse) => blocked_steps(&HORSE_STEPS[s], b, step),
                Some(Role::Pawn) => PAWN_STEPS[us.index()][s]
                    .targets()
                    .iter()
                    .for_each(|&t| step(t)),
                Some(Role::Rook) => {
                    for ray in &RAYS[s] {
                        for &t in ray.squares() {
                            step(t);
                            if b[t as usize] != 0 {
                                break;
                            }
                        }
                    }
                }
                // Occupancy bits mark only squares holding a piece.
                None => unreachable!("occupied point without a piece"),
                Some(Role::Cannon) => {
                    // Cannon: slides to empty points, captures over exactly one screen.
                    for ray in &RAYS[s] {
                        let mut it = ray.squares().iter();
                        for &t in it.by_ref() {
                            if b[t as usize] != 0 {
                                break;
                            }
                            step(t);
                        }
                        for &t in it {
                            if b[t as usize] != 0 {
                                step(t);
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.pseudo_legal_moves(&mut moves);
        let safe = self.safety_filter();
        let mut scratch = LazyCopy::of(self);
        moves.retain(|m| safe.legal_on(&mut scratch, *m));
        moves
    }

    /// The legal captures of the side to move, then its legal quiet moves: all counted (and the
    /// flag true) if it has at most `count_up_to` pseudo-legal quiet moves, otherwise only 0 or
    /// 1 (is there one?) — what a builder's initialisation needs, testing the legality of few
    /// quiet moves where there are many. `in_check` is whether the side to move is in check (the
    /// caller often knows). Each legal capture goes to `capture` (with `self` as before it); if
    /// that returns true, the walk stops there and `None` is returned: the quiet moves of a
    /// position won by a capture are not looked at. Moves are tried on `self` and taken back.
    /// Captures are found by bit scans along the lines, and quiet moves generated only as far
    /// as needed.
    pub fn legal_captures(
        &mut self,
        in_check: bool,
        count_up_to: usize,
        mut capture: impl FnMut(&mut Position, Move) -> bool,
    ) -> Option<(usize, bool)> {
        debug_assert_eq!(in_check, self.is_check());
        let safe = SafetyFilter::new(self, in_check);
        let mut pseudo = MoveList::new();
        self.pseudo_captures(|m| pseudo.push(m));
        for &m in &pseudo {
            if safe.legal(self, m) && capture(self, m) {
                return None;
            }
        }
        // The first `count_up_to + 1` quiet moves tell few from many.
        let mut quiet = MoveList::new();
        let many = self.pseudo_quiet_until(|m| {
            quiet.push(m);
            quiet.len() > count_up_to
        });
        if !many {
            let legal = quiet.iter().filter(|&&m| safe.legal(self, m)).count();
            return Some((legal, true));
        }
        // Is one legal? Moves that are clearly safe first: the full test (king moves, say) only
        // if none is.
        if quiet.iter().any(|&m| safe.clearly_safe(m)) || quiet.iter().any(|&m| safe.legal(self, m))
        {
            return Some((1, false));
        }
        // Many moves, the first ones all illegal (rare: in check, say): look on for a legal one.
        let board = self.clone();
        let mut skip = quiet.len();
        let found = board.pseudo_quiet_until(|m| {
            if skip > 0 {
                skip -= 1;
                return false;
            }
            safe.legal(self, m)
        });
        Some((usize::from(found), false))
    }

    /// The number of legal quiet moves of the side to move, trying moves on `self` (taken
    /// back).
    ///
    /// Each piece's quiet targets are found as a set of points. Out of check, the moves of a
    /// piece off the points where leaving exposes the king to points where arriving cannot
    /// (`SafetyFilter::exposed`) are counted at once (a popcount: the legality filter's
    /// clearly safe moves), and in check only the moves to or from an escape point are
    /// tested; the rest one by one as before. (Children
    /// counting calls this for most entries of a large table: a tenth of KRCKR's build when
    /// every move was listed and filtered.)
    pub fn count_legal_quiet(&mut self) -> usize {
        let safe = self.safety_filter();
        let us = self.turn;
        let k = self.king[us.index()];
        let mut count = 0;
        for i in BitIter(self.occ[us.index()]) {
            let s = i as usize;
            let targets = self.quiet_targets(s);
            let from = Square::new(i);
            let test = |pos: &mut Position, set: u128| {
                BitIter(set)
                    .filter(|&t| safe.legal(pos, Move::new(from, Square::new(t))))
                    .count()
            };
            count += if s == k as usize {
                test(self, targets)
            } else if let Some((onto, off)) = safe.escapes {
                test(
                    self,
                    if off >> s & 1 != 0 {
                        targets
                    } else {
                        targets & onto
                    },
                )
            } else if safe.from >> s & 1 == 0 {
                (targets & !safe.to).count_ones() as usize + test(self, targets & safe.to)
            } else {
                test(self, targets)
            };
        }
        count
    }

    /// The empty points the piece on `s` (of the side to move) can move to.
    #[inline]
    fn quiet_targets(&self, s: usize) -> u128 {
        let b = &self.board;
        let occ = self.occ[0] | self.occ[1];
        let empty = |t: u8| (b[t as usize] == 0) as u128 * (1u128 << t);
        let free = |steps: &[u8]| steps.iter().fold(0, |m, &t| m | empty(t));
        let unblocked = |steps: &mut dyn Iterator<Item = (u8, u8)>| {
            steps.fold(0, |m, (t, aux)| {
                if b[aux as usize] == 0 {
                    m | empty(t)
                } else {
                    m
                }
            })
        };
        match Role::from_u8(b[s] & 7) {
            Some(Role::King) => free(KING_STEPS[s].targets()),
            Some(Role::Advisor) => free(ADVISOR_STEPS[s].targets()),
            Some(Role::Elephant) => unblocked(&mut ELEPHANT_STEPS[s].with_aux()),
            Some(Role::Horse) => unblocked(&mut HORSE_STEPS[s].with_aux()),
            Some(Role::Pawn) => free(PAWN_STEPS[self.turn.index()][s].targets()),
            Some(Role::Rook | Role::Cannon) => {
                let mut m = 0;
                for (d, &ascends) in RAY_ASCENDS.iter().enumerate() {
                    let ray = RAY_MASKS[s][d];
                    let on = ray & occ;
                    m |= if on == 0 {
                        ray
                    } else {
                        let n = nearest(on, ascends);
                        ray & !RAY_MASKS[n][d] & !(1u128 << n)
                    };
                }
                m
            }
            None => unreachable!("occupied point without a piece"),
        }
    }

    /// Calls `f` with every pseudo-legal capture of the side to move (the first piece along
    /// each line for a rook, the second for a cannon, found by bit scans).
    pub fn pseudo_captures(&self, f: impl FnMut(Move)) {
        self.pseudo_captures_by(self.turn, f)
    }

    /// [`Position::pseudo_captures`] of `us`, whoever is to move (the chase rules ask what the
    /// side that just moved threatens).
    pub fn pseudo_captures_by(&self, us: Color, mut f: impl FnMut(Move)) {
        let (own, theirs) = (self.occ[us.index()], self.occ[(!us).index()]);
        let occ = own | theirs;
        let b = &self.board;
        for i in BitIter(own) {
            let from = Square::new(i);
            let s = i as usize;
            let mut hit = |t: u8| {
                if (theirs >> t) & 1 == 1 {
                    f(Move::new(from, Square::new(t)));
                }
            };
            // A stepping piece with no enemy piece on its targets is passed over in one test.
            let near = |masks: &[u128; 90]| masks[s] & theirs != 0;
            match Role::from_u8(b[s] & 7) {
                Some(Role::King) if near(&KING_STEP_MASKS) => {
                    KING_STEPS[s].targets().iter().for_each(|&t| hit(t))
                }
                Some(Role::Advisor) if near(&ADVISOR_STEP_MASKS) => {
                    ADVISOR_STEPS[s].targets().iter().for_each(|&t| hit(t))
                }
                Some(Role::Elephant) if near(&ELEPHANT_STEP_MASKS) => {
                    blocked_steps(&ELEPHANT_STEPS[s], b, hit)
                }
                Some(Role::Horse) if near(&HORSE_STEP_MASKS) => {
                    blocked_steps(&HORSE_STEPS[s], b, hit)
                }
                Some(Role::Pawn) if near(&PAWN_STEP_MASKS[us.index()]) => PAWN_STEPS[us.index()][s]
                    .targets()
                    .iter()
                    .for_each(|&t| hit(t)),
                Some(Role::King | Role::Advisor | Role::Elephant | Role::Horse | Role::Pawn) => {}
                Some(Role::Rook) => {
                    for (d, &ascends) in RAY_ASCENDS.iter().enumerate() {
                        let on = RAY_MASKS[s][d] & occ;
                        if on != 0 {
                            hit(nearest(on, ascends) as u8);
                        }
                    }
                }
                Some(Role::Cannon) => {
                    for (d, &ascends) in RAY_ASCENDS.iter().enumerate() {
                        let on = RAY_MASKS[s][d] & occ;
                        if on != 0 {
                            let beyond = on & !(1u128 << nearest(on, ascends));
                            if beyond != 0 {
                                hit(nearest(beyond, ascends) as u8);
                            }
                        }
                    }
                }
                None => unreachable!("occupied point without a piece"),
            }
        }
    }

    /// Calls `f` with the pseudo-legal quiet moves of the side to move until it returns true;
    /// returns whether it did.
    pub fn pseudo_quiet_until(&self, f: impl FnMut(Move) -> bool) -> bool {
        self.pseudo_quiet_of(self.occ[self.turn.index()], f)
    }

    /// [`Position::pseudo_quiet_until`], the king's moves first: a side's king steps are few
    /// and often safe, where a rook's many moves often hang it.
    pub fn pseudo_quiet_king_first_until(&self, mut f: impl FnMut(Move) -> bool) -> bool {
        let own = self.occ[self.turn.index()];
        let king = match self.king[self.turn.index()] {
            NO_KING => 0,
            k => 1u128 << k,
        };
        self.pseudo_quiet_of(king, &mut f) || self.pseudo_quiet_of(own & !king, f)
    }

    /// [`Position::pseudo_quiet_until`] for the side to move's pieces on `from` only.
    fn pseudo_quiet_of(&self, from: u128, mut f: impl FnMut(Move) -> bool) -> bool {
        let us = self.turn;
        let b = &self.board;
        for i in BitIter(from) {
            let from = Square::new(i);
            let s = i as usize;
            let mut go = |t: u8| b[t as usize] == 0 && f(Move::new(from, Square::new(t)));
            let stopped = match Role::from_u8(b[s] & 7) {
                Some(Role::King) => KING_STEPS[s].targets().iter().any(|&t| go(t)),
                Some(Role::Advisor) => ADVISOR_STEPS[s].targets().iter().any(|&t| go(t)),
                Some(Role::Elephant) => ELEPHANT_STEPS[s]
                    .with_aux()
                    .any(|(t, eye)| b[eye as usize] == 0 && go(t)),
                Some(Role::Horse) => HORSE_STEPS[s]
                    .with_aux()
                    .any(|(t, leg)| b[leg as usize] == 0 && go(t)),
                Some(Role::Pawn) => PAWN_STEPS[us.index()][s].targets().iter().any(|&t| go(t)),
                Some(Role::Rook | Role::Cannon) => RAYS[s].iter().any(|ray| {
                    ray.squares()
                        .iter()
                        .take_while(|&&t| b[t as usize] == 0)
                        .any(|&t| go(t))
                }),
                None => unreachable!("occupied point without a piece"),
            };
            if stopped {
                return true;
            }
        }
        false
    }

    /// [`Position::pseudo_quiet_until`] without the moves that cannot give check
    /// ([`Position::may_give_check`]): a superset of the checking moves (the rule passes'
    /// losses against the king reach their pattern only by checking).
    ///
    /// Generated, not filtered: a piece off the king's lines and horse legs is passed over in
    /// one test when none of its targets is a checking point, and a rook or cannon looks only
    /// at the one point where each of its rays crosses the king's lines (filtering every quiet
    /// move through [`Position::may_give_check`] was 7 % of KRCKR's pattern pruning).
    pub fn pseudo_checks_until(&self, mut f: impl FnMut(Move) -> bool) -> bool {
        let us = self.turn;
        let k = self.king[(!us).index()] as usize;
        if k == NO_KING as usize {
            return self.pseudo_quiet_until(f);
        }
        let lines = LINE_MASKS[k];
        let own = self.occ[us.index()];
        // Leaving the king's lines or a horse's leg, any move may check.
        let leaving = own & (lines | HORSE_LEG_MASKS[k]);
        if self.pseudo_quiet_of(leaving, &mut f) {
            return true;
        }
        let occ = self.occ[0] | self.occ[1];
        let b = &self.board;
        for i in BitIter(own & !leaving) {
            let s = i as usize;
            let from = Square::new(i);
            // Onto a checking point, empty.
            let mut go = |t: u8, to: u128| {
                to >> t & 1 != 0 && b[t as usize] == 0 && f(Move::new(from, Square::new(t)))
            };
            let stopped = match Role::from_u8(b[s] & 7) {
                // Off the king's lines, each ray crosses them at one point at most.
                Some(Role::Rook | Role::Cannon) => {
                    RAY_ASCENDS.iter().enumerate().any(|(d, &ascends)| {
                        let cross = RAY_MASKS[s][d] & lines;
                        if cross == 0 {
                            return false;
                        }
                        let t = cross.trailing_zeros() as usize;
                        let on = RAY_MASKS[s][d] & occ;
                        let reached = on == 0
                            || if ascends {
                                nearest(on, true) > t
                            } else {
                                nearest(on, false) < t
                            };
                        reached && go(t as u8, cross)
                    })
                }
                Some(Role::Horse) => {
                    let to = lines | HORSE_SOURCE_MASKS[k];
                    HORSE_STEP_MASKS[s] & to != 0
                        && HORSE_STEPS[s]
                            .with_aux()
                            .any(|(t, leg)| b[leg as usize] == 0 && go(t, to))
                }
                Some(Role::King) => {
                    KING_STEP_MASKS[s] & lines != 0
                        && KING_STEPS[s].targets().iter().any(|&t| go(t, lines))
                }
                Some(Role::Advisor) => {
                    ADVISOR_STEP_MASKS[s] & lines != 0
                        && ADVISOR_STEPS[s].targets().iter().any(|&t| go(t, lines))
                }
                Some(Role::Elephant) => {
                    ELEPHANT_STEP_MASKS[s] & lines != 0
                        && ELEPHANT_STEPS[s]
                            .with_aux()
                            .any(|(t, eye)| b[eye as usize] == 0 && go(t, lines))
                }
                Some(Role::Pawn) => {
                    PAWN_STEP_MASKS[us.index()][s] & lines != 0
                        && PAWN_STEPS[us.index()][s]
                            .targets()
                            .iter()
                            .any(|&t| go(t, lines))
                }
                None => unreachable!("occupied point without a piece"),
            };
            if stopped {
                return true;
            }
        }
        false
    }

    /// Could the pseudo-legal quiet move `m` give check? A move checks only if it changes an
    /// attack on the opponent's king, so it lands on or leaves the king's file or rank (a
    /// rook, cannon or facing king's line, a cannon's screen), leaves the leg of a horse jump
    /// onto the king, or is a horse's jump onto a point it attacks the king from. (Pawns
    /// attack from the file and rank next to the king, advisors and elephants never.) False
    /// means it does not; true, only that it may.
    #[inline]
    pub fn may_give_check(&self, m: Move) -> bool {
        let k = self.king[(!self.turn).index()] as usize;
        if k == NO_KING as usize {
            return true;
        }
        let (from, to) = (m.from.index(), m.to.index());
        ((LINE_MASKS[k] | HORSE_LEG_MASKS[k]) >> from | LINE_MASKS[k] >> to) & 1 != 0
            || (self.board[from] == code(self.turn, Role::Horse)
                && HORSE_SOURCE_MASKS[k] >> to & 1 != 0)
    }

    /// [`Position::pseudo_quiet_until`] for a side to move that is in check, without the moves
    /// that leave every check as it was (a piece other than the king stepping neither onto a
    /// blocking point nor off a checking cannon's screen, as the legality filter finds them).
    /// Those are illegal: the moves given are a superset of the legal ones.
    pub fn pseudo_evasions_until(&self, mut f: impl FnMut(Move) -> bool) -> bool {
        debug_assert!(self.is_check(), "evasions of a side in check");
        let k = self.king[self.turn.index()] as usize;
        if k == NO_KING as usize {
            return self.pseudo_quiet_until(f);
        }
        let escapes = SafetyFilter::escapes(self);
        self.pseudo_quiet_until(|m| {
            (m.from.index() == k || !SafetyFilter::leaves_checks(escapes, m)) && f(m)
        })
    }

    /// Does the side to move have any legal move? (If not, it has lost: checkmate or stalemate.)
    pub fn has_legal_move(&self) -> bool {
        let mut moves = MoveList::new();
        self.pseudo_legal_moves(&mut moves);
        let safe = self.safety_filter();
        let mut scratch = LazyCopy::of(self);
        moves.iter().any(|m| safe.legal_on(&mut scratch, *m))
    }

    /// Does the side to move have a legal quiet (non-capturing) move? Stops at the first.
    pub fn has_legal_quiet(&self) -> bool {
        let safe = self.safety_filter();
        let mut scratch = LazyCopy::of(self);
        self.pseudo_quiet_until(|m| safe.legal_on(&mut scratch, m))
    }

    fn safety_filter(&self) -> SafetyFilter {
        SafetyFilter::new(self, self.in_check(self.turn))
    }

    /// Is the pseudo-legal move `m` legal: does it leave the mover's king unattacked?
    #[inline]
    fn keeps_king_safe(&mut self, m: Move) -> bool {
        if let Some(safe) = self.king_step_safe(m) {
            return safe;
        }
        let us = self.turn;
        let u = self.play(m);
        let ok = !self.in_check(us);
        self.undo(m, u);
        ok
    }

    /// If `m` is a step (or capture) of the mover's king: is the king safe on its new point?
    /// Found from the attacks on that point, without playing the move.
    #[inline]
    fn king_step_safe(&self, m: Move) -> Option<bool> {
        let us = self.turn;
        let (f, t) = (m.from.index(), m.to.index());
        (f == self.king[us.index()] as usize).then(|| {
            let occ = (self.occ[0] | self.occ[1]) & !(1u128 << f) | 1u128 << t;
            !self.attacked(us, t, occ, self.occ[(!us).index()] & !(1u128 << t))
        })
    }

    /// Would the quiet move `m` of a piece other than the king, the side to move not being in
    /// check, leave its king attacked? Only what runs through the move's two points can change:
    /// the king's lines through them (a rook or the facing king uncovered, a cannon given or
    /// left one screen) and a horse whose leg the piece leaves. The same answer as playing the
    /// move and asking [`Position::in_check`], without the move.
    #[inline]
    fn uncovers_check(&self, m: Move) -> bool {
        let us = self.turn;
        let them = !us;
        let k = self.king[us.index()] as usize;
        let (f, t) = (m.from.index(), m.to.index());
        debug_assert!(f != k && self.board[t] == 0 && !self.in_check(us));
        let mover = self.board[f];
        let moved = (1u128 << f) | (1u128 << t);
        let occ = (self.occ[0] | self.occ[1]) ^ moved;
        let at = |s: usize| if s == t { mover } else { self.board[s] };
        let (rook, cannon, king) = (
            code(them, Role::Rook),
            code(them, Role::Cannon),
            code(them, Role::King),
        );
        let theirs = self.occ[them.index()];
        let cannons = self.counts[cannon as usize] > 0;
        // Only a line through the move's points and with an enemy piece can open (a move that
        // only leaves a point diagonally next to the king is answered for all four at once).
        let lines = LINE_MASKS[k];
        if lines & moved != 0 && lines & theirs != 0 {
            for (d, &ascends) in RAY_ASCENDS.iter().enumerate() {
                let ray = RAY_MASKS[k][d];
                if ray & moved != 0
                    && ray & theirs != 0
                    && line_attacks(ray & occ, ascends, at, (rook, cannon, king), cannons)
                {
                    return true;
                }
            }
        }
        let horse = code(them, Role::Horse);
        self.counts[horse as usize] > 0
            && HORSE_LEG_MASKS[k] >> f & 1 != 0
            && HORSE_SOURCES[k]
                .with_aux()
                .any(|(o, leg)| leg as usize == f && self.board[o as usize] == horse)
    }

    /// Retro moves: every non-capturing move by the side *not* to move that leads to this
    /// position from a position that is itself legal (the side not to move there is not in check).
    /// Each is returned as the forward move (`from` is the point in the predecessor); apply it
    /// backwards with [`Position::unplay`]. Empty if this position is itself illegal.
    pub fn retro_moves(&self) -> MoveList {
        if self.in_check(!self.turn) {
            return MoveList::new();
        }
        let mut out = MoveList::new();
        self.retro_pseudo_moves(&mut out);
        let mut scratch = self.clone();
        out.retain(|m| {
            scratch.unplay(*m);
            // The predecessor is legal only if the side not to move there is not in check.
            let legal = !scratch.in_check(self.turn);
            scratch.play(*m);
            legal
        });
        out
    }

    /// Retro moves without the legality test: every non-capturing move by the side not to move
    /// that leads to this position from some placement, legal or not (the side not to move there
    /// may be in check). The builder uses these: an illegal predecessor's entry is marked
    /// illegal, so an update to it is a no-op, and skipping the test is cheaper. The moves go
    /// to `out` (appended).
    pub fn retro_pseudo_moves(&self, out: &mut MoveList) {
        let mover = !self.turn;
        let b = &self.board;
        for i in BitIter(self.occ[mover.index()]) {
            let to = Square::new(i);
            let s = i as usize;
            // Origins: empty points from which this piece reaches `to` without capturing.
            let mut from_empty = |o: u8| {
                if b[o as usize] == 0 {
                    out.push(Move::new(Square::new(o), to))
                }
            };
            match Role::from_u8(b[s] & 7) {
                Some(Role::King) => KING_STEPS[s].targets().iter().for_each(|&o| from_empty(o)),
                Some(Role::Advisor) => ADVISOR_STEPS[s]
                    .targets()
                    .iter()
                    .for_each(|&o| from_empty(o)),
                Some(Role::Pawn) => PAWN_SOURCES[mover.index()][s]
                    .targets()
                    .iter()
                    .for_each(|&o| from_empty(o)),
                // Elephant steps are symmetric, and the eye of o→to is the eye of to→o.
                Some(Role::Elephant) => blocked_steps(&ELEPHANT_STEPS[s], b, from_empty),
                Some(Role::Horse) => blocked_steps(&HORSE_SOURCES[s], b, from_empty),
                None => unreachable!("occupied point without a piece"),
                Some(Role::Rook | Role::Cannon) => {
                    // Rook and cannon: a quiet slide, back along any ray over empty points.
                    for ray in &RAYS[s] {
                        ray.squares()
                            .iter()
                            .take_while(|&&o| b[o as usize] == 0)
                            .for_each(|&o| from_empty(o));
                    }
                }
            }
        }
    }
}

impl Move {
    #[inline]
    const fn reversed_quiet(self) -> Move {
        Move {
            from: self.to,
            to: self.from,
        }
    }
}

/// A copy of a position to try moves on, made only when the first move needs trying: most
/// moves of a sparse endgame position pass the [`SafetyFilter`] and need no copy.
struct LazyCopy<'a> {
    of: &'a Position,
    copy: Option<Position>,
}

impl<'a> LazyCopy<'a> {
    fn of(of: &'a Position) -> LazyCopy<'a> {
        LazyCopy { of, copy: None }
    }

    #[inline]
    fn keeps_king_safe(&mut self, m: Move) -> bool {
        let of = self.of;
        if let Some(safe) = of.king_step_safe(m) {
            return safe;
        }
        self.copy
            .get_or_insert_with(|| of.clone())
            .keeps_king_safe(m)
    }
}

/// A cheap sufficient test that a pseudo-legal move keeps the mover's king safe, so the full
/// make / test / unmake can be skipped for most moves of a sparse endgame position.
///
/// If the king is not in check now, a move by another piece can expose it only through the
/// points it changes: the origin or the destination on the king's file or rank (a rook or the
/// other king uncovered, a cannon gaining or losing a screen) or the origin on a point
/// diagonally next to the king (a horse's leg freed). Captures change nothing else: the
/// captured piece's point is the destination. Pawns' attacks cannot be uncovered.
///
/// (A precise version, finding pinned pieces, double cannon screens, horse legs and points that
/// would become a cannon's screen once per position, tested fewer moves in full but cost more
/// than it saved: 10.44 G instructions against 10.34 G building KRNKA under callgrind.)
///
/// In check, a quiet move of another piece than the king is legal only if it ends some attack
/// on the king: it steps between the king and a rook, the facing king or a cannon (a second
/// screen), onto a checking horse's leg, or off a checking cannon's screen. A move that does
/// none of these leaves that attacker's line, leg or screen as it was, so it is illegal
/// without being played; the others are played and tested. (Counted once in a KRCKR build:
/// 3.1 M of the 19.2 M positions whose moves were counted were in check; at 25 moves a position
/// on average, about 77 M of the 112 M moves played to be tested were theirs.)
struct SafetyFilter {
    /// No move is clearly safe: in check, or no king.
    none: bool,
    king: u8,
    /// Out of check, where a move of another piece than the king can expose it: leaving a point
    /// of `from` or reaching one of `to` ([`SafetyFilter::exposed`]); the king's own point is in
    /// `from`. Both every point when `none`.
    from: u128,
    to: u128,
    /// In check: the points a quiet move of another piece than the king must reach, and those
    /// it must leave, to end some attack ([`SafetyFilter::escapes`]).
    escapes: Option<(u128, u128)>,
}

impl SafetyFilter {
    fn new(pos: &Position, in_check: bool) -> SafetyFilter {
        let king = pos.king[pos.turn.index()];
        let none = in_check || king == NO_KING;
        let (from, to) = if none {
            (u128::MAX, u128::MAX)
        } else {
            SafetyFilter::exposed(pos, king as usize)
        };
        SafetyFilter {
            none,
            king,
            from,
            to,
            escapes: (in_check && king != NO_KING).then(|| SafetyFilter::escapes(pos)),
        }
    }

    /// For a side not in check with its king on `k`: the points a move of another piece can
    /// expose the king by leaving (a rook, cannon or the facing king uncovered along a line, a
    /// horse's leg freed) and by reaching (a cannon's new screen), counting only the attacks
    /// the enemy's pieces can make: against a king, advisors and elephants alone, only the
    /// king's file. `from` holds `k` too. (The attacker of the KRNKAABB family faces no more
    /// than that; the masks also replace a file and rank comparison per move. Building KRNKA
    /// under callgrind: 5.391 G instructions before, 5.374 G after: a small saving.)
    fn exposed(pos: &Position, k: usize) -> (u128, u128) {
        let them = !pos.turn;
        let has = |role: Role| pos.counts[code(them, role) as usize] > 0;
        let cannons = has(Role::Cannon);
        let lines = if cannons || has(Role::Rook) {
            LINE_MASKS[k]
        } else {
            RAY_MASKS[k][0] | RAY_MASKS[k][1]
        };
        let legs = if has(Role::Horse) {
            HORSE_LEG_MASKS[k]
        } else {
            0
        };
        (
            lines | legs | 1u128 << k,
            if cannons { LINE_MASKS[k] } else { 0 },
        )
    }

    /// For a side in check: the points between its king and each checking rook, facing king or
    /// cannon, and the legs of checking horses (to step onto), and the screens of checking
    /// cannons (to step off). A checking pawn adds nothing: only the king's moves and captures
    /// can meet it.
    fn escapes(pos: &Position) -> (u128, u128) {
        let them = !pos.turn;
        let k = pos.king[pos.turn.index()] as usize;
        let (rook, cannon, king, horse) = (
            code(them, Role::Rook),
            code(them, Role::Cannon),
            code(them, Role::King),
            code(them, Role::Horse),
        );
        let occ = pos.occ[0] | pos.occ[1];
        let (mut onto, mut off) = (0u128, 0u128);
        for (d, &ascends) in RAY_ASCENDS.iter().enumerate() {
            let ray = RAY_MASKS[k][d];
            // The points of this ray between the king and `s`.
            let between = |s: usize| ray & !RAY_MASKS[s][d] & !(1u128 << s);
            let on_ray = ray & occ;
            if on_ray == 0 {
                continue;
            }
            let first = nearest(on_ray, ascends);
            if pos.board[first] == rook || pos.board[first] == king {
                onto |= between(first);
            }
            let beyond = on_ray & !(1u128 << first);
            if beyond != 0 {
                let second = nearest(beyond, ascends);
                if pos.board[second] == cannon {
                    onto |= between(second);
                    off |= 1u128 << first;
                }
            }
        }
        for (o, leg) in HORSE_SOURCES[k].with_aux() {
            if pos.board[o as usize] == horse && pos.board[leg as usize] == 0 {
                onto |= 1u128 << leg;
            }
        }
        (onto, off)
    }

    /// Does a quiet move `m` of another piece than the king leave every check as it was (neither
    /// onto an `onto` point nor off an `off` one of [`SafetyFilter::escapes`])? Then it is
    /// illegal.
    #[inline]
    fn leaves_checks((onto, off): (u128, u128), m: Move) -> bool {
        (onto >> m.to.index() | off >> m.from.index()) & 1 == 0
    }

    /// Is the pseudo-legal move `m` of `pos` (the position this filter is for) legal? Clearly
    /// safe moves are; a quiet move of another piece than the king, out of check, only
    /// uncovers what runs through its two points ([`Position::uncovers_check`]); the rest are
    /// played and tested.
    #[inline]
    fn legal(&self, pos: &mut Position, m: Move) -> bool {
        self.quick(pos, m).unwrap_or_else(|| pos.keeps_king_safe(m))
    }

    /// [`SafetyFilter::legal`] for a position that is only borrowed: a move that must be
    /// played is played on a copy, made once.
    #[inline]
    fn legal_on(&self, scratch: &mut LazyCopy, m: Move) -> bool {
        self.quick(scratch.of, m)
            .unwrap_or_else(|| scratch.keeps_king_safe(m))
    }

    /// Whether `m` is legal, if that is known without playing it (see [`SafetyFilter::legal`]).
    #[inline]
    fn quick(&self, pos: &Position, m: Move) -> Option<bool> {
        if self.clearly_safe(m) {
            return Some(true);
        }
        let (f, t) = (m.from.index(), m.to.index());
        if f == self.king as usize || pos.board[t] != 0 {
            return None;
        }
        match self.escapes {
            None if !self.none => Some(!pos.uncovers_check(m)),
            Some(escapes) if SafetyFilter::leaves_checks(escapes, m) => Some(false),
            _ => None,
        }
    }

    #[inline]
    fn clearly_safe(&self, m: Move) -> bool {
        (self.from >> m.from.index() | self.to >> m.to.index()) & 1 == 0
    }
}

/// Along a ray from a king whose occupied points are `on_ray` (not empty; `at` gives the piece
/// on a point): is the first piece an enemy rook or the facing enemy king, or the second an
/// enemy cannon (`codes`: rook, cannon, king; the second piece is looked at only if the enemy
/// has `cannons`)?
#[inline]
fn line_attacks(
    on_ray: u128,
    ascends: bool,
    at: impl Fn(usize) -> u8,
    (rook, cannon, king): (u8, u8, u8),
    cannons: bool,
) -> bool {
    let first = nearest(on_ray, ascends);
    let p = at(first);
    if p == rook || p == king {
        return true;
    }
    let beyond = on_ray & !(1u128 << first);
    cannons && beyond != 0 && at(nearest(beyond, ascends)) == cannon
}

/// The nearest occupied point of a non-empty mask of points along a ray.
#[inline]
fn nearest(on_ray: u128, ascends: bool) -> usize {
    if ascends {
        on_ray.trailing_zeros() as usize
    } else {
        127 - on_ray.leading_zeros() as usize
    }
}

/// Calls `f` for each step whose auxiliary point (eye or leg) is empty.
#[inline]
fn blocked_steps<const N: usize>(steps: &Steps<N>, b: &[u8; 90], mut f: impl FnMut(u8)) {
    for (t, aux) in steps.with_aux() {
        if b[aux as usize] == 0 {
            f(t);
        }
    }
}

/// Iterates the set bits of a mask (an occupancy mask's squares, or any word's bits), lowest
/// first.
pub struct BitIter(pub u128);

impl Iterator for BitIter {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

impl fmt::Display for Position {
    /// A text diagram, Black at the top.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..10u8).rev() {
            write!(f, "{rank} ")?;
            for file in 0..9u8 {
                let c = self
                    .piece_at(Square::from_coords(file, rank))
                    .map_or('.', |p| p.fen_char());
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h i")?;
        write!(
            f,
            "{} to move",
            if self.turn == Color::Red {
                "Red"
            } else {
                "Black"
            }
        )
    }
}

/// Counts the leaf nodes of the legal move tree to `depth` plies (recursively: one stack frame
/// per ply, so depths are bounded by the stack long before they are by time).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    fn go(pos: &mut Position, depth: u32) -> u64 {
        let moves = pos.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut n = 0;
        for m in moves {
            let u = pos.play(m);
            n += go(pos, depth - 1);
            pos.undo(m, u);
        }
        n
    }
    if depth == 0 {
        return 1;
    }
    go(&mut pos.clone(), depth)
}
