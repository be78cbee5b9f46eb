//! The query library: statistics against a brute-force count over every position, the principal
//! line against the probe, best-first move lists, and the position parser of the query pages.

use crate::common::{build, built};
use std::collections::BTreeMap;
use xqtb::query::{self, parse_query_position, ProbeResult};
use xqtb::tablebase::Tablebase;
use xqtb::{parse_fen, to_fen, Color, Move, Outcome, Piece, Position, Role, Square};

/// Every real KPK position, by placing the three pieces on every point: the pawn split of the
/// statistics must count exactly these (no index, no multiplicity involved).
#[test]
fn pawn_split_matches_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    build("KPK", dir.path());
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let stats = query::table_stats(&tb, "KPK".parse().unwrap()).unwrap();
    for (turn, side) in stats.sides.iter() {
        // pawn rank -> [win, draw, loss]
        let mut want: BTreeMap<u8, [u64; 3]> = BTreeMap::new();
        for rk in Square::all() {
            for bk in Square::all() {
                for p in Square::all() {
                    if rk == bk || rk == p || bk == p {
                        continue;
                    }
                    let mut pos = Position::empty(turn);
                    pos.put(rk, Piece::new(Color::Red, Role::King));
                    pos.put(bk, Piece::new(Color::Black, Role::King));
                    pos.put(p, Piece::new(Color::Red, Role::Pawn));
                    // The FEN parser's checks decide legality (palace, pawn points, check).
                    if parse_fen(&to_fen(&pos)).is_err() {
                        continue;
                    }
                    let slot = match tb.probe_dtc(&pos).unwrap().outcome() {
                        Outcome::Win => 0,
                        Outcome::Draw => 1,
                        Outcome::Loss => 2,
                    };
                    want.entry(p.rank()).or_default()[slot] += 1;
                }
            }
        }
        let got: BTreeMap<u8, [u64; 3]> = side
            .pawn_ranks
            .as_ref()
            .expect("KPK has pawns")
            .iter()
            .map(|r| {
                assert_eq!(r.black, None);
                assert_eq!(r.legal, r.win + r.draw + r.loss);
                (r.red.unwrap(), [r.win, r.draw, r.loss])
            })
            .collect();
        assert_eq!(got, want, "{turn:?} to move");
        let total: u64 = want.values().flatten().sum();
        assert_eq!(total, side.legal);
        // The histogram counts every decided position.
        let decided: u64 = side.histogram.iter().map(|h| h.positions).sum();
        assert_eq!(decided, side.win + side.loss);
    }
    // Published (README): Red to move 2,394 / 432 / 0, longest win 19.
    assert_eq!(
        (stats.sides.w.win, stats.sides.w.draw, stats.sides.w.loss),
        (2394, 432, 0)
    );
    assert_eq!(stats.sides.w.longest_wins.len(), 1);
    assert_eq!(stats.sides.w.longest_wins[0].distance, 19);
    // From the header alone: the same statistics but the pawn split.
    let header_only =
        query::table_header_stats_of(&tb, "KPK".parse().unwrap(), xqtb::table::Metric::Dtc)
            .unwrap();
    let mut full = stats.clone();
    for s in [&mut full.sides.w, &mut full.sides.b] {
        s.pawn_ranks = None;
    }
    assert_eq!(header_only, full);
    // A table without pawns has no split.
    build("KNK", dir.path());
    let knk = query::table_stats(&tb, "KNK".parse().unwrap()).unwrap();
    assert!(knk.sides.w.pawn_ranks.is_none());
}

