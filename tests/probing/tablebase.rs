//! The probing API for engines (`xqtb::tablebase`): WDL and DTC probes agree, the WDL path reads
//! no distances, best moves and principal lines follow from the values by Fang's Definition 9
//! (checked here as properties of every probed position, not against stored answers), errors
//! are typed, and probes from 8 threads give what one thread gives.

use crate::common::build_lib;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::sync::OnceLock;
use xqtb::builder::BuildOptions;
use xqtb::tablebase::{LineEnd, ProbeError, Tablebase};
use xqtb::value::{Outcome, Value};
use xqtb::{Color, Indexer, Position};

/// The material probed: three blocks per side, captures into five supporting tables.
const MAT: &str = "KRKAABB";

/// A directory with [`MAT`] and its supporting tables, built once per test process.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        build_lib(MAT, &BuildOptions::new(d.path()));
        d
    })
    .path()
}

/// A new directory holding a copy of [`tables`]'s files, to damage.
fn copy_of_tables() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, bytes) in crate::common::tables(tables()) {
        std::fs::write(d.path().join(name), bytes).unwrap();
    }
    d
}

/// `n` random legal positions of [`MAT`], both sides to move (seeded: the same every run).
fn positions(n: usize, seed: u64) -> Vec<Position> {
    let ix = Indexer::new(MAT.parse().unwrap()).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let side = if rng.gen() { Color::Red } else { Color::Black };
        if let Some(p) = ix
            .decode(rng.gen_range(0..ix.size()), side)
            .filter(|p| !p.opponent_in_check())
        {
            out.push(p);
        }
    }
    out
}

#[test]
fn wdl_and_dtc_probes_agree() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut seen = [0; 3];
    for pos in positions(20_000, 1) {
        let wdl = tb.probe_wdl(&pos).unwrap();
        let dtc = tb.probe_dtc(&pos).unwrap();
        assert_eq!(wdl, dtc.outcome(), "{pos:?}");
        // The colour-flipped position has the same value.
        assert_eq!(tb.probe_dtc(&pos.flip_colors()).unwrap(), dtc, "{pos:?}");
        seen[wdl as usize] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "wins, draws and losses: {seen:?}"
    );
}

/// With at most two tables open (`with_open_limit`), probes that reach the table and its
/// supporting tables close and reopen them and answer as an unlimited tablebase does.
#[test]
fn an_open_limit_closes_tables_and_answers_the_same() {
    let all = Tablebase::open(tables()).unwrap();
    let two = Tablebase::open(tables()).unwrap().with_open_limit(2);
    for pos in positions(2_000, 7) {
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play(m);
            assert_eq!(
                two.probe_dtc(&child).unwrap(),
                all.probe_dtc(&child).unwrap(),
                "{pos:?} {m:?}"
            );
            assert!(two.open_count() <= 2, "{} tables open", two.open_count());
        }
    }
    assert!(
        all.open_count() > 2,
        "{} tables: the limit is not tested",
        all.open_count()
    );
}

/// `open_with_cache` bounds each open table's block cache by the size given (here one block
/// a table), and answers as the default cache does.
#[test]
fn a_cache_size_bounds_each_tables_blocks() {
    let default = Tablebase::open(tables()).unwrap();
    let small = Tablebase::open_with_cache(tables(), 1).unwrap();
    for pos in positions(5_000, 11) {
        assert_eq!(
            small.probe_dtc(&pos).unwrap(),
            default.probe_dtc(&pos).unwrap(),
            "{pos:?}"
        );
    }
    // One block a table: the largest block a file can hold, summed over the files.
    let one_block_each: usize = crate::common::tables(tables())
        .iter()
        .map(|(name, _)| {
            let header = xqtb::table::read_header(&tables().join(name)).unwrap();
            xqtb::table::cache_limit(&header, 1)
        })
        .sum();
    assert!(small.cached_bytes() > 0);
    assert!(
        small.cached_bytes() <= one_block_each,
        "{} bytes cached, more than a block a table ({one_block_each})",
        small.cached_bytes()
    );
    // The same probes read the same blocks: the default cache keeps more of them.
    assert!(
        default.cached_bytes() > small.cached_bytes(),
        "the default cache held {} bytes, the one-block cache {}",
        default.cached_bytes(),
        small.cached_bytes()
    );
}

