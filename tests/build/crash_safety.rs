//! Crash safety of the builder and of the table files, through the command line.
//!
//! A build killed (SIGKILL) at any moment, in streaming or resident mode, leaves only complete
//! tables behind and resumes to tables byte-identical to an uninterrupted build; a damaged
//! checkpoint is detected and the table restarted; a corrupted, truncated or extended table
//! fails `verify` (and `probe`) with a clear error, never a panic.

use crate::common::{self, assert_ok, build_cmd, text, xqtb};
use rand::{Rng, SeedableRng};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The table every build test makes (with its 17 supporting tables).
const MAT: &str = "KRKAABB";
/// Streaming through many small chunk files, checkpointing at every ply.
const STREAM: &[&str] = &["--stream", "--chunk-len", "16384", "--checkpoint-secs", "0"];
/// Resident, checkpointing at every pass boundary.
const RESIDENT: &[&str] = &["--checkpoint-secs", "0", "--chunk-len", "16384"];
/// A KNKA position (the query system's example).
const KNKA_FEN: &str = "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w";

/// Every `*.xqtb` file of `dir`, by name.
fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    common::tables(dir).into_iter().collect()
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("first difference at byte {i}"),
        None => format!("lengths {} and {}", a.len(), b.len()),
    }
}

/// An uninterrupted (resident, default options) build of [`MAT`]: the bytes every other build
/// must reproduce. Built once per test process, in a directory named by the process id under
/// cargo's scratch directory (directories of dead test processes are removed first).
struct Reference {
    tables: BTreeMap<String, Vec<u8>>,
    /// Plies [`MAT`]'s build takes (its last checkpoint's ply).
    plies: u64,
}

