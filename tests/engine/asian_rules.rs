//! The builder under the Asian rules (`--rules asian|check`) against the in-memory solver
//! (`xqtb::retro::reference`, itself checked against the widely used generator's counts and an
//! independent implementation of Fang's pseudo-code in `tests/engine/fang_graphs.rs`): every
//! entry's value, order and distance equal, resident or streamed, at any thread count;
//! `--rules none` as before.

use crate::common::{build_lib, build_lib_with, xqtb, Notes};
use std::path::Path;
use xqtb::builder::BuildOptions;
use xqtb::fang::{Options, Rules};
use xqtb::retro::reference::Solver;
use xqtb::table::{table_path, RuleSet, TableFile};
use xqtb::tablebase::Tablebase;
use xqtb::{ByColor, Color, Material, Value};

fn options(dir: &Path, rules: Rules) -> BuildOptions {
    let mut o = BuildOptions::new(dir);
    o.rules = rules;
    o
}

fn build_in(dir: &Path, m: &str, opts: &BuildOptions, threads: usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| build_lib(m, opts));
    assert!(table_path(dir, m.parse().unwrap()).exists());
}

fn open(dir: &Path, m: &str) -> TableFile {
    TableFile::open(&table_path(dir, m.parse().unwrap()), 1 << 20).unwrap()
}

/// Every entry of the built table `m` in `dir` equals the in-memory solver's value.
fn assert_same_as_solver(dir: &Path, m: &str, rules: Rules) {
    let material: Material = m.parse().unwrap();
    let mut solver = Solver::new(Options {
        rules,
        early_draws: false,
    });
    let t = solver.solve(material).unwrap();
    let file = open(dir, m);
    // formats/table.md, the header: the rule set's code and name in the header.
    let expected = match rules {
        Rules::None => (1, "dtc-order0"),
        Rules::Check => (2, "dtc-check"),
        Rules::Asian => (3, "dtc-asian"),
    };
    let got = file.header().rule_set;
    assert_eq!((got as u32, got.name()), expected);
    let tb = Tablebase::open(dir).unwrap();
    let mut max_order = 0;
    let mut differ = 0;
    for side in Color::ALL {
        let got: Vec<u32> = (0..file.header().blocks_per_side())
            .flat_map(|b| tb.block_values(material, side, b).unwrap())
            .collect();
        assert_eq!(got.len() as u64, t.indexer().size());
        for index in 0..t.indexer().size() {
            let want = t.entry(side, index);
            let got = Value::from_code(got[index as usize]);
            if want != got {
                differ += 1;
                if differ < 10 {
                    let fen = t
                        .indexer()
                        .decode(index, side)
                        .map(|p| xqtb::to_fen(&p))
                        .unwrap_or_default();
                    eprintln!("{m} {fen}: solver {want:?}, builder {got:?}");
                }
            }
            if let Some(o) = want.and_then(|v| v.order()) {
                max_order = max_order.max(o);
            }
        }
    }
    assert_eq!(
        differ, 0,
        "{m}: entries differing from the in-memory solver"
    );
    assert_eq!(file.header().max_order, max_order, "{m}");
}

#[test]
fn small_tables_equal_the_in_memory_solver() {
    for rules in [Rules::Asian, Rules::Check] {
        let dir = tempfile::tempdir().unwrap();
        // KNKA: one side armed (the advisor may chase the horse in its palace).
        for m in ["KRKN", "KRKC", "KRKP", "KRKR", "KNKA"] {
            build_in(dir.path(), m, &options(dir.path(), rules), 2);
            assert_same_as_solver(dir.path(), m, rules);
        }
    }
}

