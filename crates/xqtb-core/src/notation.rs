//! Move notation for people: WXF (`C2=5`) and traditional Chinese (`炮二平五`), from a UCCI move
//! (`h2e2`) and the position it is played in.
//!
//! Both name the piece, the file it stands on, the direction and a number. Files are counted
//! 1–9 from the mover's right: Red's file 1 is UCCI file `i`, Black's file 1 is file `a`. A move
//! along the file advances (`+`, 進) or retreats (`-`, 退) and the number is how many points it
//! moves; a move along the rank traverses (`=`, 平) to the file named; the advisor, elephant and
//! horse, which never stay on their file, always name the file they land on. Red writes numbers
//! in Chinese numerals (一…九), Black in full-width digits (１…９), as Chinese records do.
//!
//! Pieces of one kind on one file are told apart by position instead of by file, following the
//! Asian (AXF) notation adopted by the WXF ("Official Xiangqi Piece Names and Notation",
//! wxf.org/xq/computer/wxf_notation.html, "Tandem Positions"):
//!
//! - two on a file: front `+` (前), rear `-` (後): `R+=3` 前俥平三, `C--1` 後炮退一;
//! - three pawns on a file: `P+`, `P-` for the front and rear; the middle one keeps its file
//!   (`P3=4`), written 中兵 in Chinese;
//! - four or five pawns on a file: foremost `++`, then `P+`, (middle `P3`,) `P-`, rearmost `--`;
//!   in Chinese numbered from the front: 一兵 二兵 三兵 四兵 (五兵);
//! - pawns doubled on two files: the file replaces the piece letter, `3+=4`, `33=4`, `3-=4`, and
//!   in Chinese 前三平四, 中三平四, 後三平四.
//!
//! Advisors and elephants on one file need no marker: only one of the two can make any given
//! move (the front one can only retreat, the rear one only advance), so they keep their file
//! (`A6+5` 仕六進五), as the WXF and Chinese records write them.
//!
//! The WXF document writes a traverse `.`; this module writes `=`, the form most English
//! manuals and the issue tracker use (`C2=5`). Everything else follows the document.

use crate::piece::{Color, Piece, Role};
use crate::position::{Move, Position};
use crate::square::Square;

/// Which way a move goes, seen by the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Advance,
    Retreat,
    Traverse,
}

/// How the moving piece is named: by its file, or by its place among its kind on that file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Designator {
    /// Alone on its file (or an advisor / elephant): the file number.
    File(u8),
    /// One of `count` pieces of its kind on its file, `rank` 0 the most advanced.
    Tandem {
        file: u8,
        rank: u8,
        count: u8,
        /// Another file also holds two or more of the mover's pawns.
        other_file_doubled: bool,
    },
}

/// The parts both notations are written from.
#[derive(Clone, Copy, Debug)]
struct Parts {
    piece: Piece,
    designator: Designator,
    direction: Direction,
    number: u8,
}

/// The mover's number (1–9) for a file: counted from the mover's right.
fn file_number(color: Color, sq: Square) -> u8 {
    match color {
        Color::Red => 9 - sq.file(),
        Color::Black => sq.file() + 1,
    }
}

/// How far forward a point is for `color` (0 on its own back rank).
fn advance(color: Color, sq: Square) -> u8 {
    match color {
        Color::Red => sq.rank(),
        Color::Black => 9 - sq.rank(),
    }
}

fn parts(pos: &Position, m: Move) -> Option<Parts> {
    let piece = pos.piece_at(m.from)?;
    let color = piece.color();
    let role = piece.role();
    let (a0, a1) = (advance(color, m.from), advance(color, m.to));
    let direction = match a1.cmp(&a0) {
        std::cmp::Ordering::Greater => Direction::Advance,
        std::cmp::Ordering::Less => Direction::Retreat,
        std::cmp::Ordering::Equal => Direction::Traverse,
    };
    let diagonal = matches!(role, Role::Advisor | Role::Elephant | Role::Horse);
    let number = if direction == Direction::Traverse || diagonal {
        file_number(color, m.to)
    } else {
        a0.abs_diff(a1)
    };
    let file = file_number(color, m.from);
    let designator = if matches!(role, Role::King | Role::Advisor | Role::Elephant) {
        Designator::File(file)
    } else {
        // Same kind on the mover's file, most advanced first.
        let mut same: Vec<u8> = (0..10)
            .map(|r| Square::from_coords(m.from.file(), r))
            .filter(|&sq| pos.piece_at(sq) == Some(piece))
            .map(|sq| advance(color, sq))
            .collect();
        same.sort_unstable_by(|x, y| y.cmp(x));
        if same.len() < 2 {
            Designator::File(file)
        } else {
            let rank = same.iter().position(|&x| x == a0)? as u8;
            let other_file_doubled = role == Role::Pawn
                && (0..9u8).filter(|&f| f != m.from.file()).any(|f| {
                    (0..10)
                        .filter(|&r| pos.piece_at(Square::from_coords(f, r)) == Some(piece))
                        .count()
                        >= 2
                });
            Designator::Tandem {
                file,
                rank,
                count: same.len() as u8,
                other_file_doubled,
            }
        }
    };
    Some(Parts {
        piece,
        designator,
        direction,
        number,
    })
}