fn reference() -> &'static Reference {
    static REFERENCE: OnceLock<Reference> = OnceLock::new();
    REFERENCE.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        if Path::new("/proc/self").exists() {
            for e in std::fs::read_dir(root).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(pid) = name.strip_prefix("resume-reference-") {
                    if !Path::new("/proc").join(pid).exists() {
                        let _ = std::fs::remove_dir_all(e.path());
                    }
                }
            }
        }
        let dir = root.join(format!("resume-reference-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let start = Instant::now();
        let out = build_cmd(MAT, &dir, &["--quiet"]).output().unwrap();
        assert_ok("reference build", &out);
        eprintln!(
            "reference build of {MAT}: {:.2} s",
            start.elapsed().as_secs_f64()
        );
        let stdout = text(&out.stdout);
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{MAT} ")))
            .unwrap_or_else(|| panic!("no report line for {MAT}:\n{stdout}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|&w| w == "plies").unwrap();
        let plies = words[at - 1].parse().unwrap();
        let tables = tables(&dir);
        assert!(
            tables.contains_key(&format!("{MAT}.xqtb")) && tables.len() > 10,
            "reference tables: {:?}",
            tables.keys().collect::<Vec<_>>()
        );
        assert!(
            !dir.join(".work").exists(),
            "an uninterrupted build leaves no working directory"
        );
        Reference { tables, plies }
    })
}

/// Copies the reference's tables into `dir`, except `skip`.
fn seed(dir: &Path, r: &Reference, skip: &[&str]) {
    for (name, bytes) in &r.tables {
        if !skip.iter().any(|s| name == &format!("{s}.xqtb")) {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
}

fn store_dir(dir: &Path, material: &str) -> PathBuf {
    dir.join(".work").join(material)
}

fn manifest(dir: &Path, material: &str) -> Option<Json> {
    let bytes = std::fs::read(store_dir(dir, material).join("manifest.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn manifest_ply(dir: &Path, material: &str) -> Option<u64> {
    manifest(dir, material).and_then(|m| m["ply"].as_u64())
}

/// When to kill a build.
#[derive(Clone, Copy, Debug)]
enum At {
    /// This long after it starts, or as soon as [`MAT`]'s first checkpoint appears, whichever
    /// comes first (so that time-based kills never run past the supporting tables, however fast
    /// the machine).
    Delay(u64),
    /// Once this table's checkpoint has reached this ply and has advanced in this run.
    Ply(&'static str, u64),
}

/// What one kill hit.
struct Kill {
    /// Killed by the signal (false: it had finished first).
    interrupted: bool,
    /// Builds with a checkpoint in the working directory after the kill, with its ply.
    in_progress: Vec<(String, u64)>,
}

/// Starts `xqtb build MAT --dir dir --quiet extra...`, kills it (SIGKILL) at `at`, and reports
/// what the kill hit (printed with `label`).
fn kill_build(label: &str, dir: &Path, extra: &[&str], at: At) -> Kill {
    let before = match at {
        At::Ply(m, _) => manifest_ply(dir, m),
        At::Delay(_) => None,
    };
    let mut child = build_cmd(MAT, dir, extra)
        .arg("--quiet")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    match at {
        At::Delay(ms) => {
            while start.elapsed() < Duration::from_millis(ms)
                && child.try_wait().unwrap().is_none()
                && manifest_ply(dir, MAT).is_none()
            {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        At::Ply(m, p) => loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if manifest_ply(dir, m).is_some_and(|q| q >= p && before.is_none_or(|b| q > b)) {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "{m} never reached ply {p}"
            );
            std::thread::sleep(Duration::from_millis(1));
        },
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    let ms = start.elapsed().as_millis();
    let interrupted = status.signal() == Some(9);
    assert!(
        interrupted || status.success(),
        "build failed by itself: {status}"
    );
    let mut in_progress = Vec::new();
    let mut working = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir.join(".work")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(m) = Some(name.as_str()).filter(|_| e.path().is_dir()) {
                let files = std::fs::read_dir(e.path()).map_or(0, |rd| rd.count());
                match manifest_ply(dir, m) {
                    Some(p) => {
                        working.push(format!("{m} at ply {p} ({files} files)"));
                        in_progress.push((m.to_string(), p));
                    }
                    None => working.push(format!("{m} without checkpoint ({files} files)")),
                }
            }
        }
    }
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") {
            working.push(format!("{name} being written"));
        }
    }
    let complete = tables(dir).len();
    eprintln!(
        "  {label}: kill at {at:?} after {ms} ms: {}; {complete} tables complete; working: {}",
        if interrupted {
            "interrupted"
        } else {
            "had finished"
        },
        if working.is_empty() {
            "none".to_string()
        } else {
            working.join(", ")
        }
    );
    Kill {
        interrupted,
        in_progress,
    }
}

/// Every table present in `dir` is complete: identical to the reference's bytes, and those not
/// verified yet pass `xqtb verify`.
fn check_complete_tables(dir: &Path, r: &Reference, verified: &mut BTreeSet<String>) {
    let mut new = Vec::new();
    for (name, bytes) in tables(dir) {
        let want = r
            .tables
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: not a table of the reference build"));
        assert!(
            &bytes == want,
            "{name} differs from the uninterrupted build: {}",
            first_difference(&bytes, want)
        );
        if !verified.contains(&name) {
            new.push(name.strip_suffix(".xqtb").unwrap().to_string());
        }
    }
    if new.is_empty() {
        return;
    }
    let out = xqtb()
        .arg("verify")
        .arg("--dir")
        .arg(dir)
        .arg("--quiet")
        .args(&new)
        .output()
        .unwrap();
    assert_ok(&format!("verify {new:?}"), &out);
    verified.extend(new.into_iter().map(|m| format!("{m}.xqtb")));
}

/// Every file left under `dir` that a finished build should have removed: working files and
/// temporary table files.
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), out);
            } else {
                out.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    walk(&dir.join(".work"), &mut out);
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().ends_with(".tmp") {
            out.push(e.path());
        }
    }
    out
}

