//! Distance-to-conversion values: the naive reference in `tests/reference/dtc.rs` (forward
//! fixpoint iteration over every legal position, built on the naive rules in
//! `tests/reference/mod.rs`) against independently published figures, and the crate's
//! `xqtb build` / `xqtb probe` against that reference, position by position.

use crate::common::{assert_ok, build_cmd, probe_batch};
use crate::dtc::Dtc;
use crate::reference::{self, check_consistency, to_fen, Mat, SideStats, Solver, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Published figures: (material, Red to move W/D/L, Black to move W/D/L, longest win in plies
/// over both sides).
const PUBLISHED: &[(&str, [u64; 3], [u64; 3], u32)] = &[
    ("KRK", [3834, 0, 0], [0, 108, 4806], 3),
    ("KNK", [4590, 0, 0], [0, 108, 4806], 13),
    ("KPK", [2394, 432, 0], [0, 546, 2469], 19),
    ("KNKA", [21366, 60, 0], [0, 816, 21990], 29),
];

/// Materials compared with the builder (the published ones plus cheap extras), each with the
/// `--rules` it is built under: the reference has no rules on endless play, which change
/// nothing where one side alone can attack; KPKP, where both can, is built without them (and
/// is the first material whose step 1 resolves nothing: no side is ever mated).
const COMPARED: &[(&str, &str)] = &[
    ("KRK", "asian"),
    ("KNK", "asian"),
    ("KPK", "asian"),
    ("KNKA", "asian"),
    ("KCK", "asian"),
    ("KAKA", "asian"),
    ("KPKP", "none"),
];

fn wdl(s: &SideStats) -> [u64; 3] {
    [s.wins, s.draws, s.losses]
}

#[test]
fn reference_matches_published_figures() {
    let t0 = Instant::now();
    let mut solver = Solver::<Dtc>::new();
    let mut failures = Vec::new();
    for &(material, red, black, longest) in PUBLISHED {
        let table = solver.solve_str(material);
        let (r, b) = (table.stats(true), table.stats(false));
        let got_longest = r.longest_win.max(b.longest_win);
        println!(
            "{material}: red {:?} black {:?} longest win {got_longest} ({} steps)",
            wdl(&r),
            wdl(&b),
            table.steps
        );
        if wdl(&r) != red || wdl(&b) != black || got_longest != longest {
            failures.push(format!(
                "{material}: reference red {:?} black {:?} longest {got_longest}; \
                 published red {red:?} black {black:?} longest {longest}",
                wdl(&r),
                wdl(&b)
            ));
        }
    }
    // Every solved table (the published ones and every smaller one they capture into) must
    // satisfy the definition position by position.
    let mats: Vec<Mat> = solver.tables.keys().cloned().collect();
    for mat in &mats {
        if let Err(e) = check_consistency(&solver, mat) {
            failures.push(format!("{}: {e}", mat.name()));
        }
    }
    println!("reference: {:?}", t0.elapsed());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A fresh, empty directory under the system temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "xqtb-reference-dtc-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("create temporary directory");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// (result, distance) as the probe reports them.
fn probed(v: &serde_json::Value) -> Result<(String, Option<u64>), String> {
    if let Some(e) = v.get("error") {
        return Err(format!("error {e}"));
    }
    let result = v
        .get("result")
        .and_then(|r| r.as_str())
        .ok_or_else(|| format!("no result in {v}"))?
        .to_string();
    let distance = match v.get("distance") {
        None | Some(serde_json::Value::Null) => None,
        Some(d) => Some(d.as_u64().ok_or_else(|| format!("bad distance in {v}"))?),
    };
    Ok((result, distance))
}

#[test]
fn builder_matches_reference() {
    let mut solver = Solver::<Dtc>::new();
    let mut report = Vec::new();
    for &(material, rules) in COMPARED {
        let t0 = Instant::now();
        let mat = Mat::parse(material);
        solver.solve(&mat);
        let table = &solver.tables[&mat];
        let t_ref = t0.elapsed();
        let (r, b) = (table.stats(true), table.stats(false));
        println!(
            "{material} reference: red {:?} black {:?} longest win {} longest loss {}",
            wdl(&r),
            wdl(&b),
            r.longest_win.max(b.longest_win),
            r.longest_loss.max(b.longest_loss)
        );

        let dir = TempDir::new(material);
        let t1 = Instant::now();
        assert_ok(
            material,
            &build_cmd(material, dir.path(), &["--quiet", "--rules", rules])
                .output()
                .unwrap(),
        );
        let fens: Vec<String> = table.positions().map(|p| to_fen(&p)).collect();
        let lines = probe_batch(dir.path(), &fens);
        let t_cli = t1.elapsed();

        let mut mismatches = Vec::new();
        let mut count = 0usize;
        for ((pos, &want), line) in table.positions().zip(&table.values).zip(&lines) {
            // The output line must be about the position asked (by board and side).
            if let Some(f) = line.get("fen").and_then(|f| f.as_str()) {
                let back = reference::parse_fen(f);
                assert_eq!(
                    back,
                    pos,
                    "probe answered {f:?} for {}; output out of order?",
                    to_fen(&pos)
                );
            }
            let want_pair = (want.result().to_string(), want.distance().map(u64::from));
            let got = probed(line);
            if got.as_ref() != Ok(&want_pair) {
                count += 1;
                if mismatches.len() < 8 {
                    let got_text = match &got {
                        Ok((r, d)) => format!("{r} {d:?}"),
                        Err(e) => e.clone(),
                    };
                    mismatches.push(format!(
                        "  {}: builder {got_text}, reference {} {:?}",
                        to_fen(&pos),
                        want.result(),
                        want.distance()
                    ));
                }
            }
        }
        println!(
            "{material}: {} positions, reference {t_ref:?}, build+probe {t_cli:?}, {count} mismatches",
            table.values.len()
        );
        if count > 0 {
            report.push(format!(
                "{material}: {count} of {} positions differ, e.g.\n{}",
                table.values.len(),
                mismatches.join("\n")
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// KPKP has no checkmate or stalemate, so step 1 of the iteration resolves nothing while step 2
/// still does (the parents of step 0's captures into lost positions): the reference must not
/// stop there. Before it waited, `9/3P5/3k5/9/9/9/9/9/3p5/3K5 w` (only Ke0, then Black takes the
/// pawn) stayed a draw.
#[test]
fn reference_satisfies_definition_in_kpkp() {
    let mut solver = Solver::<Dtc>::new();
    let mat = Mat::parse("KPKP");
    solver.solve(&mat);
    assert_eq!(check_consistency(&solver, &mat), Ok(()));
}

/// The reference's `Value` must keep win distances odd and loss distances even.
#[test]
fn reference_distance_parity() {
    let mut solver = Solver::<Dtc>::new();
    let table = solver.solve_str("KNK");
    for (p, v) in table.positions().zip(&table.values) {
        match *v {
            Value::Win(d) => assert!(d % 2 == 1, "{}: win {d}", to_fen(&p)),
            Value::Loss(d) => assert!(d % 2 == 0, "{}: loss {d}", to_fen(&p)),
            Value::Draw => {}
        }
    }
}
