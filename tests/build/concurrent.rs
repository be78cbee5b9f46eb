//! Several builds sharing one `--dir` (`formats/locks.md`): they build a family's tables between
//! them, each table exactly once (as their outputs say), to the bytes of one build alone; a
//! worker killed mid-table leaves its table to the others, which resume its checkpoint.

use crate::common::{assert_ok, build_cmd, built, tables, text};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Three tables sharing their defenders' tables (KAABBK and below): 27 tables in all.
const FAMILY: [&str; 3] = ["KRKAABB", "KNKAABB", "KCKAABB"];

/// The tables of [`FAMILY`] built by one process alone.
fn reference() -> &'static Vec<(String, Vec<u8>)> {
    static REFERENCE: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    REFERENCE.get_or_init(|| tables(built(&FAMILY).path()))
}

/// Starts `xqtb build <materials> --dir <dir> <extra>`, its outputs piped.
fn spawn(materials: &[&str], dir: &Path, extra: &[&str]) -> Child {
    let mut c = build_cmd(materials[0], dir, extra);
    c.args(&materials[1..]);
    c.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The tables a build's output says it built (not those it found present): `KRK`, `KRK dtm`.
fn built_by(out: &Output) -> Vec<String> {
    text(&out.stdout)
        .lines()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            match words[..] {
                [table, "dtm", "built", ..] => Some(format!("{table} dtm")),
                [table, "built", ..] => Some(table.to_string()),
                _ => None,
            }
        })
        .collect()
}

/// Every table file of `dir`, both metrics: (file name, bytes), sorted.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| name.ends_with(".xqtb") || name.ends_with(".xqdtm"))
        .map(|(name, path)| (name, std::fs::read(path).unwrap()))
        .collect();
    v.sort();
    v
}

/// What is in `dir` besides its tables: lock files or working files left behind.
fn left_in(dir: &Path) -> Vec<String> {
    let mut left = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == ".locks" {
            for l in std::fs::read_dir(e.path()).unwrap().flatten() {
                left.push(format!(".locks/{}", l.file_name().to_string_lossy()));
            }
        } else if !name.ends_with(".xqtb") && !name.ends_with(".xqdtm") {
            left.push(name);
        }
    }
    left
}

