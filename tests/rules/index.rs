//! Index round trips and legal-position counts.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xqtb::{Color, Indexer, Position};

/// index → position → index over every index of a material, and the mirror image's index.
fn round_trip_all(material: &str) -> u64 {
    let ix = Indexer::new(material.parse().unwrap()).unwrap();
    let mut valid = 0;
    for i in 0..ix.size() {
        if let Some(pos) = ix.decode(i, Color::Red) {
            valid += 1;
            check_entry(&ix, i, &pos);
        }
    }
    valid
}

fn check_entry(ix: &Indexer, i: u64, pos: &Position) {
    assert_eq!(ix.encode(pos).unwrap(), i, "{pos:?}");
    let m = pos.mirror();
    let j = ix.encode(&m).unwrap();
    if ix.multiplicity(i) == 2 {
        assert_eq!(j, i, "mirror of {pos:?} should share its entry");
        assert_ne!(&m, pos);
    } else {
        // Both defenders symmetric: the mirror image has its own entry (or is the same position).
        assert_eq!(ix.decode(j, pos.turn()).as_ref(), Some(&m), "{pos:?}");
        assert_eq!(j == i, &m == pos);
    }
}

#[test]
fn round_trip_every_index_of_small_materials() {
    for m in [
        "KRK",
        "KNK",
        "KCK",
        "KPK",
        "KKA",
        "KKB",
        "KNKA",
        "KAKA",
        "KABKAB",
        "KPKAA",
        "KCKAB",
        "KRKAABB",
        "KPPKAA",
        "KAABBKAABB",
        "KRKR",
        "KNNK",
    ] {
        assert!(round_trip_all(m) > 0, "{m}");
    }
}

#[test]
fn round_trip_sampled_indices_of_large_materials() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for m in [
        "KCPABKAABB",
        "KRCKR",
        "KNNKCC",
        "KPPPPPK",
        "KRNKAABB",
        "KRRCCKRRCCAB",
        "KPPPKPPP",
    ] {
        let ix = Indexer::new(m.parse().unwrap()).unwrap();
        let mut valid = 0;
        for _ in 0..200_000 {
            let i = rng.gen_range(0..ix.size());
            if let Some(pos) = ix.decode(i, Color::Black) {
                valid += 1;
                check_entry(&ix, i, &pos);
            }
        }
        assert!(valid > 1000, "{m}: {valid}");
    }
}

/// The index numbers exactly the defender placements one would list by hand, and folds the
/// mirror: for KRK, 81 king pairs of which 9 are symmetric (both kings on file e), so
/// (81 + 9) / 2 = 45 pairs, times 90 rook points = 4,050 (the reference, 81 × 50).
#[test]
fn index_sizes_follow_from_counting_by_hand() {
    let size = |m: &str| Indexer::new(m.parse().unwrap()).unwrap().size();
    assert_eq!(size("KRK"), 4050);
    // KNKA: Black king + advisor: 9 × 5 − 5 overlapping = 40 placements; of these only king e7
    // or e9 with the advisor on e8 are mirror-symmetric (2). Red king: 9 placements, 3 symmetric
    // (file e). Pairs = (9·40 + 3·2) / 2 = 183.
    assert_eq!(size("KNKA"), 183 * 90);
    // Two identical pawns: C(55, 2) = 1,485 unordered placements.
    assert_eq!(size("KPPK"), 45 * 1485);
}

/// Random positions → index → position gives the position or its mirror image.
#[test]
fn random_positions_encode_and_decode() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for m in ["KRKAABB", "KCPABKAABB", "KRCKR", "KPPPKAA", "KNNKCC"] {
        let ix = Indexer::new(m.parse().unwrap()).unwrap();
        let mut seen = 0;
        while seen < 2000 {
            let i = rng.gen_range(0..ix.size());
            let Some(p) = ix.decode(i, Color::Red) else {
                continue;
            };
            // Scramble: mirror half of them so encode has to fold.
            let q = if rng.gen() { p.mirror() } else { p.clone() };
            let j = ix.encode(&q).unwrap();
            let back = ix.decode(j, Color::Red).unwrap();
            assert!(back == q || back == q.mirror(), "{q:?}");
            seen += 1;
        }
    }
}

