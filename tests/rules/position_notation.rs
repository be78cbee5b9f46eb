//! FEN, the query system's position string, and material signatures.

use xqtb::{
    parse_fen, parse_position, parse_qstring, to_fen, to_qstring, Color, Material, ParseError,
    Role, Square,
};

#[test]
fn fen_round_trip_and_fields() {
    let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
    let pos = parse_fen(fen).unwrap();
    assert_eq!(to_fen(&pos), fen);
    // Side field optional; other fields ignored; E and H accepted for elephant and horse.
    let short = parse_fen("4k4/9/9/9/9/9/9/9/9/3K5").unwrap();
    assert_eq!(short.turn(), Color::Red);
    let b = parse_fen("4k4/9/9/9/9/9/9/9/9/3K5 b 1 2 3").unwrap();
    assert_eq!(b.turn(), Color::Black);
    let eh = parse_fen("2e1k4/9/4h4/9/9/9/9/9/9/3K2E2 w").unwrap();
    assert_eq!(
        eh.piece_at(Square::parse("c9").unwrap()).unwrap().role(),
        Role::Elephant
    );
    assert_eq!(
        eh.piece_at(Square::parse("e7").unwrap()).unwrap().role(),
        Role::Horse
    );
    assert_eq!(to_fen(&eh), "2b1k4/9/4n4/9/9/9/9/9/9/3K2B2 w - - 0 1");
}

#[test]
fn fen_errors_name_the_problem() {
    let err = |fen: &str| parse_fen(fen).unwrap_err();
    assert_eq!(err(""), ParseError::Empty);
    assert_eq!(err("4k4/9/9/9/9/9/9/9/3K5 w"), ParseError::RankCount(9));
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/9/3K6 w"),
        ParseError::RankLength { rank: 0, len: 10 }
    );
    assert_eq!(
        err("4k4/8/9/9/9/9/9/9/9/3K5 w"),
        ParseError::RankLength { rank: 8, len: 8 }
    );
    assert_eq!(
        err("4k4/9/9/9/4x4/9/9/9/9/3K5 w"),
        ParseError::UnknownLetter('x')
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/9/3K5 x"),
        ParseError::BadSide("x".into())
    );
    assert_eq!(
        err("3kk4/9/9/9/9/9/9/9/9/3K5 w"),
        ParseError::TwoKings {
            color: Color::Black
        }
    );
    assert_eq!(
        err("9/9/9/9/9/9/9/9/9/3K5 w"),
        ParseError::NoKing {
            color: Color::Black
        }
    );
    // A king outside its palace, an advisor off its points, an elephant across the river, a pawn
    // that has not left... its back rank.
    let bad = |fen: &str, role: Role, sq: &str| {
        assert_eq!(
            err(fen),
            ParseError::BadSquare {
                color: Color::Red,
                role,
                square: Square::parse(sq).unwrap()
            },
            "{fen}"
        )
    };
    bad("4k4/9/9/9/9/9/9/9/9/2K6 w", Role::King, "c0");
    bad("4k4/9/9/9/9/9/9/9/9/3KA4 w", Role::Advisor, "e0");
    bad("4k4/9/9/9/2B6/9/9/9/9/3K5 w", Role::Elephant, "c5");
    bad("4k4/9/9/9/9/9/9/9/9/3K1P3 w", Role::Pawn, "f0");
    bad("4k4/9/9/9/9/9/1P7/9/9/3K5 w", Role::Pawn, "b3");
    assert_eq!(
        err("4k4/9/9/9/9/9/R8/R8/R8/3K5 w"),
        ParseError::TooMany {
            color: Color::Red,
            role: Role::Rook,
            max: 2
        }
    );
    // Facing kings with Red to move: Black, not to move, is in check.
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/9/4K4 w"),
        ParseError::OpponentInCheck(Color::Black)
    );
    // Every message names the problem in words.
    assert!(err("4k4/9/9/9/9/9/9/9/9/3K6 w")
        .to_string()
        .contains("rank 0"));
}