/// Runs the build in `dir` to completion and checks the result against the reference.
fn finish_and_compare(dir: &Path, extra: &[&str], r: &Reference) -> Output {
    let out = build_cmd(MAT, dir, extra).output().unwrap();
    assert_ok("resumed build", &out);
    let got = tables(dir);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        r.tables.keys().collect::<Vec<_>>(),
        "the resumed build's tables"
    );
    for (name, bytes) in &got {
        assert!(
            bytes == &r.tables[name],
            "{name}: resumed build differs from the uninterrupted one: {}",
            first_difference(bytes, &r.tables[name])
        );
    }
    let left = leftovers(dir);
    assert!(
        left.is_empty(),
        "files left behind by a finished build: {left:?}"
    );
    out
}

/// Streaming with checkpoints a few plies apart: between two of them a chunk's newest
/// generation, which no manifest names, is written over in place (`formats/build.md` §5), so
/// kills land in the middle of those writes too. Each run resumes the last without finding its
/// checkpoint damaged (a write over a file the manifest names would be found so, when a kill
/// tears it), and the end is the uninterrupted build's bytes. The frontiers are lists on disk
/// and one side's unresolved filter is parked on disk (`--park-filter`): written between
/// checkpoints, and derived again on resume.
#[test]
fn killed_between_sparse_checkpoints_resumes_to_identical_bytes() {
    let r = reference();
    let b = tempfile::tempdir().unwrap();
    seed(b.path(), r, &[MAT]);
    let sparse = [
        "--stream",
        "--chunk-len",
        "16384",
        "--checkpoint-secs",
        "0.05",
        "--threads",
        "1",
        "--park-filter",
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(27);
    let (mut kills, mut resumes) = (0, 0);
    for _ in 0..30 {
        let before = manifest_ply(b.path(), MAT);
        let mut child = build_cmd(MAT, b.path(), &sparse)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Past the next checkpoint, then a few milliseconds into the plies after it.
        let start = Instant::now();
        while child.try_wait().unwrap().is_none()
            && manifest_ply(b.path(), MAT) == before
            && start.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(rng.gen_range(1..40)));
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr) + &text(&out.stdout);
        assert!(
            !err.contains("restarting"),
            "a checkpoint was damaged:\n{err}"
        );
        resumes += err.contains("resuming") as u32;
        if out.status.signal() != Some(9) {
            assert!(out.status.success(), "build failed by itself: {err}");
            break;
        }
        kills += 1;
    }
    eprintln!("{kills} kills, {resumes} resumed runs");
    assert!(resumes >= 2, "{resumes} resumed runs");
    finish_and_compare(b.path(), &[&sparse[..], &["--quiet"]].concat(), r);
}

