//! FEN as Pikafish and Fairy-Stockfish write it, and the checks every notation shares.

use crate::piece::{Color, Piece, Role};
use crate::position::Position;
use crate::square::{can_occupy, Square};
use thiserror::Error;

/// The initial position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// Why a position string was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The string is empty (or only whitespace).
    #[error("empty position string")]
    Empty,
    /// The FEN board field does not have 10 ranks; the number it has.
    #[error("FEN has {0} ranks, expected 10 (separated by '/')")]
    RankCount(usize),
    /// A rank does not describe exactly 9 points.
    #[error("rank {rank} describes {len} points, expected 9")]
    RankLength {
        /// The rank, 0–9 from Red's side.
        rank: u8,
        /// The number of points it describes (in a query string: up to the end of the
        /// offending run).
        len: usize,
    },
    /// A character that is neither a digit nor a piece letter of the notation.
    #[error("unknown piece letter {0:?}")]
    UnknownLetter(char),
    /// The FEN side-to-move field is not recognised; the field as found.
    #[error("side to move must be 'w' or 'r' (Red) or 'b' (Black), found {0:?}")]
    BadSide(String),
    /// A side has a second king.
    #[error("{color:?} has two kings")]
    TwoKings {
        /// The side with two kings.
        color: Color,
    },
    /// A side has no king.
    #[error("{color:?} has no king")]
    NoKing {
        /// The side without a king.
        color: Color,
    },
    /// A side has more pieces of a role than the game allows.
    #[error("{color:?} has more than {max} {role}s", role = .role.name())]
    TooMany {
        /// The side.
        color: Color,
        /// The role with too many pieces.
        role: Role,
        /// The most pieces of that role a side may have.
        max: u8,
    },
    /// A piece stands on a point it can never reach (palace, elephant points, pawn ranks).
    #[error("{color:?} {role} on {square}, a point it can never occupy", role = .role.name())]
    BadSquare {
        /// The piece's side.
        color: Color,
        /// The piece's role.
        role: Role,
        /// The point it stands on.
        square: Square,
    },
    /// The side not to move (given) is in check, so the position cannot arise.
    #[error("illegal position: {0:?}, the side not to move, is in check")]
    OpponentInCheck(Color),
    /// A board of piece codes has a code that stands for no piece.
    #[error("bad piece code {code} on {square}")]
    BadCode {
        /// The code.
        code: u8,
        /// The point it is on.
        square: Square,
    },
    /// A query string describes other than 90 points; the number it describes.
    #[error("position string has {0} points, expected 90")]
    PointCount(usize),
    /// Text after a complete query-string board (other than the side and view markers).
    #[error("unexpected {0:?} after the board")]
    Trailing(String),
    /// A `0` run of empty points inside the board.
    #[error("a run of 0 empty points inside the board (in a query string, 0 only ends it: Black to move)")]
    ZeroRun,
    /// Two digits side by side in a FEN rank (`4K22`): one run of empty points is one digit.
    #[error(
        "rank {rank} ({text:?}): two runs of empty points side by side (write one digit for a run)"
    )]
    AdjacentRuns {
        /// The rank (0 Red's back rank … 9 Black's).
        rank: u8,
        /// The rank's text.
        text: String,
    },
}

/// Parses a FEN. Only the board and side fields are read; any further fields are ignored. The
/// side field may be absent (Red to move).
pub fn parse_fen(fen: &str) -> Result<Position, ParseError> {
    let mut fields = fen.split_whitespace();
    let board = fields.next().ok_or(ParseError::Empty)?;
    let turn = match fields.next() {
        None | Some("w") | Some("r") => Color::Red,
        Some("b") => Color::Black,
        Some(other) => return Err(ParseError::BadSide(other.to_string())),
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 10 {
        return Err(ParseError::RankCount(ranks.len()));
    }
    let mut pos = Position::empty(turn);
    for (i, text) in ranks.iter().enumerate() {
        let rank = 9 - i as u8;
        let mut file = 0usize;
        let mut after_run = false;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 {
                    return Err(ParseError::ZeroRun);
                }
                if after_run {
                    return Err(ParseError::AdjacentRuns {
                        rank,
                        text: text.to_string(),
                    });
                }
                after_run = true;
                file += d as usize;
            } else {
                let role = Role::from_char(c).ok_or(ParseError::UnknownLetter(c))?;
                let color = if c.is_ascii_uppercase() {
                    Color::Red
                } else {
                    Color::Black
                };
                after_run = false;
                if file < 9 {
                    place(
                        &mut pos,
                        Square::from_coords(file as u8, rank),
                        Piece::new(color, role),
                    )?;
                }
                file += 1;
            }
        }
        if file != 9 {
            return Err(ParseError::RankLength { rank, len: file });
        }
    }
    validate(&pos)?;
    Ok(pos)
}

