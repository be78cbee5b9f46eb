//! Faults a build must survive: builds sharing one `--tmp`, a memory budget under many threads,
//! a directory where every table is present (nothing may be written). Builds sharing one
//! `--dir` are `concurrent.rs`'s.

use crate::common::{assert_ok, build_cmd, built, tables, text, xqtb};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `xqtb build <material> --dir <dir> --quiet <extra>...`, not started.
fn build_quiet(material: &str, dir: &Path, extra: &[&str]) -> Command {
    let mut c = build_cmd(material, dir, &["--quiet"]);
    c.args(extra);
    c
}

/// Every file under `dir` (relative path, bytes), hidden ones included.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, p: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(p).unwrap().flatten() {
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if e.file_type().unwrap().is_dir() {
                out.push((rel + "/", Vec::new()));
                walk(root, &path, out);
            } else {
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The reference tables of `material`, built alone.
fn reference(material: &str) -> Vec<(String, Vec<u8>)> {
    tables(built(&[material]).path())
}

/// Two builds of KRKAABB into two new directories sharing one new `--tmp`, started together
/// with `extra` options: the directories and `--tmp`, and each build's output.
fn race_sharing_tmp(extra: &[&str]) -> ([tempfile::TempDir; 3], [Output; 2]) {
    let dirs = [(); 3].map(|()| tempfile::tempdir().unwrap());
    let spawn = |d: &Path| {
        build_quiet("KRKAABB", d, extra)
            .arg("--tmp")
            .arg(dirs[2].path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let children = [spawn(dirs[0].path()), spawn(dirs[1].path())];
    let outs = children.map(|c| c.wait_with_output().unwrap());
    (dirs, outs)
}

/// Two builds of other directories sharing one `--tmp` wait for each other's tables there
/// (each table's working store is under `--tmp`): both finish with the reference's tables.
#[test]
fn builds_sharing_a_tmp_never_share_a_store() {
    let ([d1, d2, _tmp], outs) = race_sharing_tmp(&[]);
    let want = reference("KRKAABB");
    for (d, o) in [d1.path(), d2.path()].into_iter().zip(&outs) {
        assert_ok("a build sharing --tmp", o);
        assert!(tables(d) == want, "{}", text(&o.stderr));
    }
}

#[test]
fn nothing_is_written_when_every_table_is_present() {
    let src = tempfile::tempdir().unwrap();
    assert_ok(
        "build",
        &build_quiet("KNKA", src.path(), &[]).output().unwrap(),
    );
    let d = tempfile::tempdir().unwrap();
    for (name, bytes) in tables(src.path()) {
        std::fs::write(d.path().join(name), bytes).unwrap();
    }
    let before = snapshot(d.path());
    let out = build_quiet("KNKA", d.path(), &[]).output().unwrap();
    assert_ok("build with every table present", &out);
    assert!(text(&out.stdout).lines().all(|l| l.contains("present")));
    assert_eq!(
        snapshot(d.path()),
        before,
        "the build wrote into a complete directory"
    );
}

/// Peak resident memory of the process `cmd` runs, in KiB, as GNU time measures it.
///
/// Not from this process's own `wait4`: a child spawned by the test process (with `vfork`, as
/// `posix_spawn` does, or with `fork`) starts its `ru_maxrss` at the test process's own peak,
/// which in-process builds of other tests raise above the budgets checked here. GNU time is a
/// small process whose child inherits only its few MiB.
fn peak_rss_kib(cmd: Command) -> (std::process::ExitStatus, u64) {
    const TIME: &str = "/usr/bin/time";
    assert!(
        Path::new(TIME).exists(),
        "{TIME} (GNU time) is needed to measure a child's peak memory: apt-get install time"
    );
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut timed = Command::new(TIME);
    timed
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        timed.current_dir(d);
    }
    let status = timed
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // GNU time puts "Command exited with non-zero status N" before the figure on a failure.
    let text = std::fs::read_to_string(report.path()).unwrap();
    let kib = text.lines().last().and_then(|l| l.trim().parse().ok());
    (
        status,
        kib.unwrap_or_else(|| panic!("GNU time wrote {text:?}")),
    )
}

#[test]
fn a_64m_budget_holds_at_8_threads() {
    let d = tempfile::tempdir().unwrap();
    // KRNKBB streams at 64M (its working state alone is 2 x 4 x 7.9 M entries).
    let mut cmd = build_quiet("KRNKBB", d.path(), &["--memory", "64M", "--threads", "8"]);
    cmd.arg("--stream");
    let (status, kib) = peak_rss_kib(cmd);
    assert!(status.success(), "{status}");
    eprintln!(
        "KRNKBB from scratch, --memory 64M --threads 8 --stream: peak RSS {} MiB",
        kib >> 10
    );
    assert!(
        kib <= 64 << 10,
        "peak RSS {kib} KiB exceeds the 64 MiB budget"
    );
}

/// Under the Asian rules where they apply (both sides attack), the rule stage's candidates and
/// patterns stay inside the budget too: KRKNN (supporting tables present) peaked at 78 MB at
/// 64M when the pattern phase's sets came on top of the propagation's buffers and the kept
/// warm starts took whole pages.
#[test]
fn a_64m_budget_holds_under_the_asian_rules_at_8_threads() {
    let d = tempfile::tempdir().unwrap();
    for support in ["KRKN", "KNNK"] {
        let out = build_quiet(support, d.path(), &[]).output().unwrap();
        assert_ok(support, &out);
    }
    let cmd = build_quiet("KRKNN", d.path(), &["--memory", "64M", "--threads", "8"]);
    let (status, kib) = peak_rss_kib(cmd);
    assert!(status.success(), "{status}");
    eprintln!(
        "KRKNN (asian), supporting tables present, --memory 64M --threads 8: peak RSS {} MiB",
        kib >> 10
    );
    assert!(
        kib <= 64 << 10,
        "peak RSS {kib} KiB exceeds the 64 MiB budget"
    );
}

/// A DTM build finds the derived sides of supporting tables built by an earlier run from their
/// moves, within the budget too: KRNKBB over KRNKB (2.3 M entries a side) at 64M, 8 threads,
/// the same bytes as a build in one run. The search goes a block per worker to the file,
/// through a bounded set of open tables (`formats/build.md` §2.2): holding a side's codes whole
/// took KCPABKAABB's build to 1.77 GiB at `--memory 1G`.
#[test]
fn a_64m_budget_holds_while_a_dtm_build_finds_derived_sides() {
    let d = tempfile::tempdir().unwrap();
    let dtm = ["--metric", "dtm"];
    assert_ok(
        "KRNKBB",
        &build_quiet("KRNKBB", d.path(), &dtm).output().unwrap(),
    );
    let top = d.path().join("KRNKBB.xqdtm");
    let want = std::fs::read(&top).unwrap();
    std::fs::remove_file(&top).unwrap();
    let args = ["--metric", "dtm", "--memory", "64M", "--threads", "8"];
    let (status, kib) = peak_rss_kib(build_quiet("KRNKBB", d.path(), &args));
    assert!(status.success(), "{status}");
    eprintln!(
        "KRNKBB (DTM) over an earlier run's tables, --memory 64M --threads 8: peak RSS {} MiB",
        kib >> 10
    );
    assert!(
        kib <= 64 << 10,
        "peak RSS {kib} KiB exceeds the 64 MiB budget"
    );
    assert!(std::fs::read(&top).unwrap() == want, "other bytes");
}

/// Runs `cmd`, killing it if it takes longer than `secs` (a hang is a failure, not a stuck CI).
fn run_with_timeout(mut cmd: Command, secs: u64) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} hung for {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn odd_arguments_are_clear_errors_not_panics_or_hangs() {
    let d = tempfile::tempdir().unwrap();
    let mut c = build_quiet("KRK", d.path(), &["--checkpoint-secs", "inf"]);
    assert_ok("--checkpoint-secs inf", &run_with_timeout(c, 60));
    for bad in ["-1", "-inf", "nan", "soon"] {
        c = build_quiet("KRK", d.path(), &["--checkpoint-secs", bad]);
        let out = run_with_timeout(c, 60);
        let e = text(&out.stderr);
        assert!(
            !out.status.success() && e.contains("seconds") && !e.contains("panicked"),
            "{bad}: {e}"
        );
    }
    c = build_quiet("KRK", d.path(), &["--checkpoint-secs", "1e20"]);
    assert_ok("--checkpoint-secs 1e20", &run_with_timeout(c, 60));
    c = build_quiet("KRK", d.path(), &["--threads", "100000"]);
    let out = run_with_timeout(c, 60);
    let e = text(&out.stderr);
    assert!(!out.status.success() && e.contains("1024"), "{e}");
    c = build_quiet("KRK", d.path(), &["--threads", "32"]);
    assert_ok("--threads 32", &run_with_timeout(c, 60));
}

/// Paths need not be UTF-8: a build into such a `--dir` and `--tmp` works and leaves no lock or
/// working directory behind it (it once panicked writing its lock, exit 101).
#[test]
fn a_non_utf8_dir_and_tmp_work() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let odd = d.path().join(std::ffi::OsStr::from_bytes(b"tables-\xff"));
    let tmp = d.path().join(std::ffi::OsStr::from_bytes(b"work-\xfe"));
    let mut c = build_quiet("KRK", &odd, &["--tmp"]);
    c.arg(&tmp);
    let out = run_with_timeout(c, 60);
    assert_ok("non-UTF-8 --dir and --tmp", &out);
    assert!(odd.join("KRK.xqtb").is_file());
    assert!(!tmp.join("KRK").exists(), "a working directory is left");
}

/// Two builds of other directories sharing one `--tmp` also take each table's lock there
/// (`formats/locks.md`): with `--no-wait`, a build that finds a table it needs held by the
/// other fails at once, naming it; run again it finishes.
#[test]
fn builds_sharing_a_tmp_with_no_wait_fail_plainly_or_finish() {
    let ([d1, d2, tmp], outs) = race_sharing_tmp(&["--no-wait"]);
    let want = reference("KRKAABB");
    for (d, o) in [d1.path(), d2.path()].into_iter().zip(&outs) {
        if !o.status.success() {
            let e = text(&o.stderr);
            assert!(
                e.contains("is being built by another xqtb build (host ")
                    && e.contains("run without --no-wait"),
                "{e}"
            );
            let mut again = build_quiet("KRKAABB", d, &[]);
            again.arg("--tmp").arg(tmp.path());
            assert_ok("run again", &again.output().unwrap());
        }
        assert!(tables(d) == want);
    }
    assert!(!tmp.path().exists() || std::fs::read_dir(tmp.path()).unwrap().next().is_none());
}

/// A material that cannot be built (its pieces cannot be numbered for chases under the Asian
/// rules, its index is too large, or it has no memory plan within the budget) is refused before
/// any supporting table is built.
#[test]
fn unbuildable_materials_are_refused_before_any_table_is_built() {
    for (m, extra, what) in [
        // Three pawns cannot be numbered, and the advisor can chase them.
        ("KPPPKA", &[][..], "--rules check or none"),
        ("KRCNPABKRCNPAB", &[], ""),
        // KRCKR's plan needs more than 64 MiB; its supporting tables would fit.
        ("KRCKR", &["--memory", "64M"], "too small for table KRCKR"),
    ] {
        let d = tempfile::tempdir().unwrap();
        let out = run_with_timeout(build_quiet(m, d.path(), extra), 60);
        let e = text(&out.stderr);
        assert!(
            !out.status.success() && e.contains(what) && !e.contains("panicked"),
            "{m}: {e}"
        );
        assert!(
            !d.path().exists() || std::fs::read_dir(d.path()).unwrap().next().is_none(),
            "{m}: something was written"
        );
    }
}

/// A directory where a store's checkpoint manifest should be is a clear error, not a restart
/// that then fails.
#[test]
fn a_manifest_that_is_a_directory_is_a_clear_error() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join(".work/KRKN");
    std::fs::create_dir_all(store.join("manifest.json")).unwrap();
    std::fs::write(store.join("XQTB-WORK"), b"").unwrap();
    let out = run_with_timeout(build_quiet("KRKN", d.path(), &[]), 60);
    let e = text(&out.stderr);
    assert!(
        !out.status.success()
            && e.contains("manifest.json is not a file")
            && !e.contains("restarting"),
        "{e}"
    );
    assert!(
        store.join("manifest.json").is_dir(),
        "the directory is the user's: kept"
    );
}