#[test]
fn kill_and_resume_is_byte_identical() {
    let r = reference();
    let plies = r.plies;

    // Streaming from scratch: kills spread over the supporting tables (by time; each run
    // resumes the last, so the delays add up), then at chosen plies of KRKAABB itself.
    let b = tempfile::tempdir().unwrap();
    let mut points: Vec<At> = [3, 20, 60, 150, 300, 500, 800, 1200]
        .into_iter()
        .map(At::Delay)
        .collect();
    points.extend([0, plies / 3, 2 * plies / 3, plies].map(|p| At::Ply(MAT, p)));
    eprintln!("streaming build of {MAT}, killed {} times:", points.len());
    let start = Instant::now();
    let mut verified = BTreeSet::new();
    let mut kills = Vec::new();
    for &at in &points {
        if matches!(at, At::Delay(_)) && manifest_ply(b.path(), MAT).is_some() {
            eprintln!("  stream: {at:?} skipped: {MAT} has begun");
            continue;
        }
        let k = kill_build("stream", b.path(), STREAM, at);
        check_complete_tables(b.path(), r, &mut verified);
        kills.push(k);
    }
    let out = finish_and_compare(b.path(), &[STREAM, &["--quiet"]].concat(), r);
    eprintln!(
        "  finished: {} s in all\n{}",
        start.elapsed().as_secs_f64(),
        text(&out.stdout)
    );
    check_complete_tables(b.path(), r, &mut verified);
    let during_main = kills
        .iter()
        .filter(|k| k.interrupted && k.in_progress.iter().any(|(m, _)| m == MAT))
        .count();
    let during_supporting = kills
        .iter()
        .filter(|k| k.interrupted && k.in_progress.iter().any(|(m, _)| m != MAT))
        .count();
    let with_checkpoint = kills
        .iter()
        .filter(|k| k.interrupted && !k.in_progress.is_empty())
        .count();
    assert!(
        during_main >= 2,
        "only {during_main} kills interrupted {MAT} with a checkpoint"
    );
    assert!(
        during_supporting >= 1,
        "no kill interrupted a supporting table with a checkpoint"
    );
    assert!(
        with_checkpoint >= 3,
        "only {with_checkpoint} kills left a checkpoint behind"
    );

    // Resident with a checkpoint at every pass boundary: two supporting tables and KRKAABB.
    let c = tempfile::tempdir().unwrap();
    seed(c.path(), r, &["KRKAAB", "KRKABB", MAT]);
    let points = [
        At::Delay(30),
        At::Ply("KRKABB", 4),
        At::Ply("KRKAAB", 0),
        At::Ply(MAT, 0),
        At::Ply(MAT, plies / 2),
        At::Ply(MAT, plies),
    ];
    eprintln!("resident build of {MAT}, killed {} times:", points.len());
    let mut verified = BTreeSet::new();
    let mut kills = Vec::new();
    for &at in &points {
        let k = kill_build("resident", c.path(), RESIDENT, at);
        check_complete_tables(c.path(), r, &mut verified);
        kills.push(k);
    }
    finish_and_compare(c.path(), &[RESIDENT, &["--quiet"]].concat(), r);
    let during_main = kills
        .iter()
        .filter(|k| k.interrupted && k.in_progress.iter().any(|(m, p)| m == MAT && *p > 0))
        .count();
    let during_supporting = kills
        .iter()
        .filter(|k| k.interrupted && k.in_progress.iter().any(|(m, _)| m != MAT))
        .count();
    assert!(
        during_main >= 1 && during_supporting >= 1,
        "resident kills after a checkpoint: {during_main} of {MAT}, {during_supporting} of \
         supporting tables"
    );
}

/// Kills a streaming build of [`MAT`] half-way (its supporting tables already present), damages
/// the checkpoint with `damage`, and checks the rerun notices, restarts and still produces the
/// reference bytes.
fn damaged_round(r: &Reference, mode: &[&str], what: &str, damage: &dyn Fn(&Path, &Json)) {
    let what = &format!(
        "{what} ({})",
        if mode == STREAM {
            "streaming"
        } else {
            "resident"
        }
    );
    eprintln!("damaged checkpoint: {what}");
    let d = tempfile::tempdir().unwrap();
    seed(d.path(), r, &[MAT]);
    let k = kill_build(what, d.path(), mode, At::Ply(MAT, r.plies / 2));
    assert!(k.interrupted, "the build finished before the kill");
    let m = manifest(d.path(), MAT).expect("a checkpoint after the kill");
    damage(&store_dir(d.path(), MAT), &m);
    let out = finish_and_compare(d.path(), mode, r);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("damaged checkpoint") && stderr.contains("restarting"),
        "{what}: the rerun does not report the damage:\n{stderr}"
    );
    assert!(
        !stderr.contains("resuming"),
        "{what}: the rerun resumed from a damaged checkpoint:\n{stderr}"
    );
    for line in stderr.lines().filter(|l| l.contains("damaged")) {
        eprintln!("  {line}");
    }
}

