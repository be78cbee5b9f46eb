//! Distance-to-conversion values: the naive reference in `tests/reference/dtc.rs` (forward
//! fixpoint iteration over every legal position, built on the naive rules in
//! `tests/reference/mod.rs`) against independently published figures, and the crate's
//! `xqtb build` / `xqtb probe` against that reference, position by position.

mod reference;

#[path = "reference/dtc.rs"]
mod dtc;

use dtc::{check_consistency, Mat, SideStats, Solver, Value};
use reference::to_fen;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Published figures: (material, Red to move W/D/L, Black to move W/D/L, longest win in plies
/// over both sides).
const PUBLISHED: &[(&str, [u64; 3], [u64; 3], u32)] = &[
    ("KRK", [3834, 0, 0], [0, 108, 4806], 3),
    ("KNK", [4590, 0, 0], [0, 108, 4806], 13),
    ("KPK", [2394, 432, 0], [0, 546, 2469], 19),
    ("KNKA", [21366, 60, 0], [0, 816, 21990], 29),
];

/// Materials compared with the builder (the published ones plus two cheap extras).
const COMPARED: &[&str] = &["KRK", "KNK", "KPK", "KNKA", "KCK", "KAKA"];

fn wdl(s: &SideStats) -> [u64; 3] {
    [s.wins, s.draws, s.losses]
}

#[test]
fn reference_matches_published_figures() {
    let t0 = Instant::now();
    let mut solver = Solver::new();
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

fn xqtb() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xqtb"))
}

/// Builds `material` into `dir` with the CLI.
fn build(material: &str, dir: &Path) {
    let out = xqtb()
        .args(["build", material, "--dir"])
        .arg(dir)
        .arg("--quiet")
        .output()
        .expect("run xqtb build");
    assert!(
        out.status.success(),
        "xqtb build {material} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Probes every FEN with one `xqtb probe --json -` run; one parsed JSON object per input line.
fn probe(dir: &Path, fens: &[String]) -> Vec<serde_json::Value> {
    let mut child = xqtb()
        .args(["probe", "--dir"])
        .arg(dir)
        .args(["--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run xqtb probe");
    let mut input = String::new();
    for f in fens {
        input.push_str(f);
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("stdin");
    // Feed stdin from a thread so a large output cannot deadlock against a full input pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait for xqtb probe");
    writer.join().expect("stdin writer");
    assert!(
        out.status.success(),
        "xqtb probe failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("probe output is UTF-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("probe output {l:?} is not JSON: {e}"))
        })
        .collect();
    assert_eq!(
        lines.len(),
        fens.len(),
        "probe gave {} lines for {} positions",
        lines.len(),
        fens.len()
    );
    lines
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
    let mut solver = Solver::new();
    let mut report = Vec::new();
    for &material in COMPARED {
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
        build(material, dir.path());
        let fens: Vec<String> = table.positions.iter().map(to_fen).collect();
        let lines = probe(dir.path(), &fens);
        let t_cli = t1.elapsed();

        let mut mismatches = Vec::new();
        let mut count = 0usize;
        for ((pos, &want), line) in table.positions.iter().zip(&table.values).zip(&lines) {
            // The output line must be about the position asked (by board and side).
            if let Some(f) = line.get("fen").and_then(|f| f.as_str()) {
                let back = reference::parse_fen(f);
                assert_eq!(
                    &back,
                    pos,
                    "probe answered {f:?} for {}; output out of order?",
                    to_fen(pos)
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
                        to_fen(pos),
                        want.result(),
                        want.distance()
                    ));
                }
            }
        }
        println!(
            "{material}: {} positions, reference {t_ref:?}, build+probe {t_cli:?}, {count} mismatches",
            table.positions.len()
        );
        if count > 0 {
            report.push(format!(
                "{material}: {count} of {} positions differ, e.g.\n{}",
                table.positions.len(),
                mismatches.join("\n")
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The reference's `Value` must keep win distances odd and loss distances even.
#[test]
fn reference_distance_parity() {
    let mut solver = Solver::new();
    let table = solver.solve_str("KNK");
    for (p, v) in table.positions.iter().zip(&table.values) {
        match *v {
            Value::Win(d) => assert!(d % 2 == 1, "{}: win {d}", to_fen(p)),
            Value::Loss(d) => assert!(d % 2 == 0, "{}: loss {d}", to_fen(p)),
            Value::Draw => {}
        }
    }
}