/// Attacking pieces on one side only do not keep the Asian rules out (`formats/table.md` §4.1):
/// in KCPKAAB, Black to move in `2P1k4/4a4/4ba3/9/9/9/9/9/4C4/3K5 b` has one legal move, K5=6
/// (e9f9), and it chases Red's pawn on c9 (hand-checked: the cannon on e1, screened by the
/// elephant on e7, pins the advisor on e8 and the elephant; the king's step to f9 frees the
/// elephant to take the pawn, which nothing of Red's guards). The builder's table makes the
/// position a loss of order 1 at once, and `verify`, which re-derives every order's seeds with
/// code of its own, passes the table.
#[test]
fn a_defenders_chase_decides_a_table_with_one_side_armed() {
    use xqtb::verify::verify_table;
    let dir = tempfile::tempdir().unwrap();
    build_in(dir.path(), "KCPKAAB", &options(dir.path(), Rules::Asian), 2);
    let pos = xqtb::parse_fen("2P1k4/4a4/4ba3/9/9/9/9/9/4C4/3K5 b").unwrap();
    let moves: Vec<_> = pos.legal_moves().into_iter().collect();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].to_string(), "e9f9");
    let chased = xqtb::chase::chases(&pos, moves[0]).unwrap();
    assert_eq!(
        chased.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ["c9"]
    );
    let tb = Tablebase::open(dir.path()).unwrap();
    assert_eq!(
        tb.probe_dtc(&pos).unwrap(),
        Value::Decided {
            order: 1,
            distance: 0
        }
    );
    let h = open(dir.path(), "KCPKAAB").header().clone();
    assert_eq!((h.rule_set, h.max_order), (RuleSet::DtcAsian, 1));
    let report = verify_table(&tb, "KCPKAAB".parse().unwrap(), &|_| {}).unwrap();
    assert_eq!(report.failure_count, 0, "{:?}", report.failures);
}

#[test]
fn krkn_counts_per_rule_set() {
    // The issue: today's (`none`) KRKN, and the widely used generator's under its rules (two
    // orders), which ours equal here.
    let cases = [
        (
            Rules::None,
            [[346_311, 702, 1_008], [37_476, 3_710, 370_780]],
            0,
        ),
        (
            Rules::Asian,
            [[346_935, 78, 1_008], [37_476, 1_140, 373_350]],
            1,
        ),
    ];
    for (rules, want, max_order) in cases {
        let dir = tempfile::tempdir().unwrap();
        build_in(dir.path(), "KRKN", &options(dir.path(), rules), 2);
        let h = open(dir.path(), "KRKN").header().clone();
        let got = h.sides.0.map(|s| [s.win, s.draw, s.loss]);
        assert_eq!(got, want, "{rules:?}");
        assert_eq!(h.max_order, max_order);
    }
}

#[test]
fn streamed_and_threaded_builds_are_byte_identical() {
    let a = tempfile::tempdir().unwrap();
    build_in(a.path(), "KRKN", &options(a.path(), Rules::Asian), 1);
    let b = tempfile::tempdir().unwrap();
    let mut streamed = options(b.path(), Rules::Asian);
    streamed.force_streaming = true;
    streamed.chunk_len = 1 << 14;
    streamed.checkpoint_interval = std::time::Duration::ZERO;
    build_in(b.path(), "KRKN", &streamed, 3);
    // The frontiers as per-chunk lists: the order's seeds go to a list, and the dirty marks
    // come from the lists.
    let c = tempfile::tempdir().unwrap();
    let mut listed = streamed.clone();
    listed.dir = c.path().to_path_buf();
    listed.frontier_lists = true;
    build_in(c.path(), "KRKN", &listed, 2);
    for m in ["KRKN", "KNK", "KRK"] {
        let path = |d: &Path| table_path(d, m.parse().unwrap());
        let bytes = std::fs::read(path(a.path())).unwrap();
        assert_eq!(bytes, std::fs::read(path(b.path())).unwrap(), "{m}");
        assert_eq!(bytes, std::fs::read(path(c.path())).unwrap(), "{m} (lists)");
    }
}