fn flip(path: &Path, at: usize, mask: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= mask;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn damaged_checkpoint_restarts_cleanly() {
    let r = reference();
    let chunk = |store: &Path, m: &Json, side: usize| -> PathBuf {
        let chunks = m["chunks"][side].as_array().unwrap();
        assert!(chunks.len() > 2, "manifest chunks: {chunks:?}");
        let c = chunks.len() / 2;
        let gen = chunks[c]["gen"].as_u64().unwrap();
        assert!(chunks[c]["crc"].is_u64());
        let p = store.join(format!("s{side}-c{c:05}-g{gen}.chunk"));
        assert!(p.exists(), "{} named by the manifest", p.display());
        p
    };
    let flipped = |store: &Path, m: &Json| {
        let p = chunk(store, m, 1);
        let len = std::fs::metadata(&p).unwrap().len() as usize;
        flip(&p, len / 2, 0x01);
    };
    let garbage = |store: &Path, _: &Json| {
        std::fs::write(
            store.join("manifest.json"),
            b"\x00\xff{\"ply\": garbage\x1b",
        )
        .unwrap();
    };
    let truncated = |store: &Path, m: &Json| {
        let p = chunk(store, m, 0);
        let len = std::fs::metadata(&p).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(len - 7)
            .unwrap();
    };
    let missing = |store: &Path, m: &Json| std::fs::remove_file(chunk(store, m, 0)).unwrap();
    // A plausible edit: an earlier ply, the JSON still well-formed; its checksum catches it.
    let edited = |store: &Path, m: &Json| {
        let mut m = m.clone();
        m["ply"] = Json::from(m["ply"].as_u64().unwrap() - 1);
        std::fs::write(store.join("manifest.json"), m.to_string()).unwrap();
    };
    type Damage<'a> = &'a dyn Fn(&Path, &Json);
    let cases: [(&str, Damage); 5] = [
        ("one byte of a chunk flipped", &flipped),
        ("manifest.json overwritten with garbage", &garbage),
        ("a chunk truncated", &truncated),
        ("a chunk missing", &missing),
        ("manifest edited", &edited),
    ];
    for mode in [STREAM, RESIDENT] {
        for (what, damage) in cases {
            damaged_round(r, mode, what, damage);
        }
    }
}

/// `xqtb verify --dir dir KNKA` fails with a message naming the failure; returns the message.
fn verify_fails(dir: &Path, what: &str) -> String {
    let out = xqtb()
        .arg("verify")
        .arg("--dir")
        .arg(dir)
        .args(["--quiet", "KNKA"])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        !out.status.success(),
        "{what}: verify passed\n{stdout}{stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert!(
        stdout.contains("KNKA: FAILED") && stderr.starts_with("xqtb: error:"),
        "{what}: no clear message\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    stdout
}

fn verify_passes(dir: &Path) {
    let out = xqtb()
        .arg("verify")
        .arg("--dir")
        .arg(dir)
        .args(["--quiet", "KNKA"])
        .output()
        .unwrap();
    assert_ok("verify KNKA", &out);
}

#[test]
fn corrupted_table_fails_verify() {
    let e = tempfile::tempdir().unwrap();
    let dir = e.path();
    assert_ok(
        "build KNKA",
        &build_cmd("KNKA", dir, &["--quiet"]).output().unwrap(),
    );
    let path = dir.join("KNKA.xqtb");
    let good = std::fs::read(&path).unwrap();
    let len = good.len();
    assert!(len > 1000, "KNKA.xqtb is {len} bytes");
    verify_passes(dir);

    // One flipped byte anywhere: every header byte, the trailer, the block index, the blocks.
    let mut flips = BTreeSet::new();
    for i in 0..256 {
        flips.insert((i, 0x01u8));
        if i % 8 == 0 || i >= 252 {
            flips.insert((i, 0xFF));
        }
    }
    for i in len - 4..len {
        flips.insert((i, 0x01));
        flips.insert((i, 0xFF));
    }
    for k in 0..50 {
        let i = 256 + k * (len - 256) / 50;
        flips.insert((i, 0x01));
        if k % 2 == 0 {
            flips.insert((i, 0xFF));
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x7862_7462);
    for _ in 0..10 {
        flips.insert((rng.gen_range(0..len), rng.gen_range(1..=255u8)));
    }
    let mut messages = BTreeMap::<String, usize>::new();
    for &(i, mask) in &flips {
        let mut bad = good.clone();
        bad[i] ^= mask;
        std::fs::write(&path, &bad).unwrap();
        let msg = verify_fails(dir, &format!("byte {i} of {len} xor {mask:#04x}"));
        // Group the messages by kind (drop the path and numbers).
        let kind = msg
            .lines()
            .next()
            .unwrap_or("")
            .rsplit(": ")
            .next()
            .unwrap_or("")
            .split(|c: char| c.is_ascii_digit())
            .next()
            .unwrap_or("")
            .to_string();
        *messages.entry(kind).or_default() += 1;
    }
    std::fs::write(&path, &good).unwrap();
    verify_passes(dir);
    eprintln!("{} flipped bytes, all rejected: {messages:#?}", flips.len());

    // Truncated and extended files: verify fails, and probe fails with an error, not a panic.
    for cut in [0, 10, 255, 256, 257, len / 2, len - 4, len - 1] {
        std::fs::write(&path, &good[..cut]).unwrap();
        let what = format!("truncated to {cut} of {len} bytes");
        verify_fails(dir, &what);
        let out = xqtb()
            .arg("probe")
            .arg("--dir")
            .arg(dir)
            .arg(KNKA_FEN)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "probe, {what}: {}{stderr}",
            text(&out.stdout)
        );
        assert!(
            stderr.starts_with("xqtb: error:") && stderr.contains("KNKA.xqtb"),
            "probe, {what}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "probe, {what}: {stderr}");
    }
    for extra in [&[0u8][..], &[0xFF], &[0; 4096]] {
        let mut long = good.clone();
        long.extend_from_slice(extra);
        std::fs::write(&path, &long).unwrap();
        verify_fails(dir, &format!("extended by {} bytes", extra.len()));
    }
    std::fs::write(&path, &good).unwrap();
    verify_passes(dir);
    let out = xqtb()
        .arg("probe")
        .arg("--dir")
        .arg(dir)
        .arg(KNKA_FEN)
        .output()
        .unwrap();
    assert_ok("probe KNKA", &out);
}

/// A kill after a table's file is renamed into place but before its working directory is
/// removed leaves that directory behind; the next build finds the table present and must still
/// remove it.
#[test]
fn leftover_working_dir_of_a_finished_table_is_removed() {
    let e = tempfile::tempdir().unwrap();
    let dir = e.path();
    assert_ok(
        "build KRKA",
        &build_cmd("KRKA", dir, &["--quiet"]).output().unwrap(),
    );
    // What a kill between the rename of KRKA.xqtb and the removal of its working files leaves.
    let store = store_dir(dir, "KRKA");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(store.join("XQTB-WORK"), b"xqtb working directory\n").unwrap();
    std::fs::write(store.join("manifest.json"), b"{}").unwrap();
    std::fs::write(store.join("s0-c00000-g7.chunk"), [0u8; 64]).unwrap();
    for m in ["KRKA", "KRKAA"] {
        assert_ok(
            &format!("build {m}"),
            &build_cmd(m, dir, &["--quiet"]).output().unwrap(),
        );
        let left = leftovers(dir);
        assert!(left.is_empty(), "after building {m}: left behind: {left:?}");
    }
}

/// A directory of the user's that happens to have a store's name is neither used nor deleted.
#[test]
fn a_users_directory_under_tmp_is_never_deleted() {
    let e = tempfile::tempdir().unwrap();
    let dir = e.path();
    let theirs = store_dir(dir, "KRK");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), b"mine").unwrap();
    let out = build_cmd("KRK", dir, &["--quiet"]).output().unwrap();
    assert!(!out.status.success(), "the build used a foreign directory");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("not an xqtb working directory") && stderr.contains("KRK"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(theirs.join("notes.txt")).unwrap(), b"mine");
    // With the table present (built elsewhere), the directory is still left alone.
    let other = tempfile::tempdir().unwrap();
    assert_ok(
        "build KRK",
        &build_cmd("KRK", other.path(), &["--quiet"])
            .output()
            .unwrap(),
    );
    for t in ["KRK.xqtb", "KK.xqtb"] {
        std::fs::copy(other.path().join(t), dir.join(t)).unwrap();
    }
    assert_ok(
        "build KRK again",
        &build_cmd("KRK", dir, &["--quiet"]).output().unwrap(),
    );
    assert_eq!(std::fs::read(theirs.join("notes.txt")).unwrap(), b"mine");
}

