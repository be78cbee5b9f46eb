//! Hand-checked positions, one rule each. Expected move lists were worked out by hand from the
//! rules (shared/Yen et al. 2004, Section 2), not taken from the program.

use xqtb::{parse_fen, Position};

fn moves(fen: &str) -> Vec<String> {
    let mut v: Vec<String> = parse_fen(fen)
        .unwrap()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect();
    v.sort();
    v
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn flying_general_forbids_facing_kings() {
    // Red king d0 may not step to e0 (it would face Black's king on e9 over an empty file) nor
    // leave the palace to c0: only d1.
    assert_eq!(moves("4k4/9/9/9/9/9/9/9/9/3K5 w"), sorted(&["d0d1"]));
    // With a pawn on e5 screening the file, e0 is fine; the crossed pawn also steps sideways.
    assert_eq!(
        moves("4k4/9/9/9/4P4/9/9/9/9/3K5 w"),
        sorted(&["d0d1", "d0e0", "e5e6", "e5d5", "e5f5"])
    );
}

#[test]
fn horse_legs_and_elephant_eyes_block() {
    // Horse b0: legs b1 (rook) and c0 (elephant) are taken, so it has no move. Elephant c0: eye b1
    // taken (no a2), eye d1 free (e2). Rook b1: b2–b9, a1, c1–i1. King d0: d1 (e0 faces e9).
    let mut want = vec!["c0e2", "d0d1", "b1a1"];
    let rook: Vec<String> = (2..=9)
        .map(|r| format!("b1b{r}"))
        .chain("cdefghi".chars().map(|f| format!("b1{f}1")))
        .collect();
    want.extend(rook.iter().map(String::as_str));
    assert_eq!(moves("4k4/9/9/9/9/9/9/9/1R7/1NBK5 w"), sorted(&want));
}

#[test]
fn elephants_never_cross_the_river() {
    // Elephant c4: a2 and e2 only (a6 and e6 are across the river).
    assert_eq!(
        moves("4k4/9/9/9/9/2B6/9/9/9/3K5 w"),
        sorted(&["c4a2", "c4e2", "d0d1"])
    );
}

#[test]
fn cannon_captures_over_exactly_one_screen() {
    // Cannon a0: slides a1–a4, b0, c0; captures the rook on a7 over the pawn on a5, never the
    // pawn itself.
    assert_eq!(
        moves("4k4/9/r8/9/p8/9/9/9/9/C2K5 w"),
        sorted(&["a0a1", "a0a2", "a0a3", "a0a4", "a0a7", "a0b0", "a0c0", "d0d1"])
    );
}

#[test]
fn pawns_move_forward_only_until_they_cross() {
    // Red pawn e3 (not crossed): e4 only. Black pawn c4 (crossed): c3, b4, d4.
    // Red's king e0 may not go to d0 (it would face d9); Black's king may go to e9 (the pawn on
    // e3 screens the file).
    assert_eq!(
        moves("3k5/9/9/9/9/2p6/4P4/9/9/4K4 w"),
        sorted(&["e3e4", "e0e1", "e0f0"])
    );
    assert_eq!(
        moves("3k5/9/9/9/9/2p6/4P4/9/9/4K4 b"),
        sorted(&["c4c3", "c4b4", "c4d4", "d9d8", "d9e9"])
    );
}

#[test]
fn stalemate_and_checkmate_have_no_moves() {
    // Black king d9: d8 is covered by the rook on a8, e9 faces Red's king: stalemate (a loss).
    let stalemate = parse_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b").unwrap();
    assert!(
        stalemate.legal_moves().is_empty() && !stalemate.is_check() && !stalemate.has_legal_move()
    );
    // Rook a9 checks along rank 9, rook b8 covers d8, e9 faces Red's king: checkmate.
    let mate = parse_fen("R2k5/1R7/9/9/9/9/9/9/9/4K4 b").unwrap();
    assert!(mate.legal_moves().is_empty() && mate.is_check());
}

#[test]
fn check_detection_covers_every_attacker() {
    // Each position: Black to move, Black's king on e9 attacked by one piece.
    for fen in [
        "4k4/9/9/9/9/9/9/9/9/3KR4 b",    // rook on the file
        "4k4/9/4P4/9/4C4/9/9/9/9/3K5 b", // cannon over a screen
        "4k4/9/5N3/9/9/9/9/9/9/3K5 b",   // horse f7, leg f8 free
        "4k4/4P4/9/9/9/9/9/9/9/3K5 b",   // pawn e8
        "3Pk4/9/9/9/9/9/9/9/9/3K5 b",    // pawn d9 sideways
    ] {
        assert!(parse_fen(fen).unwrap().is_check(), "{fen}");
    }
    // A horse with its leg blocked gives no check.
    assert!(!parse_fen("4k4/5r3/5N3/9/9/9/9/9/9/3K5 b")
        .unwrap()
        .is_check());
}

#[test]
fn play_and_undo_restore_the_position() {
    let start = Position::startpos();
    let mut pos = start.clone();
    for m in start.legal_moves() {
        let u = pos.play(m);
        assert_ne!(pos, start);
        pos.undo(m, u);
        assert_eq!(pos, start);
    }
}

/// The legal move generator (which skips the make / test / unmake for moves it can see are
/// safe) against brute force: every pseudo-legal move played and the mover's king tested, on
/// random positions of materials rich in pins, cannon screens and horse legs, both sides to
/// move, in check or not. Also the quiet-move count and the captures of `legal_captures`.
#[test]
fn legal_moves_match_brute_force() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    // The last three face only a king, advisors and elephants, a horse, or a pawn on one side
    // (the legality filter looks at fewer points there).
    for material in [
        "KCCKRN", "KRCKCN", "KNNKCA", "KRPKCCA", "KCPPKNB", "KRKRCA", "KRNKAABB", "KRCKNAB",
        "KRNCKPAB",
    ] {
        let ix = xqtb::Indexer::new(material.parse().unwrap()).unwrap();
        let mut tested = 0;
        while tested < 20_000 {
            let turn = if rng.gen() {
                xqtb::Color::Red
            } else {
                xqtb::Color::Black
            };
            let Some(pos) = ix
                .decode(rng.gen_range(0..ix.size()), turn)
                .filter(|p| !p.opponent_in_check())
            else {
                continue;
            };
            tested += 1;
            let mut pseudo = xqtb::MoveList::new();
            pos.pseudo_legal_moves(&mut pseudo);
            let brute: Vec<xqtb::Move> = pseudo
                .iter()
                .copied()
                .filter(|&m| {
                    let mut q = pos.clone();
                    q.play(m);
                    !q.in_check(turn)
                })
                .collect();
            let got = pos.legal_moves();
            assert_eq!(got.to_vec(), brute, "{material} {pos:?}");
            let quiet = brute.iter().filter(|m| !pos.is_capture(**m)).count();
            let mut p = pos.clone();
            assert_eq!(p.count_legal_quiet(), quiet, "{pos:?}");
            assert_eq!(p, pos, "count_legal_quiet left the position changed");
            let mut want: Vec<_> = brute
                .iter()
                .copied()
                .filter(|m| pos.is_capture(*m))
                .collect();
            want.sort();
            let pseudo_quiet = pseudo.iter().filter(|m| !pos.is_capture(**m)).count();
            for up_to in [0, 3, 8, usize::MAX] {
                let mut caps = Vec::new();
                let (n, all) = p
                    .legal_captures(pos.is_check(), up_to, |q, m| {
                        assert_eq!(*q, pos, "a capture is given the position before it");
                        caps.push(m);
                        false
                    })
                    .expect("nothing stops the walk");
                assert_eq!(p, pos, "legal_captures left the position changed");
                caps.sort();
                assert_eq!(caps, want, "{pos:?}");
                // A capture that stops the walk ends it there: no quiet move is counted.
                if let Some(&first) = want.first() {
                    let mut seen = Vec::new();
                    let stopped = p.legal_captures(pos.is_check(), up_to, |_, m| {
                        seen.push(m);
                        m == first
                    });
                    assert_eq!(stopped, None, "{pos:?}");
                    assert_eq!(seen.last(), Some(&first), "{pos:?}");
                    assert_eq!(p, pos, "a stopped walk left the position changed");
                }
                assert_eq!(all, pseudo_quiet <= up_to, "{pos:?} up to {up_to}");
                let want_n = if all { quiet } else { quiet.min(1) };
                assert_eq!(n, want_n, "{pos:?} up to {up_to}");
            }
        }
    }
}

