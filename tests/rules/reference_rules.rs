//! Cross-checks the crate's rules core against the naive reference in `tests/reference/`:
//! legal moves and check detection on random positions, perft, legal position counts by brute
//! force, and retro moves against a brute-force predecessor search.

use crate::reference::{self, Occupancy, RefMove, RefPos};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::time::Instant;
use xqtb::{parse_fen, to_fen, Color, Indexer, Material, Move, Piece, Position, Role, Square};

fn role_of(c: char) -> Role {
    match c {
        'K' => Role::King,
        'A' => Role::Advisor,
        'B' => Role::Elephant,
        'N' => Role::Horse,
        'R' => Role::Rook,
        'C' => Role::Cannon,
        'P' => Role::Pawn,
        _ => panic!("role {c:?}"),
    }
}

fn color_of(red: bool) -> Color {
    if red {
        Color::Red
    } else {
        Color::Black
    }
}

/// The crate position with the same pieces and side to move, built with `put` (so it works for
/// illegal positions too, which `parse_fen` rejects).
fn to_crate(pos: &RefPos) -> Position {
    let mut p = Position::empty(color_of(pos.red_to_move));
    for ((file, rank), (red, role)) in pos.pieces() {
        let sq = Square::from_coords(file as u8, rank as u8);
        assert!(p.put(sq, Piece::new(color_of(red), role_of(role))));
    }
    assert_eq!(to_fen(&p), reference::to_fen(pos), "board transfer");
    p
}

fn ref_move_strings(moves: &[RefMove]) -> Vec<String> {
    let mut v: Vec<String> = moves.iter().map(|m| m.uci()).collect();
    v.sort();
    v
}