/// Patterns computed in their slices (a streamed build whose pattern bitmaps do not fit; here
/// forced) give the in-memory solver's values, with twins tracked (KRKPP: Black's pawns), and
/// the same bytes as patterns over every entry (KRKN).
#[test]
fn patterns_in_slices_give_the_same_values() {
    /// The build's layout details: one says the patterns are computed in slices.
    #[derive(Default)]
    struct Details(std::sync::Mutex<Vec<String>>);
    impl xqtb::Progress for Details {
        fn detail(&self, line: &str) {
            self.0.lock().unwrap().push(line.to_string());
        }
    }
    let sliced = |dir: &Path| {
        let mut o = options(dir, Rules::Asian);
        o.pattern_slices = true;
        o.chunk_len = 1 << 14;
        o
    };
    let dir = tempfile::tempdir().unwrap();
    let details = Details::default();
    build_lib_with("KRKPP", &sliced(dir.path()), &details);
    let details = details.0.into_inner().unwrap();
    assert!(
        details
            .iter()
            .any(|d| d.starts_with("KRKPP:") && d.contains("rule patterns in slices")),
        "{details:#?}"
    );
    assert_same_as_solver(dir.path(), "KRKPP", Rules::Asian);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    build_in(a.path(), "KRKN", &options(a.path(), Rules::Asian), 2);
    build_in(b.path(), "KRKN", &sliced(b.path()), 2);
    assert_eq!(
        std::fs::read(table_path(a.path(), "KRKN".parse().unwrap())).unwrap(),
        std::fs::read(table_path(b.path(), "KRKN".parse().unwrap())).unwrap()
    );
}

#[test]
fn twins_equal_the_in_memory_solver() {
    // Black's two pawns are twins: Red's rook chases either, and the patterns follow each
    // through the moves; three orders.
    let dir = tempfile::tempdir().unwrap();
    build_in(dir.path(), "KRKPP", &options(dir.path(), Rules::Asian), 2);
    assert_same_as_solver(dir.path(), "KRKPP", Rules::Asian);
}

/// A directory holds the tables of one rule set: a build under other rules is refused before
/// it writes anything, while the tables no rule changes (`dtc-any`: no side has an attacking
/// piece) serve every rule set.
#[test]
fn a_directory_of_other_rules_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    build_in(dir.path(), "KRKN", &options(dir.path(), Rules::None), 2);
    assert_eq!(
        open(dir.path(), "KRKN").header().rule_set,
        RuleSet::DtcOrder0
    );
    for (m, rule_set) in [
        ("KNK", RuleSet::DtcOrder0),
        ("KRK", RuleSet::DtcOrder0),
        ("KK", RuleSet::DtcAny),
    ] {
        assert_eq!(open(dir.path(), m).header().rule_set, rule_set, "{m}");
    }
    let before = crate::common::tables(dir.path());
    let err = xqtb::builder::build(
        "KRKN".parse().unwrap(),
        &options(dir.path(), Rules::Asian),
        &xqtb::Silent,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            xqtb::BuildError::DirRules {
                found: RuleSet::DtcOrder0,
                asked: RuleSet::DtcAsian,
                ..
            }
        ),
        "{err}"
    );
    // It names a table of the other rules (KRKN, KRK or KNK).
    let named = ["KRKN", "KRK", "KNK"].map(|m| format!("/{m}.xqtb holds rule set dtc-order0"));
    assert!(named.iter().any(|n| err.to_string().contains(n)), "{err}");
    assert_eq!(crate::common::tables(dir.path()), before);
}