/// Best moves and the position's value satisfy Definition 9's recurrence: the value of a
/// position is the best value among its moves (a quiet move into (r, d) is worth (r, d + 1) to
/// the mover; a capture converts), and a position without a legal move is lost at 0.
#[test]
fn best_moves_realise_the_value() {
    let tb = Tablebase::open(tables()).unwrap();
    for pos in positions(3_000, 2) {
        let value = tb.probe_dtc(&pos).unwrap();
        let all = tb.probe_moves(&pos).unwrap();
        let best = tb.best_moves(&pos).unwrap();
        if all.is_empty() {
            assert_eq!(
                value,
                Value::Decided {
                    order: 0,
                    distance: 0
                },
                "{pos:?}"
            );
            assert!(best.is_empty());
            continue;
        }
        let top = all.iter().map(|m| m.for_mover().rank()).max().unwrap();
        assert!(!best.is_empty());
        for m in &best {
            assert_eq!(m.for_mover(), value, "{pos:?}: best move {}", m.mv);
        }
        for m in &all {
            assert_eq!(
                best.contains(m),
                m.for_mover().rank() == top,
                "{pos:?} {}",
                m.mv
            );
        }
    }
}

#[test]
fn principal_lines_reach_conversion_in_distance_moves() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut ends = [0; 3];
    for pos in positions(1_000, 3) {
        let value = tb.probe_dtc(&pos).unwrap();
        let line = tb.principal_line(&pos).unwrap();
        let Value::Decided { distance, .. } = value else {
            assert_eq!((line.moves.len(), line.end), (0, LineEnd::Draw));
            ends[2] += 1;
            continue;
        };
        // Replay: legal best moves, values shrinking by one a ply, ending as announced.
        let mut cur = pos.clone();
        for (k, step) in line.moves.iter().enumerate() {
            assert!(
                tb.best_moves(&cur).unwrap().contains(step),
                "{pos:?} ply {k}"
            );
            if k + 1 < line.moves.len() {
                assert!(!step.capture);
                assert_eq!(step.value.distance(), Some(distance - 1 - k as u16));
            }
            cur.play(step.mv);
        }
        match line.end {
            LineEnd::Conversion => {
                assert!(line.moves.last().unwrap().capture);
                assert_eq!(line.moves.len(), usize::from(distance.max(1)), "{pos:?}");
                ends[0] += 1;
            }
            LineEnd::Mate => {
                assert!(cur.legal_moves().is_empty());
                assert_eq!(line.moves.len(), usize::from(distance), "{pos:?}");
                assert_eq!(tb.probe_wdl(&cur).unwrap(), Outcome::Loss);
                ends[1] += 1;
            }
            e => panic!("{pos:?}: order 0 line ends with {e:?}"),
        }
    }
    assert!(
        ends.iter().all(|&n| n > 0),
        "conversions, mates, draws: {ends:?}"
    );
}