#[test]
fn a_huge_cache_costs_nothing_up_front() {
    let d = tempfile::tempdir().unwrap();
    assert_ok(
        "build",
        &build_quiet("KRK", d.path(), &[]).output().unwrap(),
    );
    for cache in ["100T", "1000T"] {
        let mut c = xqtb();
        c.args(["probe", "--cache", cache, "--dir"])
            .arg(d.path())
            .arg("3k5/9/9/9/9/9/9/9/9/4K1R2 w");
        let (status, kib) = peak_rss_kib(c);
        assert!(status.success(), "--cache {cache}: {status}");
        assert!(kib < 64 << 10, "--cache {cache}: peak RSS {kib} KiB");
    }
}

#[test]
fn a_fifo_named_like_a_table_is_an_error_not_a_hang() {
    let d = tempfile::tempdir().unwrap();
    assert_ok(
        "build",
        &build_quiet("KRK", d.path(), &[]).output().unwrap(),
    );
    let table = d.path().join("KRK.xqtb");
    std::fs::remove_file(&table).unwrap();
    let made = Command::new("mkfifo").arg(&table).status().unwrap();
    assert!(made.success(), "mkfifo");
    let mut c = xqtb();
    c.args(["probe", "--dir"])
        .arg(d.path())
        .arg("3k5/9/9/9/9/9/9/9/9/4K1R2 w");
    let out = run_with_timeout(c, 30);
    let e = text(&out.stderr);
    assert!(
        !out.status.success() && e.contains("FIFO") && e.contains("KRK.xqtb"),
        "{e}"
    );
    // build does not block on it either: it reports it and writes the table in its place.
    let out = run_with_timeout(build_quiet("KRK", d.path(), &[]), 60);
    assert_ok("build over a FIFO", &out);
    assert!(std::fs::metadata(&table).unwrap().is_file());
}