/// `xqtb build <m> --dir <dir> <extra>` with the build of `m` dying after the checkpoint at
/// `abort` (order, ply), if given; returns whether it died.
fn run_build(m: &str, dir: &Path, extra: &[&str], abort: Option<(u16, u32)>) -> bool {
    let mut c = xqtb();
    c.args(["build", m, "--quiet", "--checkpoint-secs", "0", "--dir"])
        .arg(dir)
        .args(extra);
    if let Some((order, ply)) = abort {
        c.env("XQTB_TEST_ABORT_AT", format!("{m}:{order}:{ply}"));
    }
    let out = c.output().unwrap();
    if abort.is_none() {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    !out.status.success()
}

#[test]
fn killed_in_any_order_resumes_to_identical_bytes() {
    let reference = tempfile::tempdir().unwrap();
    run_build("KRKN", reference.path(), &[], None);
    let want = std::fs::read(table_path(reference.path(), "KRKN".parse().unwrap())).unwrap();
    for extra in [
        &[][..],
        &["--stream", "--chunk-len", "16384"][..],
        &["--frontier-lists", "--chunk-len", "16384"][..],
    ] {
        let dir = tempfile::tempdir().unwrap();
        // Order 0's plies, the seeding of order 1, and order 1's plies; each run resumes the
        // last one's checkpoint.
        for at in [(0, 3), (0, 20), (1, 0), (1, 1), (1, 2)] {
            assert!(
                run_build("KRKN", dir.path(), extra, Some(at)),
                "{at:?} {extra:?}"
            );
            let work = dir.path().join(".work").join("KRKN").join("manifest.json");
            let manifest: serde_json::Value =
                serde_json::from_slice(&std::fs::read(work).unwrap()).unwrap();
            assert_eq!(
                (manifest["order"].as_u64(), manifest["ply"].as_u64()),
                (Some(at.0 as u64), Some(at.1 as u64))
            );
        }
        run_build("KRKN", dir.path(), extra, None);
        let got = std::fs::read(table_path(dir.path(), "KRKN".parse().unwrap())).unwrap();
        assert!(got == want, "{extra:?}: resumed table differs");
        assert!(!dir.path().join(".work").exists());
    }
}

mod infallible {
    //! Fang's Theorem 8 (infallible play) on built tables: from won positions of order > 0, the
    //! winner always playing a best move wins against every defence — each of its positions is
    //! a win no worse (lexicographically in (order, distance)) than the one before, and strictly
    //! better unless the loser, lost at (r, 0), checked or chased to stay at order r; so play
    //! ends in a conversion, a mate, or the loser perpetually checking or chasing.

    use super::*;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use xqtb::chase::{chases, gives_check};
    use xqtb::Position;

    /// Loser moves from a seed (r > 0, 0) that stayed at order r by a check or a chase.
    static PERPETUAL_MOVES: AtomicU64 = AtomicU64::new(0);

    fn key(v: Value) -> (u16, u16) {
        match v {
            Value::Decided { order, distance } => (order, distance),
            Value::Draw => panic!("a draw where a win was expected"),
        }
    }

    /// The winner's best move from `pos` (a win), and the loser's position after it; `None`
    /// if it converts (a capture) or mates.
    fn winner_moves(tb: &Tablebase, pos: &Position) -> Option<Position> {
        let v = tb.probe_dtc(pos).unwrap();
        let (r, d) = key(v);
        assert_eq!(d % 2, 1, "{}: not a win", xqtb::to_fen(pos));
        let best = tb.best_moves(pos).unwrap();
        let m = best.iter().min_by_key(|m| m.mv).expect("a win has a move");
        if m.capture {
            return None;
        }
        // Theorem 8: the best move reaches a loss of the same order one ply nearer.
        assert_eq!(key(m.value), (r, d - 1), "{}", xqtb::to_fen(pos));
        let mut child = pos.clone();
        child.play(m.mv);
        (!child.legal_moves().is_empty()).then_some(child)
    }

    /// Checks every move of the loser in `pos` (lost at (r, e)) and returns the winner's
    /// positions after the quiet ones.
    fn loser_moves(tb: &Tablebase, pos: &Position) -> Vec<Position> {
        let (r, e) = key(tb.probe_dtc(pos).unwrap());
        assert_eq!(e % 2, 0);
        let mut out = Vec::new();
        for mv in pos.legal_moves() {
            let mut child = pos.clone();
            child.play(mv);
            if pos.is_capture(mv) {
                continue; // A conversion: play goes on in a smaller table.
            }
            let (r2, d2) = key(tb.probe_dtc(&child).unwrap());
            let fen = xqtb::to_fen(pos);
            assert_eq!(d2 % 2, 1, "{fen} {mv}: the loser escaped");
            if (r2, d2) == (r, e + 1) && e == 0 && r > 0 {
                // Staying at order r from a seed: only by checking or chasing.
                let hits = gives_check(pos, mv).unwrap() || !chases(pos, mv).unwrap().is_empty();
                assert!(
                    hits,
                    "{fen} {mv}: stays at order {r} without check or chase"
                );
                PERPETUAL_MOVES.fetch_add(1, Relaxed);
            } else {
                assert!(
                    (r2, d2) <= (r, e + 1),
                    "{fen} {mv}: ({r2}, {d2}) after a loss at ({r}, {e})"
                );
            }
            out.push(child);
        }
        out
    }

    /// Exhaustive over the loser's moves for `depth` of its turns.
    fn exhaust(tb: &Tablebase, winner: &Position, depth: u32) {
        let Some(loser) = winner_moves(tb, winner) else {
            return;
        };
        let next = loser_moves(tb, &loser);
        if depth > 0 {
            for w in next {
                exhaust(tb, &w, depth - 1);
            }
        }
    }

    /// Won positions of order > 0 with the winner to move, every `step`-th.
    fn samples(dir: &Path, m: &str, step: usize) -> Vec<Position> {
        let file = open(dir, m);
        let tb = Tablebase::open(dir).unwrap();
        let ix = xqtb::index::Indexer::new(m.parse().unwrap()).unwrap();
        let mut out = Vec::new();
        for side in Color::ALL {
            let values: Vec<u32> = (0..file.header().blocks_per_side())
                .flat_map(|b| tb.block_values(m.parse().unwrap(), side, b).unwrap())
                .collect();
            for index in 0..ix.size() {
                if let Some(Value::Decided { order, distance }) =
                    Value::from_code(values[index as usize])
                {
                    if order > 0 && distance % 2 == 1 {
                        out.push(ix.decode(index, side).unwrap());
                    }
                }
            }
        }
        out.into_iter().step_by(step).collect()
    }

    #[test]
    fn winners_of_order_above_0_win_against_every_defence() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        for (m, step) in [("KRKN", 7), ("KRKPP", 97)] {
            build_in(dir.path(), m, &options(dir.path(), Rules::Asian), 2);
            let tb = Tablebase::open(dir.path()).unwrap();
            let positions = samples(dir.path(), m, step);
            assert!(positions.len() > 20, "{m}: {} samples", positions.len());
            for pos in &positions {
                exhaust(&tb, pos, 2);
                // Random defences to the end: a conversion, a mate, or a repetition (the
                // loser's perpetual checks or chases, asserted move by move).
                let mut seen = std::collections::HashSet::new();
                let mut winner = pos.clone();
                for _ in 0..400 {
                    let Some(loser) = winner_moves(&tb, &winner) else {
                        break;
                    };
                    if !seen.insert(xqtb::to_fen(&loser)) {
                        break;
                    }
                    let next = loser_moves(&tb, &loser);
                    if next.is_empty() {
                        break;
                    }
                    winner = next[rng.gen_range(0..next.len())].clone();
                }
            }
        }
        // The checks above met the loser's perpetual checks and chases, not only plain wins.
        let n = PERPETUAL_MOVES.load(Relaxed);
        eprintln!("{n} loser moves from seeds of order > 0 checked");
        assert!(n > 100, "only {n}");
    }
}