fn crate_move_strings<'a>(moves: impl IntoIterator<Item = &'a Move>) -> Vec<String> {
    let mut v: Vec<String> = moves.into_iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

/// Compares legal moves, check status and the has-a-move flag of one position.
fn compare_position(rp: &RefPos, cp: &Position) {
    let fen = reference::to_fen(rp);
    let want = ref_move_strings(&reference::legal_moves(rp));
    let got = crate_move_strings(cp.legal_moves().iter());
    if want != got {
        let w: BTreeSet<_> = want.iter().collect();
        let g: BTreeSet<_> = got.iter().collect();
        panic!(
            "legal moves differ for {fen}\n  missing from crate: {:?}\n  extra in crate: {:?}",
            w.difference(&g).collect::<Vec<_>>(),
            g.difference(&w).collect::<Vec<_>>()
        );
    }
    assert_eq!(
        cp.has_legal_move(),
        !want.is_empty(),
        "has_legal_move for {fen}"
    );
    for red in [true, false] {
        assert_eq!(
            cp.in_check(color_of(red)),
            reference::in_check(rp, red),
            "in_check({}) for {fen}",
            if red { "Red" } else { "Black" }
        );
    }
    assert_eq!(
        cp.opponent_in_check(),
        reference::in_check(rp, !rp.red_to_move),
        "opponent_in_check for {fen}"
    );
}

#[test]
fn reference_occupancy_matches_the_rules() {
    // The flood-filled points agree with the points the rules text names.
    let occ = Occupancy::new();
    let names = |red: bool, role: char| -> Vec<String> {
        let mut v: Vec<String> = occ
            .of(red, role)
            .iter()
            .map(|&p| reference::pt_name(p))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names(true, 'K'),
        ["d0", "d1", "d2", "e0", "e1", "e2", "f0", "f1", "f2"]
    );
    assert_eq!(names(true, 'A'), ["d0", "d2", "e1", "f0", "f2"]);
    assert_eq!(names(false, 'A'), ["d7", "d9", "e8", "f7", "f9"]);
    assert_eq!(names(true, 'B'), ["a2", "c0", "c4", "e2", "g0", "g4", "i2"]);
    assert_eq!(
        names(false, 'B'),
        ["a7", "c5", "c9", "e7", "g5", "g9", "i7"]
    );
    // Pawns: ranks 3-4 on files a, c, e, g, i, and all 45 points beyond the river.
    assert_eq!(occ.of(true, 'P').len(), 10 + 45);
    assert!(occ.can_occupy(true, 'P', (2, 4)));
    assert!(!occ.can_occupy(true, 'P', (1, 4)));
    assert!(occ.can_occupy(true, 'P', (1, 5)));
    assert!(occ.can_occupy(true, 'P', (3, 9)));
    assert!(!occ.can_occupy(true, 'P', (0, 2)));
    assert!(occ.can_occupy(false, 'P', (0, 6)));
    assert!(!occ.can_occupy(false, 'P', (1, 5)));
    assert!(occ.can_occupy(false, 'P', (1, 4)));
    for role in ['R', 'C', 'N'] {
        assert_eq!(occ.of(true, role).len(), 90);
        assert_eq!(occ.of(false, role).len(), 90);
    }
}

/// Materials for the random legal-move comparison, with positions per material.
const MOVE_MATERIALS: &[(&str, usize)] = &[
    ("KRK", 1200),
    ("KCK", 1200),
    ("KNK", 1200),
    ("KPK", 1200),
    ("KAKB", 600),
    ("KRKAABB", 1200),
    ("KCPABKAABB", 1200),
    ("KRCKR", 1200),
    ("KNNKCC", 1200),
    ("KRRKRR", 1200),
    ("KPPPKAA", 1200),
    ("KCKC", 1200),
    ("KCCKCC", 1200),
    ("KCCKAABB", 1200),
    ("KNNBBKNNAA", 1200),
    ("KNBBKNAAB", 1200),
    ("KPPPPPKPPPPP", 800),
    ("KRCNPABKRCNPAB", 1000),
    ("KCCNNAABBKRRPPPPP", 800),
    ("KRRCCNNPPPPPAABBKRRCCNNPPPPPAABB", 800),
];

/// Hand-picked positions: facing kings, cannon screens (including kings as screens), blocked
/// horse legs and elephant eyes, pawns at the river and on the last rank.
const HAND_FENS: &[&str] = &[
    // Kings on one file, one piece between: it is pinned to the file.
    "4k4/9/9/9/4N4/9/9/9/9/4K4 w",
    "4k4/9/9/9/4r4/9/9/9/9/4K4 w",
    "4k4/9/9/9/4n4/9/9/9/9/4K4 b",
    // The king may not step onto the open file of the other king.
    "4k4/9/9/9/9/9/9/9/9/3K5 w",
    "3k5/9/9/9/9/9/9/9/4K4/9 b",
    // A cannon with the enemy king as screen, and one with its own king as screen.
    "4k4/9/9/9/9/9/9/4C4/9/4K4 b",
    "3k5/9/9/9/3C5/9/9/9/9/3K5 b",
    "4k4/9/9/4c4/9/9/9/9/4A4/4K4 w",
    // Horses with blocked and open legs, near the edges.
    "3k5/9/9/9/9/4p4/3pNp3/4p4/9/4K4 w",
    "4k4/9/9/9/9/9/9/9/1N7/N2K5 w",
    "N3k4/1P7/9/9/9/9/9/9/9/3K5 w",
    // Elephants: blocked eyes and the river.
    "4k4/9/9/9/9/2B6/3N1p3/4B4/9/3K5 w",
    "4k4/9/4b4/3P1P3/9/9/9/9/9/3K5 b",
    // Pawns at the river, at the edge and on the last rank.
    "3k4P/9/9/9/9/P7P/p8/9/9/4K3p w",
    "P2k4P/9/9/9/9/P7P/p8/9/9/4K3p b",
    // Start position and a crowded middle game.
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
];

#[test]
fn legal_moves_match_reference() {
    let start = Instant::now();
    let occ = Occupancy::new();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5851_7462_0001);
    let mut checked = 0usize;
    let mut total_moves = 0usize;
    let mut in_check_seen = 0usize;
    let mut no_move_seen = 0usize;
    for &(material, n) in MOVE_MATERIALS {
        let (red, black) = reference::split_material(material);
        for i in 0..n {
            let red_to_move = i % 2 == 0;
            let rp = reference::random_legal(&occ, &red, &black, red_to_move, &mut rng);
            let fen = reference::to_fen(&rp);
            let cp = parse_fen(&fen).unwrap_or_else(|e| panic!("crate rejects {fen}: {e}"));
            assert_eq!(to_fen(&cp), fen);
            compare_position(&rp, &cp);
            checked += 1;
            total_moves += reference::legal_moves(&rp).len();
            in_check_seen += reference::in_check(&rp, red_to_move) as usize;
            no_move_seen += reference::legal_moves(&rp).is_empty() as usize;
        }
    }
    // Illegal placements too (side not to move in check): move generation and check detection
    // must still agree move for move.
    for &(material, n) in MOVE_MATERIALS {
        let (red, black) = reference::split_material(material);
        for i in 0..n / 10 {
            let rp = reference::random_illegal(&occ, &red, &black, i % 2 == 0, &mut rng);
            assert!(parse_fen(&reference::to_fen(&rp)).is_err());
            compare_position(&rp, &to_crate(&rp));
            checked += 1;
        }
    }
    for fen in HAND_FENS {
        let rp = reference::parse_fen(fen);
        assert!(occ.all_placed_well(&rp), "{fen}");
        let cp = parse_fen(fen).unwrap_or_else(|e| panic!("crate rejects {fen}: {e}"));
        compare_position(&rp, &cp);
        checked += 1;
    }
    eprintln!(
        "legal_moves_match_reference: {checked} positions, {total_moves} legal moves, \
         {in_check_seen} with side to move in check, {no_move_seen} without a legal move, {:.2?}",
        start.elapsed()
    );
    assert!(in_check_seen > 500 && no_move_seen > 50);
}

