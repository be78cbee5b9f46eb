//! The index against its specification, `formats/index.md`.
//!
//! Every expected number below was computed from the specification, not by this crate: the
//! tables are the output of `python3 scripts/index_ref.py rust-cases`, an independent Python
//! implementation of `formats/index.md` (the positions themselves are listed in `CASES` in that
//! script), formatted with `rustfmt tests/rules/index_spec.rs`. If the index scheme changes on
//! purpose, bump `INDEX_SCHEME_VERSION`, update the specification and the script, and regenerate
//! these tables; never edit the numbers by hand.

use xqtb::{parse_fen, to_fen, Indexer, Material, INDEX_SCHEME_VERSION};

/// (material, FEN, index, decodes to the mirror image, multiplicity)
const CASES: &[(&str, &str, u64, bool, u8)] = &[
    // red d0 (asymmetric, canonical)
    ("KRK", "4k4/9/9/9/9/9/9/1R7/9/3K5 w - - 0 1", 649, false, 2),
    // mirror image of the previous
    ("KRK", "4k4/9/9/9/9/9/9/7R1/9/5K3 w - - 0 1", 649, true, 2),
    // red asymmetric, black symmetric
    ("KRK", "4k4/9/9/9/9/9/9/9/9/R2K5 b - - 0 1", 630, false, 2),
    // red symmetric, black d9: canonical
    ("KRK", "3k5/9/9/9/9/9/9/9/9/4K3R b - - 0 1", 1178, false, 2),
    // red symmetric, black f9: flipped
    ("KRK", "5k3/9/9/9/9/9/9/9/9/4K3R b - - 0 1", 1170, true, 2),
    // both symmetric, a self-mirror position
    ("KRK", "4k4/9/9/9/4R4/9/9/9/4K4/9 b - - 0 1", 2659, false, 1),
    // red f1: flipped
    ("KRK", "9/3k5/9/9/9/9/9/9/5K3/8R b - - 0 1", 1800, true, 2),
    // red d0: canonical
    (
        "KNKA",
        "3ak4/9/9/9/9/9/9/9/9/3K1N3 w - - 0 1",
        3065,
        false,
        2,
    ),
    // mirror image of the previous
    (
        "KNKA",
        "4ka3/9/9/9/9/9/9/9/9/3N1K3 w - - 0 1",
        3065,
        true,
        2,
    ),
    // both defenders symmetric
    (
        "KNKA",
        "4k4/4a4/9/9/9/9/9/9/9/4K1N2 b - - 0 1",
        5316,
        false,
        1,
    ),
    // mirror image of the previous
    (
        "KNKA",
        "4k4/4a4/9/9/9/9/9/9/9/2N1K4 b - - 0 1",
        5312,
        false,
        1,
    ),
    // red symmetric, black f9: flipped
    (
        "KNKA",
        "5k3/4a4/9/9/9/9/9/2N6/9/4K4 w - - 0 1",
        5064,
        true,
        2,
    ),
    // red f0: flipped, horse on the e-file
    (
        "KNKA",
        "3k5/4a4/9/9/4N4/9/9/9/9/5K3 b - - 0 1",
        3469,
        true,
        2,
    ),
    // the worked example of formats/index.md
    (
        "KNKA",
        "9/3ka4/9/9/9/9/9/6N2/9/5K3 w - - 0 1",
        2180,
        true,
        2,
    ),
    // black symmetric, red d0
    (
        "KRKAABB",
        "2bakab2/9/9/9/9/9/9/9/9/R2K5 w - - 0 1",
        115470,
        false,
        2,
    ),
    // mirror image of the previous
    (
        "KRKAABB",
        "2bakab2/9/9/9/9/9/9/9/9/5K2R w - - 0 1",
        115470,
        true,
        2,
    ),
    // red symmetric, black d9
    (
        "KRKAABB",
        "3k1a3/4a4/4b4/9/2b6/2R6/9/9/9/4K4 b - - 0 1",
        179858,
        false,
        2,
    ),
    // red symmetric, black asymmetric only through an elephant: flipped
    (
        "KRKAABB",
        "3aka3/9/4b4/9/6b2/9/9/9/9/4K2R1 w - - 0 1",
        190351,
        true,
        2,
    ),
    // mirror image of the previous
    (
        "KRKAABB",
        "3aka3/9/4b4/9/2b6/9/9/9/9/1R2K4 w - - 0 1",
        190351,
        false,
        2,
    ),
    // red f0: flipped
    (
        "KRKAABB",
        "2bk5/4a4/3ab4/9/9/9/1R7/9/9/5K3 w - - 0 1",
        120994,
        true,
        2,
    ),
    // red asymmetric through its elephant (c0): canonical
    (
        "KCPABKAABB",
        "2bakab2/9/9/9/9/9/4P4/9/4A4/2B1K2C1 w - - 0 1",
        250633737,
        false,
        2,
    ),
    // mirror image of the previous
    (
        "KCPABKAABB",
        "2bakab2/9/9/9/9/9/4P4/9/4A4/1C2K1B2 w - - 0 1",
        250633737,
        true,
        2,
    ),
    // red d0, pawn over the river
    (
        "KCPABKAABB",
        "3akab2/9/b8/9/4P4/9/9/9/4A4/1C1K2B2 b - - 0 1",
        62172069,
        false,
        2,
    ),
    // red symmetric (e0 e1 e2), black asymmetric: elephants a7+g9 rank 17, their mirror c9+i7 rank 14, so numbered as the mirror image
    (
        "KCPABKAABB",
        "3akab2/4C4/b8/9/2P6/9/9/4B4/4A4/4K4 w - - 0 1",
        261770096,
        true,
        2,
    ),
    // mirror image of the previous
    (
        "KCPABKAABB",
        "2baka3/4C4/8b/9/6P2/9/9/4B4/4A4/4K4 w - - 0 1",
        261770096,
        false,
        2,
    ),
    // both defender sets symmetric
    (
        "KCPABKAABB",
        "2bakab2/9/9/9/9/2P6/9/4B4/4A4/1C2K4 b - - 0 1",
        261770911,
        false,
        1,
    ),
    // mirror image of the previous
    (
        "KCPABKAABB",
        "2bakab2/9/9/9/9/6P2/9/4B4/4A4/4K2C1 b - - 0 1",
        261771243,
        false,
        1,
    ),
    // red d0: canonical
    (
        "KRCKR",
        "4k4/9/9/9/9/r8/9/2C6/9/3K1R3 w - - 0 1",
        5145336,
        false,
        2,
    ),
    // mirror image of the previous
    (
        "KRCKR",
        "4k4/9/9/9/9/8r/9/6C2/9/3R1K3 w - - 0 1",
        5145336,
        true,
        2,
    ),
    // both kings symmetric
    (
        "KRCKR",
        "4k4/9/9/9/4C4/9/9/9/4K4/R7r b - - 0 1",
        21145418,
        false,
        1,
    ),
    // mirror image of the previous
    (
        "KRCKR",
        "4k4/9/9/9/4C4/9/9/9/4K4/r7R b - - 0 1",
        21210210,
        false,
        1,
    ),
    // red d0: canonical
    (
        "KPPKAA",
        "3aka3/9/9/9/4P4/9/P8/9/9/3K5 w - - 0 1",
        93646,
        false,
        2,
    ),
    // mirror image of the previous
    (
        "KPPKAA",
        "3aka3/9/9/9/4P4/9/8P/9/9/5K3 w - - 0 1",
        93646,
        true,
        2,
    ),
    // red symmetric, black d9
    (
        "KPPKAA",
        "3k5/4a4/5a3/9/9/2P1P4/9/9/4K4/9 b - - 0 1",
        305937,
        false,
        2,
    ),
    // both symmetric
    (
        "KPPKAA",
        "3aka3/9/9/9/4P4/9/2P6/9/4K4/9 w - - 0 1",
        319367,
        false,
        1,
    ),
    // mirror image of the previous
    (
        "KPPKAA",
        "3aka3/9/9/9/4P4/9/6P2/9/4K4/9 w - - 0 1",
        319369,
        false,
        1,
    ),
    // both symmetric, self-mirror
    (
        "KPPKAA",
        "3aka3/9/9/9/4P4/9/4P4/9/4K4/9 w - - 0 1",
        319368,
        false,
        1,
    ),
];