/// A position from a board of 90 piece codes, by square number (`rank * 9 + file`,
/// `formats/index.md` §1), and the side to move, checked as a FEN's is: the form engines hold a
/// board in. A code is 0 for an empty point, 1–7 for Red's king, rook, cannon, horse, pawn,
/// advisor, elephant, and 9–15 for Black's ([`Piece::code`]).
pub fn from_codes(codes: &[u8; 90], turn: Color) -> Result<Position, ParseError> {
    let mut pos = Position::empty(turn);
    for (i, &code) in codes.iter().enumerate() {
        if code == 0 {
            continue;
        }
        let square = Square::new(i as u8);
        let piece = Piece::from_code(code).ok_or(ParseError::BadCode { code, square })?;
        place(&mut pos, square, piece)?;
    }
    validate(&pos)?;
    Ok(pos)
}

/// Places a piece read from a position string, rejecting a second king and impossible points.
pub(crate) fn place(pos: &mut Position, sq: Square, piece: Piece) -> Result<(), ParseError> {
    let (color, role) = (piece.color(), piece.role());
    if role == Role::King && pos.king(color).is_some() {
        return Err(ParseError::TwoKings { color });
    }
    if !can_occupy(color, role, sq) {
        return Err(ParseError::BadSquare {
            color,
            role,
            square: sq,
        });
    }
    if pos.count(color, role) >= role.max_count() {
        return Err(ParseError::TooMany {
            color,
            role,
            max: role.max_count(),
        });
    }
    pos.put(sq, piece);
    Ok(())
}

/// Whole-position checks shared by every notation: both kings, and the side not to move not in
/// check. (Piece counts are checked as pieces are placed.)
pub(crate) fn validate(pos: &Position) -> Result<(), ParseError> {
    for color in Color::ALL {
        if pos.king(color).is_none() {
            return Err(ParseError::NoKing { color });
        }
    }
    if pos.opponent_in_check() {
        return Err(ParseError::OpponentInCheck(!pos.turn()));
    }
    Ok(())
}

/// Writes the board rows from rank 9 down, runs of empty points as digits, with `sep` between
/// rows: shared by FEN and the query-system string, which differ in letters and separator.
pub(crate) fn write_rows(pos: &Position, sep: &str, letter: impl Fn(Piece) -> char) -> String {
    let mut s = String::with_capacity(64);
    for rank in (0..10u8).rev() {
        let mut empty = 0;
        for file in 0..9u8 {
            match pos.piece_at(Square::from_coords(file, rank)) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    s.push(letter(p));
                }
            }
        }
        if empty > 0 {
            s.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            s.push_str(sep);
        }
    }
    s
}

/// Writes a FEN with the move counters as `- - 0 1`.
pub fn to_fen(pos: &Position) -> String {
    let mut s = write_rows(pos, "/", Piece::fen_char);
    s.push(' ');
    s.push(pos.turn().fen_char());
    s.push_str(" - - 0 1");
    s
}

impl Position {
    /// The initial position of a game.
    pub fn startpos() -> Position {
        parse_fen(START_FEN).expect("start FEN is valid")
    }
}

// Positions print as FEN in assertions and debug output.
impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", to_fen(self))
    }
}

#[cfg(test)]
mod codes_tests {
    use super::*;

    /// The board form of a FEN, read here from its letters with the codes the form documents.
    fn codes_of(fen: &str) -> [u8; 90] {
        let mut codes = [0; 90];
        let rows = fen.split(' ').next().unwrap().split('/');
        for (row, text) in rows.enumerate() {
            let mut point = (9 - row) * 9;
            for c in text.chars() {
                if let Some(n) = c.to_digit(10) {
                    point += n as usize;
                    continue;
                }
                let role = "KRCNPAB".find(c.to_ascii_uppercase()).unwrap() as u8 + 1;
                codes[point] = role + if c.is_ascii_lowercase() { 8 } else { 0 };
                point += 1;
            }
        }
        codes
    }

    #[test]
    fn a_board_of_codes_gives_the_fens_position() {
        for fen in [
            "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w",
            "3k5/9/9/9/9/9/9/9/9/4K1R2 b",
            START_FEN,
        ] {
            let pos = parse_fen(fen).unwrap();
            let back = from_codes(&codes_of(fen), pos.turn()).unwrap();
            assert_eq!(to_fen(&back), to_fen(&pos), "{fen}");
        }
    }

    #[test]
    fn a_bad_board_of_codes_is_refused_as_its_fen_would_be() {
        let codes = codes_of("3k5/9/9/9/9/9/9/9/9/4K4 w");
        let with = |point: usize, code: u8| {
            let mut c = codes;
            c[point] = code;
            from_codes(&c, Color::Red)
        };
        // A second red king on d0; an elephant off its points; codes of no piece.
        assert!(matches!(with(3, 1), Err(ParseError::TwoKings { .. })));
        assert!(matches!(with(0, 7), Err(ParseError::BadSquare { .. })));
        for bad in [8, 16, 200] {
            assert!(
                matches!(with(40, bad), Err(ParseError::BadCode { code, .. }) if code == bad),
                "{bad}"
            );
        }
        assert!(matches!(
            from_codes(&[0; 90], Color::Red),
            Err(ParseError::NoKing { .. })
        ));
    }
}