/// Walks the reference and crate move trees together, comparing the legal moves at every
/// interior node; returns the leaf count at `depth`.
fn perft_both(rp: &RefPos, cp: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = reference::legal_moves(rp);
    let want = ref_move_strings(&moves);
    let got = crate_move_strings(cp.legal_moves().iter());
    assert_eq!(want, got, "legal moves differ at {}", reference::to_fen(rp));
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut n = 0;
    for m in moves {
        let cm = Move::parse(&m.uci()).unwrap();
        let undo = cp.play(cm);
        let next = rp.after(m);
        assert_eq!(to_fen(cp), reference::to_fen(&next));
        n += perft_both(&next, cp, depth - 1);
        cp.undo(cm, undo);
    }
    n
}

#[test]
fn perft_matches_reference() {
    let start = Instant::now();
    // Published counts (Chess Programming Wiki, "Chinese Chess Perft Results").
    let cases: &[(&str, [u64; 3])] = &[
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            [44, 1920, 79666],
        ),
        (
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            [38, 1128, 43929],
        ),
        (
            "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
            [25, 424, 9850],
        ),
        (
            "C1nNk4/9/9/9/9/9/n1pp5/B3C4/9/3A1K3 w - - 0 1",
            [28, 222, 6241],
        ),
    ];
    let mut nodes = 0;
    for (fen, counts) in cases {
        let rp = reference::parse_fen(fen);
        let mut cp = parse_fen(fen).unwrap();
        for depth in 1..=3u32 {
            let want = counts[depth as usize - 1];
            assert_eq!(
                reference::perft(&rp, depth),
                want,
                "reference perft {depth} {fen}"
            );
            assert_eq!(xqtb::perft(&cp, depth), want, "crate perft {depth} {fen}");
        }
        nodes += perft_both(&rp, &mut cp, 3);
        assert_eq!(to_fen(&cp), *fen, "play/undo restores the position");
    }
    eprintln!(
        "perft_matches_reference: 4 positions to depth 3, {nodes} leaves, {:.2?}",
        start.elapsed()
    );
}

#[test]
fn legal_counts_match_brute_force() {
    let occ = Occupancy::new();
    // Published figures (Red to move, Black to move).
    let cases: &[(&str, u64, u64)] = &[
        ("KRK", 3834, 4914),
        ("KNKA", 21426, 22806),
        ("KRKAABB", 719532, 840762),
    ];
    for &(material, red_count, black_count) in cases {
        let indexer = Indexer::new(material.parse::<Material>().unwrap()).unwrap();
        for (red_to_move, published) in [(true, red_count), (false, black_count)] {
            let start = Instant::now();
            let brute = reference::count_legal(&occ, material, red_to_move);
            let census = indexer.census(color_of(red_to_move)).legal;
            eprintln!(
                "legal_counts_match_brute_force: {material} {} to move: brute force {brute}, \
                 census {census}, published {published}, {:.2?}",
                if red_to_move { "Red" } else { "Black" },
                start.elapsed()
            );
            assert_eq!(brute, published, "{material} brute force vs published");
            assert_eq!(census, published, "{material} census vs published");
        }
    }
}

