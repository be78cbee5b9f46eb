//! The Snakemake workflow (`workflows/Snakefile`, `docs/cluster.md`) run end to end with
//! `--cores 2`: every planned table built, byte-identical to one `xqtb build`. Needs the
//! engine in `workflows/.venv` (`bash workflows/install.sh`; `.ci/run` runs it): without it the
//! test is skipped with a notice, unless `CI=true`, where it fails.

use crate::common::{assert_ok, built, tables, text};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workflow engine, if installed.
fn snakemake() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workflows/.venv/bin/snakemake");
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "{} is missing: run bash workflows/install.sh",
        path.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// `snakemake -s workflows/Snakefile --cores 2 --config ... <extra>` in `work`.
fn workflow(
    snakemake: &Path,
    work: &Path,
    targets: &[&str],
    dir: &Path,
    extra: &[&str],
) -> Command {
    let quoted: Vec<String> = targets.iter().map(|t| format!("\"{t}\"")).collect();
    let mut c = Command::new(snakemake);
    c.current_dir(work)
        .arg("-s")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("workflows/Snakefile"))
        .args(["--cores", "2", "--config"])
        .arg(format!("xqtb={}", env!("CARGO_BIN_EXE_xqtb")))
        .arg(format!("targets=[{}]", quoted.join(",")))
        .arg(format!("dir={}", dir.display()))
        .args(extra);
    c
}

/// The jobs a dry run lists, by rule (`table  27`).
fn jobs(out: &str, rule: &str) -> Option<usize> {
    out.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next()? == rule).then_some(())?;
        w.next()?.parse().ok()
    })
}

#[test]
fn the_snakemake_workflow_builds_a_plan_to_the_same_bytes() {
    let Some(snakemake) = snakemake() else { return };
    let family = ["KRKAABB", "KNKAABB"];
    let want = tables(built(&family).path());
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    // The dry run lists one job per planned table, and the rule gathering them.
    let dry = workflow(&snakemake, work.path(), &family, &dir, &["-n"])
        .output()
        .unwrap();
    assert_ok("dry run", &dry);
    let listed = text(&dry.stdout);
    assert_eq!(jobs(&listed, "table"), Some(want.len()), "{listed}");
    assert_eq!(jobs(&listed, "all"), Some(1), "{listed}");
    assert!(
        !dir.exists() || tables(&dir).is_empty(),
        "a dry run built tables"
    );
    let run = workflow(&snakemake, work.path(), &family, &dir, &[])
        .output()
        .unwrap();
    assert_ok("the workflow", &run);
    assert!(
        tables(&dir) == want,
        "the workflow's tables differ from one build's"
    );
    // Run again: nothing to do.
    let again = workflow(&snakemake, work.path(), &family, &dir, &[])
        .output()
        .unwrap();
    assert_ok("the workflow again", &again);
    assert!(
        text(&again.stderr).contains("Nothing to be done"),
        "{}",
        text(&again.stderr)
    );
}

/// A plan xqtb refuses stops the workflow before any job, with xqtb's message.
#[test]
fn the_workflow_reports_a_bad_plan() {
    let Some(snakemake) = snakemake() else { return };
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tables");
    let out = workflow(&snakemake, work.path(), &["KRXK"], &dir, &["-n"])
        .output()
        .unwrap();
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(
        !out.status.success() && all.contains("xqtb") && all.contains("KRXK"),
        "{all}"
    );
}
