//! The position string of the classic Chinese Chess Endgame Databases Query System
//! (the Chinese Chess Endgame Databases Query System pages, "Input any position"): rows from Black's back rank down, each left to
//! right; a run of empty points is its count (a digit, omitted when 0); k king, b advisor
//! ("bishop"), e elephant, r rook, n horse, c cannon, p pawn, **Black in capitals, Red in small
//! letters**; a trailing `0` means Black to move; a trailing `:` only asks to show the board
//! from Black's side. Example: `4K44B49994n495k399`.

use crate::fen::{place, validate, ParseError};
use crate::piece::{Color, Piece, Role};
use crate::position::Position;
use crate::square::Square;

/// A parsed query string: the position, and whether the board is to be shown from Black's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryPosition {
    /// The position, with the side to move (Black if the string ends in `0`).
    pub position: Position,
    /// The string ended in `:`: show the board from Black's side.
    pub black_view: bool,
}

fn role_of(c: char) -> Option<Role> {
    Some(match c.to_ascii_lowercase() {
        'k' => Role::King,
        'b' => Role::Advisor,
        'e' => Role::Elephant,
        'r' => Role::Rook,
        'n' => Role::Horse,
        'c' => Role::Cannon,
        'p' => Role::Pawn,
        _ => return None,
    })
}

fn letter_of(p: Piece) -> char {
    let c = match p.role() {
        Role::King => 'k',
        Role::Advisor => 'b',
        Role::Elephant => 'e',
        Role::Rook => 'r',
        Role::Horse => 'n',
        Role::Cannon => 'c',
        Role::Pawn => 'p',
    };
    match p.color() {
        Color::Black => c.to_ascii_uppercase(),
        Color::Red => c,
    }
}

/// Parses a query-system position string.
pub fn parse_qstring(s: &str) -> Result<QueryPosition, ParseError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(ParseError::Empty);
    }
    let (s, black_view) = match s.strip_suffix(':') {
        Some(rest) => (rest, true),
        None => (s, false),
    };
    let mut pos = Position::empty(Color::Red);
    let mut point = 0usize; // points filled so far, row by row from the top
    let mut chars = s.chars();
    for c in chars.by_ref() {
        if point == 90 {
            // The board is full: only the side marker may follow.
            if c == '0' {
                pos.set_turn(Color::Black);
                break;
            }
            return Err(ParseError::Trailing(
                std::iter::once(c).chain(chars).collect(),
            ));
        }
        if let Some(d) = c.to_digit(10) {
            if d == 0 {
                return Err(ParseError::ZeroRun);
            }
            let row_left = 9 - point % 9;
            if d as usize > row_left {
                return Err(ParseError::RankLength {
                    rank: 9 - (point / 9) as u8,
                    len: point % 9 + d as usize,
                });
            }
            point += d as usize;
        } else {
            let role = role_of(c).ok_or(ParseError::UnknownLetter(c))?;
            let color = if c.is_ascii_uppercase() {
                Color::Black
            } else {
                Color::Red
            };
            let (row, col) = (point / 9, point % 9);
            place(
                &mut pos,
                Square::from_coords(col as u8, 9 - row as u8),
                Piece::new(color, role),
            )?;
            point += 1;
        }
    }
    let rest: String = chars.collect();
    if !rest.is_empty() {
        return Err(ParseError::Trailing(rest));
    }
    if point != 90 {
        return Err(ParseError::PointCount(point));
    }
    validate(&pos)?;
    Ok(QueryPosition {
        position: pos,
        black_view,
    })
}

/// Writes a query-system position string (`black_view` appends `:`).
pub fn to_qstring(pos: &Position, black_view: bool) -> String {
    let mut s = crate::fen::write_rows(pos, "", letter_of);
    if pos.turn() == Color::Black {
        s.push('0');
    }
    if black_view {
        s.push(':');
    }
    s
}

/// Parses either notation: a FEN (it contains `/`) or a query-system string.
pub fn parse_position(s: &str) -> Result<Position, ParseError> {
    if s.contains('/') {
        crate::fen::parse_fen(s)
    } else {
        parse_qstring(s).map(|q| q.position)
    }
}
