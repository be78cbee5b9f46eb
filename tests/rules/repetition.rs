//! Repetition under the Asian rules (`crates/xqtb-core/src/repetition.rs`) on hand-made games.
//! Every verdict was worked out by hand from the rule book's four points (Fang 2005, §2.1) and
//! the move labels checked one by one in the comments, not taken from the program.

use xqtb::piece::{ByColor, Color};
use xqtb::repetition::{
    first_repetition, judge_cycle, Cycle, Perpetual, Repetition, RepetitionError, Ruling,
};
use xqtb::{parse_fen, Move, Square};

fn moves(s: &str) -> Vec<Move> {
    s.split_whitespace()
        .map(|m| Move::parse(m).expect("test move parses"))
        .collect()
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn first(fen: &str, game: &str) -> Option<Repetition> {
    first_repetition(&parse_fen(fen).unwrap(), &moves(game)).expect("test game is legal")
}

#[test]
fn a_rook_checking_for_ever_loses() {
    // After Yen et al. 2004 Appendix A, Figure 3a (our own position): Ra3-a0+ Kf0-f1 Ra0-a1+
    // Kf1-f0 Ra1-a0+ stands again where Ra3-a0+ stood (ply 1 and ply 5). In the cycle both Black
    // moves check the king along ranks 0 and 1; the king's moves attack nothing. Rule 2.
    let rep = first("3k5/9/9/9/9/9/r8/9/9/5K3 b", "a3a0 f0f1 a0a1 f1f0 a1a0").unwrap();
    assert_eq!((rep.first, rep.again), (1, 5));
    assert_eq!(rep.cycle.perpetual, ByColor([None, Some(Perpetual::Check)]));
    assert_eq!(
        rep.cycle.ruling(),
        Ruling::Loses {
            side: Color::Black,
            by: Perpetual::Check
        }
    );
}

#[test]
fn a_rook_chasing_one_horse_for_ever_loses() {
    // Rc2-b2 newly attacks the horse on b7 up the empty b-file (b3-b6), nothing guards it: a
    // chase. Nb7-c5 (leg b6 empty) escapes and attacks nothing of Red's (a4 a6 b3 b7 d3 d7 e4
    // e6). Rb2-c2 newly attacks it on c5 (c3, c4 empty): a chase of the same horse. Nc5-b7 (leg
    // c6) returns. Red chased one piece with every move, Black did nothing forbidden. Rule 3.
    let rep = first("5k3/9/1n7/9/9/9/9/2R6/9/3K5 w", "c2b2 b7c5 b2c2 c5b7").unwrap();
    assert_eq!((rep.first, rep.again), (0, 4));
    let red = Perpetual::Chase(sq("b7"));
    assert_eq!(rep.cycle.perpetual, ByColor([Some(red), None]));
    assert_eq!(
        rep.cycle.ruling(),
        Ruling::Loses {
            side: Color::Red,
            by: red
        }
    );
}

#[test]
fn chasing_two_pieces_in_turn_is_allowed() {
    // Rc2-b2 chases the horse on b7 (b-file open, unguarded); Kf9-f8 attacks nothing; Rb2-c2
    // chases the cannon on c6 (c3-c5 open; the cannon has no screen to take back, the horse
    // does not guard c6); Kf8-f9 returns. Red chased a different piece each time (rule 32),
    // Black nothing: a draw.
    let rep = first("5k3/9/1n7/2c6/9/9/9/2R6/9/3K5 w", "c2b2 f9f8 b2c2 f8f9").unwrap();
    assert_eq!((rep.first, rep.again), (0, 4));
    assert_eq!(rep.cycle.perpetual, ByColor([None, None]));
    assert_eq!(rep.cycle.ruling(), Ruling::Draw);
}

#[test]
fn shuffling_kings_is_a_draw() {
    let rep = first("5k3/9/9/9/9/9/9/9/9/3K5 w", "d0d1 f9f8 d1d0 f8f9").unwrap();
    assert_eq!(rep.cycle.perpetual, ByColor([None, None]));
    assert_eq!(rep.cycle.ruling(), Ruling::Draw);
}

#[test]
fn a_game_without_a_recurring_position_has_no_repetition() {
    // The kings go on a walk that never returns to a position with the same side to move.
    assert_eq!(
        first("5k3/9/9/9/9/9/9/9/9/3K5 w", "d0d1 f9f8 d1d2 f8f7"),
        None
    );
    assert_eq!(first("5k3/9/9/9/9/9/9/9/9/3K5 w", ""), None);
}

#[test]
fn the_rule_book_in_order() {
    // Fang §2.1: mutual check draws; one checker loses, even against a chaser; a lone chaser
    // loses; two chasers draw.
    use Perpetual::{Chase, Check};
    let rule = |red, black| {
        Cycle {
            perpetual: ByColor([red, black]),
        }
        .ruling()
    };
    let loses = |side, by| Ruling::Loses { side, by };
    let p = Chase(sq("e5"));
    assert_eq!(rule(Some(Check), Some(Check)), Ruling::Draw);
    assert_eq!(rule(Some(Check), None), loses(Color::Red, Check));
    assert_eq!(rule(Some(Check), Some(p)), loses(Color::Red, Check));
    assert_eq!(rule(Some(p), Some(Check)), loses(Color::Black, Check));
    assert_eq!(rule(None, Some(p)), loses(Color::Black, p));
    assert_eq!(rule(Some(p), Some(p)), Ruling::Draw);
    assert_eq!(rule(None, None), Ruling::Draw);
}

#[test]
fn illegal_moves_and_open_cycles_are_refused() {
    let pos = parse_fen("5k3/9/9/9/9/9/9/9/9/3K5 w").unwrap();
    // d1d3 is no king move; found at ply 3.
    assert_eq!(
        first_repetition(&pos, &moves("d0d1 f9f8 d1d3")),
        Err(RepetitionError::Illegal {
            ply: 3,
            mv: Move::parse("d1d3").unwrap()
        })
    );
    assert_eq!(
        judge_cycle(&pos, &moves("d0d1 f9f8")),
        Err(RepetitionError::NotACycle { plies: 2 })
    );
    assert_eq!(
        judge_cycle(&pos, &[]),
        Err(RepetitionError::NotACycle { plies: 0 })
    );
}
