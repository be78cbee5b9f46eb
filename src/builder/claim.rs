//! Claims on tables (`formats/locks.md`): a build holds a table's lock while it builds it, so
//! builds sharing a directory (processes, or machines over NFS) build different tables at once
//! and none twice. The lock is `<dir>/.locks/<store>.lock` and, when `--tmp` is outside
//! `--dir` (builds of other directories may share it, and the table's working store with it),
//! also `<tmp>/.locks/<store>.lock`, taken second.

use super::{rule_set, BuildError, BuildOptions, Target};
use crate::lock::{holder_of, stamp, stamp_field, FileLock, Mode};
use std::path::{Path, PathBuf};

/// The directory of the lock files under `--dir` (and an outside `--tmp`).
pub const LOCKS_DIR: &str = ".locks";

/// The derived values' lock under `--tmp`: shared by every build that may read them, exclusive
/// to remove them (`derived.rs`).
pub const DERIVED_LOCK: &str = ".derived.lock";

/// The lock file of `t` under `root`.
pub fn lock_path(root: &Path, t: Target) -> PathBuf {
    root.join(LOCKS_DIR)
        .join(format!("{}.lock", t.store_name()))
}

/// The directories whose locks a claim takes: `--dir`, then `--tmp` if it is outside `--dir`.
fn roots(opts: &BuildOptions) -> Vec<&Path> {
    let mut roots = vec![opts.dir.as_path()];
    if tmp_outside_dir(opts) {
        roots.push(opts.tmp.as_path());
    }
    roots
}

/// Is `--tmp` outside `--dir` (both exist)?
pub(super) fn tmp_outside_dir(opts: &BuildOptions) -> bool {
    match (opts.tmp.canonicalize(), opts.dir.canonicalize()) {
        (Ok(tmp), Ok(dir)) => !tmp.starts_with(dir),
        _ => true,
    }
}

/// A held claim on a table: released on drop, its lock files kept (their stamp tells the next
/// holder that this build stopped without finishing); [`Claim::finish`] removes them.
pub(super) struct Claim {
    locks: Vec<FileLock>,
    /// The stamp the table's last holder left, if it was not this build (a build that stopped
    /// without finishing: its checkpoint, if it left one, is resumed).
    pub previous: Option<String>,
}

/// A claim taken, or the stamp of the build holding it.
pub(super) enum Claimed {
    Held(Claim),
    Busy(String),
}

/// Claims `t` if no other build holds it, stamping its locks with this build.
pub(super) fn try_claim(opts: &BuildOptions, t: Target) -> Result<Claimed, BuildError> {
    let mine = stamp(rule_set(opts.rules).name());
    let mut locks = Vec::new();
    for root in roots(opts) {
        let path = lock_path(root, t);
        // A build that finished may remove the directory, empty, meanwhile.
        match FileLock::try_take_creating_dir(&path, Mode::Exclusive)? {
            Some(lock) => locks.push(lock),
            None => return Ok(Claimed::Busy(holder_of(&path))),
        }
    }
    let last = locks[0].read();
    let previous = (!last.is_empty() && !same_holder(&last, &mine)).then_some(last);
    for lock in &mut locks {
        lock.write(&mine)?;
    }
    Ok(Claimed::Held(Claim { locks, previous }))
}

impl Claim {
    /// The table is in `--dir`: its lock files go, so `.locks` lists only tables being built or
    /// left unfinished.
    pub(super) fn finish(self) -> Result<(), BuildError> {
        for lock in self.locks.into_iter().rev() {
            lock.remove()?;
        }
        Ok(())
    }
}

/// Removes the lock files of `t`, present, that a build killed after its rename left (if no
/// build holds them).
pub(super) fn remove_left(opts: &BuildOptions, t: Target) -> Result<(), BuildError> {
    for root in roots(opts) {
        if let Some(lock) = FileLock::try_take_existing(&lock_path(root, t), Mode::Exclusive)? {
            lock.remove()?;
        }
    }
    Ok(())
}

/// Removes the lock directories if they are empty (no table being built or left unfinished):
/// a build creating a lock file there meanwhile creates the directory again.
pub(super) fn remove_lock_dirs(opts: &BuildOptions) {
    for root in roots(opts) {
        let _ = std::fs::remove_dir(root.join(LOCKS_DIR));
    }
}

/// Were two stamps written by one process?
fn same_holder(a: &str, b: &str) -> bool {
    ["host", "pid", "since"]
        .iter()
        .all(|k| stamp_field(a, k) == stamp_field(b, k))
}

/// A build of another rule set holding a table's lock in `--dir`, if there is one: its stamp.
/// Checked after a claim too, so two builds of different rule sets starting at once both stop
/// rather than both build.
pub(super) fn other_rules_at_work(opts: &BuildOptions) -> Option<String> {
    let mine = rule_set(opts.rules).name();
    let entries = std::fs::read_dir(opts.dir.join(LOCKS_DIR)).ok()?;
    entries.flatten().find_map(|e| {
        let path = e.path();
        // A lock we can share is held by nobody (an exclusive holder prevents it). A lock file
        // its holder removed meanwhile is not made again here: it would outlive its table.
        if FileLock::try_take_existing(&path, Mode::Shared)
            .ok()?
            .is_some()
        {
            return None;
        }
        let holder = std::fs::read_to_string(&path).ok()?;
        let rules = stamp_field(&holder, "rules")?;
        (rules != mine).then(|| holder_of(&path))
    })
}

/// Describes a previous holder's stamp for a note.
pub(super) fn describe(stamp: &str) -> String {
    let field = |k| stamp_field(stamp, k).unwrap_or("?");
    format!("pid {} on {}", field("pid"), field("host"))
}