/// (material, pair_count, others_size, size): entries per side to move.
const SIZES: &[(&str, u64, u64, u64)] = &[
    ("KK", 45, 1, 45),
    ("KRK", 45, 90, 4050),
    ("KNKA", 183, 90, 16470),
    ("KAKA", 802, 1, 802),
    ("KRKAABB", 6372, 90, 573480),
    ("KPPKAA", 324, 1485, 481140),
    ("KRCKR", 45, 729000, 32805000),
    ("KABKAB", 37813, 1, 37813),
    ("KCPABKAABB", 193884, 4950, 959725800),
    ("KAABBKAABB", 994212, 1, 994212),
    ("KRNKAABB", 6372, 8100, 51613200),
    ("KPPPPPKAABB", 6372, 3478761, 22166665092),
    ("KRRCCNNKAABB", 6372, 64240300125, 409339192396500),
];

fn indexer(material: &str) -> Indexer {
    let m: Material = material.parse().expect("material");
    Indexer::new(m).expect("index size fits in u64")
}

#[test]
fn scheme_version_is_the_specified_one() {
    assert_eq!(
        INDEX_SCHEME_VERSION, 1,
        "formats/index.md specifies version 1"
    );
}

#[test]
fn spec_positions_have_the_specified_indices() {
    assert!(CASES.len() >= 20);
    for &(material, fen, expected, mirrored, multiplicity) in CASES {
        let ix = indexer(material);
        let pos = parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let index = ix
            .encode(&pos)
            .unwrap_or_else(|e| panic!("{material} {fen}: {e}"));
        assert_eq!(index, expected, "{material} {fen}");
        assert!(index < ix.size(), "{material} {fen}");

        // The mirror image shares the entry unless both defender sets are symmetric.
        let m = pos.mirror();
        let mirror_index = ix.encode(&m).unwrap();
        assert_eq!(
            mirror_index == index,
            multiplicity == 2 || m == pos,
            "{material} {fen}"
        );

        let back = ix
            .decode(index, pos.turn())
            .unwrap_or_else(|| panic!("{material} {fen}: index {index} decodes to a collision"));
        let want = if mirrored { &m } else { &pos };
        assert!(
            back == pos || back == m,
            "{material} {fen}: {index} decodes to {}",
            to_fen(&back)
        );
        assert_eq!(
            &back,
            want,
            "{material} {fen}: {index} decodes to {}, expected the {}",
            to_fen(&back),
            if mirrored {
                "mirror image"
            } else {
                "position itself"
            }
        );
        assert_eq!(ix.multiplicity(index), multiplicity, "{material} {fen}");
    }
}

#[test]
fn spec_index_sizes() {
    for &(material, pairs, others, size) in SIZES {
        let ix = indexer(material);
        assert_eq!(ix.pair_count(), pairs, "{material} pairs");
        assert_eq!(ix.others_size(), others, "{material} others");
        assert_eq!(ix.size(), size, "{material} size");
    }
}

#[test]
fn sizes_of_2_pow_64_or_more_are_refused() {
    for material in ["KRRCCNNPPPPPKAABB", "KRRCCNNPPPPPKRRCCNNPPPPP"] {
        let m: Material = material.parse().unwrap();
        assert!(Indexer::new(m).is_err(), "{material}");
    }
}
