//! What a table was built from (`formats/table.md` §4.1, `formats/build.md` §6 and §11): a
//! checkpoint resumes only under the rules it was made with, a directory holds tables of one
//! rule set (`dtc-any` tables, where no side has an attacking piece, serve all), and tables that are each intact
//! but do not belong together are refused — by `build` (which rebuilds what depends on a changed
//! table), by the probing API, `xqtb probe` and `xqtb verify` — never combined into wrong answers.

use crate::common::{self, assert_ok, build_cmd, text, xqtb};
use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;
use xqtb::table::{table_path, RuleSet, TableError, TableFile, TableWriter};
use xqtb::tablebase::{ProbeError, Tablebase};
use xqtb::{parse_fen, ByColor, Color, Material};

/// Red: king d0, rook a0; Black: king e7, horse b1 (KRKN, Red to move).
const KRKN_FEN: &str = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w";
/// The same with a cannon for the rook (KCKN).
const KCKN_FEN: &str = "9/9/4k4/9/9/9/9/9/1n7/C2K5 w";
/// KRK, Red to move.
const KRK_FEN: &str = "3k5/9/9/9/9/9/9/9/9/4K1R2 w";
/// KK, Red to move (a dtc-any table: no side has an attacking piece).
const KK_FEN: &str = "3k5/9/9/9/9/9/9/9/9/4K4 w";

/// `xqtb build KRKN --dir <dir> --rules <rules>` checkpointing at every pass, dying after the
/// checkpoint at `abort` (order, ply) if given.
fn build_krkn(dir: &Path, rules: &str, abort: Option<(u16, u32)>) -> Output {
    let mut c = build_cmd(
        "KRKN",
        dir,
        &["--quiet", "--checkpoint-secs", "0", "--rules", rules],
    );
    if let Some((order, ply)) = abort {
        c.env("XQTB_TEST_ABORT_AT", format!("KRKN:{order}:{ply}"));
    }
    c.output().unwrap()
}