/// The worked example of the query system's page (shared/the query system's pages): a knight against a single
/// advisor. Black's king e9 and advisor e8 (capitals), Red's horse e4 and king f2 (small letters).
#[test]
fn query_string_example_from_the_query_system() {
    let q = parse_qstring("4K44B49994n495k399").unwrap();
    assert_eq!(to_fen(&q.position), "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w - - 0 1");
    assert!(!q.black_view);
    let q0 = parse_qstring("4K44B49994n495k3990").unwrap();
    assert_eq!(q0.position.turn(), Color::Black);
    let flipped = parse_qstring("4K44B49994n495k3990:").unwrap();
    assert!(flipped.black_view);
    assert_eq!(flipped.position, q0.position);
    assert_eq!(to_qstring(&q.position, false), "4K44B49994n495k399");
    assert_eq!(to_qstring(&flipped.position, true), "4K44B49994n495k3990:");
    // Accepted wherever a FEN is.
    assert_eq!(parse_position("4K44B49994n495k399").unwrap(), q.position);
}

#[test]
fn query_string_round_trips_the_start_position() {
    let start = xqtb::Position::startpos();
    let q = to_qstring(&start, false);
    assert_eq!(q, "RNEBKBENR91C5C1P1P1P1P1P99p1p1p1p1p1c5c19rnebkbenr");
    assert_eq!(parse_qstring(&q).unwrap().position, start);
}

#[test]
fn zero_runs_are_rejected() {
    // A 0 inside the board would silently swallow a misplaced side marker.
    assert_eq!(
        parse_qstring("4K44B49994n495k3909"),
        Err(ParseError::ZeroRun)
    );
    assert_eq!(
        parse_qstring("04K44B49994n495k399"),
        Err(ParseError::ZeroRun)
    );
    assert_eq!(
        parse_fen("4k4/9/9/9/9/9/9/9/9/03K5 w"),
        Err(ParseError::ZeroRun)
    );
}

#[test]
fn adjacent_runs_are_rejected() {
    // `4K22` adds up to 9 points but is no FEN a program writes: a typo, not a position.
    assert!(matches!(
        parse_fen("4k4/9/9/9/9/9/9/9/9/4K22 w"),
        Err(ParseError::AdjacentRuns { rank: 0, .. })
    ));
    assert!(parse_fen("3k5/9/9/9/9/9/9/9/9/4K4 w").is_ok());
    assert!(matches!(
        parse_fen("3k5/9/9/9/9/9/9/9/9/3K32 w"),
        Err(ParseError::AdjacentRuns { rank: 0, .. })
    ));
}

#[test]
fn query_string_errors() {
    assert!(matches!(
        parse_qstring("4K44B49994n495k39"),
        Err(ParseError::PointCount(81))
    ));
    assert!(matches!(
        parse_qstring("4K44B49994n495k3991"),
        Err(ParseError::Trailing(_))
    ));
    assert!(matches!(
        parse_qstring("4K44B49994x495k399"),
        Err(ParseError::UnknownLetter('x'))
    ));
    assert!(matches!(
        parse_qstring("4K54B39994n495k399"),
        Err(ParseError::RankLength { .. })
    ));
    assert!(matches!(parse_qstring(""), Err(ParseError::Empty)));
}

#[test]
fn material_signatures() {
    let m: Material = "KCPABKAABB".parse().unwrap();
    assert_eq!(m.to_string(), "KCPABKAABB");
    assert_eq!(m.count(Color::Red, Role::Pawn), 1);
    // Input in any order and case; E/H accepted.
    assert_eq!("kbapckbbaa".parse::<Material>().unwrap(), m);
    assert_eq!("KHKE".parse::<Material>().unwrap().to_string(), "KNKB");
    // A material and its colour-flipped twin share one table.
    let twin: Material = "KAKR".parse().unwrap();
    assert_eq!(twin.canonical().to_string(), "KRKA");
    assert_eq!(twin.flipped().to_string(), "KRKA");
    assert!(!twin.is_canonical());
    assert!("KRKA".parse::<Material>().unwrap().is_canonical());
    for bad in ["", "RK", "KR", "KRXK", "KRRRK", "KPPPPPPK", "KKK"] {
        assert!(bad.parse::<Material>().is_err(), "{bad}");
    }
    assert!("KRRRK"
        .parse::<Material>()
        .unwrap_err()
        .to_string()
        .contains("rook"));
}
