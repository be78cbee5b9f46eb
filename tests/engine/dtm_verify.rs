//! `verify` of distance-to-mate tables (`src/verify/dtm.rs`): built tables pass, one-sided and
//! two-sided, with and without the Asian rules' phases; an entry whose value its moves contradict
//! is named by its FEN; and a table consistent with its own moves whose win/draw/loss differs
//! from the DTC table's is caught by the Theorem 7 comparison alone.

use crate::common::{build_lib, text, xqtb};
use std::path::Path;
use xqtb::builder::{BuildOptions, Metrics};
use xqtb::fang::Rules;
use xqtb::table::{metric_table_path, Metric, RuleSet, SupportingTable, TableFile, TableWriter};
use xqtb::verify::{verify_dtm, DtcCheck, DtmReport};
use xqtb::{ByColor, Color, Material, Tablebase, Value};

fn build(dir: &Path, m: &str, rules: Rules, metrics: Metrics) {
    let mut o = BuildOptions::new(dir);
    o.rules = rules;
    o.metrics = metrics;
    build_lib(m, &o);
}

fn verify(dir: &Path, m: &str) -> DtmReport {
    verify_dtm(dir, m.parse().unwrap(), &|_| {}).unwrap()
}

fn open_dtm(dir: &Path, m: &str) -> TableFile {
    TableFile::open(
        &metric_table_path(dir, m.parse().unwrap(), Metric::Dtm),
        1 << 20,
    )
    .unwrap()
}

/// Every DTM table in `dir` passes; returns their materials.
fn assert_all_pass(dir: &Path, compared: bool) -> Vec<String> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let Some(m) = name.strip_suffix(".xqdtm") else {
            continue;
        };
        let r = verify(dir, m);
        assert_eq!(r.report.failure_count, 0, "{m}: {:?}", r.report.failures);
        let h = open_dtm(dir, m).header().clone();
        assert_eq!(r.report.entries_checked, 2 * h.entries);
        assert_eq!(matches!(r.dtc, DtcCheck::Compared(_)), compared, "{m}");
        names.push(m.to_string());
    }
    names.sort();
    names
}

/// Every side's values of the DTM table `file` in `dir` as codes, the derived side's found from
/// the moves (`CODE_NONE` for entries that are not legal positions).
fn codes(dir: &Path, file: &TableFile) -> ByColor<Vec<u32>> {
    let tb = Tablebase::open(dir).unwrap();
    let h = file.header();
    ByColor::new(|side| {
        (0..h.blocks_per_side())
            .flat_map(|b| tb.dtm_block_codes(h.material, side, b).unwrap())
            .collect()
    })
}

/// The side whose distances `file` stores (the other is derived, if either is).
fn stored_side(file: &TableFile) -> Color {
    match file.header().derived {
        Some(d) => !d,
        None => Color::Red,
    }
}

/// Writes `codes` as the DTM table of `file`'s material at `path`, with `file`'s header (its
/// derived side too) but the rule set `rule_set` (its counts as `file`'s: a changed value shows
/// in the value table's counts too).
fn rewrite(path: &Path, file: &TableFile, codes: &ByColor<Vec<u32>>, rule_set: RuleSet) {
    rewrite_onto(path, file, codes, (rule_set, &file.header().supports));
}

/// [`rewrite`] listing `supports` as its supporting tables.
fn rewrite_onto(
    path: &Path,
    file: &TableFile,
    codes: &ByColor<Vec<u32>>,
    (rule_set, supports): (RuleSet, &[SupportingTable]),
) {
    let h = file.header();
    let levels = Some(&h.levels);
    let mut w =
        TableWriter::create(path, h.material, h.entries, (h.derived, levels), supports).unwrap();
    for side in Color::ALL {
        w.write(side, &codes[side]).unwrap();
    }
    let tallies = ByColor::new(|side| (file.histogram(side), file.firsts(side)));
    w.finish(rule_set, h.sides, &tallies, h.max_order).unwrap();
}

/// KNKA (one side armed, under the Asian rules), built without its DTC tables:
/// every table of its family passes, and the comparison with DTC is reported as not made.
#[test]
fn one_sided_dtm_tables_pass_without_dtc() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "KNKA", Rules::Asian, Metrics::Dtm);
    let names = assert_all_pass(dir.path(), false);
    assert_eq!(names, ["KAK", "KK", "KNK", "KNKA"]);
}