/// Materials for the retro-move comparison, with positions per material.
const RETRO_MATERIALS: &[(&str, usize)] = &[
    ("KRK", 900),
    ("KCK", 900),
    ("KNK", 900),
    ("KPK", 900),
    ("KPKP", 900),
    ("KRKAABB", 900),
    ("KNKA", 900),
    ("KCPABKAABB", 900),
    ("KRCKR", 900),
    ("KNNKCC", 900),
    ("KCKC", 900),
    ("KPPPKAA", 900),
    ("KNBBKNAAB", 900),
    ("KPPPPPKPPPPP", 450),
    ("KRCNPABKRCNPAB", 450),
    ("KRRCCNNPPPPPAABBKRRCCNNPPPPPAABB", 160),
];

fn move_set_ref(moves: &[RefMove]) -> BTreeSet<String> {
    moves.iter().map(|m| m.uci()).collect()
}

fn move_set_crate<'a>(moves: impl IntoIterator<Item = &'a Move>) -> BTreeSet<String> {
    moves.into_iter().map(|m| m.to_string()).collect()
}

/// One retro-move disagreement: the position, what the crate lacks and what it adds.
struct RetroMismatch {
    fen: String,
    missing: Vec<String>,
    extra: Vec<String>,
}

/// Compares the crate's retro moves with the brute-force predecessors; returns how many
/// predecessors there are, or the disagreement.
fn compare_retro(occ: &Occupancy, rp: &RefPos, cp: &Position) -> Result<usize, RetroMismatch> {
    let fen = reference::to_fen(rp);
    let want_moves = reference::brute_force_retro(occ, rp);
    let want = move_set_ref(&want_moves);
    assert_eq!(
        want.len(),
        want_moves.len(),
        "duplicate predecessors for {fen}"
    );
    let list = cp.retro_moves();
    let got = move_set_crate(list.iter());
    assert_eq!(
        got.len(),
        list.len(),
        "crate returned a duplicate retro move for {fen}"
    );
    if want != got {
        return Err(RetroMismatch {
            fen,
            missing: want.difference(&got).cloned().collect(),
            extra: got.difference(&want).cloned().collect(),
        });
    }
    Ok(want.len())
}

/// Why a predecessor is not a legal table position (or "?" if it is one).
fn explain_predecessor(occ: &Occupancy, p: &RefPos, forward: &str) -> String {
    let m = Move::parse(forward).unwrap();
    let from = (m.from.file() as i32, m.from.rank() as i32);
    let to = (m.to.file() as i32, m.to.rank() as i32);
    let Some((red, role)) = p.at(to) else {
        return format!("{forward}: no piece on {}", reference::pt_name(to));
    };
    if red == p.red_to_move {
        return format!("{forward}: moves a piece of the side to move");
    }
    if p.at(from).is_some() {
        return format!("{forward}: origin occupied");
    }
    let mut q = p.clone();
    q.set(to, None);
    q.set(from, Some((red, role)));
    q.red_to_move = red;
    let qfen = reference::to_fen(&q);
    if !occ.can_occupy(red, role, from) {
        // What the crate itself says about that predecessor.
        let parsed = match parse_fen(&qfen) {
            Ok(_) => "accepted".to_string(),
            Err(e) => format!("rejected: {e}"),
        };
        let encoded = match Indexer::new(Material::of(&to_crate(&q))) {
            Err(e) => format!("no indexer: {e}"),
            Ok(indexer) => match indexer.encode(&to_crate(&q)) {
                Ok(i) => format!("index {i}"),
                Err(e) => format!("error: {e}"),
            },
        };
        return format!(
            "{forward}: predecessor {qfen} puts a {} {role} on {}, a point it can never occupy \
             (crate parse_fen: {parsed}; Indexer::encode: {encoded})",
            if red { "Red" } else { "Black" },
            reference::pt_name(from)
        );
    }
    if reference::in_check(&q, !red) {
        return format!("{forward}: in predecessor {qfen} the side not to move is in check");
    }
    if !reference::legal_moves(&q).contains(&RefMove { from, to }) {
        return format!("{forward}: not a legal move in predecessor {qfen}");
    }
    format!("{forward}: predecessor {qfen} looks legal")
}