#[test]
fn mainline_follows_best_moves_to_the_conversion() {
    let dir = built(&["KNKA"]);
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let stats = query::table_stats(&tb, "KNKA".parse().unwrap()).unwrap();
    let longest = stats.sides.w.longest_win.clone().unwrap();
    assert_eq!(longest.distance, 29, "published longest KNKA win");
    let starts = [
        "4K44B49994n495k399".to_string(),
        longest.fen.clone(),
        stats
            .sides
            .b
            .longest_wins
            .first()
            .map_or(longest.fen.clone(), |l| l.fen.clone()),
    ];
    for start in &starts {
        let (pos, _) = parse_query_position(start).unwrap();
        let line = query::mainline(&tb, &pos, &[], 1000).unwrap();
        let d = line.distance.unwrap() as usize;
        assert_eq!(
            line.steps.len(),
            d,
            "{start}: a win in d plies converts at ply d"
        );
        let mut cur = pos.clone();
        for (i, step) in line.steps.iter().enumerate() {
            // Each step is one of the probe's best moves.
            let r = query::probe(&tb, &cur).unwrap();
            assert!(
                best_moves(&r).contains(&step.ucci.as_str()),
                "{start} ply {i}: {} not best",
                step.ucci
            );
            let m = legal_move(&cur, &step.ucci).unwrap();
            cur.play(m);
            assert_eq!(step.fen, to_fen(&cur));
            if i + 1 < d {
                assert!(!step.capture);
                assert_eq!(step.distance, Some((d - i - 1) as u16), "{start} ply {i}");
            }
        }
        match line.end {
            "conversion" => assert!(line.steps.last().unwrap().capture),
            "mate" => assert!(cur.legal_moves().is_empty() && cur.is_check()),
            other => panic!("{start}: line ends with {other}"),
        }
    }
    // A drawn position (the first Black-to-move draw in index order) has no line.
    let ix = xqtb::Indexer::new("KNKA".parse().unwrap()).unwrap();
    let drawn = (0..ix.size())
        .filter_map(|i| ix.decode(i, Color::Black))
        .find(|p| !p.opponent_in_check() && tb.probe_dtc(p).unwrap() == xqtb::Value::Draw)
        .unwrap();
    let line = query::mainline(&tb, &drawn, &[], 1000).unwrap();
    assert_eq!(
        (line.end, line.steps.len(), line.result),
        ("draw", 0, "draw")
    );
}

#[test]
fn moves_come_best_first_with_their_notation() {
    let dir = built(&["KNKA"]);
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let (pos, _) = parse_query_position("4K44B49994n495k399").unwrap();
    let r = query::probe(&tb, &pos).unwrap();
    assert_eq!((r.side, r.in_check, r.result), ("w", false, "win"));
    assert_eq!(r.qstring, "4K44B49994n495k399");
    // The query system's page recommends N5+7 (e4c5) here.
    assert_eq!(best_moves(&r), vec!["e4c5"]);
    assert_eq!(r.moves[0].wxf, "H5+7");
    assert_eq!(r.moves[0].zh, "傌五進七");
    // Every move's value is the probe of the position it leads to, and the order is by the
    // mover's value: losses of the opponent with rising distance first.
    let mut last = None;
    for m in &r.moves {
        let child = parse_fen(&m.fen).unwrap();
        let v = tb.probe_dtc(&child).unwrap();
        assert_eq!(
            (m.result, m.order, m.distance),
            (v.outcome().name(), v.order(), v.distance())
        );
        assert_eq!(m.check, child.is_check());
        if let (Some(prev), "loss") = (last, m.result) {
            assert!(m.distance.unwrap() >= prev, "sorted best first");
        }
        last = m.distance;
    }
}

#[test]
fn query_positions_accept_underscores_r_and_the_classic_string() {
    let a = parse_query_position("4k4/4a4/9/9/9/4N4/9/5K3/9/9_r").unwrap();
    let b = parse_query_position("4k4/4a4/9/9/9/4N4/9/5K3/9/9 w - - 0 1").unwrap();
    let c = parse_query_position("4K44B49994n495k399").unwrap();
    assert_eq!(a.0, b.0);
    assert_eq!(a.0, c.0);
    let black = parse_query_position("4K44B49994n495k3990:").unwrap();
    assert_eq!(black.0.turn(), Color::Black);
    assert!(black.1, "a trailing ':' asks for Black's view");
    assert!(parse_query_position("4k4/9 w").is_err());
    assert!(parse_query_position("").is_err());
}

/// The best moves of a probed position, in UCCI.
fn best_moves(result: &ProbeResult) -> Vec<&str> {
    result
        .moves
        .iter()
        .filter(|m| m.best)
        .map(|m| m.ucci.as_str())
        .collect()
}

/// The move `ucci` if it is legal in `pos`.
fn legal_move(pos: &Position, ucci: &str) -> Option<Move> {
    Move::parse(ucci).filter(|m| pos.legal_moves().contains(m))
}