/// KRKN and KPKP built in both metrics, without rules on endless play and under the Asian rules
/// (KRKN then has own phases, whose seeds are checked against their moves and the DTC file's
/// order seeds): every DTM table passes, compared with its DTC table.
#[test]
fn two_sided_dtm_tables_pass_against_dtc() {
    for rules in [Rules::None, Rules::Asian] {
        let dir = tempfile::tempdir().unwrap();
        for m in ["KRKN", "KPKP"] {
            build(dir.path(), m, rules, Metrics::Both);
        }
        let names = assert_all_pass(dir.path(), true);
        assert!(names.contains(&"KRKN".to_string()) && names.contains(&"KPKP".to_string()));
        let phases = open_dtm(dir.path(), "KRKN").header().max_order;
        assert_eq!(
            phases > 0,
            rules == Rules::Asian,
            "KRKN has {phases} own phases"
        );
    }
}

/// The first legal entry of `file` of side `side` holding `value`.
fn first_holding(file: &TableFile, codes: &ByColor<Vec<u32>>, side: Color, value: Value) -> u64 {
    let k = codes[side].iter().position(|&c| c == value.code()).unwrap();
    assert!(file.is_legal(side, k as u64));
    k as u64
}

/// One stored entry of KRKN's DTM table changed from a win in 3 to a win in 1 (a mate it does not have):
/// `verify` names it by its FEN and says what its moves give. (The value table's counts fail too,
/// and may its parents, at most a dozen (Black's moves into it): the failures kept hold all.)
#[test]
fn a_changed_entry_is_reported_with_its_fen() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "KRKN", Rules::None, Metrics::Both);
    let file = open_dtm(dir.path(), "KRKN");
    let mut codes = codes(dir.path(), &file);
    let win = |distance| Value::Decided { order: 0, distance };
    let side = stored_side(&file);
    let index = first_holding(&file, &codes, side, win(3));
    codes[side][index as usize] = win(1).code();
    let path = metric_table_path(dir.path(), "KRKN".parse().unwrap(), Metric::Dtm);
    rewrite(&path, &file, &codes, file.header().rule_set);
    let fen = xqtb::to_fen(&file.indexer().decode(index, side).unwrap());
    let r = verify(dir.path(), "KRKN");
    let failures = &r.report.failures;
    assert!(
        r.report.failure_count as usize <= failures.len(),
        "{failures:?}"
    );
    let f = failures
        .iter()
        .find(|f| f.fen == fen)
        .expect("the entry named");
    assert!(
        f.what.contains("holds win 1") && f.what.contains("its moves give win 3"),
        "{f:?}"
    );
    assert!(failures.iter().any(|f| f.fen.starts_with("value table of")));
    // The command line says so, naming the entry, and exits non-zero.
    let out = xqtb()
        .args(["verify", "KRKN", "--metric", "dtm", "--quiet", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("KRKN dtm: FAILED") && stdout.contains(&fen),
        "{stdout}"
    );
}

/// KRKN's DTM table built without rules on endless play, relabelled as of the Asian rules, beside
/// the Asian rules' DTC table: consistent with its own moves (its phase positions are draws), so
/// only the comparison with the DTC table (Theorem 7) catches it, naming positions by FEN.
#[test]
fn a_dtm_table_whose_wdl_differs_from_dtc_is_reported() {
    let asian = tempfile::tempdir().unwrap();
    build(asian.path(), "KRKN", Rules::Asian, Metrics::Both);
    let none = tempfile::tempdir().unwrap();
    build(none.path(), "KRKN", Rules::None, Metrics::Dtm);
    let plain = open_dtm(none.path(), "KRKN");
    // Listing the Asian rules' supporting tables (KRK and KNK have attacking pieces: each rule
    // set has its own).
    let supports = open_dtm(asian.path(), "KRKN").header().supports.clone();
    let material: Material = "KRKN".parse().unwrap();
    let path = metric_table_path(asian.path(), material, Metric::Dtm);
    rewrite_onto(
        &path,
        &plain,
        &codes(none.path(), &plain),
        (RuleSet::DtcAsian, &supports),
    );
    let r = verify(asian.path(), "KRKN");
    let failures = &r.report.failures;
    assert!(matches!(r.dtc, DtcCheck::Compared(_)));
    assert!(r.report.failure_count > 10, "{failures:?}");
    assert!(
        failures.iter().all(|f| !f.what.contains("its moves give")),
        "{failures:?}"
    );
    let f = failures
        .iter()
        .find(|f| f.what.contains("Theorem 7: the same win, draw or loss"))
        .expect("a Theorem 7 failure");
    assert!(f.what.starts_with("holds draw"), "{f:?}");
    xqtb::parse_fen(&f.fen).unwrap();
    assert!(failures
        .iter()
        .any(|f| f.fen.starts_with("header of") && f.what.contains("own phases up to 0")));
}

