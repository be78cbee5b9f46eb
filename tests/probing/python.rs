//! The Python module `xqtb` (crates/xqtb-py): its pytest suite, which compares every answer of
//! the module with `xqtb probe --json` of this build's binary. Needs the module's wheel installed
//! in crates/xqtb-py/.venv (`bash crates/xqtb-py/install.sh`; `.ci/run` runs it, and it must
//! run again after the module changes): without the virtual environment the test is skipped
//! with a notice, unless `CI=true`, where it fails.

use crate::common::text;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate of the Python module.
fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/xqtb-py")
}

/// The virtual environment's interpreter, if installed.
fn python() -> Option<PathBuf> {
    let path = crate_dir().join(".venv/bin/python");
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "{} is missing: run bash crates/xqtb-py/install.sh",
        path.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    None
}

#[test]
fn the_python_module_answers_as_xqtb_probe() {
    let Some(python) = python() else { return };
    let out = Command::new(python)
        .current_dir(crate_dir())
        .args(["-m", "pytest", "tests", "-q", "-p", "no:cacheprovider"])
        .env("XQTB_BIN", env!("CARGO_BIN_EXE_xqtb"))
        // Nothing written into the source tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let report = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success(), "pytest: {}\n{report}", out.status);
    // The summary line, so that a passing run shows what it ran (with --nocapture).
    eprintln!("pytest: {}", report.lines().last().unwrap_or_default());
}
