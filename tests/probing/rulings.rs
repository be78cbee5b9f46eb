//! Lines played past a loss by the perpetual-check or chase rule (`Tablebase::line_in_game`):
//! the tables say who loses (the builder's patterns, Fang's Algorithms 1–8), the game-level
//! judge (`xqtb::repetition`, checked by hand in `tests/rules/repetition.rs`) says who loses
//! the repetition the line runs into. The two share no code; they must agree everywhere.

use crate::common::built;
use xqtb::query;
use xqtb::repetition::{Perpetual, Ruling};
use xqtb::tablebase::{LineEnd, Tablebase};
use xqtb::{parse_fen, Color, Indexer, Position, Square, Value};

/// The side that loses a decided position: the side to move at an even distance.
fn loser(pos: &Position, value: Value) -> Color {
    match value {
        Value::Decided { distance, .. } if distance % 2 == 0 => pos.turn(),
        _ => pos.turn().other(),
    }
}

/// The probe's `rule` of `pos` (of order above 0): of `kind`, against the side that loses, at
/// the position's distance, its pieces the loser's (and the chased piece the winner's).
fn assert_rule_named(tb: &Tablebase, pos: &Position, kind: &str) {
    let value = tb.probe_dtc(pos).unwrap();
    let fen = xqtb::to_fen(pos);
    let r = query::probe(tb, pos).unwrap();
    let rule = r.rule.unwrap_or_else(|| panic!("{fen}: no rule"));
    let loser = loser(pos, value);
    assert_eq!(rule.kind, kind, "{fen}");
    assert_eq!(rule.loser, query::side_name(loser), "{fen}");
    assert_eq!(Some(rule.plies), value.distance(), "{fen}");
    let colour = |p: &str| pos.piece_at(Square::parse(p).unwrap()).map(|x| x.color());
    assert!(!rule.by.is_empty(), "{fen}");
    for p in &rule.by {
        assert_eq!(colour(p), Some(loser), "{fen}: {p} gives the {kind}");
    }
    match &rule.chased {
        Some(p) => assert_eq!(colour(p), Some(loser.other()), "{fen}: {p} is chased"),
        None => assert_eq!(kind, "check", "{fen}"),
    }
}

/// The line from `pos` (of order above 0) must run into a repetition that the rules decide
/// against the side the table says loses, by `rule`; returns the line's length.
fn assert_ruled(tb: &Tablebase, pos: &Position, rule: fn(Perpetual) -> bool) -> usize {
    let value = tb.probe_dtc(pos).unwrap();
    let fen = xqtb::to_fen(pos);
    let line = tb.line_in_game(pos, &[]).unwrap();
    let LineEnd::Repetition(rep) = line.end else {
        panic!("{fen} ({value}): line ends with {:?}", line.end);
    };
    assert_eq!(
        rep.again,
        line.moves.len(),
        "{fen}: the line stops at the repetition"
    );
    match rep.cycle.ruling() {
        Ruling::Loses { side, by } => {
            assert_eq!(side, loser(pos, value), "{fen} ({value})");
            assert!(rule(by), "{fen} ({value}): lost by {by:?}");
        }
        Ruling::Draw => panic!("{fen} ({value}): the repetition is a draw"),
    }
    line.moves.len()
}

#[test]
fn every_krkn_win_by_the_rules_ends_in_a_perpetual_check_the_rules_punish() {
    // KRKN has orders 0 and 1, order 1 seeded by checking patterns (formats/rules.md §6).
    let dir = built(&["KRKN"]);
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let ix = Indexer::new("KRKN".parse().unwrap()).unwrap();
    let mut ruled = 0;
    for turn in Color::ALL {
        for i in 0..ix.size() {
            let Some(pos) = ix.decode(i, turn) else {
                continue;
            };
            if pos.opponent_in_check() {
                continue;
            }
            if matches!(tb.probe_dtc(&pos).unwrap(), Value::Decided { order, .. } if order > 0) {
                assert_ruled(&tb, &pos, |by| by == Perpetual::Check);
                assert_rule_named(&tb, &pos, "check");
                ruled += 1;
            }
        }
    }
    assert!(ruled > 100, "{ruled} positions of order 1");
}

#[test]
fn krknn_wins_of_every_order_end_in_the_ruling_of_their_kind() {
    // KRKNN: orders 1–4 checking, 5 chasing (Black's two horses are twins), 6 checking
    // (formats/rules.md §6). The longest win of every order and side, played out.
    let dir = built(&["KRKNN"]);
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let stats = query::table_stats(&tb, "KRKNN".parse().unwrap()).unwrap();
    let mut orders = Vec::new();
    for (_, side) in stats.sides.iter() {
        for w in side.longest_wins.iter().filter(|w| w.order > 0) {
            let pos = parse_fen(&w.fen).unwrap();
            let chasing = w.order == 5;
            let n = assert_ruled(&tb, &pos, if chasing { is_chase } else { is_check });
            assert_rule_named(&tb, &pos, if chasing { "chase" } else { "check" });
            assert!(
                n >= 4 && n > w.distance as usize,
                "{}: the line reaches the pattern and a cycle takes 4 plies ({n} plies, distance {})",
                w.fen, w.distance
            );
            orders.push(w.order);
        }
    }
    orders.sort_unstable();
    orders.dedup();
    assert_eq!(orders, [1, 2, 3, 4, 5, 6]);
}

fn is_check(by: Perpetual) -> bool {
    by == Perpetual::Check
}

fn is_chase(by: Perpetual) -> bool {
    matches!(by, Perpetual::Chase(_))
}

#[test]
fn a_game_that_repeated_gets_no_line_and_its_ruling() {
    // The hand-made perpetual check of tests/rules/repetition.rs, in a directory whose KRK
    // table the moves never leave (Black's rook checks, Red's king steps aside).
    let dir = built(&["KRK"]);
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let start = parse_fen("3k5/9/9/9/9/9/r8/9/9/5K3 b").unwrap();
    let moves: Vec<_> = "a3a0 f0f1 a0a1 f1f0 a1a0"
        .split(' ')
        .map(|m| xqtb::Move::parse(m).unwrap())
        .collect();
    let line = tb.line_in_game(&start, &moves).unwrap();
    assert!(line.moves.is_empty());
    let LineEnd::Repetition(rep) = line.end else {
        panic!("{:?}", line.end)
    };
    assert_eq!((rep.first, rep.again), (1, 5));
    assert_eq!(
        rep.cycle.ruling(),
        Ruling::Loses {
            side: Color::Black,
            by: Perpetual::Check
        }
    );
    // One move fewer: no repetition yet, and Black's (the side to move's) line from there.
    let line = tb.line_in_game(&start, &moves[..4]).unwrap();
    assert!(!matches!(line.end, LineEnd::Repetition(_)));
    // An illegal move in the game is an error naming it.
    let bad = [xqtb::Move::parse("a3b5").unwrap()];
    let e = tb.line_in_game(&start, &bad).unwrap_err().to_string();
    assert!(e.contains("move 1 (a3b5) is not legal"), "{e}");
}