/// SIGTERM and SIGINT stop a build cleanly: it takes a checkpoint at the next pass boundary,
/// exits with an error that says the checkpoint is kept and the same command resumes it, and
/// the resumed build writes the reference bytes. The build is paused at a pass boundary
/// (`XQTB_TEST_PAUSE_AT`, a SIGSTOP) so the signal arrives while it still has plies to go.
#[test]
fn a_signal_stops_the_build_at_a_checkpoint_it_resumes_from() {
    let reference = reference();
    for (signal, extra) in [(libc::SIGTERM, STREAM), (libc::SIGINT, RESIDENT)] {
        let dir = tempfile::tempdir().unwrap();
        let mut first = build_cmd(MAT, dir.path(), extra)
            .arg("--quiet")
            .env("XQTB_TEST_PAUSE_AT", format!("{MAT}:0:3"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = Path::new("/proc")
            .join(first.id().to_string())
            .join("status");
        let start = Instant::now();
        while !std::fs::read_to_string(&status).is_ok_and(|s| {
            s.lines()
                .any(|l| l.starts_with("State:") && l.contains("stopped"))
        }) {
            let exited = first.try_wait().unwrap();
            assert!(
                exited.is_none(),
                "the build ended before its pause: {exited:?}"
            );
            assert!(
                start.elapsed() < Duration::from_secs(300),
                "the build never paused"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let pid = first.id() as libc::pid_t;
        // Safety: `kill` only sends signals to the child this test started.
        unsafe {
            libc::kill(pid, signal);
            libc::kill(pid, libc::SIGCONT);
        }
        let out = first.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(
            err.contains("stopped on request") && err.contains("run the same command to resume"),
            "{err}"
        );
        let store = dir.path().join(".work").join(MAT);
        assert!(store.join("manifest.json").is_file(), "{err}");
        let second = build_cmd(MAT, dir.path(), extra)
            .arg("--quiet")
            .output()
            .unwrap();
        assert_ok("the resumed build", &second);
        let got = tables(dir.path());
        for (name, bytes) in &reference.tables {
            assert!(
                got.get(name) == Some(bytes),
                "{name} differs after a stop and resume"
            );
        }
        assert!(
            !store.exists(),
            "the store is removed after the resumed build"
        );
    }
}

/// A rule stage whose loss candidates outgrow their budget stops with an error naming the
/// table, the order, the bytes they need and the `--memory` that gives them, after a
/// checkpoint where it stopped (checkpoints are otherwise a minute apart: none before it): the
/// same command with the plan's budget resumes from there to the reference bytes.
/// (`XQTB_TEST_CANDIDATE_BUDGET` stands in for a small `--memory`.)
#[test]
fn candidates_beyond_their_budget_stop_the_build_and_resume() {
    let r = reference();
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path(), r, &[MAT]);
    let streamed = ["--stream", "--chunk-len", "16384", "--quiet"];
    let out = build_cmd(MAT, dir.path(), &streamed)
        .env("XQTB_TEST_CANDIDATE_BUDGET", "4096")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!("the rule stage of {MAT} after order 0 needs"))
            && err.contains("MiB for its loss candidates")
            && err.contains("but the memory budget leaves it 0 MiB")
            && err.contains("run the build again with --memory ")
            && err.contains("run the build again with that --memory to resume, or delete it"),
        "{err}"
    );
    assert!(
        manifest(dir.path(), MAT).is_some(),
        "a checkpoint where it stopped"
    );
    let out = finish_and_compare(dir.path(), &streamed[..3], r);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("{MAT}: resuming after order 0")),
        "{err}"
    );
}