/// `n` legal positions of each material (decoded from random indices, either side to move)
/// that `keep` accepts, for `f`.
fn random_positions(
    materials: &[&str],
    seed: u64,
    n: usize,
    keep: impl Fn(&Position) -> bool,
    mut f: impl FnMut(&str, &Position),
) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for m in materials {
        let ix = xqtb::Indexer::new(m.parse().unwrap()).unwrap();
        let mut seen = 0;
        while seen < n {
            let turn = xqtb::Color::ALL[rng.gen_range(0..2)];
            let Some(pos) = ix.decode(rng.gen_range(0..ix.size()), turn) else {
                continue;
            };
            if pos.opponent_in_check() || !keep(&pos) {
                continue;
            }
            seen += 1;
            f(m, &pos);
        }
    }
}

/// Materials with every kind of piece on one side or the other.
const EVERY_KIND: &[&str] = &[
    "KRCKR",
    "KNNPKCAB",
    "KRNCPKRNCAB",
    "KCCPPKNAABB",
    "KPPPKAABB",
];

/// Every quiet move that gives check (played, and the opponent found in check, facing kings
/// included) is among `pseudo_checks_until`'s moves, in random placements of materials with
/// every kind of piece, both sides to move; and it leaves out most of the others.
#[test]
fn checking_moves_are_among_the_check_candidates() {
    let (mut checks, mut all, mut kept) = (0, 0, 0);
    random_positions(
        EVERY_KIND,
        5,
        3000,
        |_| true,
        |m, pos| {
            let mut candidates = Vec::new();
            pos.pseudo_checks_until(|mv| {
                candidates.push(mv);
                false
            });
            pos.pseudo_quiet_until(|mv| {
                all += 1;
                let mut child = pos.clone();
                child.play(mv);
                if child.is_check() {
                    checks += 1;
                    assert!(candidates.contains(&mv), "{m} {pos:?}: {mv} checks");
                }
                false
            });
            kept += candidates.len();
        },
    );
    assert!(checks > 1000, "only {checks} checking moves seen");
    assert!(kept * 2 < all, "{kept} of {all} moves kept");
}

