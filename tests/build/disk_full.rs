//! A disk that fills up in the middle of a build, on a real filesystem that runs out of space (a
//! small tmpfs, mounted in a mount namespace of its own so nothing outside sees it): the build
//! stops with an error naming the file it could not write and "No space left on device", keeps
//! its last checkpoint, leaves no table or temporary file in `--dir`, and the same command run
//! again once there is space resumes and writes the reference table's exact bytes.
//!
//! A disk too small from the start is refused before anything is written, with the need and
//! what is free.
//!
//! The build is paused at a chosen pass boundary (`XQTB_TEST_PAUSE_AT`, a SIGSTOP after that
//! boundary's checkpoint), the disk is filled, and the build continued: its next write meets a
//! full disk. Needs `unshare`, `mount` and either root or user namespaces; without them the
//! test is skipped, except under `CI=true`, where it fails.

use crate::common::{built, XQTB};
use std::path::Path;
use std::process::Command;

/// The shell script a scenario runs in its own mount namespace ([`run_script`]'s three first
/// arguments, then the reference directory, the material, the pause point, the bytes left free
/// for the resume, and extra build arguments).
const SCENARIO: &str = r#"
set -u
OUT=$1; X=$2; MNT=$3; REF=$4; M=$5; AT=$6; LEAVE=$7; shift 7
mount -t tmpfs -o size=64m xqtb-full "$MNT" || exit 90
DIR=$MNT/dir
mkdir "$DIR"
for f in "$REF"/*.xqtb; do
  [ "$(basename "$f")" = "$M.xqtb" ] || cp "$f" "$DIR/"
done
XQTB_TEST_PAUSE_AT=$M:$AT "$X" build "$M" --dir "$DIR" --checkpoint-secs 0 "$@" \
  >"$OUT/first.out" 2>"$OUT/first.err" &
pid=$!
while kill -0 $pid 2>/dev/null && ! grep -q '^State:.*stopped' /proc/$pid/status; do
  sleep 0.01
done
kill -0 $pid 2>/dev/null || { echo "the build never paused" >"$OUT/fail"; exit 91; }
dd if=/dev/zero of="$MNT/fill" bs=64k 2>/dev/null
df -k "$MNT" | tail -1 | awk '{print $4}' >"$OUT/free"
kill -CONT $pid
wait $pid
echo $? >"$OUT/first.rc"
(cd "$DIR" && find . | sort) >"$OUT/first.files"
rm "$MNT/fill"
avail=$(df -B1 --output=avail "$MNT" | tail -1)
kept=$(find "$DIR/.work/$M" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
echo $kept >"$OUT/kept"
head -c $((avail - LEAVE + kept - 32768)) /dev/zero >"$MNT/fill"
df -B1 --output=avail "$MNT" | tail -1 >"$OUT/left"
"$X" build "$M" --dir "$DIR" --checkpoint-secs 0 "$@" >"$OUT/second.out" 2>"$OUT/second.err"
echo $? >"$OUT/second.rc"
(cd "$DIR" && find . | sort) >"$OUT/second.files"
cp "$DIR/$M.xqtb" "$OUT/" 2>/dev/null
exit 0
"#;

/// A disk too small from the start, for the check before a build (`formats/build.md` §10)
/// ([`run_script`]'s three first arguments, then the reference directory and the material).
const TOO_SMALL: &str = r#"
set -u
OUT=$1; X=$2; MNT=$3; REF=$4; M=$5
mount -t tmpfs -o size=4m xqtb-small "$MNT" || exit 90
mkdir "$MNT/dir"
for f in "$REF"/*.xqtb; do
  [ "$(basename "$f")" = "$M.xqtb" ] || cp "$f" "$MNT/dir/"
done
"$X" build "$M" --dir "$MNT/dir" >"$OUT/first.out" 2>"$OUT/first.err"
echo $? >"$OUT/first.rc"
(cd "$MNT/dir" && find . | sort) >"$OUT/first.files"
exit 0
"#;

/// The command that runs a script in a private mount namespace: as root directly, otherwise in
/// a user namespace of its own; `None` if neither works here.
fn namespace() -> Option<Vec<&'static str>> {
    let candidates: [&[&str]; 2] = [
        &["unshare", "--mount", "--propagation", "private"],
        &["unshare", "--user", "--map-root-user", "--mount"],
    ];
    candidates.into_iter().find_map(|cmd| {
        let probe = "d=$(mktemp -d) && mount -t tmpfs -o size=1m probe \"$d\" && umount \"$d\"; \
             s=$?; rmdir \"$d\"; exit $s";
        let ok = Command::new(cmd[0])
            .args(&cmd[1..])
            .args(["sh", "-c", probe])
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| cmd.to_vec())
    })
}

/// What a build checks is free under `--tmp` before it starts a table of `n` entries per side
/// (`formats/build.md` §10): `8n`. A scenario leaves the resume that less the bytes the kept
/// checkpoint's files hold (and 32 KiB for the filesystem's rounding), which is what the check
/// asks of a resume, and less than a fresh build asks for.
fn need(material: &str) -> u64 {
    8 * entries(material)
}

/// Entries per side of `material`'s table.
fn entries(material: &str) -> u64 {
    let m: xqtb::material::Material = material.parse().unwrap();
    xqtb::index::Indexer::new(m).unwrap().size()
}

/// Runs `script` in the namespace `ns` with its arguments: the directory for what it leaves for
/// the checks (returned), the binary, a mount point, then `args`.
fn run_script(ns: &[&str], script: &str, args: &[String]) -> tempfile::TempDir {
    let (out, mnt) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let status = Command::new(ns[0])
        .args(&ns[1..])
        .args(["sh", "-c", script, "scenario"])
        .arg(out.path())
        .arg(XQTB)
        .arg(mnt.path())
        .args(args)
        .status()
        .unwrap();
    let fail = std::fs::read_to_string(out.path().join("fail")).unwrap_or_default();
    assert!(status.success(), "the scenario failed ({status}): {fail}");
    out
}

/// Runs one scenario; returns the directory of what it left for the checks.
fn run(
    ns: &[&str],
    reference: &Path,
    material: &str,
    at: (u16, u32),
    extra: &[&str],
) -> tempfile::TempDir {
    let mut args = vec![
        reference.display().to_string(),
        material.to_string(),
        format!("{}:{}", at.0, at.1),
        need(material).to_string(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    run_script(ns, SCENARIO, &args)
}

/// The checks of one scenario: a clear error naming a file under `--dir` (where the working
/// files are too) whose name ends in `file`, the checkpoint kept, no table, then a resume from that checkpoint to the
/// reference's bytes, and nothing left behind.
fn check(out: &Path, reference: &Path, material: &str, at: (u16, u32), file: &str) {
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    let what = format!("{material} paused at {at:?}");
    assert_eq!(read("free").trim(), "0", "{what}: the disk was not full");
    let err = read("first.err");
    assert_eq!(
        read("first.rc").trim(),
        "1",
        "{what}: the build did not fail: {err}"
    );
    assert!(
        err.contains("No space left on device") && err.contains("/dir/"),
        "{what}: no clear error naming the file: {err}"
    );
    // The write the scenario is there for.
    assert!(
        err.contains(&format!("{file}: No space left")),
        "{what}: the error is not about a {file} file: {err}"
    );
    assert!(
        err.contains("its checkpoint is kept"),
        "{what}: the error does not say the checkpoint is kept: {err}"
    );
    let files = read("first.files");
    assert!(
        files.contains("/.work/") && files.contains("manifest.json"),
        "{what}: the checkpoint is gone: {files}"
    );
    assert!(
        !files.contains(&format!("./{material}.xqtb")),
        "{what}: a table or its temporary file is left: {files}"
    );
    let left: u64 = read("left").trim().parse().unwrap();
    let kept: u64 = read("kept").trim().parse().unwrap();
    assert!(
        kept > 0 && left < need(material) - kept + (1 << 16),
        "{what}: {left} bytes free for the resume, {kept} kept"
    );
    let second = read("second.out") + &read("second.err");
    assert_eq!(read("second.rc").trim(), "0", "{what}: no resume: {second}");
    assert!(
        second.contains("resuming after order"),
        "{what}: the second build did not resume: {second}"
    );
    let left = read("second.files");
    assert!(
        !left.contains(".work"),
        "{what}: working files left: {left}"
    );
    let got = std::fs::read(out.join(format!("{material}.xqtb"))).unwrap();
    let want = std::fs::read(reference.join(format!("{material}.xqtb"))).unwrap();
    assert!(
        got == want,
        "{what}: the resumed table differs from the reference"
    );
}

#[test]
fn a_disk_that_fills_up_mid_build_is_a_clear_error_and_the_build_resumes() {
    let Some(ns) = namespace() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI: no mount namespace with a tmpfs can be made here (unshare, mount)"
        );
        eprintln!("skipped: no mount namespace with a tmpfs can be made here");
        return;
    };
    let stream = ["--stream", "--chunk-len", "16384"];
    // One side without attacking pieces: order 0 only, 37 plies.
    let plain = built(&["KRKAABB"]);
    // Under the Asian rules: KRKN has an order 1 of two plies.
    let rules = built(&["KRKN"]);
    let push_only = [&stream[..], &["--push-only"]].concat();
    // Each meets the full disk in a different write (the file name's end).
    type Scenario<'a> = (&'a Path, &'a str, (u16, u32), &'a [&'a str], &'a str);
    let scenarios: [Scenario; 6] = [
        // A streamed ply's update logs.
        (plain.path(), "KRKAABB", (0, 5), &stream, ".updates"),
        // The table's own (temporary) file in `--dir`, after the last ply.
        (plain.path(), "KRKAABB", (0, 37), &stream, ".xqtb.tmp"),
        // Resident: the working chunks, written at the next checkpoint.
        (plain.path(), "KRKAABB", (0, 12), &[], ".chunk"),
        // After an order's seeding: its first ply is pulled, its chunks rewritten.
        (rules.path(), "KRKN", (1, 0), &stream, ".chunk"),
        // A win ply pushed: its resolution logs.
        (rules.path(), "KRKN", (0, 2), &push_only, ".resolved"),
        // An order's decrement ply: update logs.
        (rules.path(), "KRKN", (1, 1), &stream, ".updates"),
    ];
    for (reference, material, at, extra, file) in scenarios {
        let out = run(&ns, reference, material, at, extra);
        check(out.path(), reference, material, at, file);
    }
    // Too small from the start (4 MiB): refused before the build, naming the need.
    let args = [plain.path().display().to_string(), "KRKAABB".to_string()];
    let out = run_script(&ns, TOO_SMALL, &args);
    let read = |name: &str| std::fs::read_to_string(out.path().join(name)).unwrap_or_default();
    let err = read("first.err");
    assert_eq!(read("first.rc").trim(), "1", "too small a disk: {err}");
    // In MiB rounded up.
    let need = need("KRKAABB").div_ceil(1 << 20);
    assert!(
        err.contains(&format!("building table KRKAABB needs {need} MiB free in "))
            && err.contains("/dir/.work, but only "),
        "too small a disk: {err}"
    );
    let files = read("first.files");
    assert!(
        !files.contains(".work") && !files.contains("./KRKAABB.xqtb"),
        "too small a disk: left {files}"
    );
}
