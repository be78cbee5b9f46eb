//! How a material's pieces are numbered for Fang's labels (`formats/rules.md`, "Identical
//! pieces"), and the labels of a Xiangqi move in those numbers: shared by the in-memory driver
//! ([`super::reference`]) and the rule passes over bitmaps ([`super::orders`]).
//!
//! A chased piece is numbered by its colour and role; two pieces of one colour and role are
//! twins numbered by point in the entry's position (the lower first), and a move says which
//! pairs it trades ([`crate::fang::graph::Edge::swaps`]).

use crate::chase::{chases, each_chased, gives_check};
use crate::fang::graph::{PieceId, PieceSet};
use crate::material::Material;
use crate::piece::{Color, Role};
use crate::position::{Move, Position};
use crate::square::Square;
use thiserror::Error;

/// The most pieces (kings apart) a material may have to be numbered: labels pack them in 15
/// bits.
pub const MAX_NUMBERED: usize = 15;

/// Why a material's pieces cannot be numbered.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NumberingError {
    /// More than two pieces of one colour and role: only pairs of twins are followed.
    #[error("{material} has more than two {role:?}s of one side: not supported by the Asian-rule passes")]
    IdenticalPieces {
        /// The material.
        material: Material,
        /// The role with more than two pieces of one colour.
        role: Role,
    },
    /// More than [`MAX_NUMBERED`] pieces besides the kings.
    #[error("{material} has more than {MAX_NUMBERED} pieces besides the kings")]
    TooManyPieces {
        /// The material.
        material: Material,
    },
}

/// The numbers of one material's chaseable pieces.
#[derive(Clone, Debug)]
pub struct Numbering {
    /// The first number of each colour and role present (kings excepted).
    first: [[Option<PieceId>; 8]; 2],
    /// The pairs of twins: colour, role and the lower one's number.
    twins: Vec<(Color, Role, PieceId)>,
}

/// A quiet move's labels: `check((u, v))` and the pieces it chases, numbered as in `u`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labels {
    /// `check((u, v))`: the move gives check.
    pub check: bool,
    /// The pieces the move chases (forbidden chases; empty if it checks), numbered as in `u`.
    pub chases: PieceSet,
}

impl Numbering {
    /// Numbers `material`'s chaseable pieces: by colour, then role, consecutive numbers for each
    /// colour and role present (two for a pair of twins).
    pub fn new(material: Material) -> Result<Numbering, NumberingError> {
        let mut first = [[None; 8]; 2];
        let mut twins = Vec::new();
        let mut next = 0;
        for color in Color::ALL {
            for role in Role::ALL.into_iter().filter(|&r| r != Role::King) {
                match material.count(color, role) {
                    0 => {}
                    n @ (1 | 2) => {
                        first[color.index()][role as usize] = Some(next);
                        if n == 2 {
                            twins.push((color, role, next));
                        }
                        next += n;
                    }
                    _ => return Err(NumberingError::IdenticalPieces { material, role }),
                }
            }
        }
        if next as usize > MAX_NUMBERED {
            return Err(NumberingError::TooManyPieces { material });
        }
        Ok(Numbering { first, twins })
    }

    /// The number of the piece on `sq` in `pos` (an entry's position): its role's first
    /// number, plus one for the higher of two twins.
    pub fn number(&self, pos: &Position, sq: Square) -> PieceId {
        let piece = pos.piece_at(sq).expect("a numbered piece stands there");
        let first = self.first[piece.color().index()][piece.role() as usize];
        let lower = pos.pieces(piece.color()).any(|(s, p)| p == piece && s < sq);
        first.expect("every chaseable piece is numbered") + lower as PieceId
    }

    /// The chaseable pieces of `owner`.
    pub fn pieces(&self, owner: Color) -> PieceSet {
        let mut set = PieceSet::EMPTY;
        for first in self.first[owner.index()].iter().flatten() {
            set = set.with(*first);
            if self.twin(*first).is_some() {
                set = set.with(first + 1);
            }
        }
        set
    }

