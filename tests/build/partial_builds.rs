//! The two builds of a partial table (`formats/partial.md`) on real tables, against the full
//! build: every bound holds the true outcome, position by position, and where the two builds
//! agree the value is the full build's (its distance too where §4 says it is exact). A build of
//! a partial table is never served as a complete one.

use crate::common::{assert_ok, build_cmd};
use std::path::Path;
use xqtb::table::{Metric, TableFile};
use xqtb::tablebase::Tablebase;
use xqtb::{Color, Indexer, Material, Outcome, Value};

/// `material` built into a new directory, `withhold` (if any) withheld and its captures the
/// best for `best_for`.
fn built_with(material: &str, withhold: &str, best_for: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["--quiet"];
    if !withhold.is_empty() {
        args.extend(["--withhold", withhold, "--best-for", best_for]);
    }
    let out = build_cmd(material, dir.path(), &args).output().unwrap();
    assert_ok(&format!("build {material} without {withhold}"), &out);
    dir
}

fn table(dir: &Path, m: Material) -> TableFile {
    TableFile::open(
        &xqtb::table::metric_table_path(dir, m, Metric::Dtc),
        1 << 20,
    )
    .unwrap()
}

/// -1, 0, 1: the outcome for Red.
fn for_red(turn: Color, o: Outcome) -> i8 {
    let r = match o {
        Outcome::Win => 1,
        Outcome::Draw => 0,
        Outcome::Loss => -1,
    };
    if turn == Color::Red {
        r
    } else {
        -r
    }
}

/// Checks the two builds of `material` with `withhold` withheld against its full build; returns
/// (legal positions, positions with open bounds).
fn check(material: &str, withhold: &str) -> (u64, u64) {
    let m: Material = material.parse().unwrap();
    let full = built_with(material, "", "");
    let red = built_with(material, withhold, "red");
    let black = built_with(material, withhold, "black");
    let (f, r, b) = (
        table(full.path(), m),
        table(red.path(), m),
        table(black.path(), m),
    );
    let asian = f.header().rule_set.name() == "dtc-asian";
    let ix = Indexer::new(m.canonical()).unwrap();
    let (mut legal, mut open) = (0, 0);
    for turn in Color::ALL {
        for i in 0..ix.size() {
            let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            legal += 1;
            let value = |t: &TableFile| t.stored_legal(turn, i).unwrap();
            let (v, hi, lo) = (value(&f), value(&r), value(&b));
            let red_view = |x: Value| for_red(turn, x.outcome());
            let fen = xqtb::to_fen(&pos);
            assert!(
                red_view(lo) <= red_view(v) && red_view(v) <= red_view(hi),
                "{material} without {withhold}, {fen}: {v} not within {lo} .. {hi}"
            );
            if hi == lo {
                let exact = !asian || matches!(hi, Value::Draw | Value::Decided { order: 0, .. });
                if exact {
                    assert_eq!(
                        v, hi,
                        "{material} without {withhold}, {fen}: agreed and exact"
                    );
                } else {
                    assert_eq!(v.outcome(), hi.outcome(), "{fen}");
                }
            }
            open += (red_view(lo) != red_view(hi)) as u64;
        }
    }
    (legal, open)
}

#[test]
fn bounds_hold_the_full_builds_values() {
    // KRKN (orders 0 and 1 under the Asian rules) without KRK: Red's captures of the horse
    // are unknown; without KNK: the horse's capture of the rook. KPKA without KPK: the pawn's
    // captures of the advisor.
    for (material, withhold) in [("KRKN", "KRK"), ("KRKN", "KNK"), ("KPKA", "KPK")] {
        let (legal, open) = check(material, withhold);
        assert!(
            open > 0 && open < legal,
            "{material} without {withhold}: {open} of {legal} open"
        );
    }
}