#[test]
fn encode_rejects_other_materials() {
    let ix = Indexer::new("KRK".parse().unwrap()).unwrap();
    let pos = xqtb::parse_fen("4k4/9/9/9/9/9/9/9/9/3K1N3 w").unwrap();
    let err = ix.encode(&pos).unwrap_err();
    assert!(
        err.to_string().contains("KNK") && err.to_string().contains("KRK"),
        "{err}"
    );
}

#[test]
fn oversized_index_is_an_error() {
    let err = Indexer::new("KRRCCNNPPPPPAABBKRRCCNNPPPPPAABB".parse().unwrap())
        .err()
        .unwrap();
    assert!(err.to_string().contains("2^64"), "{err}");
}

#[test]
fn decode_past_the_end_is_none() {
    let ix = Indexer::new("KRK".parse().unwrap()).unwrap();
    assert!(ix.decode(ix.size(), Color::Red).is_none());
    assert!(ix.decode(u64::MAX, Color::Black).is_none());
    assert_eq!(ix.multiplicity(ix.size()), 0);
}

/// Calls `f` with every quiet pseudo-legal move, by either side, from every entry of `m` that
/// decodes: the index, the position with that side to move, and the move.
fn each_quiet_move(m: &str, mut f: impl FnMut(&Indexer, u64, &xqtb::Position, xqtb::Move)) {
    let ix = Indexer::new(m.parse().unwrap()).unwrap();
    for i in 0..ix.size() {
        let Some(pos) = ix.decode(i, Color::Red) else {
            continue;
        };
        for color in Color::ALL {
            let mut p = pos.clone();
            p.set_turn(color);
            let mut moves = xqtb::MoveList::new();
            p.pseudo_legal_moves(&mut moves);
            for mv in moves.into_iter().filter(|&mv| !p.is_capture(mv)) {
                f(&ix, i, &p, mv);
            }
        }
    }
}

fn is_defender(role: xqtb::Role) -> bool {
    use xqtb::Role;
    matches!(role, Role::King | Role::Advisor | Role::Elephant)
}

/// The defender shortcut agrees with a full encode, and answers every defender move (to an
/// empty point) from every legal entry of several materials, placements symmetric on both
/// sides included (their entries are numbered without a mirror image). Its form for listing
/// predecessors declines exactly those, and its cached form gives the same answers, one cache
/// kept across all entries (both sides to move, every pair in turn).
#[test]
fn moved_defender_agrees_with_encode() {
    for m in [
        "KRKA", "KAKB", "KNKAB", "KRKAABB", "KAABKAB", "KNNK", "KPKPB",
    ] {
        let mut symmetric = 0u64;
        let mut cache = xqtb::index::StepCache::new();
        each_quiet_move(m, |ix, i, p, mv| {
            if !is_defender(p.piece_at(mv.from).unwrap().role()) {
                return;
            }
            let mut q = p.clone();
            q.play(mv);
            let full = ix.encode_mirrored(&q).unwrap();
            let at = ix.split(i).unwrap();
            assert_eq!(
                ix.split_cached(&mut cache, i),
                Some(at),
                "{m} {i}: cached split"
            );
            let fast = ix.moved_defender(&at, p.turn(), mv.from, mv.to);
            assert_eq!(fast, Some(full), "{m} {i} {mv}");
            let retro = ix.defender_parent(None, &at, p.turn(), mv.from, mv.to);
            let cached = ix.defender_parent(Some(&mut cache), &at, p.turn(), mv.from, mv.to);
            assert_eq!(cached, retro, "{m} {i} {mv}: cached");
            let sym = q.defenders_symmetric();
            assert_eq!(
                retro,
                (!sym).then_some(full),
                "{m} {i} {mv}: unless symmetric"
            );
            symmetric += u64::from(sym);
        });
        assert!(symmetric > 0, "{m}: no move to symmetric placements");
    }
}