/// `n` builds of [`FAMILY`] started together in one directory, each naming the materials in
/// another order: each succeeds; between them every table is built exactly once, and the
/// directory ends with the reference's bytes and nothing else.
fn builds_share_the_family(n: usize) {
    let d = tempfile::tempdir().unwrap();
    let children: Vec<Child> = (0..n)
        .map(|k| {
            let mut order = FAMILY.to_vec();
            order.rotate_left(k % FAMILY.len());
            spawn(&order, d.path(), &[])
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let mut times_built: BTreeMap<String, usize> = BTreeMap::new();
    for o in &outs {
        assert_ok("a build sharing the directory", o);
        for t in built_by(o) {
            *times_built.entry(t).or_default() += 1;
        }
    }
    let want: Vec<String> = reference()
        .iter()
        .map(|(name, _)| name.trim_end_matches(".xqtb").to_string())
        .collect();
    assert_eq!(times_built.keys().cloned().collect::<Vec<_>>(), {
        let mut w = want.clone();
        w.sort();
        w
    });
    let twice: Vec<_> = times_built.iter().filter(|(_, &k)| k != 1).collect();
    assert!(twice.is_empty(), "built more than once: {twice:?}");
    let workers = outs.iter().filter(|o| !built_by(o).is_empty()).count();
    assert!(
        workers >= 2,
        "only {workers} of {n} builds built anything: they did not share the work"
    );
    assert!(
        &tables(d.path()) == reference(),
        "tables differ from one build's"
    );
    assert_eq!(left_in(d.path()), Vec::<String>::new(), "left behind");
}

/// A build killed after its last table's rename leaves that table's lock file, and the derived
/// values' lock under `--tmp`: the next build, finding every table present, removes them (no
/// build holds them), so a finished directory holds only tables.
#[test]
fn a_finished_family_is_tidied_of_killed_builds_locks() {
    let d = tempfile::tempdir().unwrap();
    for (name, bytes) in reference() {
        std::fs::write(d.path().join(name), bytes).unwrap();
    }
    let stale = ["KRKAABB.lock", "KAABBK.lock"];
    std::fs::create_dir_all(d.path().join(".locks")).unwrap();
    for lock in stale {
        std::fs::write(d.path().join(".locks").join(lock), "xqtb lock 1\npid 1\n").unwrap();
    }
    std::fs::create_dir_all(d.path().join(".work")).unwrap();
    std::fs::write(d.path().join(".work/.derived.lock"), "").unwrap();
    assert_eq!(left_in(d.path()).len(), stale.len() + 1);
    let out = spawn(&FAMILY, d.path(), &["--quiet"])
        .wait_with_output()
        .unwrap();
    assert_ok("a build of a present family", &out);
    assert_eq!(left_in(d.path()), Vec::<String>::new(), "left behind");
    assert!(&tables(d.path()) == reference(), "the tables changed");
}

#[test]
fn two_builds_share_a_family() {
    builds_share_the_family(2);
}

#[test]
fn four_builds_share_a_family() {
    builds_share_the_family(4);
}

/// Two builds of both metrics share the DTM tables' derived values under one `--tmp`: each
/// table once, the bytes of one build alone.
#[test]
fn two_builds_share_a_family_of_both_metrics() {
    let family = ["KRKAABB", "KNKAABB"];
    let alone = tempfile::tempdir().unwrap();
    assert_ok(
        "one build of both metrics",
        &spawn(&family, alone.path(), &["--metric", "both"])
            .wait_with_output()
            .unwrap(),
    );
    let d = tempfile::tempdir().unwrap();
    let outs = [
        spawn(&family, d.path(), &["--metric", "both"]),
        spawn(&[family[1], family[0]], d.path(), &["--metric", "both"]),
    ]
    .map(|c| c.wait_with_output().unwrap());
    let mut times_built: BTreeMap<String, usize> = BTreeMap::new();
    for o in &outs {
        assert_ok("a build of both metrics sharing the directory", o);
        for t in built_by(o) {
            *times_built.entry(t).or_default() += 1;
        }
    }
    assert!(times_built.values().all(|&k| k == 1), "{times_built:?}");
    assert_eq!(times_built.len(), files(alone.path()).len());
    assert!(
        files(d.path()) == files(alone.path()),
        "tables differ from one build's"
    );
    assert_eq!(left_in(d.path()), Vec::<String>::new(), "left behind");
}

/// The stamp of the lock `dir/.locks/<table>.lock` held by process `pid`, and that table's
/// working store has a checkpoint: the table `pid` is in the middle of.
fn table_in_progress(dir: &Path, pid: u32) -> Option<String> {
    for e in std::fs::read_dir(dir.join(".locks")).ok()?.flatten() {
        let stamp = std::fs::read_to_string(e.path()).unwrap_or_default();
        if !stamp.lines().any(|l| l == format!("pid {pid}")) {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let table = name.strip_suffix(".lock")?.to_string();
        if dir
            .join(".work")
            .join(&table)
            .join("manifest.json")
            .is_file()
        {
            return Some(table);
        }
    }
    None
}

/// A build killed (SIGKILL) in the middle of a table, with a checkpoint: the other build takes
/// the table over (saying so) and finishes the family; a build run again finds every table
/// present; the bytes are one build's.
#[test]
fn a_killed_build_s_table_is_taken_over_by_the_other() {
    let family = ["KRKAABB", "KNKAABB"];
    let want = tables(built(&family).path());
    let d = tempfile::tempdir().unwrap();
    // Streamed through small chunk files, a checkpoint at every pass: slow enough to be caught
    // mid-table.
    let slow = ["--stream", "--chunk-len", "16384", "--checkpoint-secs", "0"];
    let mut victim = spawn(&family, d.path(), &slow);
    let other = spawn(&[family[1], family[0]], d.path(), &slow);
    let start = Instant::now();
    let table = loop {
        if let Some(t) = table_in_progress(d.path(), victim.id()) {
            break t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120) && victim.try_wait().unwrap().is_none(),
            "the first build was never seen in the middle of a table"
        );
        std::thread::sleep(Duration::from_millis(2));
    };
    victim.kill().unwrap();
    victim.wait().unwrap();
    let out = other.wait_with_output().unwrap();
    assert_ok("the build left alone", &out);
    let notes = text(&out.stderr);
    assert!(
        notes.contains(&format!("{table}: its last builder (pid {}", victim.id()))
            && notes.contains("this build takes it over"),
        "{table}: {notes}"
    );
    assert!(built_by(&out).contains(&table), "{table} was not built");
    let again = spawn(&family, d.path(), &[]).wait_with_output().unwrap();
    assert_ok("a build run again", &again);
    assert!(built_by(&again).is_empty(), "{}", text(&again.stdout));
    assert!(tables(d.path()) == want, "tables differ from one build's");
    assert_eq!(left_in(d.path()), Vec::<String>::new(), "left behind");
}
