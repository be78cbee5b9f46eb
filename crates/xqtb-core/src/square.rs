//! Squares in UCCI coordinates: files a–i (0–8) from Red's left, ranks 0–9 from Red's back rank.

use crate::piece::{Color, Role};
use std::fmt;

/// Number of points on the board.
pub const NUM_SQUARES: usize = 90;

/// A point of the board, `rank * 9 + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The point numbered `index` (`rank * 9 + file`). Panics if `index >= 90`.
    #[inline]
    pub const fn new(index: u8) -> Square {
        assert!(index < 90, "square index out of range");
        Square(index)
    }

    /// The point numbered `index`, or `None` if `index >= 90`.
    #[inline]
    pub const fn try_new(index: u8) -> Option<Square> {
        if index < 90 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The point on `file` (0–8) and `rank` (0–9). Panics outside the board.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        assert!(file < 9 && rank < 10, "coordinates off the board");
        Square(rank * 9 + file)
    }

    /// The point's number, `rank * 9 + file` (0–89).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0–8 (a–i) from Red's left.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// The rank, 0–9 from Red's back rank.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// Left–right mirror image (file a ↔ i).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square::from_coords(8 - self.file(), self.rank())
    }

    /// The board turned 180°: the point Black sees where Red sees this one.
    #[inline]
    pub const fn rotate(self) -> Square {
        Square(89 - self.0)
    }

    /// Parses `a0` … `i9`.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'a'..=b'i').contains(&b[0]) || !b[1].is_ascii_digit() {
            return None;
        }
        Some(Square::from_coords(b[0] - b'a', b[1] - b'0'))
    }

    /// All 90 points, in increasing index order (a0, b0, …, i9).
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

/// The nine points of `color`'s palace.
#[inline]
pub const fn in_palace(color: Color, sq: Square) -> bool {
    let f = sq.file();
    let r = sq.rank();
    f >= 3
        && f <= 5
        && match color {
            Color::Red => r <= 2,
            Color::Black => r >= 7,
        }
}

/// Can a piece of this colour and role ever stand on `sq`? (King and advisors in the palace on
/// their points, elephants on their seven points, pawns on their start or later squares.)
pub const fn can_occupy(color: Color, role: Role, sq: Square) -> bool {
    // Ranks seen from the piece's own side, so Red and Black share the geometry.
    let r = match color {
        Color::Red => sq.rank(),
        Color::Black => 9 - sq.rank(),
    };
    let f = sq.file();
    match role {
        Role::King => f >= 3 && f <= 5 && r <= 2,
        // d0 f0 e1 d2 f2
        Role::Advisor => f >= 3 && f <= 5 && r <= 2 && (f + r) % 2 == 1,
        // c0 g0 a2 e2 i2 c4 g4
        Role::Elephant => {
            (r == 0 && (f == 2 || f == 6))
                || (r == 2 && f.is_multiple_of(4))
                || (r == 4 && (f == 2 || f == 6))
        }
        Role::Pawn => (r >= 5) || ((r == 3 || r == 4) && f.is_multiple_of(2)),
        Role::Rook | Role::Cannon | Role::Horse => true,
    }
}