/// Eight threads share one tablebase with a cache of a single block per table, so they evict
/// each other's blocks all the time; every answer equals the single-threaded one.
#[test]
fn eight_threads_probe_like_one() {
    fn answers(tb: &Tablebase, ps: &[Position]) -> Vec<(Outcome, Value)> {
        ps.iter()
            .map(|p| (tb.probe_wdl(p).unwrap(), tb.probe_dtc(p).unwrap()))
            .collect()
    }
    let ps = positions(16_000, 4);
    let want = answers(&Tablebase::open(tables()).unwrap(), &ps);
    let shared = Tablebase::new(tables(), 300 << 10);
    let got: Vec<Vec<(Outcome, Value)>> = std::thread::scope(|s| {
        let handles: Vec<_> = ps
            .chunks(2_000)
            .map(|part| s.spawn(|| answers(&shared, part)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(got.concat(), want);
}

#[test]
fn the_wdl_path_reads_no_distances() {
    let d = copy_of_tables();
    // Damage the first distance block (side 0, block 0: it starts right after the header and
    // the supporting-table list, formats/table.md §3).
    let path = d.path().join(format!("{MAT}.xqtb"));
    let data = xqtb::table::read_header(&path).unwrap().data_offset() as usize;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[data + 20] ^= 0x55;
    std::fs::write(&path, bytes).unwrap();
    let tb = Tablebase::open(d.path()).unwrap();
    let good = Tablebase::open(tables()).unwrap();
    let ix = Indexer::new(MAT.parse().unwrap()).unwrap();
    let pos = (0..ix.size())
        .filter_map(|i| ix.decode(i, Color::Red))
        .find(|p| !p.opponent_in_check())
        .unwrap();
    assert_eq!(tb.probe_wdl(&pos).unwrap(), good.probe_wdl(&pos).unwrap());
    let err = tb.probe_dtc(&pos).unwrap_err();
    assert!(matches!(err, ProbeError::Table(_)), "{err}");
    assert!(err.to_string().contains(&format!("{MAT}.xqtb")), "{err}");
}

#[test]
fn errors_are_typed_and_name_what_is_wrong() {
    let tb = Tablebase::open(tables()).unwrap();
    // No table for a horse against a king: the error names the material and the file.
    let knk = xqtb::parse_fen("3k5/9/9/9/9/9/9/9/9/4K1N2 w").unwrap();
    match tb.probe_wdl(&knk).unwrap_err() {
        ProbeError::Missing { material, path, .. } => {
            assert_eq!(material.to_string(), "KNK");
            assert_eq!(path, tables().join("KNK.xqtb"));
        }
        e => panic!("{e}"),
    }
    // Black to move while Red's king is attacked by Black's rook: not a legal position.
    // (The FEN parser refuses such positions, so the turn is set by hand.)
    let mut illegal = xqtb::parse_fen("3k5/9/9/9/9/9/9/9/9/3rK4 w").unwrap();
    illegal.set_turn(Color::Black);
    assert!(matches!(tb.probe_dtc(&illegal), Err(ProbeError::Illegal)));
    assert!(matches!(
        tb.principal_line(&illegal),
        Err(ProbeError::Illegal)
    ));
    // Opening a directory that is not there, or a file.
    let missing = tables().join("no-such-dir");
    let e = Tablebase::open(&missing).err().unwrap();
    assert!(matches!(e, ProbeError::Directory { .. }) && e.to_string().contains("no-such-dir"));
    let file = tables().join(format!("{MAT}.xqtb"));
    match Tablebase::open(&file) {
        Err(ProbeError::Directory { dir, source }) => {
            assert_eq!(dir, file);
            assert_eq!(source.kind(), std::io::ErrorKind::NotADirectory, "{source}");
        }
        other => panic!("a file opened as a directory: {:?}", other.err()),
    }
}

#[test]
fn a_tablebase_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tablebase>();
}

/// The block cache holds at most the bytes it promises, whatever mix of block kinds (2-bit
/// WDL, 4-, 8- or 16-bit distances) passes through it.
#[test]
fn the_block_cache_stays_within_its_limit() {
    use xqtb::table::{cache_limit, TableFile};
    let path = tables().join(format!("{MAT}.xqtb"));
    for budget in [100 << 10, 600 << 10, 2 << 20] {
        let t = TableFile::open(&path, budget).unwrap();
        let limit = cache_limit(t.header(), budget);
        assert!(limit <= budget.max(2 * t.header().block_entries as usize + 1));
        let ix = t.indexer();
        let mut peak = 0;
        for side in 0..2 {
            for i in (0..ix.size()).step_by(997) {
                if t.is_legal(Color::ALL[side], i) {
                    t.stored_legal(Color::ALL[side], i).unwrap();
                    peak = peak.max(t.cached_bytes());
                }
            }
        }
        assert!(
            peak > 0 && peak <= limit,
            "budget {budget}: peak {peak}, limit {limit}"
        );
    }
}

/// `crates/xqtb-core/examples/probe.rs`, the program an engine author copies, runs and prints what it promises
/// (cargo builds examples before integration tests; its binary sits beside this test's).
#[test]
fn the_example_program_probes_a_fen() {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let example = profile_dir.join("examples").join("probe");
    if !example.exists() {
        // `cargo test` builds examples; a run filtered to this file does not. Build it in the
        // profile this test was built in (`target/release` under `--release`).
        let mut args = vec!["build", "--locked", "-p", "xqtb-core", "--example", "probe"];
        if profile_dir.ends_with("release") {
            args.push("--release");
        }
        let built = std::process::Command::new(env!("CARGO"))
            .args(args)
            .status()
            .unwrap();
        assert!(built.success());
    }
    assert!(example.exists(), "{} not built", example.display());
    let dir = tempfile::tempdir().unwrap();
    build_lib("KRK", &BuildOptions::new(dir.path()));
    let run = |fen: &str| {
        std::process::Command::new(&example)
            .arg(dir.path())
            .arg(fen)
            .output()
            .unwrap()
    };
    // Rook to g8 mates (the doctest of `Tablebase` explains why).
    let out = run("3k5/9/9/9/9/9/9/9/9/4K1R2 w");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "WDL: win\nDTC: win 1 (order 0)\n\
         best move: g0g8 (leads to loss 0 (order 0) for the opponent)\n\
         principal line: g0g8 — ends in a side without a legal move (it has lost)\n"
    );
    let out = run("3k5/9/9/9/9/9/9/9/9/4K1N2 w");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("KNK.xqtb"), "{err}");
}

/// A table truncated and then rewritten in place under an open `Tablebase`: probes that need
/// its unread blocks fail with an error naming it (a memory-mapped reader died of SIGBUS here,
/// taking the process with it), `refresh` notices each change, and the whole file is served
/// again once it is back.
#[test]
fn a_table_changed_in_place_fails_cleanly_and_is_reopened() {
    let d = copy_of_tables();
    let path = d.path().join(format!("{MAT}.xqtb"));
    let good = std::fs::read(&path).unwrap();
    let tb = Tablebase::new(d.path(), 1 << 16);
    let reference = Tablebase::open(tables()).unwrap();
    let ps = positions(200, 7);
    let (red, black): (Vec<&Position>, Vec<&Position>) =
        ps.iter().partition(|p| p.turn() == Color::Red);
    assert_eq!(
        tb.probe_wdl(red[0]).unwrap(),
        reference.probe_wdl(red[0]).unwrap()
    );
    assert!(!tb.refresh(), "nothing changed yet");
    // Truncated in place (as `cp new.xqtb X.xqtb` starts by doing): Black's blocks were never
    // read, and now cannot be.
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(good.len() as u64 / 2).unwrap();
    for p in &black {
        if let Err(e) = tb.probe_wdl(p) {
            assert!(e.to_string().contains(&format!("{MAT}.xqtb")), "{e}");
        }
    }
    assert!(tb.refresh(), "the truncation is noticed");
    let err = tb.probe_wdl(black[0]).unwrap_err();
    assert!(matches!(err, ProbeError::Unusable { .. }), "{err:?}");
    // Written back in place: served again after a refresh, every value right.
    std::os::unix::fs::FileExt::write_all_at(&f, &good, 0).unwrap();
    drop(f);
    assert!(tb.refresh(), "the rewrite is noticed");
    for p in &ps {
        assert_eq!(tb.probe_dtc(p).unwrap(), reference.probe_dtc(p).unwrap());
    }
}