/// A clean build of KRKN under each rules option, once per test process: its directory.
fn clean(rules: &'static str) -> &'static Path {
    static DIRS: OnceLock<Vec<(&'static str, tempfile::TempDir)>> = OnceLock::new();
    let dirs = DIRS.get_or_init(|| {
        ["asian", "check", "none"]
            .into_iter()
            .map(|r| {
                let d = tempfile::tempdir().unwrap();
                assert_ok(&format!("clean {r}"), &build_krkn(d.path(), r, None));
                (r, d)
            })
            .collect()
    });
    dirs.iter().find(|(r, _)| *r == rules).unwrap().1.path()
}

/// Copies the tables of `materials` from `from` to `to`.
fn copy_tables(from: &Path, to: &Path, materials: &[&str]) {
    for m in materials {
        let name = format!("{m}.xqtb");
        std::fs::copy(from.join(&name), to.join(&name)).unwrap();
    }
}

fn krkn(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("KRKN.xqtb")).unwrap()
}

/// Today's main resumed an asian checkpoint under `--rules none` and wrote a table whose header
/// said `dtc-order0` with max order 1, which `verify` passed. Every change of rules on resume is
/// refused, naming the checkpoint's rules and how to go on; the same rules resume to the clean
/// build's bytes; and the other rules build it in a directory of their own, sharing the dtc-any
/// table (KK) and building the rest.
#[test]
fn a_checkpoint_resumes_only_under_its_own_rules() {
    for (first, second, abort) in [
        ("asian", "none", (1, 1)),
        ("asian", "check", (1, 1)),
        ("none", "asian", (0, 3)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let died = build_krkn(dir.path(), first, Some(abort));
        assert!(
            !died.status.success(),
            "{first}: the build should have died"
        );
        let other = build_krkn(dir.path(), second, None);
        let err = text(&other.stderr);
        assert!(!other.status.success(), "{first} → {second} resumed: {err}");
        let rule_set = |r| match r {
            "asian" => "dtc-asian",
            "check" => "dtc-check",
            _ => "dtc-order0",
        };
        assert!(
            err.contains(&format!("under rule set {}", rule_set(first)))
                && err.contains(&format!("this build asks for {}", rule_set(second)))
                && err.contains(&format!("--rules {first}")),
            "{first} → {second}: {err}"
        );
        assert!(!dir.path().join("KRKN.xqtb").exists(), "{first} → {second}");
        assert!(dir.path().join(".work/KRKN/manifest.json").is_file());
        assert_ok("resume", &build_krkn(dir.path(), first, None));
        assert!(
            krkn(dir.path()) == krkn(clean(first)),
            "{first}: resumed bytes differ"
        );
        // The directory now holds tables of `first`'s rules: `second` builds elsewhere, reusing
        // the dtc-any table as it is (KRK and KNK have attacking pieces: their own rule set).
        let refused = build_krkn(dir.path(), second, None);
        assert!(
            !refused.status.success()
                && text(&refused.stderr).contains("a directory holds tables of one rule set"),
            "{}",
            text(&refused.stderr)
        );
        let elsewhere = tempfile::tempdir().unwrap();
        copy_tables(dir.path(), elsewhere.path(), &["KK"]);
        let before = common::tables(elsewhere.path());
        let out = build_cmd(
            "KRKN",
            elsewhere.path(),
            &["--rules", second, "--checkpoint-secs", "0"],
        )
        .output()
        .unwrap();
        assert_ok("other rules elsewhere", &out);
        let mut built: Vec<String> = text(&out.stdout)
            .lines()
            .filter(|l| l.contains(" built "))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect();
        built.sort();
        assert_eq!(built, ["KNK", "KRK", "KRKN"], "{}", text(&out.stdout));
        for (name, bytes) in before {
            assert!(
                common::tables(elsewhere.path()).contains(&(name.clone(), bytes)),
                "{name}"
            );
        }
        assert!(
            krkn(elsewhere.path()) == krkn(clean(second)),
            "{second}: bytes differ"
        );
    }
}

/// A table where no side has an attacking piece (KK, KABKA) is the same bytes under every rules
/// option (rule set dtc-any); one where only one side has them (KRK, KNK) is not exempt: it
/// records the rules it was built under (`formats/table.md` §4.1).
#[test]
fn only_tables_without_attacking_pieces_are_shared_by_every_rule_set() {
    let kabka = |rules: &str| {
        let d = tempfile::tempdir().unwrap();
        let out = build_cmd("KABKA", d.path(), &["--quiet", "--rules", rules])
            .output()
            .unwrap();
        assert_ok(&format!("KABKA {rules}"), &out);
        (std::fs::read(d.path().join("KABKA.xqtb")).unwrap(), d)
    };
    let (asian, d) = kabka("asian");
    for rules in ["check", "none"] {
        assert!(asian == kabka(rules).0, "KABKA {rules}");
    }
    let h = TableFile::open(&d.path().join("KABKA.xqtb"), 0).unwrap();
    assert_eq!(h.header().rule_set, RuleSet::DtcAny);
    let kk = std::fs::read(clean("asian").join("KK.xqtb")).unwrap();
    for rules in ["check", "none"] {
        assert!(kk == std::fs::read(clean(rules).join("KK.xqtb")).unwrap());
    }
    for (rules, rule_set) in [
        ("asian", RuleSet::DtcAsian),
        ("check", RuleSet::DtcCheck),
        ("none", RuleSet::DtcOrder0),
    ] {
        for m in ["KRK", "KNK", "KRKN"] {
            let h = TableFile::open(&clean(rules).join(format!("{m}.xqtb")), 0).unwrap();
            assert_eq!(h.header().rule_set, rule_set, "{m} {rules}");
        }
    }
    let h = TableFile::open(&clean("none").join("KRKN.xqtb"), 0).unwrap();
    let supports: Vec<String> = h
        .header()
        .supports
        .iter()
        .map(|s| s.material.to_string())
        .collect();
    assert_eq!(supports, ["KNK", "KRK"]);
}

/// A directory mixing rule sets: each table of either is refused with an error naming both
/// files, by the API, `xqtb probe` and `xqtb verify`; the dtc-any table goes on serving.
#[test]
fn a_directory_mixing_rule_sets_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    copy_tables(clean("asian"), dir.path(), &["KK", "KRK", "KNK", "KRKN"]);
    let none = tempfile::tempdir().unwrap();
    assert_ok(
        "KCKN none",
        &build_cmd("KCKN", none.path(), &["--quiet", "--rules", "none"])
            .output()
            .unwrap(),
    );
    std::fs::copy(none.path().join("KCKN.xqtb"), dir.path().join("KCKN.xqtb")).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    for fen in [KRKN_FEN, KCKN_FEN] {
        let err = tb.probe_wdl(&parse_fen(fen).unwrap()).unwrap_err();
        let ProbeError::Unusable { source, .. } = &err else {
            panic!("{fen}: {err:?}");
        };
        assert!(
            matches!(**source, TableError::RuleSetMismatch { .. }),
            "{err:?}"
        );
        // Each names its own file and one of the other rule set (KCKN's: KRKN, KRK or KNK).
        let msg = err.to_string();
        assert!(
            msg.contains("KCKN.xqtb") && msg.contains("dtc-order0") && msg.contains("dtc-asian"),
            "{msg}"
        );
        if fen == KRKN_FEN {
            assert!(msg.contains("KRKN.xqtb"), "{msg}");
        }
    }
    assert!(tb.probe_dtc(&parse_fen(KK_FEN).unwrap()).is_ok());
    let probe = xqtb()
        .args(["probe", "--dir"])
        .arg(dir.path())
        .arg(KRKN_FEN)
        .output()
        .unwrap();
    let err = text(&probe.stderr);
    assert!(
        !probe.status.success() && err.contains("KCKN.xqtb") && err.contains("KRKN.xqtb"),
        "{err}"
    );
    verify_krkn_fails_naming(dir.path(), "KCKN.xqtb");
    // A build into it is refused too.
    let build = build_cmd("KRKNA", dir.path(), &["--quiet"])
        .output()
        .unwrap();
    assert!(!build.status.success(), "{}", text(&build.stdout));
}

/// `xqtb verify --dir <dir> KRKN` fails, naming `file`.
fn verify_krkn_fails_naming(dir: &Path, file: &str) {
    let verify = xqtb()
        .args(["verify", "--dir"])
        .arg(dir)
        .arg("KRKN")
        .output()
        .unwrap();
    let out = text(&verify.stdout) + &text(&verify.stderr);
    assert!(!verify.status.success() && out.contains(file), "{out}");
}

/// `path`'s table written again with the same values and the other side derived: a different
/// file (another identity) that is intact and right on its own.
fn rewrite_with_other_bytes(dir: &Path, m: &str) {
    let material: Material = m.parse().unwrap();
    let path = table_path(dir, material);
    let (h, codes, tallies) = {
        let file = TableFile::open(&path, 1 << 20).unwrap();
        let tb = Tablebase::open(dir).unwrap();
        let h = file.header().clone();
        let codes: Vec<Vec<u32>> = Color::ALL
            .into_iter()
            .map(|side| {
                (0..h.blocks_per_side())
                    .flat_map(|b| tb.block_values(material, side, b).unwrap())
                    .collect()
            })
            .collect();
        let tallies = ByColor::new(|side| (file.histogram(side), file.firsts(side)));
        (h, codes, tallies)
    };
    let derived = h.derived.map(|d| !d).or(Some(Color::Black));
    let mut w =
        TableWriter::create(&path, material, h.entries, (derived, None), &h.supports).unwrap();
    for (side, c) in Color::ALL.into_iter().zip(&codes) {
        w.write(side, c).unwrap();
    }
    w.finish(h.rule_set, h.sides, &tallies, h.max_order)
        .unwrap();
}

/// A supporting table replaced by another file (same values, other bytes): the table built from
/// the old one is refused by the API and `verify`, naming both files, and `build` rebuilds it.
#[test]
fn a_table_whose_supporting_table_changed_is_refused_then_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    copy_tables(clean("asian"), dir.path(), &["KK", "KRK", "KNK", "KRKN"]);
    rewrite_with_other_bytes(dir.path(), "KRK");
    assert!(
        std::fs::read(dir.path().join("KRK.xqtb")).unwrap()
            != std::fs::read(clean("asian").join("KRK.xqtb")).unwrap()
    );
    let tb = Tablebase::open(dir.path()).unwrap();
    let err = tb.probe_wdl(&parse_fen(KRKN_FEN).unwrap()).unwrap_err();
    let ProbeError::Unusable { source, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(
        matches!(**source, TableError::SupportChanged { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("KRK.xqtb") && err.to_string().contains("KRKN.xqtb"),
        "{err}"
    );
    assert!(tb.probe_dtc(&parse_fen(KRK_FEN).unwrap()).is_ok());
    verify_krkn_fails_naming(dir.path(), "KRK.xqtb");
    let build = build_cmd("KRKN", dir.path(), &[]).output().unwrap();
    assert_ok("rebuild", &build);
    assert!(
        text(&build.stderr).contains("rebuilding"),
        "{}",
        text(&build.stderr)
    );
    let tb = Tablebase::open(dir.path()).unwrap();
    let old = Tablebase::open(clean("asian")).unwrap();
    let pos = parse_fen(KRKN_FEN).unwrap();
    assert_eq!(tb.probe_dtc(&pos).unwrap(), old.probe_dtc(&pos).unwrap());
    assert_ok(
        "verify",
        &xqtb()
            .args(["verify", "--quiet", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
}