/// `probe --json -` answers every input line in order — bad ones (not UTF-8, blank, not a
/// position) with `{fen, error}` — and flushes each answer before reading the next line.
#[test]
fn batch_probe_answers_every_line_at_once() {
    use std::io::{BufRead, BufReader, Write};
    let d = tempfile::tempdir().unwrap();
    assert_ok(
        "build",
        &build_quiet("KRK", d.path(), &[]).output().unwrap(),
    );
    let mut child = xqtb()
        .args(["probe", "--json", "--dir"])
        .arg(d.path())
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            tx.send(line.unwrap()).unwrap();
        }
    });
    let next = || {
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .expect("an answer while stdin is still open")
    };
    let good = "3k5/9/9/9/9/9/9/9/9/4K1R2 w";
    // One line in, one answer out, stdin still open.
    writeln!(stdin, "{good}").unwrap();
    stdin.flush().unwrap();
    let first: serde_json::Value = serde_json::from_str(&next()).unwrap();
    assert_eq!(first["result"], "win", "{first}");
    let inputs: [&[u8]; 4] = [
        b"\xff\xfe not text\n",
        b"\n",
        b"not a position\n",
        b"3k5/9/9/9/9/9/9/9/9/4K1R2 w\n",
    ];
    for bytes in inputs {
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
        let answer: serde_json::Value = serde_json::from_str(&next()).unwrap();
        let is_good = bytes.starts_with(b"3k5");
        assert_eq!(answer.get("error").is_some(), !is_good, "{answer}");
        if !is_good {
            assert!(answer["fen"].is_string(), "{answer}");
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(
        rx.recv_timeout(std::time::Duration::from_secs(5)).is_err(),
        "extra output"
    );
}

/// `verify` of a whole directory prints each table's line as soon as that table is checked
/// (piped, its output was held until every table was done).
#[test]
fn verify_reports_each_table_as_it_is_done() {
    use std::io::BufRead;
    let d = built(&["KRKAABB"]);
    let mut child = xqtb()
        .args(["verify", "--dir"])
        .arg(d.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains(": ok ("), "{first}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first line came only when every table was done"
    );
    let rest = out.lines().count();
    assert!(child.wait().unwrap().success());
    assert_eq!(1 + rest, tables(d.path()).len());
}