#[test]
fn a_partial_build_is_never_served_as_a_complete_table() {
    let red = built_with("KRKN", "KRK", "red");
    let tb = Tablebase::new(red.path(), 1 << 20);
    let pos = xqtb::parse_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w").unwrap();
    let e = tb.probe_dtc(&pos).unwrap_err().to_string();
    assert!(e.contains("built with the KRK table withheld"), "{e}");
    // A full build into that directory rebuilds it: the withheld table is built, then KRKN.
    let out = build_cmd("KRKN", red.path(), &[]).output().unwrap();
    assert_ok("full build over a partial one", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("KRK withheld (its captures the best for Red), this build present"),
        "{err}"
    );
    assert!(Tablebase::new(red.path(), 1 << 20).probe_dtc(&pos).is_ok());
}

/// Builds `material`'s partial table without `without` into `dir` with the CLI.
fn build_partial_cli(material: &str, without: &str, dir: &Path) {
    let out = build_cmd(material, dir, &["--partial", "--without", without])
        .output()
        .unwrap();
    assert_ok("build --partial", &out);
}

/// `xqtb stats <material> --partial-report --json` over `dir`.
fn partial_report_json(material: &str, dir: &Path) -> serde_json::Value {
    let out = crate::common::xqtb()
        .args(["stats", material, "--partial-report", "--json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert_ok("stats --partial-report", &out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The probing side: `PartialTablebase` over the two builds gives every position bounds that
/// hold the full build's outcome, the value where it is exact, and refuses a build opened as
/// the other one.
#[test]
fn partial_probes_bound_the_full_probes() {
    use xqtb::tablebase::partial::PartialTablebase;
    let full = built_with("KRKN", "", "");
    let red = built_with("KRKN", "KRK", "red");
    let black = built_with("KRKN", "KRK", "black");
    let tb = Tablebase::new(full.path(), 1 << 20);
    let partial = PartialTablebase::new(red.path(), black.path(), 1 << 20);
    let ix = Indexer::new("KRKN".parse().unwrap()).unwrap();
    let rank = |o: Outcome| match o {
        Outcome::Loss => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    };
    let (mut exact, mut open) = (0, 0);
    for turn in Color::ALL {
        for i in 0..ix.size() {
            let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            let v = tb.probe_dtc(&pos).unwrap();
            let b = partial.probe_bounds(&pos).unwrap();
            let fen = xqtb::to_fen(&pos);
            assert!(
                rank(b.lower) <= rank(v.outcome()) && rank(v.outcome()) <= rank(b.upper),
                "{fen}: {v} not within {b:?}"
            );
            if let Some(e) = b.exact {
                assert_eq!(e, v, "{fen}");
                exact += 1;
            }
            open += !b.decided() as u64;
        }
    }
    assert!(exact > 0 && open > 0, "{exact} exact, {open} open");
    // Each build opens only as itself.
    let swapped = PartialTablebase::new(black.path(), red.path(), 1 << 20);
    let pos = xqtb::parse_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w").unwrap();
    let e = swapped.probe_bounds(&pos).unwrap_err().to_string();
    assert!(e.contains("built with the KRK table withheld"), "{e}");
}

/// Per move: the bounds after each move hold the full build's value there, and a move marked
/// best (only where the position's value is exact) is a best move of the full table; every
/// position whose value is exact and has a best move of exact value marks one.
#[test]
fn partial_moves_bound_the_full_moves_and_best_only_where_exact() {
    use xqtb::tablebase::partial::PartialTablebase;
    let full = built_with("KRKN", "", "");
    let red = built_with("KRKN", "KRK", "red");
    let black = built_with("KRKN", "KRK", "black");
    let tb = Tablebase::new(full.path(), 1 << 20);
    let partial = PartialTablebase::new(red.path(), black.path(), 1 << 20);
    let ix = Indexer::new("KRKN".parse().unwrap()).unwrap();
    let rank = |o: Outcome| o as u8;
    let (mut marked, mut unmarked_exact) = (0, 0);
    for turn in Color::ALL {
        for i in (0..ix.size()).step_by(53) {
            let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            let fen = xqtb::to_fen(&pos);
            let exact = partial.probe_bounds(&pos).unwrap().exact;
            let best: Vec<_> = tb.best_moves(&pos).unwrap().iter().map(|m| m.mv).collect();
            let moves = partial.probe_moves(&pos).unwrap();
            for m in &moves {
                let mut child = pos.clone();
                child.play(m.mv);
                let v = tb.probe_dtc(&child).unwrap().outcome();
                let b = m.after;
                assert!(
                    rank(b.lower) <= rank(v) && rank(v) <= rank(b.upper),
                    "{fen} {}: {v:?} not within {b:?}",
                    m.mv
                );
                if m.best {
                    assert!(
                        exact.is_some(),
                        "{fen} {}: best without an exact value",
                        m.mv
                    );
                    assert!(best.contains(&m.mv), "{fen} {}: not best in full", m.mv);
                    marked += 1;
                }
            }
            let exact_best = moves
                .iter()
                .any(|m| best.contains(&m.mv) && m.after.exact.is_some());
            if exact.is_some() && exact_best && !moves.iter().any(|m| m.best) {
                unmarked_exact += 1;
            }
        }
    }
    assert!(marked > 0, "no move marked best");
    assert_eq!(
        unmarked_exact, 0,
        "exact positions with a best move of exact value unmarked"
    );
}

/// With the complete table in the directory, `--partial-report` checks every position's bounds
/// against it (the paper's validation): KRKN without KRK under the Asian rules, none outside.
#[test]
fn partial_report_checks_against_the_complete_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = build_cmd("KRKN", dir.path(), &["--quiet"])
        .output()
        .unwrap();
    assert_ok("build", &out);
    build_partial_cli("KRKN", "KRK", dir.path());
    let r = partial_report_json("KRKN", dir.path());
    let c = &r["against_full"];
    assert_eq!(c["positions"], r["all"]["positions"]);
    assert!(c["positions"].as_u64().unwrap() > 0);
    assert_eq!(
        (&c["outside"], &c["exact_differs"]),
        (&0.into(), &0.into()),
        "{c}"
    );
}

/// Distance to mate (`formats/partial.md` §9): a partial DTM table built with the CLI beside the
/// complete DTM table, KRKN without KRK (the rook side's captures lead nowhere known) and without
/// KNK (its captures of the horse reach KRK, whose mates go on through the capture): every
/// position's bounds hold the complete table's outcome and every exact distance to mate is its
/// value (`--partial-report`'s check); every move marked best under DTM is a best move of the
/// complete table, and every exact position with such a move of exact value marks one.
#[test]
fn partial_dtm_tables_bound_the_complete_dtm_table() {
    use xqtb::tablebase::partial::PartialTablebase;
    for without in ["KRK", "KNK"] {
        let dir = tempfile::tempdir().unwrap();
        let out = build_cmd("KRKN", dir.path(), &["--quiet", "--metric", "dtm"])
            .output()
            .unwrap();
        assert_ok("build", &out);
        let args = [
            "--quiet",
            "--partial",
            "--without",
            without,
            "--metric",
            "dtm",
        ];
        let out = build_cmd("KRKN", dir.path(), &args).output().unwrap();
        assert_ok("build --partial --metric dtm", &out);
        let r = partial_report_json("KRKN", dir.path());
        assert!(r["against_full"].is_null(), "no DTC tables: {r}");
        let c = &r["against_full_dtm"];
        assert_eq!(c["positions"], r["all"]["positions"], "{r}");
        assert_eq!(
            (&c["outside"], &c["exact_differs"]),
            (&0.into(), &0.into()),
            "{c}"
        );
        let exact = c["exact"].as_u64().unwrap();
        assert!(exact > 0 && exact < c["positions"].as_u64().unwrap(), "{c}");

        let tb = Tablebase::new(dir.path(), 1 << 20);
        let partial = PartialTablebase::of_dir(dir.path(), 1 << 20);
        let ix = Indexer::new("KRKN".parse().unwrap()).unwrap();
        let (mut marked, mut unmarked) = (0, 0);
        for turn in Color::ALL {
            for i in (0..ix.size()).step_by(97) {
                let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
                    continue;
                };
                let fen = xqtb::to_fen(&pos);
                let best: Vec<_> = tb
                    .best_dtm_moves(&pos)
                    .unwrap()
                    .iter()
                    .map(|m| m.mv)
                    .collect();
                let moves = partial.probe_dtm_moves(&pos).unwrap();
                for m in moves.iter().filter(|m| m.best) {
                    assert!(best.contains(&m.mv), "{without} {fen} {}: not best", m.mv);
                    marked += 1;
                }
                let exact = partial.probe_dtm_bounds(&pos).unwrap().exact.is_some();
                let could = moves
                    .iter()
                    .any(|m| best.contains(&m.mv) && m.after.exact.is_some());
                unmarked += (exact && could && !moves.iter().any(|m| m.best)) as u32;
            }
        }
        assert!(marked > 0, "{without}: no move marked best");
        assert_eq!(
            unmarked, 0,
            "{without}: exact positions with a best move unmarked"
        );
    }
}

/// Partial builds that cannot be made are refused with what is wrong, not as an internal error:
/// withholding nothing (every supporting table present, none named), or withholding the table
/// itself.
#[test]
fn impossible_partial_builds_are_refused_plainly() {
    let dir = tempfile::tempdir().unwrap();
    for m in ["KRK", "KNK"] {
        assert_ok(m, &build_cmd(m, dir.path(), &["--quiet"]).output().unwrap());
    }
    let cases: [(&[&str], &str); 2] = [
        (&["--partial"], "withholds no table"),
        (&["--partial", "--without", "KRKN"], "own table withheld"),
    ];
    for (args, says) in cases {
        let out = build_cmd("KRKN", dir.path(), args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{args:?} succeeded: {err} {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("internal"), "{args:?}: {err}");
    }
}

/// Once the withheld tables are there, `xqtb build M` builds the complete table (the partial
/// one is never taken for it), which then answers probes; the build says the partial table is
/// superseded and how to remove it.
#[test]
fn a_complete_build_supersedes_the_partial_table() {
    let dir = tempfile::tempdir().unwrap();
    build_partial_cli("KRKN", "KRK", dir.path());
    assert!(!dir.path().join("KRKN.xqtb").exists());
    let out = build_cmd("KRKN", dir.path(), &[]).output().unwrap();
    assert_ok("build", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("partial table is superseded"), "{err}");
    let tb = Tablebase::new(dir.path(), 1 << 20);
    let pos = xqtb::parse_fen("9/9/4k4/9/9/9/9/9/n8/R2K5 w").unwrap();
    assert_eq!(tb.probe_dtc(&pos).unwrap().outcome(), Outcome::Win);
}

/// `xqtb build M --partial [--without ...]`: the complete tables into `--dir`, the two builds
/// into `partial/red-best` and `partial/black-best`; with nothing named, the absent supporting
/// tables are the withheld ones.
#[test]
fn build_partial_from_the_command_line() {
    use xqtb::tablebase::partial::PartialTablebase;
    let dir = tempfile::tempdir().unwrap();
    let out = build_cmd("KRKN", dir.path(), &["--partial", "--without", "KRK"])
        .output()
        .unwrap();
    assert_ok("build --partial --without KRK", &out);
    let text = String::from_utf8_lossy(&out.stdout);
    for line in ["KNK ", "KRKN red-best ", "KRKN black-best "] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(line) && l.contains(" built ")),
            "{line}: {text}"
        );
    }
    assert!(!dir.path().join("KRK.xqtb").exists() && !dir.path().join("KRKN.xqtb").exists());
    let partial = PartialTablebase::new(
        &dir.path().join("partial/red-best"),
        &dir.path().join("partial/black-best"),
        1 << 20,
    );
    let pos = xqtb::parse_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w").unwrap();
    assert!(partial.probe_bounds(&pos).is_ok());
    // `probe` answers from the partial table, in words. Red wins this one in the full table
    // (1 ply, order 1), but every Red win ends in taking the horse, into the withheld KRK: at
    // least a draw. With Black to move and the horse able to take the rook (d7 takes e5, leg
    // d6 open) into KNK, present, where the horse wins against the bare king: a win at once
    // (a capture into a lost position: distance 1), exact in both builds.
    let probe = |fen: &str| {
        let out = crate::common::xqtb()
            .args(["probe", "--json", "--dir"])
            .arg(dir.path())
            .arg(fen)
            .output()
            .unwrap();
        assert_ok("probe a partial table", &out);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let p = probe("9/9/4k4/9/9/9/9/9/1n7/R2K5 w");
    assert_eq!(
        (&p["lower"], &p["upper"], &p["bounds"], &p["without"]),
        (
            &"draw".into(),
            &"win".into(),
            &"at least a draw".into(),
            &serde_json::json!(["KRK"])
        )
    );
    let p = probe("5k3/9/3n5/9/4R4/9/9/9/9/3K5 b");
    assert_eq!(
        (&p["bounds"], &p["order"], &p["distance"]),
        (&"win".into(), &0.into(), &1.into())
    );

    // Nothing named and nothing present: both tables KRKN captures into are withheld.
    let empty = tempfile::tempdir().unwrap();
    let out = build_cmd("KRKN", empty.path(), &["--partial"])
        .output()
        .unwrap();
    assert_ok("build --partial", &out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("without KNK, KRK"));
    // --without alone is refused.
    let out = build_cmd("KRKN", empty.path(), &["--without", "KRK"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// `xqtb stats M --partial-report`: the counts by bounds, overall and by each side's most
/// advanced pawn, against a count of the two builds' files made here.
#[test]
fn partial_report_counts_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    build_partial_cli("KPKA", "KPK", dir.path());
    let report = partial_report_json("KPKA", dir.path());
    let m: Material = "KPKA".parse().unwrap();
    let (r, b) = (
        table(&dir.path().join("partial/red-best"), m),
        table(&dir.path().join("partial/black-best"), m),
    );
    let ix = Indexer::new(m).unwrap();
    // (red pawn rank, black pawn rank) -> [exact, one-sided, unknown]
    let mut slices: std::collections::BTreeMap<(Option<u8>, Option<u8>), [u64; 3]> =
        Default::default();
    for turn in Color::ALL {
        for i in 0..ix.size() {
            let Some(pos) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            let (hi, lo) = (
                r.stored_legal(turn, i).unwrap(),
                b.stored_legal(turn, i).unwrap(),
            );
            let (x, y) = (for_red(turn, lo.outcome()), for_red(turn, hi.outcome()));
            let kind = match y - x {
                0 => 0,
                1 => 1,
                _ => 2,
            };
            let pawn = pos
                .pieces(Color::Red)
                .filter(|(_, p)| p.role() == xqtb::Role::Pawn)
                .map(|(sq, _)| sq.rank())
                .max();
            slices.entry((pawn, None)).or_default()[kind] += 1;
        }
    }
    let total: [u64; 3] = slices
        .values()
        .fold([0; 3], |a, s| [a[0] + s[0], a[1] + s[1], a[2] + s[2]]);
    let all = &report["all"];
    assert_eq!(
        [&all["exact"], &all["one_sided"], &all["unknown"]],
        total.map(serde_json::Value::from).each_ref()
    );
    assert_eq!(report["without"], serde_json::json!(["KPK"]));
    // No complete KPKA in the directory: nothing to check against.
    assert!(report["against_full"].is_null());
    let by = report["by_pawns"].as_array().unwrap();
    assert_eq!(by.len(), slices.len());
    for (row, ((red, black), want)) in by.iter().zip(&slices) {
        assert_eq!(
            (&row["red"], &row["black"]),
            (&serde_json::json!(red), &serde_json::json!(black))
        );
        assert_eq!(
            [&row["exact"], &row["one_sided"], &row["unknown"]],
            want.map(serde_json::Value::from).each_ref()
        );
        let n = (want[0] + want[1] + want[2]) as f64;
        let resolved = (want[0] as f64 + 0.5 * want[1] as f64) / n;
        assert!((row["resolved"].as_f64().unwrap() - resolved).abs() < 1e-12);
    }
}
