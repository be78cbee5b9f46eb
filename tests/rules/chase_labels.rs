//! Checks and chases (`crates/xqtb-core/src/chase.rs`, definition in `formats/rules.md`) on hand-checked
//! positions. Every expected answer was worked out by hand from the rules (Fang, Section 2;
//! Yen et al. 2004, Appendix A; the clauses of `formats/rules.md`), not taken from the program.

use xqtb::chase::{chases, forbidden_attack, gives_check, IllegalMove};
use xqtb::{parse_fen, Move, Square};

/// The points chased by `mv` (UCCI) in `fen`, as strings.
fn chased(fen: &str, mv: &str) -> Vec<String> {
    let pos = parse_fen(fen).expect("test FEN parses");
    let mv = Move::parse(mv).expect("test move parses");
    chases(&pos, mv)
        .expect("test move is legal")
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn checks(fen: &str, mv: &str) -> bool {
    let pos = parse_fen(fen).expect("test FEN parses");
    gives_check(&pos, Move::parse(mv).unwrap()).expect("test move is legal")
}

#[test]
fn rook_newly_attacking_an_unprotected_horse_chases_it() {
    // Clause 5: after Ra1-a5 the rook sees the horse on c5 over empty b5; nothing of Black's can
    // take back on c5 (king on f9), and from a1 the rook did not attack it.
    assert_eq!(chased("5k3/9/9/9/2n6/9/9/9/R8/3K5 w", "a1a5"), ["c5"]);
}

#[test]
fn an_attack_that_already_existed_is_not_a_chase() {
    // The rook on a5 already attacks c5; sliding to b5 keeps the same attack, so nothing is new.
    assert!(chased("5k3/9/9/9/R1n6/9/9/9/9/3K5 w", "a5b5").is_empty());
}

#[test]
fn a_protected_piece_is_not_chased() {
    // Clause 5: the Black pawn on c6 steps forward to c5 and takes back.
    assert!(chased("5k3/9/9/2p6/2n6/9/9/9/R8/3K5 w", "a1a5").is_empty());
}

#[test]
fn a_pinned_defender_does_not_protect() {
    // The Black rook e7 would take back on g7 along rank 7, but it is pinned on the e-file by
    // Red's rook e1 (leaving it exposes the king on e9): the horse is unprotected.
    assert_eq!(chased("4k4/9/4r1n2/9/9/9/7R1/9/4R4/3K5 w", "h3g3"), ["g7"]);
    // Without the pinning rook the recapture is legal: no chase.
    assert!(chased("4k4/9/4r1n2/9/9/9/7R1/9/9/3K5 w", "h3g3").is_empty());
}

#[test]
fn a_defender_pinned_by_the_flying_general_does_not_protect() {
    // The cannon e7 takes back on g7 over the advisor f7, unless it stands between the two kings
    // on the e-file: leaving it would make the kings face each other.
    assert_eq!(chased("4k4/9/4can2/9/9/9/7R1/9/9/4K4 w", "h3g3"), ["g7"]);
    // With Red's king on d0 the recapture is legal.
    assert!(chased("4k4/9/4can2/9/9/9/7R1/9/9/3K5 w", "h3g3").is_empty());
}

#[test]
fn a_king_move_that_pins_the_defender_makes_an_old_attack_a_chase() {
    // Rook g1 already attacks the cannon g6, protected by the horse e5 (e5-g6, leg f5 free).
    // Kd0-e0 puts the horse between the kings: it may no longer leave the e-file, so the
    // cannon becomes unprotected and the rook's attack is new as a forbidden one.
    assert_eq!(chased("4k4/9/9/6c2/4n4/9/9/9/6R2/3K5 w", "d0e0"), ["g6"]);
}

#[test]
fn kings_and_pawns_may_chase() {
    // Clause 1: Kd0-d1 attacks the unprotected horse on e1, but a king may chase.
    assert!(chased("5k3/9/9/9/9/9/9/9/4n4/3K5 w", "d0d1").is_empty());
    // Clause 1: the crossed pawn e5-e6 attacks the unprotected horse on e7; a pawn may chase.
    assert!(chased("5k3/9/4n4/9/4P4/9/9/9/9/3K5 w", "e5e6").is_empty());
}

#[test]
fn a_pawn_on_its_own_side_of_the_river_is_never_chased() {
    // Clause 2: Ra1-a6 attacks the unprotected Black pawn on c6, which has not crossed.
    assert!(chased("5k3/9/9/2p6/9/9/9/9/R8/3K5 w", "a1a6").is_empty());
    // A crossed pawn (c4, in Red's half) is chased like any other unprotected piece.
    assert_eq!(chased("5k3/9/9/9/9/2p6/9/9/R8/3K5 w", "a1a4"), ["c4"]);
}

#[test]
fn a_horse_or_cannon_chases_a_rook_even_when_protected() {
    // Clause 3: Na6-c7 attacks the rook d9 (leg c8 free); the king e9 protects it, which does
    // not matter against a horse.
    assert_eq!(chased("3rk4/9/9/N8/9/9/9/9/9/5K3 w", "a6c7"), ["d9"]);
    // The same attack on a protected cannon is allowed (clause 5).
    assert!(chased("3ck4/9/9/N8/9/9/9/9/9/5K3 w", "a6c7").is_empty());
}

#[test]
fn rooks_attacking_each_other_do_not_chase() {
    // Clause 4 (Asian rule 24): after Ra1-a5 the rook c5 can take the rook a5 back.
    assert!(chased("5k3/9/9/9/2r6/9/9/9/R8/3K5 w", "a1a5").is_empty());
    // The Black rook e5 is pinned on the e-file by Re1: it cannot take back, is unprotected,
    // and is chased.
    assert_eq!(chased("4k4/9/9/9/4r4/9/9/9/R3R4/3K5 w", "a1a5"), ["e5"]);
}

#[test]
fn horses_chase_each_other_only_when_the_other_cannot_take_back() {
    // Clause 4: Na4-c5 attacks the horse d7 (leg c6 free); d7 cannot take c5 back because its
    // leg d6 is blocked by Red's pawn, and nothing protects it.
    assert_eq!(chased("5k3/9/3n5/3P5/9/N8/9/9/9/3K5 w", "a4c5"), ["d7"]);
    // Without the pawn, d7 attacks c5 back: a mutual attack, no chase.
    assert!(chased("5k3/9/3n5/9/9/N8/9/9/9/3K5 w", "a4c5").is_empty());
}

#[test]
fn cannons_over_one_screen_attack_each_other() {
    // Clause 4: after Cb1-a1 the cannons a1 and a7 attack each other over the pawn a3.
    assert!(chased("5k3/9/c8/9/9/9/P8/9/1C7/3K5 w", "b1a1").is_empty());
}

#[test]
fn discovered_attacks_chase() {
    // Na3-c2 uncovers the rook a1 against the unprotected horse a7.
    assert_eq!(chased("5k3/9/n8/9/9/9/N8/9/R8/3K5 w", "a3c2"), ["a7"]);
    // Nb2-a4 gives the cannon a1 a screen against the unprotected horse a7.
    assert_eq!(chased("5k3/9/n8/9/9/9/9/1N7/C8/3K5 w", "b2a4"), ["a7"]);
}

#[test]
fn cutting_off_a_defender_makes_an_old_attack_a_chase() {
    // Rook a5 already attacks the horse c5, protected along the c-file by the rook c9.
    // Na8-c7 blocks that file: the horse is now unprotected.
    assert_eq!(chased("2r2k3/N8/9/9/R1n6/9/9/9/9/3K5 w", "a8c7"), ["c5"]);
}

#[test]
fn unpinning_an_attacker_makes_its_attack_a_chase() {
    // The horse d2 is pinned against the king d0 by the rook d8, so it may not take the
    // unprotected cannon e4. Ra5-d5 blocks the pin: now it may (and the rooks d5, d8 attack
    // each other, clause 4).
    assert_eq!(chased("5k3/3r5/9/9/R8/4c4/9/3N5/9/3K5 w", "a5d5"), ["e4"]);
}

#[test]
fn the_king_protects_unless_the_recapture_faces_the_other_king() {
    // The king e9 takes back on e8.
    assert!(chased("4k4/4a4/9/9/9/9/9/9/R8/3K5 w", "a1a8").is_empty());
    // The king d9 taking back on d8 would face Red's king d0: the horse is unprotected.
    assert_eq!(chased("3k5/3n5/9/9/9/9/9/9/R8/3K5 w", "a1a8"), ["d8"]);
    // With Red's advisor on d2 between the kings, the recapture is legal.
    assert!(chased("3k5/3n5/9/9/9/9/9/3A5/R8/3K5 w", "a1a8").is_empty());
}

#[test]
fn a_check_is_not_a_chase() {
    // Nb6-d7 checks the king e9 (leg d8 free) and newly attacks the unprotected cannon c5:
    // it is judged as a check only.
    assert!(checks("4k4/9/9/1N7/2c6/9/9/9/9/3K5 w", "b6d7"));
    assert!(chased("4k4/9/9/1N7/2c6/9/9/9/9/3K5 w", "b6d7").is_empty());
    // With the king on f9 the same move does not check, and chases the cannon.
    assert!(!checks("5k3/9/9/1N7/2c6/9/9/9/9/3K5 w", "b6d7"));
    assert_eq!(chased("5k3/9/9/1N7/2c6/9/9/9/9/3K5 w", "b6d7"), ["c5"]);
}

#[test]
fn one_move_may_chase_two_pieces() {
    // Nb4-d5 forks the unprotected cannons c7 and e7 (leg d6 free for both).
    assert_eq!(
        chased("5k3/9/2c1c4/9/9/1N7/9/9/9/3K5 w", "b4d5"),
        ["c7", "e7"]
    );
}

#[test]
fn checks_and_illegal_moves() {
    // Ra1-a9 checks the king e9 along rank 9; Ra1-a8 does not.
    let fen = "4k4/9/9/9/9/9/9/9/R8/3K5 w";
    assert!(checks(fen, "a1a9"));
    assert!(!checks(fen, "a1a8"));
    // Kd0-e0 would face the king e9 over an open file (a legal move never can: the mover's own
    // king would face the other): an error, not an answer.
    let pos = parse_fen(fen).unwrap();
    let bad = Move::parse("d0e0").unwrap();
    assert_eq!(gives_check(&pos, bad), Err(IllegalMove { mv: bad }));
    assert_eq!(chases(&pos, bad), Err(IllegalMove { mv: bad }));
}

#[test]
fn a_move_making_the_kings_face_is_illegal_not_a_check() {
    // The horse e5 is all that stands between the kings e0 and e9. Ne5-c4 would make them face
    // each other, which the flying-general rule forbids to the mover: facing kings never come
    // from a legal move, so they appear only as the reason the move is refused.
    let pos = parse_fen("4k4/9/9/9/4n4/9/9/9/9/4K4 b").unwrap();
    let m = Move::parse("e5c4").unwrap();
    assert_eq!(gives_check(&pos, m), Err(IllegalMove { mv: m }));
    assert_eq!(chases(&pos, m), Err(IllegalMove { mv: m }));
}

#[test]
fn forbidden_attack_needs_a_legal_capture() {
    // The horse d2 is pinned by the rook d8 against its king: it may not take e4.
    let pos = parse_fen("5k3/3r5/9/9/9/4c4/9/3N5/9/3K5 w").unwrap();
    let sq = |s: &str| Square::parse(s).unwrap();
    assert!(!forbidden_attack(&pos, sq("d2"), sq("e4")));
    // Unpinned (rook gone), the same attack is forbidden: the cannon is unprotected.
    let pos = parse_fen("5k3/9/9/9/9/4c4/9/3N5/9/3K5 w").unwrap();
    assert!(forbidden_attack(&pos, sq("d2"), sq("e4")));
}

#[test]
fn rule_book_perpetual_check_by_a_rook() {
    // After Yen et al. 2004 Appendix A, Figure 3a (our own position with its moves): Ra3-a0 checks
    // the king f0 along rank 0, and after Kf0-f1, Ra0-a1 checks again; both are checks, and a
    // check is never also a chase.
    assert!(checks("3k5/9/9/9/9/9/r8/9/9/5K3 b", "a3a0"));
    assert!(chased("3k5/9/9/9/9/9/r8/9/9/5K3 b", "a3a0").is_empty());
    assert!(checks("3k5/9/9/9/9/9/9/9/5K3/r8 b", "a0a1"));
}

#[test]
fn rule_book_rook_following_a_rook_is_not_a_chase() {
    // After Yen et al. 2004 Appendix A, Figure 3b (our own position with its moves Rg6-i6, Ri9-h9,
    // Ri6-h6, ...): each Red move attacks the Black rook, which is not pinned and can take
    // back, so by Asian rule 24 none is a chase; Black's escapes attack nothing. A draw.
    assert!(chased("3k4r/9/9/6R2/9/9/9/9/9/5K3 w", "g6i6").is_empty());
    assert!(chased("3k4r/9/9/8R/9/9/9/9/9/5K3 b", "i9h9").is_empty());
    assert!(!checks("3k4r/9/9/8R/9/9/9/9/9/5K3 b", "i9h9"));
}

/// `Material::can_hit` bounds what the rule stage keeps (no candidates for a target no move can
/// hit: `formats/rules.md` §7), so it must never rule out a check or chase a move makes. Over
/// every third entry of small materials where advisors, elephants, pawns and the far chasers
/// meet, each legal quiet move's check and chases hit only targets it allows, and it allows
/// each kind of hit some move makes.
#[test]
fn no_move_hits_what_can_hit_rules_out() {
    use xqtb::chase::chased_after;
    use xqtb::{Color, Indexer, Material, Role};
    for m in [
        "KRKA", "KNKB", "KCKAB", "KPKA", "KAKP", "KBKP", "KABKR", "KPKB", "KAKN", "KCKP",
    ] {
        let material: Material = m.parse().unwrap();
        let indexer = Indexer::new(material).unwrap();
        let mut seen = Vec::new();
        for turn in Color::ALL {
            for index in (0..indexer.size()).step_by(3) {
                let Some(pos) = indexer.decode(index, turn) else {
                    continue;
                };
                for mv in pos.legal_moves() {
                    if pos.piece_at(mv.to).is_some() {
                        continue;
                    }
                    let mut after = pos.clone();
                    after.play(mv);
                    let hit = match after.is_check() {
                        true => vec![Role::King],
                        false => chased_after(&pos, mv, &after)
                            .into_iter()
                            .map(|sq| pos.piece_at(sq).unwrap().role())
                            .collect(),
                    };
                    for role in hit {
                        assert!(
                            material.can_hit(turn, role),
                            "{m}: {} {mv:?} hits a {role:?}",
                            xqtb::to_fen(&pos)
                        );
                        if !seen.contains(&(turn, role)) {
                            seen.push((turn, role));
                        }
                    }
                }
            }
        }
        // The bound is not vacuous: every hit it allows that these materials can show, some
        // move shows (kings are checked by far chasers and pawns alike).
        for turn in Color::ALL {
            for role in Role::ALL {
                let present = material.count(!turn, role) > 0 || role == Role::King;
                if present && material.can_hit(turn, role) {
                    assert!(
                        seen.contains(&(turn, role)),
                        "{m}: {turn:?} never hits a {role:?}"
                    );
                }
            }
        }
    }
}
