//! WXF and Chinese move notation, checked by hand against published conventions:
//!
//! - the opening moves every Xiangqi book writes the same way (炮二平五 馬８進７, 傌八進七,
//!   俥一進一, 仕四進五, 相三進五, 兵七進一, 卒３進１, 士４進５, 象３進５, 砲８平５);
//! - the tandem examples of the Asian/World Xiangqi Federation's "Official Xiangqi Piece Names
//!   and Notation" (wxf.org/xq/computer/wxf_notation.html): `R+.3` 車前平三, `C--1` 炮後退一,
//!   three pawns on file 3 traversing to file 4 (`P+.4`, `P3.4`, `P-.4`), five (`++.4`, `P+.4`,
//!   `P3.4`, `P-.4`, `--.4`) and four (`++.4`, `P+.4`, `P-.4`, `--.4`), and pawns doubled on two
//!   files (`3+.4`, `33.4`, `3-.4`, `7+.6`, `7-.6`), written here with `=` for the traverse;
//! - advisors and elephants on one file keep their file (`A6+5`, `E7-5`, xqinenglish.com's
//!   notation lessons).
//!
//! Every move is first checked to be legal in its position, so a typo in a FEN cannot make a
//! case vacuous.

use xqtb::notation::{chinese, wxf};
use xqtb::{parse_fen, Move, Position};

#[track_caller]
fn check(pos: &Position, ucci: &str, want_wxf: &str, want_zh: &str) {
    let m = Move::parse(ucci).unwrap();
    assert!(
        pos.legal_moves().contains(&m),
        "{ucci} is not legal in {}",
        xqtb::to_fen(pos)
    );
    assert_eq!(wxf(pos, m).unwrap(), want_wxf, "WXF of {ucci}");
    assert_eq!(chinese(pos, m).unwrap(), want_zh, "Chinese of {ucci}");
}

#[test]
fn opening_moves_as_every_book_writes_them() {
    let red = Position::startpos();
    check(&red, "h2e2", "C2=5", "炮二平五");
    check(&red, "b0c2", "H8+7", "傌八進七");
    check(&red, "h0g2", "H2+3", "傌二進三");
    check(&red, "i0i1", "R1+1", "俥一進一");
    check(&red, "f0e1", "A4+5", "仕四進五");
    check(&red, "g0e2", "E3+5", "相三進五");
    check(&red, "c3c4", "P7+1", "兵七進一");
    check(&red, "h2h9", "C2+7", "炮二進七");
    let black = parse_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b").unwrap();
    check(&black, "h9g7", "H8+7", "馬８進７");
    check(&black, "h7e7", "C8=5", "砲８平５");
    check(&black, "b7e7", "C2=5", "砲２平５");
    check(&black, "c6c5", "P3+1", "卒３進１");
    check(&black, "d9e8", "A4+5", "士４進５");
    check(&black, "c9e7", "E3+5", "象３進５");
    check(&black, "a9a8", "R1+1", "車１進１");
    check(&black, "b7b0", "C2+7", "砲２進７");
}

#[test]
fn kings_and_retreats() {
    let pos = parse_fen("5k3/9/9/9/9/9/9/9/9/4K4 w").unwrap();
    check(&pos, "e0e1", "K5+1", "帥五進一");
    check(&pos, "e0d0", "K5=6", "帥五平六");
    let pos = parse_fen("5k3/9/9/9/9/9/9/9/4K4/9 w").unwrap();
    check(&pos, "e1e0", "K5-1", "帥五退一");
    // A Black horse going back toward its own side retreats; Black counts files from a.
    let pos = parse_fen("4k4/9/9/9/4n4/9/9/9/9/3K5 b").unwrap();
    check(&pos, "e5d7", "H5-4", "馬５退４");
    check(&pos, "e5f3", "H5+6", "馬５進６");
}