    /// The role of `owner`'s numbered piece `p`, if it is one of `owner`'s.
    pub fn role(&self, owner: Color, p: PieceId) -> Option<Role> {
        Role::ALL.into_iter().find(|&r| {
            self.first[owner.index()][r as usize]
                .is_some_and(|f| p == f || (p == f + 1 && self.twin(f).is_some()))
        })
    }

    /// The other piece of `p`'s pair of twins, if it has one.
    pub fn twin(&self, p: PieceId) -> Option<PieceId> {
        self.twins.iter().find_map(|&(_, _, first)| match p {
            _ if p == first => Some(first + 1),
            _ if p == first + 1 => Some(first),
            _ => None,
        })
    }

    /// No numbered pieces: for labels that need only checks (perpetual check alone).
    pub fn kings_only() -> Numbering {
        Numbering {
            first: [[None; 8]; 2],
            twins: Vec::new(),
        }
    }

    /// The labels of the legal quiet move `mv` of `pos`.
    pub fn labels(&self, pos: &Position, mv: Move) -> Labels {
        let check = gives_check(pos, mv).expect("a legal move");
        let chases = if check {
            PieceSet::EMPTY
        } else {
            self.chased(pos, mv)
        };
        Labels { check, chases }
    }

    /// The pieces the legal quiet move `mv` of `pos` chases (none if it checks).
    pub fn chased(&self, pos: &Position, mv: Move) -> PieceSet {
        self.numbered(pos, chases(pos, mv).expect("a legal move"))
    }

    /// [`Numbering::chased`] for a move known to be legal and not to give check, `child` the
    /// position after it.
    pub fn chased_after(&self, pos: &Position, mv: Move, child: &Position) -> PieceSet {
        debug_assert!(!child.is_check(), "a check's chases do not count");
        let mut set = PieceSet::EMPTY;
        each_chased(pos, mv, child, |sq| set = set.with(self.number(pos, sq)));
        set
    }

    /// The numbers of the pieces on `points` of `pos`.
    fn numbered(&self, pos: &Position, points: Vec<Square>) -> PieceSet {
        points
            .into_iter()
            .fold(PieceSet::EMPTY, |set, sq| set.with(self.number(pos, sq)))
    }

    /// The labels of a move known to be legal, `child` the position after it.
    pub fn labels_after(&self, pos: &Position, mv: Move, child: &Position) -> Labels {
        let check = pos.may_give_check(mv) && child.is_check();
        let chases = if check {
            PieceSet::EMPTY
        } else {
            self.chased_after(pos, mv, child)
        };
        Labels { check, chases }
    }

    /// The twin pairs whose numbers the move `mv` of `pos` trades: the pair's order by point in
    /// `entry` (the child's entry position, mirrored with it if `mirrored`) is not their order
    /// in `pos` followed through the move.
    pub fn swaps(&self, pos: &Position, mv: Move, entry: &Position, mirrored: bool) -> PieceSet {
        let follow = |s: Square| {
            let moved = if s == mv.from { mv.to } else { s };
            if mirrored {
                moved.mirror()
            } else {
                moved
            }
        };
        let mut swaps = PieceSet::EMPTY;
        for &(color, role, first) in &self.twins {
            // The lower-pointed twin of `pos` is number `first` there.
            let lower = pos.pieces(color).find(|(_, p)| p.role() == role);
            let Some((sq, _)) = lower else { continue };
            if self.number(entry, follow(sq)) != first {
                swaps = swaps.with(first).with(first + 1);
            }
        }
        swaps
    }

    /// Does any pair of twins exist?
    pub fn has_twins(&self) -> bool {
        !self.twins.is_empty()
    }
}

/// The bit of the attacker's king among a candidate mask's targets (pieces use their numbers).
pub const KING_BIT: u32 = 31;