/// `xqtb verify --metric both` verifies each table's DTC file then its DTM file; a DTM table
/// that is not there fails naming its file.
#[test]
fn the_command_line_verifies_both_metrics() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "KPKP", Rules::None, Metrics::Both);
    let run = |args: &[&str]| {
        xqtb()
            .arg("verify")
            .args(args)
            .args(["--quiet", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let out = run(&["KPKP", "--metric", "both"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("KPKP: ok (") && stdout.contains("\nKPKP dtm: ok ("),
        "{stdout}"
    );
    // No own phases without rules on endless play: no seeds to name.
    assert!(stdout.contains("; win/draw/loss as "), "{stdout}");
    // Every DTM table of the directory by default, smallest first.
    let out = run(&["--metric", "dtm"]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.starts_with("KK dtm: ok"),
        "{stdout}"
    );
    let out = run(&["KRKN", "--metric", "dtm"]);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("KRKN.xqdtm: no such distance-to-mate table"),
        "{stdout}"
    );
}

/// Under the Asian rules KRKN's DTM table has one own phase: Black's seeds at `(1, 0)` (level 1),
/// Red's wins at `(1, 1)`. A seed turned into a loss at `(1, 2)` is what its moves give, so its own
/// check passes; the comparison with the DTC table's seeds of order 1 names it (and the wins that
/// moved into it fail their own checks).
#[test]
fn a_seed_the_dtc_table_does_not_have_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "KRKN", Rules::Asian, Metrics::Both);
    let file = open_dtm(dir.path(), "KRKN");
    let h = file.header().clone();
    assert_eq!((h.max_order, h.levels.phase_index(1)), (1, 1));
    let seed = Value::Decided {
        order: 1,
        distance: 0,
    };
    let codes = codes(dir.path(), &file);
    let black = &codes[Color::Black];
    let seeds = (0..h.entries).filter(|&i| black[i as usize] == seed.code());
    let path = metric_table_path(dir.path(), h.material, Metric::Dtm);
    // The first seed whose failures are all kept (at most `KEEP` = 20).
    for index in seeds.take(20) {
        let mut changed = codes.clone();
        changed[Color::Black][index as usize] = Value::Decided {
            order: 1,
            distance: 2,
        }
        .code();
        rewrite(&path, &file, &changed, h.rule_set);
        let r = verify(dir.path(), "KRKN");
        let failures = &r.report.failures;
        if r.report.failure_count as usize > failures.len() {
            continue;
        }
        let fen = xqtb::to_fen(&file.indexer().decode(index, Color::Black).unwrap());
        let f = failures
            .iter()
            .find(|f| f.fen == fen)
            .expect("the seed named");
        assert!(
            f.what.contains("is no seed here but a seed of order 1 in"),
            "{f:?}"
        );
        return;
    }
    panic!("no seed of KRKN with fewer than 20 failures");
}

/// A DTM file stores only the outcome of its derived side's entries: one of them turned from a
/// win into a loss is named by its FEN, its moves giving a win.
#[test]
fn a_derived_entrys_changed_outcome_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "KRKN", Rules::None, Metrics::Dtm);
    let file = open_dtm(dir.path(), "KRKN");
    let side = file.header().derived.expect("a derived side");
    let mut codes = codes(dir.path(), &file);
    let index = (0..file.header().entries)
        .find(|&i| {
            Value::from_code(codes[side][i as usize])
                .is_some_and(|v| v.outcome() == xqtb::Outcome::Win)
        })
        .unwrap();
    let loss = Value::Decided {
        order: 0,
        distance: 4,
    };
    codes[side][index as usize] = loss.code();
    let path = metric_table_path(dir.path(), "KRKN".parse().unwrap(), Metric::Dtm);
    rewrite(&path, &file, &codes, file.header().rule_set);
    let fen = xqtb::to_fen(&file.indexer().decode(index, side).unwrap());
    let r = verify(dir.path(), "KRKN");
    let f = r
        .report
        .failures
        .iter()
        .find(|f| f.fen == fen)
        .unwrap_or_else(|| panic!("{fen} not named: {:?}", r.report.failures));
    assert!(
        f.what
            .contains("holds a loss (derived side), its moves give win"),
        "{f:?}"
    );
}