#[test]
fn two_of_a_kind_on_a_file_front_and_rear() {
    // WXF: 車前平三 R+.3.
    let rooks = parse_fen("4k4/9/9/9/3R5/9/9/3R5/9/5K3 w").unwrap();
    check(&rooks, "d5g5", "R+=3", "前俥平三");
    check(&rooks, "d5d9", "R++4", "前俥進四");
    check(&rooks, "d2d1", "R--1", "後俥退一");
    check(&rooks, "d2a2", "R-=9", "後俥平九");
    // WXF: 炮後退一 C--1.
    let cannons = parse_fen("5k3/9/9/9/9/4C4/9/4C4/9/3K5 w").unwrap();
    check(&cannons, "e2e1", "C--1", "後炮退一");
    check(&cannons, "e4e8", "C++4", "前炮進四");
    let horses = parse_fen("3k5/9/9/9/9/2N6/9/2N6/9/4K4 w").unwrap();
    check(&horses, "c4d6", "H++6", "前傌進六");
    check(&horses, "c2b0", "H--8", "後傌退八");
    // Black's front piece is the one nearer Red's side.
    let black = parse_fen("3k5/1r7/9/9/9/9/1r7/9/9/4K4 b").unwrap();
    check(&black, "b3b0", "R++3", "前車進３");
    check(&black, "b8b9", "R--1", "後車退１");
    check(&black, "b3a3", "R+=1", "前車平１");
    let pawns = parse_fen("4k4/9/9/9/9/2p6/2p6/9/9/3K5 b").unwrap();
    check(&pawns, "c3d3", "P+=4", "前卒平４");
    check(&pawns, "c4b4", "P-=2", "後卒平２");
}

#[test]
fn advisors_and_elephants_keep_their_file() {
    let advisors = parse_fen("5k3/9/9/9/9/9/9/3A5/9/3AK4 w").unwrap();
    check(&advisors, "d0e1", "A6+5", "仕六進五");
    check(&advisors, "d2e1", "A6-5", "仕六退五");
    let elephants = parse_fen("5k3/9/9/9/9/2B6/9/9/9/2B1K4 w").unwrap();
    check(&elephants, "c0e2", "E7+5", "相七進五");
    check(&elephants, "c4e2", "E7-5", "相七退五");
    check(&elephants, "c4a2", "E7-9", "相七退九");
}

#[test]
fn three_pawns_on_a_file() {
    // WXF (I): three tandem pawns on file 3 traversing to file 4.
    let pos = parse_fen("4k4/9/6P2/6P2/6P2/9/9/9/9/3K5 w").unwrap();
    check(&pos, "g7f7", "P+=4", "前兵平四");
    check(&pos, "g6f6", "P3=4", "中兵平四");
    check(&pos, "g5f5", "P-=4", "後兵平四");
    check(&pos, "g7g8", "P++1", "前兵進一");
    check(&pos, "g6h6", "P3=2", "中兵平二");
}

#[test]
fn four_and_five_pawns_on_a_file() {
    // WXF (II): five tandem pawns on file 3 traversing to file 4.
    let five = parse_fen("4k1P2/6P2/6P2/6P2/6P2/9/9/9/9/3K5 w").unwrap();
    check(&five, "g9f9", "++=4", "一兵平四");
    check(&five, "g8f8", "P+=4", "二兵平四");
    check(&five, "g7f7", "P3=4", "三兵平四");
    check(&five, "g6f6", "P-=4", "四兵平四");
    check(&five, "g5f5", "--=4", "五兵平四");
    // WXF (III): four, no middle pawn.
    let four = parse_fen("4k1P2/6P2/6P2/6P2/9/9/9/9/9/3K5 w").unwrap();
    check(&four, "g9f9", "++=4", "一兵平四");
    check(&four, "g8f8", "P+=4", "二兵平四");
    check(&four, "g7f7", "P-=4", "三兵平四");
    check(&four, "g6f6", "--=4", "四兵平四");
    check(&four, "g6h6", "--=2", "四兵平二");
}

#[test]
fn pawns_doubled_on_two_files() {
    // WXF (IV): three pawns on file 3 and two on file 7; the file replaces the letter.
    let pos = parse_fen("4k4/9/6P2/2P3P2/2P3P2/9/9/9/9/3K5 w").unwrap();
    check(&pos, "g7f7", "3+=4", "前三平四");
    check(&pos, "g6f6", "33=4", "中三平四");
    check(&pos, "g5f5", "3-=4", "後三平四");
    check(&pos, "c6d6", "7+=6", "前七平六");
    check(&pos, "c5d5", "7-=6", "後七平六");
    check(&pos, "c6c7", "7++1", "前七進一");
    // Two pawns on one file and one on another: the lone one keeps its file, the pair its
    // front/rear marks with the letter.
    let pos = parse_fen("4k4/9/9/2P3P2/6P2/9/9/9/9/3K5 w").unwrap();
    check(&pos, "c6d6", "P7=6", "兵七平六");
    check(&pos, "g6f6", "P+=4", "前兵平四");
    check(&pos, "g5f5", "P-=4", "後兵平四");
}

#[test]
fn no_piece_on_the_origin_is_none() {
    let pos = Position::startpos();
    let m = Move::parse("e5e6").unwrap();
    assert_eq!(wxf(&pos, m), None);
    assert_eq!(chinese(&pos, m), None);
}
