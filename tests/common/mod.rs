//! Helpers shared by the integration test binaries (`tests/<area>/main.rs`, each declaring this
//! file with `#[path = "../common/mod.rs"] mod common;`): running the `xqtb` binary, building
//! tables through it or through the library, reading a directory's tables, probing many
//! positions at once, and collecting a build's notes.
//!
//! Nothing here touches process-wide state (environment, current directory): the tests of one
//! binary run on parallel threads of one process.

// Each binary uses only some of these helpers; the others would be dead code there.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use xqtb::builder::{BuildOptions, Progress, Silent};

/// The `xqtb` binary cargo built for these tests.
pub const XQTB: &str = env!("CARGO_BIN_EXE_xqtb");

/// A command running the `xqtb` binary.
pub fn xqtb() -> Command {
    Command::new(XQTB)
}

/// Bytes (a child's output) as text, invalid UTF-8 replaced.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The command succeeded; otherwise fails naming `what`, with its status and both outputs.
pub fn assert_ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// `xqtb build <material> --dir <dir> <extra>...`, not started (add arguments after `extra`
/// freely: they come last).
pub fn build_cmd(material: &str, dir: &Path, extra: &[&str]) -> Command {
    let mut c = xqtb();
    c.arg("build")
        .arg(material)
        .arg("--dir")
        .arg(dir)
        .args(extra);
    c
}

/// Builds `material` and its supporting tables into `dir` with the CLI (`--quiet`, every other
/// option the default), which must succeed.
pub fn build(material: &str, dir: &Path) {
    let out = build_cmd(material, dir, &["--quiet"])
        .output()
        .expect("run xqtb build");
    assert!(
        out.status.success(),
        "xqtb build {material} failed ({}):\n{}",
        out.status,
        text(&out.stderr)
    );
}

/// A new temporary directory with `materials` (and their supporting tables) built into it, in
/// order, by [`build`].
pub fn built(materials: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for m in materials {
        build(m, dir.path());
    }
    dir
}

/// Builds `material` and its supporting tables with the library (`xqtb::builder::build`, no
/// progress), on the calling thread's rayon pool, which must succeed.
pub fn build_lib(material: &str, opts: &BuildOptions) {
    build_lib_with(material, opts, &Silent);
}

/// [`build_lib`] reporting to `progress`.
pub fn build_lib_with(material: &str, opts: &BuildOptions, progress: &dyn Progress) {
    xqtb::builder::build(material.parse().unwrap(), opts, progress).unwrap();
}

/// A build's notes ([`Progress::note`]), in order.
#[derive(Default)]
pub struct Notes(pub Mutex<Vec<String>>);

impl Progress for Notes {
    fn note(&self, line: &str) {
        self.0.lock().unwrap().push(line.to_string());
    }
}

impl Notes {
    /// The notes collected.
    pub fn into_lines(self) -> Vec<String> {
        self.0.into_inner().unwrap()
    }
}

/// The table files (`*.xqtb`, top level only) of `dir`: (file name, bytes), sorted by name.
pub fn tables(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| name.ends_with(".xqtb"))
        .map(|(name, path)| (name, std::fs::read(path).unwrap()))
        .collect();
    v.sort();
    v
}

/// Probes every FEN with one `xqtb probe --json --dir <dir> -` run, which must succeed; one
/// parsed JSON object per FEN, in order.
pub fn probe_batch(dir: &Path, fens: &[String]) -> Vec<serde_json::Value> {
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
        text(&out.stderr)
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