/// In random placements where the side to move is in check, every legal quiet move is among
/// `pseudo_evasions_until`'s moves, which leave out most of the illegal ones.
#[test]
fn legal_moves_in_check_are_among_the_evasions() {
    let (mut legal, mut all, mut kept) = (0, 0, 0);
    let materials = ["KRCKR", "KNNPKCAB", "KRNCPKRNCAB", "KCCPPKNAABB", "KRRKCCA"];
    random_positions(
        &materials,
        9,
        3000,
        |pos| pos.is_check(),
        |m, pos| {
            let mut evasions = Vec::new();
            pos.pseudo_evasions_until(|mv| {
                evasions.push(mv);
                false
            });
            let quiet: Vec<_> = pos
                .legal_moves()
                .into_iter()
                .filter(|&mv| !pos.is_capture(mv))
                .collect();
            for mv in &quiet {
                assert!(evasions.contains(mv), "{m} {pos:?}: {mv} is legal");
            }
            legal += quiet.len();
            pos.pseudo_quiet_until(|_| {
                all += 1;
                false
            });
            kept += evasions.len();
        },
    );
    assert!(legal > 5000, "only {legal} legal moves seen");
    assert!(kept * 2 < all, "{kept} of {all} moves kept");
}

/// `pseudo_quiet_king_first_until` gives the same moves as `pseudo_quiet_until`, each once, the
/// king's first; and stops where its callback says so.
#[test]
fn king_first_moves_are_the_quiet_moves_reordered() {
    let materials = ["KRCKR", "KNNPKCAB", "KRNCPKRNCAB", "KCCPPKNAABB"];
    random_positions(
        &materials,
        13,
        2000,
        |_| true,
        |m, pos| {
            let plain = listed(|f| pos.pseudo_quiet_until(f));
            let first = listed(|f| pos.pseudo_quiet_king_first_until(f));
            let king = pos.king(pos.turn());
            let kings = first.iter().take_while(|mv| Some(mv.from) == king).count();
            assert_eq!(
                kings,
                plain.iter().filter(|mv| Some(mv.from) == king).count(),
                "{m} {pos:?}"
            );
            let (mut a, mut b) = (plain.clone(), first.clone());
            a.sort_by_key(|mv| (mv.from.index(), mv.to.index()));
            b.sort_by_key(|mv| (mv.from.index(), mv.to.index()));
            assert_eq!(a, b, "{m} {pos:?}");
            b.dedup();
            assert_eq!(b.len(), first.len(), "{m} {pos:?}: a move twice");
            if let Some(&stop) = first.get(first.len() / 2) {
                let mut seen = 0;
                assert!(pos.pseudo_quiet_king_first_until(|mv| {
                    seen += 1;
                    mv == stop
                }));
                assert_eq!(seen, first.len() / 2 + 1);
            }
        },
    );
}

/// `pseudo_checks_until` generates exactly the quiet moves `may_give_check` lets through, each
/// once, for every kind of piece (on and off the opponent king's lines and horse legs).
#[test]
fn generated_check_candidates_are_the_filtered_quiet_moves() {
    let mut seen = 0;
    random_positions(
        EVERY_KIND,
        17,
        3000,
        |_| true,
        |m, pos| {
            let mut filtered = listed(|f| pos.pseudo_quiet_until(f));
            filtered.retain(|&mv| pos.may_give_check(mv));
            let generated = listed(|f| pos.pseudo_checks_until(f));
            let key = |mv: &xqtb::Move| (mv.from.index(), mv.to.index());
            let mut sorted = generated.clone();
            sorted.sort_by_key(key);
            sorted.dedup();
            assert_eq!(sorted.len(), generated.len(), "{m} {pos:?}: a move twice");
            filtered.sort_by_key(key);
            assert_eq!(sorted, filtered, "{m} {pos:?}");
            seen += generated.len();
        },
    );
    assert!(seen > 50_000, "only {seen} moves compared");
}

/// The moves a generator of the `…_until` kind gives, in its order, when never stopped.
fn listed(generate: impl FnOnce(&mut dyn FnMut(xqtb::Move) -> bool) -> bool) -> Vec<xqtb::Move> {
    let mut moves = Vec::new();
    generate(&mut |mv| {
        moves.push(mv);
        false
    });
    moves
}