/// The attacker shortcut agrees with a full encode for every quiet move of a rook, horse, cannon
/// or pawn from every legal entry, alone of its kind or with twins (two and three identical
/// pieces), and declines only moves out of the piece's domain.
#[test]
fn moved_attacker_agrees_with_encode() {
    for m in ["KRKA", "KNNK", "KCCKA", "KPPPK", "KNKPP"] {
        let (mut answered, mut twins) = (0u64, 0u64);
        each_quiet_move(m, |ix, i, p, mv| {
            let piece = p.piece_at(mv.from).unwrap();
            if is_defender(piece.role()) {
                return;
            }
            let mut q = p.clone();
            q.play(mv);
            let full = ix.encode_mirrored(&q);
            match ix.moved(i, piece.code(), mv.from, mv.to, p) {
                Some(fast) => {
                    answered += 1;
                    twins += u64::from(p.count(p.turn(), piece.role()) > 1);
                    assert_eq!(Ok((fast, false)), full, "{m} {i} {mv}");
                }
                None => assert!(full.is_err(), "{m} {i} {mv} declined"),
            }
        });
        assert!(answered > 0, "{m}: no move answered");
        if m.contains("NN") || m.contains("CC") || m.contains("PP") {
            assert!(twins > 0, "{m}: no twin's move answered");
        }
    }
}

/// The decoder that keeps the last pair's defenders gives the same positions (and index
/// splits) as a plain decode, in index order and out of it, for both sides to move; so does
/// its lent board, after a
/// borrower has played and taken back moves on it (and when the index before was not a legal
/// placement). Strided walks keep some groups of attackers and change others (the decoder
/// re-places only the groups whose rank changed).
#[test]
fn decoder_agrees_with_decode() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for m in [
        "KRK", "KNKA", "KRKAABB", "KRNKAB", "KAABKCP", "KRKNN", "KRCKR", "KRNKCPP",
    ] {
        let ix = Indexer::new(m.parse().unwrap()).unwrap();
        let mut d = xqtb::index::Decoder::new(&ix);
        let n = ix.size();
        let sequential = (0..n.min(20_000)).map(|i| (i, Color::ALL[(i % 3 == 0) as usize]));
        let strided = [37, 997, 8101].into_iter().flat_map(|stride| {
            (0..5_000u64).map(move |k| ((k * stride) % n, Color::ALL[(k % 5 == 0) as usize]))
        });
        let random: Vec<(u64, Color)> = (0..20_000)
            .map(|_| (rng.gen_range(0..n + 10), Color::ALL[rng.gen_range(0..2)]))
            .collect();
        for (k, (i, turn)) in sequential.chain(strided).chain(random).enumerate() {
            if k % 4 == 0 {
                assert_eq!(d.decode(i, turn), ix.decode(i, turn), "{m} {i} {turn:?}");
                continue;
            }
            if k % 4 == 2 {
                let got = d
                    .decode_split(i, turn)
                    .map(|(pos, split)| (pos.clone(), split));
                let want = ix.decode(i, turn).map(|pos| (pos, ix.split(i).unwrap()));
                assert_eq!(got, want, "{m} {i} {turn:?}");
                continue;
            }
            let lent = d.decode_mut(i, turn);
            assert_eq!(
                lent.as_deref(),
                ix.decode(i, turn).as_ref(),
                "{m} {i} {turn:?}"
            );
            if let Some(pos) = lent {
                for mv in pos.legal_moves() {
                    let undo = pos.play(mv);
                    pos.undo(mv, undo);
                }
                pos.set_turn(!turn);
            }
        }
    }
}