#[test]
fn verify_rederives_every_orders_seeds() {
    use xqtb::table::TableWriter;
    use xqtb::verify::verify_table;
    let dir = tempfile::tempdir().unwrap();
    for m in ["KRKN", "KRKPP"] {
        build_in(dir.path(), m, &options(dir.path(), Rules::Asian), 2);
        let tb = Tablebase::open(dir.path()).unwrap();
        let report = verify_table(&tb, m.parse().unwrap(), &|_| {}).unwrap();
        assert_eq!(report.failure_count, 0, "{m}: {:?}", report.failures);
    }
    // KRKN built without the rules is locally consistent (its order-1 positions are draws), but
    // under a header claiming the Asian rules a maximum pattern is left after its last order.
    let none = tempfile::tempdir().unwrap();
    build_in(none.path(), "KRKN", &options(none.path(), Rules::None), 2);
    let plain = open(none.path(), "KRKN");
    let plain_tb = Tablebase::open(none.path()).unwrap();
    let h = plain.header().clone();
    // Listing the Asian rules' supporting tables (each rule set has its own KRK and KNK).
    let supports = open(dir.path(), "KRKN").header().supports.clone();
    let path = table_path(dir.path(), "KRKN".parse().unwrap());
    let mut w =
        TableWriter::create(&path, h.material, h.entries, (h.derived, None), &supports).unwrap();
    for side in Color::ALL {
        for block in 0..h.blocks_per_side() {
            w.write(
                side,
                &plain_tb.block_values(h.material, side, block).unwrap(),
            )
            .unwrap();
        }
    }
    let tallies = ByColor::new(|side| (plain.histogram(side), plain.firsts(side)));
    w.finish(RuleSet::DtcAsian, h.sides, &tallies, 0).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let report = verify_table(&tb, "KRKN".parse().unwrap(), &|_| {}).unwrap();
    assert!(report.failure_count > 0);
    assert!(
        report.failures[0]
            .what
            .contains("maximum pattern left after the last order"),
        "{:?}",
        report.failures[0]
    );
}