fn wxf_letter(role: Role) -> char {
    match role {
        Role::King => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Rook => 'R',
        Role::Horse => 'H',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    }
}

/// The move in WXF notation (`C2=5`, `R+=3`, `P3=4`, `++=4`, `3-=4`); `None` if no piece stands
/// on the move's origin.
pub fn wxf(pos: &Position, m: Move) -> Option<String> {
    let p = parts(pos, m)?;
    let letter = wxf_letter(p.piece.role());
    let digit = |n: u8| char::from(b'0' + n);
    let head: String = match p.designator {
        Designator::File(f) => format!("{letter}{}", digit(f)),
        Designator::Tandem {
            file,
            rank,
            count,
            other_file_doubled,
        } => {
            let last = count - 1;
            let middle = count % 2 == 1 && rank == count / 2;
            if other_file_doubled {
                // The file replaces the letter: 3+ 33 3-.
                let mark = if rank == 0 {
                    '+'
                } else if rank == last {
                    '-'
                } else {
                    digit(file)
                };
                format!("{}{mark}", digit(file))
            } else if count <= 3 {
                let mark = if rank == 0 {
                    '+'
                } else if rank == last {
                    '-'
                } else {
                    digit(file)
                };
                format!("{letter}{mark}")
            } else if rank == 0 {
                "++".to_string()
            } else if rank == last {
                "--".to_string()
            } else if middle {
                format!("{letter}{}", digit(file))
            } else if rank == 1 {
                format!("{letter}+")
            } else {
                format!("{letter}-")
            }
        }
    };
    let dir = match p.direction {
        Direction::Advance => '+',
        Direction::Retreat => '-',
        Direction::Traverse => '=',
    };
    Some(format!("{head}{dir}{}", digit(p.number)))
}

/// The piece's character in traditional Chinese: 帥仕相俥傌炮兵 for Red, 將士象車馬砲卒 for Black.
pub fn chinese_piece(piece: Piece) -> char {
    let red = piece.color() == Color::Red;
    match piece.role() {
        Role::King => ['帥', '將'][!red as usize],
        Role::Advisor => ['仕', '士'][!red as usize],
        Role::Elephant => ['相', '象'][!red as usize],
        Role::Rook => ['俥', '車'][!red as usize],
        Role::Horse => ['傌', '馬'][!red as usize],
        Role::Cannon => ['炮', '砲'][!red as usize],
        Role::Pawn => ['兵', '卒'][!red as usize],
    }
}

/// A number 1–9 as the mover writes it: 一…九 for Red, １…９ for Black.
fn chinese_number(color: Color, n: u8) -> char {
    const RED: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    const BLACK: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
    let i = (n.clamp(1, 9) - 1) as usize;
    match color {
        Color::Red => RED[i],
        Color::Black => BLACK[i],
    }
}

/// The move in traditional Chinese notation (`炮二平五`, `馬８進７`, `前俥平三`, `中兵平四`,
/// `二兵平四`, `前三平四`); `None` if no piece stands on the move's origin.
pub fn chinese(pos: &Position, m: Move) -> Option<String> {
    let p = parts(pos, m)?;
    let color = p.piece.color();
    let name = chinese_piece(p.piece);
    let head: String = match p.designator {
        Designator::File(f) => format!("{name}{}", chinese_number(color, f)),
        Designator::Tandem {
            file,
            rank,
            count,
            other_file_doubled,
        } => {
            let place = if rank == 0 {
                '前'
            } else if rank == count - 1 {
                '後'
            } else {
                '中'
            };
            if other_file_doubled {
                format!("{place}{}", chinese_number(color, file))
            } else if count <= 3 {
                format!("{place}{name}")
            } else {
                format!("{}{name}", chinese_number(color, rank + 1))
            }
        }
    };
    let dir = match p.direction {
        Direction::Advance => '進',
        Direction::Retreat => '退',
        Direction::Traverse => '平',
    };
    Some(format!("{head}{dir}{}", chinese_number(color, p.number)))
}