#[test]
fn retro_moves_match_brute_force() {
    let start = Instant::now();
    let occ = Occupancy::new();
    let mut rng = ChaCha8Rng::seed_from_u64(0x5851_7462_0003);
    let mut legal_checked = 0usize;
    let mut illegal_checked = 0usize;
    let mut predecessors = 0usize;
    let mut without_predecessor = 0usize;
    let mut mismatches: Vec<RetroMismatch> = Vec::new();
    let mut record = |rp: &RefPos, result: Result<usize, RetroMismatch>| match result {
        Ok(k) => k,
        Err(mut e) => {
            e.extra = e
                .extra
                .iter()
                .map(|m| explain_predecessor(&occ, rp, m))
                .collect();
            mismatches.push(e);
            0
        }
    };
    for &(material, n) in RETRO_MATERIALS {
        let t0 = Instant::now();
        let (red, black) = reference::split_material(material);
        for i in 0..n {
            let red_to_move = i % 2 == 0;
            let rp = reference::random_legal(&occ, &red, &black, red_to_move, &mut rng);
            let cp = parse_fen(&reference::to_fen(&rp)).unwrap();
            let k = record(&rp, compare_retro(&occ, &rp, &cp));
            predecessors += k;
            without_predecessor += (k == 0) as usize;
            legal_checked += 1;
        }
        // Illegal positions (the side not to move in check) have no predecessors.
        for _ in 0..(n / 10).max(10) {
            let rp = reference::random_illegal(&occ, &red, &black, rng.gen(), &mut rng);
            let cp = to_crate(&rp);
            assert!(cp.opponent_in_check());
            assert!(reference::brute_force_retro(&occ, &rp).is_empty());
            assert!(
                cp.retro_moves().is_empty(),
                "illegal position {} has crate retro moves",
                reference::to_fen(&rp)
            );
            record(&rp, compare_retro(&occ, &rp, &cp));
            illegal_checked += 1;
        }
        eprintln!("  retro {material}: {n} positions, {:.2?}", t0.elapsed());
    }
    eprintln!(
        "retro_moves_match_brute_force: {legal_checked} legal positions ({predecessors} \
         predecessors, {without_predecessor} with none), {illegal_checked} illegal positions, \
         {} disagreements, {:.2?}",
        mismatches.len(),
        start.elapsed()
    );
    if !mismatches.is_empty() {
        let mut report = String::new();
        for m in mismatches.iter().take(10) {
            report.push_str(&format!(
                "\n  {}\n    missing from crate: {:?}\n    extra in crate: {:?}",
                m.fen, m.missing, m.extra
            ));
        }
        panic!(
            "retro moves differ from brute force in {} positions; the first ones:{report}",
            mismatches.len()
        );
    }
}

/// Focused cases for pawn retro moves: a pawn on its start point has no pawn predecessor, and a
/// pawn just across the river on a b/d/f/h file arrived sideways along the far bank, never
/// straight from its own half (no pawn can stand on b/d/f/h there).
#[test]
fn retro_pawn_moves_match_brute_force() {
    let occ = Occupancy::new();
    let fens = [
        // Red pawn on its start point e3: not from e2.
        "9/9/4k4/9/9/9/4P4/5K3/9/9 b",
        // Red pawn on d5: sideways from c5 or e5, not from d4 (no Red pawn can stand there).
        "9/9/5k3/9/3P5/9/9/9/3K5/9 b",
        // Red pawn on c5: from c4 (straight), b5 and d5 (sideways).
        "9/9/5k3/9/2P6/9/9/9/3K5/9 b",
        // The same for Black: pawn on its start point e6, on d4, and on c4.
        "9/9/3k5/4p4/9/9/9/9/5K3/9 w",
        "9/9/5k3/9/9/3p5/9/9/4K4/9 w",
        "9/9/5k3/9/9/2p6/9/9/4K4/9 w",
    ];
    let mut failures = Vec::new();
    for fen in fens {
        let rp = reference::parse_fen(fen);
        let cp = parse_fen(fen).unwrap();
        if let Err(e) = compare_retro(&occ, &rp, &cp) {
            let extra: Vec<String> = e
                .extra
                .iter()
                .map(|m| explain_predecessor(&occ, &rp, m))
                .collect();
            failures.push(format!(
                "{}: missing from crate {:?}, extra in crate {:?}",
                e.fen, e.missing, extra
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
