//! Malformed input is an error, never a panic; valid positions survive every notation.

use proptest::prelude::*;
use xqtb::{
    parse_fen, parse_qstring, to_fen, to_qstring, Color, Indexer, Material, Piece, Position, Role,
    Square,
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn fen_parser_never_panics(s in "[kabnrcpehKABNRCPEHx0-9/ wb-]{0,120}") {
        let _ = parse_fen(&s);
    }

    #[test]
    fn fen_parser_never_panics_on_any_text(s in "\\PC{0,100}") {
        let _ = parse_fen(&s);
        let _ = parse_qstring(&s);
        let _ = s.parse::<Material>();
    }

    #[test]
    fn query_string_parser_never_panics(s in "[kbernpcKBERNPCx0-9:]{0,120}") {
        let _ = parse_qstring(&s);
    }

    #[test]
    fn material_parser_never_panics(s in "[KRCNPABEHkx]{0,20}") {
        let _ = s.parse::<Material>();
    }

    /// Any legal position decoded from an index prints and parses back in both notations.
    #[test]
    fn notations_round_trip(material in prop::sample::select(vec!["KRKAABB", "KCPABKAABB", "KNNKCC", "KPPPKAB", "KRCKRA"]),
                            frac in 0.0f64..1.0, black in any::<bool>()) {
        let ix = Indexer::new(material.parse().unwrap()).unwrap();
        let turn = if black { Color::Black } else { Color::Red };
        let i = ((ix.size() as f64 * frac) as u64).min(ix.size() - 1);
        if let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) {
            prop_assert_eq!(&parse_fen(&to_fen(&pos)).unwrap(), &pos);
            prop_assert_eq!(&parse_qstring(&to_qstring(&pos, false)).unwrap().position, &pos);
            prop_assert_eq!(&pos.flip_colors().flip_colors(), &pos);
            prop_assert_eq!(&pos.mirror().mirror(), &pos);
        }
    }
}

/// A position built by hand with a piece where the index has no slot is an error naming it.
#[test]
fn encode_names_a_piece_off_its_points() {
    let ix = Indexer::new("KKB".parse().unwrap()).unwrap();
    let mut pos = Position::empty(Color::Red);
    pos.put(
        Square::parse("d0").unwrap(),
        Piece::new(Color::Red, Role::King),
    );
    pos.put(
        Square::parse("e9").unwrap(),
        Piece::new(Color::Black, Role::King),
    );
    pos.put(
        Square::parse("e4").unwrap(),
        Piece::new(Color::Black, Role::Elephant),
    );
    let err = ix.encode(&pos).unwrap_err().to_string();
    assert!(err.contains("elephant") && err.contains("e4"), "{err}");
}

/// `put` keeps a colour within its role's maximum and one king, so move lists cannot overflow
/// and the king table stays true.
#[test]
fn put_refuses_impossible_material() {
    let mut pos = Position::empty(Color::Red);
    let rook = Piece::new(Color::Red, Role::Rook);
    let placed = (0..8u8)
        .filter(|&i| pos.put(Square::from_coords(i, i), rook))
        .count();
    assert_eq!(placed, 2);
    assert!(pos.put(
        Square::parse("e0").unwrap(),
        Piece::new(Color::Red, Role::King)
    ));
    assert!(!pos.put(
        Square::parse("d0").unwrap(),
        Piece::new(Color::Red, Role::King)
    ));
    assert_eq!(pos.king(Color::Red), Square::parse("e0"));
    assert_eq!(Square::try_new(90), None);
    assert_eq!(Square::try_new(89), Square::parse("i9"));
}

/// The colour-flipped twin: material swapped, side to move swapped, moves turned 180°.
#[test]
fn flip_colors_maps_material_turn_and_moves() {
    for fen in [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
        "4k4/4a4/9/9/9/4N4/9/5K3/9/9 b",
        "3k5/9/9/9/9/2p6/4P4/9/9/4K4 b",
    ] {
        let pos = parse_fen(fen).unwrap();
        let twin = pos.flip_colors();
        assert_eq!(Material::of(&twin), Material::of(&pos).flipped());
        assert_eq!(twin.turn(), !pos.turn());
        let mut want: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| format!("{}{}", m.from.rotate(), m.to.rotate()))
            .collect();
        let mut got: Vec<String> = twin.legal_moves().iter().map(|m| m.to_string()).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{fen}");
        // And the mirror image's moves are the mirrored moves.
        let mut want: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| format!("{}{}", m.from.mirror(), m.to.mirror()))
            .collect();
        let mut got: Vec<String> = pos
            .mirror()
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{fen}");
    }
}