/// Format 3 leaves out the distances of values at once, so a table's distance histogram lives in
/// its value table: `verify` recomputes it from the entries (resolved from their moves) and
/// reports a value table that moves positions between two values, even with the totals (which
/// the reader checks at open) unchanged.
#[test]
fn verify_checks_the_value_tables_counts() {
    use xqtb::table::TableWriter;
    use xqtb::verify::verify_table;
    let dir = tempfile::tempdir().unwrap();
    build_in(dir.path(), "KRKN", &options(dir.path(), Rules::None), 2);
    let built = open(dir.path(), "KRKN");
    let tb = Tablebase::open(dir.path()).unwrap();
    let h = built.header().clone();
    let codes: Vec<Vec<u32>> = (0..2)
        .map(|side| {
            (0..h.blocks_per_side())
                .flat_map(|b| tb.block_values(h.material, Color::ALL[side], b).unwrap())
                .collect()
        })
        .collect();
    let mut tallies = ByColor::new(|side| (built.histogram(side), built.firsts(side)));
    let hist = &mut tallies[Color::Red].0;
    assert!(hist[&(0, 1)] > 0 && hist[&(0, 3)] > 0, "{hist:?}");
    *hist.get_mut(&(0, 1)).unwrap() -= 1;
    *hist.get_mut(&(0, 3)).unwrap() += 1;
    drop((built, tb));
    let path = table_path(dir.path(), h.material);
    let mut w =
        TableWriter::create(&path, h.material, h.entries, (h.derived, None), &h.supports).unwrap();
    for (side, c) in Color::ALL.into_iter().zip(&codes) {
        w.write(side, c).unwrap();
    }
    w.finish(RuleSet::DtcOrder0, h.sides, &tallies, 0).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let report = verify_table(&tb, h.material, &|_| {}).unwrap();
    assert_eq!(report.failure_count, 1, "{:?}", report.failures);
    assert!(
        report.failures[0].fen.starts_with("value table of")
            && report.failures[0].what.contains("side w"),
        "{:?}",
        report.failures[0]
    );
}

/// KRCKR's maximum patterns start warm from the previous order's at every order but the first,
/// and its chasing patterns come back at several orders, each time with a first exclusion (the
/// defender's forced checks) that removes most of the pattern; from the second time on it
/// starts from the previous one. Tests build with debug assertions, under which every warm
/// maximum pattern and every warm exclusion is compared with one computed from scratch: the
/// build fails if they differ. (The cold computations are the ones the solver comparisons above
/// check.)
#[test]
// The first assertion is constant for a build, by design: it fails a release test run, where
// the comparison would not run.
#[allow(clippy::assertions_on_constants)]
fn warm_starts_agree_with_cold_ones() {
    assert!(
        cfg!(debug_assertions),
        "the comparison is a debug assertion: run the tests with the test profile (`cargo test`)"
    );
    let dir = tempfile::tempdir().unwrap();
    let notes = Notes::default();
    build_lib_with("KRCKR", &options(dir.path(), Rules::Asian), &notes);
    let notes = notes.into_lines();
    let warm: Vec<&String> = notes
        .iter()
        .filter(|n| n.contains("exclusion warm") || n.contains("exclusions warm"))
        .collect();
    assert!(
        !warm.is_empty(),
        "no order started an exclusion warm: {notes:#?}"
    );
}

