//! Colours, roles and pieces.

use std::fmt;

/// A side. Red moves first and sits on ranks 0–4; Black on ranks 5–9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Red (upper-case FEN letters), who moves first; side 0.
    Red = 0,
    /// Black (lower-case FEN letters); side 1.
    Black = 1,
}

impl Color {
    /// Both sides, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// 0 for Red, 1 for Black: the index of per-side arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opposite side (also `!color`).
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// The FEN side-to-move letter: `w` for Red (as Pikafish and Fairy-Stockfish write it), `b`.
    pub const fn fen_char(self) -> char {
        match self {
            Color::Red => 'w',
            Color::Black => 'b',
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.other()
    }
}

/// One value per side, indexed by [`Color`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T>(pub [T; 2]);

impl<T> ByColor<T> {
    /// A value per side, made by `f`.
    pub fn new(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor([f(Color::Red), f(Color::Black)])
    }

    /// Both sides' values with their colour, Red first.
    pub fn iter(&self) -> impl Iterator<Item = (Color, &T)> {
        Color::ALL.into_iter().zip(self.0.iter())
    }

    /// Both sides' values, mutably, with their colour, Red first.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Color, &mut T)> {
        Color::ALL.into_iter().zip(self.0.iter_mut())
    }
}

impl<T> std::ops::Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: Color) -> &T {
        &self.0[c.index()]
    }
}

impl<T> std::ops::IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, c: Color) -> &mut T {
        &mut self.0[c.index()]
    }
}

/// A kind of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The king (general): steps orthogonally inside its palace. Letter `K`.
    King = 1,
    /// The rook (chariot): slides orthogonally. Letter `R`.
    Rook = 2,
    /// The cannon: moves like a rook, captures by jumping exactly one screen. Letter `C`.
    Cannon = 3,
    /// The horse: one step orthogonally then one diagonally, blocked by a piece on its leg.
    /// Letter `N`.
    Horse = 4,
    /// The pawn (soldier): steps forward; once across the river, also sideways. Letter `P`.
    Pawn = 5,
    /// The advisor: steps diagonally inside its palace. Letter `A`.
    Advisor = 6,
    /// The elephant: two points diagonally, blocked at the eye, never across the river.
    /// Letter `B`.
    Elephant = 7,
}

impl Role {
    /// Canonical material order: K R C N P A B.
    pub const ALL: [Role; 7] = [
        Role::King,
        Role::Rook,
        Role::Cannon,
        Role::Horse,
        Role::Pawn,
        Role::Advisor,
        Role::Elephant,
    ];

    /// The role with discriminant `v` (1–7, as in [`Piece::code`]'s low bits); `None` otherwise.
    #[inline]
    pub const fn from_u8(v: u8) -> Option<Role> {
        Some(match v {
            1 => Role::King,
            2 => Role::Rook,
            3 => Role::Cannon,
            4 => Role::Horse,
            5 => Role::Pawn,
            6 => Role::Advisor,
            7 => Role::Elephant,
            _ => return None,
        })
    }

    /// Upper-case letter used in FEN and material names (K R C N P A B).
    pub const fn char(self) -> char {
        match self {
            Role::King => 'K',
            Role::Rook => 'R',
            Role::Cannon => 'C',
            Role::Horse => 'N',
            Role::Pawn => 'P',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
        }
    }

    /// Parses a FEN / material letter (either case); also accepts `E` (elephant) and `H` (horse).
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'K' => Role::King,
            'R' => Role::Rook,
            'C' => Role::Cannon,
            'N' | 'H' => Role::Horse,
            'P' => Role::Pawn,
            'A' => Role::Advisor,
            'B' | 'E' => Role::Elephant,
            _ => return None,
        })
    }

    /// Most pieces of this role one side can ever have.
    pub const fn max_count(self) -> u8 {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }

    /// English name, for error messages.
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Horse => "horse",
            Role::Pawn => "pawn",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
        }
    }
}

/// A coloured piece, packed in a byte: role in bits 0–2, colour in bit 3. 0 is an empty square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    /// The piece of `color` and `role`.
    #[inline]
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece((role as u8) | ((color as u8) << 3))
    }

    /// The packed byte (1–7 for Red, 9–15 for Black), used to index per-piece tables.
    #[inline]
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Inverse of [`Piece::code`]; `None` for 0 (empty) and invalid codes.
    #[inline]
    pub const fn from_code(code: u8) -> Option<Piece> {
        match Role::from_u8(code & 7) {
            Some(_) if code < 16 => Some(Piece(code)),
            _ => None,
        }
    }

    /// The piece's side.
    #[inline]
    pub const fn color(self) -> Color {
        if self.0 & 8 == 0 {
            Color::Red
        } else {
            Color::Black
        }
    }

    /// The piece's role.
    #[inline]
    pub const fn role(self) -> Role {
        match Role::from_u8(self.0 & 7) {
            Some(r) => r,
            None => panic!("Piece holds a valid role code by construction"),
        }
    }

    /// FEN letter: upper case for Red.
    pub fn fen_char(self) -> char {
        let c = self.role().char();
        match self.color() {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.fen_char())
    }
}
