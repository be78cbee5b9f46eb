//! Retro moves are exactly the inverse of quiet legal moves, checked exhaustively over every
//! position of small materials (tests/rules/reference_rules.rs checks them against an
//! independent brute-force predecessor search on random positions of larger ones).

use xqtb::{Color, Indexer, Move, Position};

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

fn check_material(material: &str) -> (u64, u64) {
    let ix = Indexer::new(material.parse().unwrap()).unwrap();
    let (mut positions, mut moves) = (0, 0);
    for turn in [Color::Red, Color::Black] {
        for i in 0..ix.size() {
            let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            positions += 1;
            // Forward: every quiet legal move's result lists it among its retro moves.
            for m in pos
                .legal_moves()
                .into_iter()
                .filter(|m| !pos.is_capture(*m))
            {
                let mut child = pos.clone();
                child.play(m);
                assert!(
                    child.retro_moves().contains(&m),
                    "{m} from {pos:?} missing in retro of {child:?}"
                );
                moves += 1;
            }
            // Backward: every retro move leads to a legal predecessor whose legal moves include it.
            for m in pos.retro_moves() {
                let mut parent: Position = pos.clone();
                parent.unplay(m);
                assert!(
                    !parent.opponent_in_check(),
                    "illegal predecessor {parent:?} of {pos:?}"
                );
                assert!(
                    sorted(parent.legal_moves().to_vec())
                        .binary_search(&m)
                        .is_ok(),
                    "{m}: {parent:?} -> {pos:?}"
                );
                assert!(!parent.is_capture(m));
            }
        }
    }
    (positions, moves)
}

#[test]
fn retro_moves_invert_quiet_moves_exhaustively() {
    for m in ["KRK", "KNKA", "KCKAB", "KPPKA", "KNKB", "KAKAB"] {
        let (positions, moves) = check_material(m);
        assert!(
            positions > 1000 && moves > positions,
            "{m}: {positions} positions, {moves} moves"
        );
    }
}