/// A derived side stores only its entries' outcomes (format 4 §5): `verify` finds their values
/// from their moves and reports an entry whose stored outcome they contradict. Here one of
/// KRKN's derived losses is written as a win, with counts that agree with the entries (so only
/// the moves can tell).
#[test]
fn verify_checks_a_derived_sides_outcomes() {
    use xqtb::table::{SideCounts, TableWriter, Tally};
    use xqtb::verify::verify_table;
    let dir = tempfile::tempdir().unwrap();
    build_in(dir.path(), "KRKN", &options(dir.path(), Rules::None), 2);
    let built = open(dir.path(), "KRKN");
    let h = built.header().clone();
    let derived = h.derived.expect("a built table derives a side");
    let tb = Tablebase::open(dir.path()).unwrap();
    let mut codes: Vec<Vec<u32>> = (0..2)
        .map(|side| {
            (0..h.blocks_per_side())
                .flat_map(|b| tb.block_values(h.material, Color::ALL[side], b).unwrap())
                .collect()
        })
        .collect();
    // The first loss at distance 2 or more on the derived side becomes a win one ply longer.
    let (index, distance) = codes[derived.index()]
        .iter()
        .enumerate()
        .find_map(|(i, &c)| match Value::from_code(c) {
            Some(Value::Decided { order: 0, distance }) if distance >= 2 && distance % 2 == 0 => {
                Some((i, distance))
            }
            _ => None,
        })
        .expect("a derived loss with a distance");
    codes[derived.index()][index] = Value::Decided {
        order: 0,
        distance: distance + 1,
    }
    .code();
    let ix = xqtb::Indexer::new(h.material).unwrap();
    let mut sides = ByColor::<SideCounts>::default();
    let tallies = ByColor::new(|side| {
        let mut tally = Tally::new();
        for (i, &c) in codes[side.index()].iter().enumerate() {
            if let Some(v) = Value::from_code(c) {
                let mult = ix.multiplicity(i as u64) as u64;
                sides[side].count(v, mult, i as u64);
                tally.add(v, mult, i as u64);
            }
        }
        tally.finish()
    });
    drop((built, tb));
    let mut w = TableWriter::create(
        &table_path(dir.path(), h.material),
        h.material,
        h.entries,
        (h.derived, None),
        &h.supports,
    )
    .unwrap();
    for (side, c) in Color::ALL.into_iter().zip(&codes) {
        w.write(side, c).unwrap();
    }
    w.finish(RuleSet::DtcOrder0, sides, &tallies, 0).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let report = verify_table(&tb, h.material, &|_| {}).unwrap();
    let fen = xqtb::fen::to_fen(&ix.decode(index as u64, derived).unwrap());
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.fen == fen && f.what.contains("but its moves give")),
        "{fen}: {:?}",
        report.failures
    );
}

/// A deliberately broken pattern prune in the builder (checking patterns keep the positions
/// where the defender could force mutual checks: `XQTB_TEST_BREAK_PRUNE`) writes a table that
/// is locally consistent, and `verify`, which re-derives the orders with the in-memory
/// reference algorithms and not the builder's pattern code, rejects it.
#[test]
fn verify_catches_a_broken_pattern_prune() {
    let xqtb = |dir: &Path, args: &[&str], broken: bool| {
        let mut cmd = xqtb();
        cmd.args(args).arg("--dir").arg(dir);
        if broken {
            cmd.env("XQTB_TEST_BREAK_PRUNE", "1");
        }
        cmd.output().unwrap()
    };
    let good = tempfile::tempdir().unwrap();
    let bad = tempfile::tempdir().unwrap();
    for (dir, broken) in [(good.path(), false), (bad.path(), true)] {
        let out = xqtb(dir, &["build", "KRKN"], broken);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let differ = std::fs::read(good.path().join("KRKN.xqtb")).unwrap()
        != std::fs::read(bad.path().join("KRKN.xqtb")).unwrap();
    assert!(differ, "the broken prune changed nothing in KRKN");
    let ok = xqtb(good.path(), &["verify", "KRKN"], false);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    // The hook set for `verify` too: it must not reach the checks.
    let caught = xqtb(bad.path(), &["verify", "KRKN"], true);
    let text = String::from_utf8_lossy(&caught.stdout).to_string()
        + &String::from_utf8_lossy(&caught.stderr);
    assert!(!caught.status.success(), "{text}");
    // The extra seeds are found by re-deriving the patterns, not only by the entries' checks.
    assert!(
        text.contains("is in no maximum pattern of order 1"),
        "{text}"
    );
}
