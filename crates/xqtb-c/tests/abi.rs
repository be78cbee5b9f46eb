//! The C ABI against the Rust API it wraps, through the same `extern "C"` functions a C program
//! calls: every answer of the FEN and the board forms equals `Tablebase`'s on every legal
//! position of a table; bad arguments are status codes with a message, never a crash.
//! (The C example in `examples/c/` checks the library from C against `xqtb probe --json`.)

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::Path;
use std::sync::OnceLock;
use xqtb_c::*;
use xqtb_core::tablebase::Dtm;
use xqtb_core::{to_fen, Color, Indexer, Outcome, Position, Square, Tablebase, Value};

/// A directory holding KNKA and its supporting tables, built once.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let opts = builder::builder::BuildOptions::new(d.path());
        builder::builder::build("KNKA".parse().unwrap(), &opts, &builder::Silent).unwrap();
        d
    })
    .path()
}

/// A directory holding KRKN and its supporting tables in both metrics: KRKN has a second order
/// (perpetual chase rulings), so its DTM values include levels that are not mates'.
fn dtm_tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let mut opts = builder::builder::BuildOptions::new(d.path());
        opts.metrics = builder::builder::Metrics::Both;
        builder::builder::build("KRKN".parse().unwrap(), &opts, &builder::Silent).unwrap();
        d
    })
    .path()
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn open(dir: &Path) -> (*mut XqtbTablebase, c_int) {
    let mut tb = std::ptr::null_mut();
    let status = unsafe { xqtb_open(c(dir.to_str().unwrap()).as_ptr(), &mut tb) };
    (tb, status)
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(xqtb_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// The board form of `pos`: codes 1–7 Red (K R C N P A B), 9–15 Black.
fn board_of(pos: &Position) -> [i8; 90] {
    std::array::from_fn(|i| match pos.piece_at(Square::new(i as u8)) {
        None => 0,
        Some(p) => p.role() as i8 + if p.color() == Color::Black { 8 } else { 0 },
    })
}

fn expected(v: Value) -> XqtbValue {
    match v {
        Value::Draw => XqtbValue {
            result: XQTB_DRAW,
            order: -1,
            distance: -1,
        },
        Value::Decided { order, distance } => XqtbValue {
            result: if distance % 2 == 1 {
                XQTB_WIN
            } else {
                XQTB_LOSS
            },
            order: order.into(),
            distance: distance.into(),
        },
    }
}

fn ucci(m: &[c_char; 6]) -> String {
    unsafe { CStr::from_ptr(m.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn every_answer_equals_the_rust_apis() {
    let dir = tables();
    let (tb, status) = open(dir);
    assert_eq!(status, XQTB_OK, "{}", last_error());
    assert_eq!(unsafe { xqtb_largest(tb) }, 4);
    let rust = Tablebase::open(dir).unwrap();
    let ix = Indexer::new("KNKA".parse().unwrap()).unwrap();
    let mut probed = 0;
    // Every third index of each side: thousands of legal positions.
    for i in (0..ix.size()).step_by(3) {
        for side in Color::ALL {
            let Some(pos) = ix.decode(i, side) else {
                continue;
            };
            if pos.opponent_in_check() {
                continue;
            }
            probed += 1;
            let fen = c(&to_fen(&pos));
            let board = board_of(&pos);
            let side_code = if side == Color::Red {
                XQTB_RED
            } else {
                XQTB_BLACK
            };
            let want = expected(rust.probe_dtc(&pos).unwrap());
            let (mut from_fen, mut side_of_fen) = ([0i8; 90], -1);
            let s =
                unsafe { xqtb_board_of_fen(fen.as_ptr(), from_fen.as_mut_ptr(), &mut side_of_fen) };
            assert_eq!(
                (s, from_fen, side_of_fen),
                (XQTB_OK, board, side_code),
                "{fen:?}"
            );
            let (mut wdl, mut wdl_b) = (9, 9);
            let (mut v, mut v_b) = (XqtbValue::default(), XqtbValue::default());
            unsafe {
                assert_eq!(xqtb_probe_wdl(tb, fen.as_ptr(), &mut wdl), XQTB_OK);
                assert_eq!(
                    xqtb_probe_wdl_board(tb, board.as_ptr(), side_code, &mut wdl_b),
                    XQTB_OK
                );
                assert_eq!(xqtb_probe_dtc(tb, fen.as_ptr(), &mut v), XQTB_OK);
                assert_eq!(
                    xqtb_probe_dtc_board(tb, board.as_ptr(), side_code, &mut v_b),
                    XQTB_OK
                );
            }
            assert_eq!((wdl, wdl_b), (want.result, want.result), "{fen:?}");
            assert_eq!((v, v_b), (want, want), "{fen:?}");
            if i % 21 != 0 {
                continue;
            }
            let mut root = Box::new(XqtbRoot {
                value: XqtbValue::default(),
                count: 0,
                moves: [XqtbMove::default(); XQTB_MAX_MOVES],
            });
            assert_eq!(
                unsafe { xqtb_probe_root(tb, fen.as_ptr(), &mut *root) },
                XQTB_OK
            );
            assert_eq!(root.value, want);
            let moves = rust.probe_moves(&pos).unwrap();
            let best: Vec<String> = rust
                .best_moves(&pos)
                .unwrap()
                .iter()
                .map(|m| m.mv.to_string())
                .collect();
            assert_eq!(root.count as usize, moves.len());
            for (got, m) in root.moves.iter().zip(&moves) {
                assert_eq!(ucci(&got.ucci), m.mv.to_string());
                assert_eq!(got.value, expected(m.for_mover()));
                assert_eq!(got.capture != 0, m.capture);
                assert_eq!(got.best != 0, best.contains(&m.mv.to_string()), "{fen:?}");
            }
            let mut line = [[0 as c_char; 6]; 64];
            let mut length = -1;
            let s = unsafe {
                xqtb_principal_line(tb, fen.as_ptr(), line.as_mut_ptr(), 64, &mut length)
            };
            assert_eq!(s, XQTB_OK);
            let want_line: Vec<String> = rust
                .principal_line(&pos)
                .unwrap()
                .moves
                .iter()
                .map(|m| m.mv.to_string())
                .collect();
            assert_eq!(length as usize, want_line.len());
            let got: Vec<String> = line[..want_line.len()].iter().map(ucci).collect();
            assert_eq!(got, want_line, "{fen:?}");
        }
    }
    assert!(probed > 5_000, "{probed}");
    unsafe { xqtb_close(tb) };
}

fn expected_dtm(v: &Dtm) -> (c_int, c_int, Vec<u16>) {
    let result = match v.outcome() {
        Outcome::Win => XQTB_WIN,
        Outcome::Draw => XQTB_DRAW,
        Outcome::Loss => XQTB_LOSS,
    };
    match v {
        Dtm::Draw => (result, -1, vec![]),
        Dtm::Decided { level, distance } => (result, (*distance).into(), level.phases().to_vec()),
    }
}

fn answer_of(d: &XqtbDtm) -> (c_int, c_int, Vec<u16>) {
    let phases = d.level[..d.level_length as usize].to_vec();
    (d.result, d.distance, phases)
}

#[test]
fn dtm_answers_equal_the_rust_apis_levels_included() {
    let dir = dtm_tables();
    let (tb, status) = open(dir);
    assert_eq!(status, XQTB_OK, "{}", last_error());
    let rust = Tablebase::open(dir).unwrap();
    let ix = Indexer::new("KRKN".parse().unwrap()).unwrap();
    let (mut probed, mut ruled) = (0, 0);
    for i in (0..ix.size()).step_by(11) {
        for side in Color::ALL {
            let Some(pos) = ix.decode(i, side).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            let fen = c(&to_fen(&pos));
            let want = expected_dtm(&rust.probe_dtm(&pos).unwrap());
            let (mut d, mut d_b) = (XqtbDtm::default(), XqtbDtm::default());
            let side_code = if side == Color::Red {
                XQTB_RED
            } else {
                XQTB_BLACK
            };
            unsafe {
                assert_eq!(xqtb_probe_dtm(tb, fen.as_ptr(), &mut d), XQTB_OK);
                assert_eq!(
                    xqtb_probe_dtm_board(tb, board_of(&pos).as_ptr(), side_code, &mut d_b),
                    XQTB_OK
                );
            }
            assert_eq!(answer_of(&d), want, "{fen:?}");
            assert_eq!(d, d_b, "{fen:?}");
            probed += 1;
            ruled += usize::from(d.level_length > 0);
        }
    }
    assert!(
        probed > 30_000 && ruled > 0,
        "{probed} probed, {ruled} with a level"
    );
    unsafe { xqtb_close(tb) };
}

#[test]
fn a_directory_without_dtm_tables_says_which_is_missing() {
    let (tb, status) = open(tables());
    assert_eq!(status, XQTB_OK);
    let fen = c("4k4/4a4/9/9/9/4N4/9/5K3/9/9 w");
    let mut d = XqtbDtm::default();
    assert_eq!(
        unsafe { xqtb_probe_dtm(tb, fen.as_ptr(), &mut d) },
        XQTB_ERR_MISSING_TABLE
    );
    assert!(last_error().contains("KNKA.xqdtm"), "{}", last_error());
    unsafe { xqtb_close(tb) };
}

/// A handle with a one-block cache per table answers as one with the default cache.
#[test]
fn a_handle_with_a_small_cache_answers_the_same() {
    let (tb, status) = open(tables());
    assert_eq!(status, XQTB_OK);
    let dir = c(tables().to_str().unwrap());
    let mut small: *mut XqtbTablebase = std::ptr::null_mut();
    assert_eq!(
        unsafe { xqtb_open_with_cache(dir.as_ptr(), 1, &mut small) },
        XQTB_OK,
        "{}",
        last_error()
    );
    let ix = Indexer::new("KNKA".parse().unwrap()).unwrap();
    let mut probed = 0;
    for i in (0..ix.size()).step_by(7) {
        let Some(pos) = ix.decode(i, Color::Red).filter(|p| !p.opponent_in_check()) else {
            continue;
        };
        let board = board_of(&pos);
        let (mut want, mut got) = (XqtbValue::default(), XqtbValue::default());
        unsafe {
            assert_eq!(
                xqtb_probe_dtc_board(tb, board.as_ptr(), XQTB_RED, &mut want),
                XQTB_OK
            );
            assert_eq!(
                xqtb_probe_dtc_board(small, board.as_ptr(), XQTB_RED, &mut got),
                XQTB_OK
            );
        }
        assert_eq!(got, want, "{}", to_fen(&pos));
        probed += 1;
    }
    assert!(probed > 1000, "{probed} positions");
    unsafe {
        xqtb_close(small);
        xqtb_close(tb);
    }
}

#[test]
fn bad_arguments_are_status_codes_with_a_message() {
    let (tb, status) = open(tables());
    assert_eq!(status, XQTB_OK);
    let mut wdl = 0;
    let mut v = XqtbValue::default();
    let fen = c("4k4/4a4/9/9/9/4N4/9/5K3/9/9 w");
    unsafe {
        assert_eq!(
            xqtb_probe_wdl(std::ptr::null(), fen.as_ptr(), &mut wdl),
            XQTB_ERR_ARGUMENT
        );
        assert!(last_error().contains("tb is NULL"));
        assert_eq!(
            xqtb_probe_wdl(tb, std::ptr::null(), &mut wdl),
            XQTB_ERR_ARGUMENT
        );
        assert_eq!(
            xqtb_probe_wdl(tb, fen.as_ptr(), std::ptr::null_mut()),
            XQTB_ERR_ARGUMENT
        );
        assert!(last_error().contains("wdl is NULL"));
        let bad = c("4k4/4a4/9/9/9/4N4/9/5K3/9 w");
        let (mut board, mut side) = ([0i8; 90], 0);
        assert_eq!(
            xqtb_board_of_fen(bad.as_ptr(), board.as_mut_ptr(), &mut side),
            XQTB_ERR_POSITION
        );
        assert_eq!(xqtb_probe_dtc(tb, bad.as_ptr(), &mut v), XQTB_ERR_POSITION);
        assert!(last_error().contains("bad FEN"), "{}", last_error());
        let not_utf8 = [0xffu8 as c_char, 0];
        assert_eq!(
            xqtb_probe_dtc(tb, not_utf8.as_ptr(), &mut v),
            XQTB_ERR_ARGUMENT
        );
        // A rook's table is not there.
        let krk = c("3k5/9/9/9/9/9/9/9/9/4K1R2 w");
        assert_eq!(
            xqtb_probe_dtc(tb, krk.as_ptr(), &mut v),
            XQTB_ERR_MISSING_TABLE
        );
        assert!(last_error().contains("KRK"), "{}", last_error());
        let mut board = [0i8; 90];
        board[4] = 1;
        board[85] = 16;
        assert_eq!(
            xqtb_probe_wdl_board(tb, board.as_ptr(), XQTB_RED, &mut wdl),
            XQTB_ERR_POSITION
        );
        assert!(
            last_error().contains("bad piece code 16"),
            "{}",
            last_error()
        );
        board[85] = 9;
        assert_eq!(
            xqtb_probe_wdl_board(tb, board.as_ptr(), 2, &mut wdl),
            XQTB_ERR_ARGUMENT
        );
        assert_eq!(
            xqtb_probe_wdl_board(tb, std::ptr::null(), XQTB_RED, &mut wdl),
            XQTB_ERR_ARGUMENT
        );
        let name = CStr::from_ptr(xqtb_status_name(XQTB_ERR_MISSING_TABLE));
        assert_eq!(name.to_str().unwrap(), "XQTB_ERR_MISSING_TABLE");
        xqtb_close(tb);
        xqtb_close(std::ptr::null_mut());
    }
    let (tb, status) = open(&tables().join("nope"));
    assert_eq!(
        (tb, status),
        (std::ptr::null_mut(), XQTB_ERR_IO),
        "{}",
        last_error()
    );
    assert!(last_error().contains("nope"));
}

/// `include/xqtb.h` is what cbindgen makes of the code now (`scripts/c-header.sh` rewrites it).
#[test]
fn the_header_is_generated_from_the_code() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut generated = Vec::new();
    cbindgen::generate(crate_dir).unwrap().write(&mut generated);
    let path = crate_dir.join("include/xqtb.h");
    if std::env::var_os("XQTB_WRITE_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is not cbindgen's output for the code: run bash scripts/c-header.sh",
        path.display()
    );
}
