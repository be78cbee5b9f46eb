//! Advisory locks for builds (`formats/locks.md`): one lock file per table, so several builds
//! (processes on one machine, or machines sharing the directory) build different tables of one
//! directory at once and never the same one; and a shared lock on the derived values kept under
//! `--tmp`, so a build removes them only when no other build reads them.
//!
//! The locks are OS file locks (`flock` through `File::try_lock`): the kernel releases one when
//! its holder exits, however it exits, so a killed build leaves no held lock, only the lock file
//! with its last holder's stamp, which the next holder reads to say whose work it takes over. On
//! NFS, Linux maps `flock` onto the server's byte-range locks: a crashed client's locks are
//! released when its lease runs out.
//!
//! A lock file may be removed only by a holder of its exclusive lock ([`FileLock::remove`]); a
//! taker checks after locking that the path still names the file it locked (and tries again if
//! not), so a removal never lets two holders in.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a lock was not taken.
#[derive(Debug, Error)]
pub enum LockError {
    /// Another build holds a table's lock and this one was asked not to wait.
    #[error("table {table} is being built by another xqtb build ({holder}); run without --no-wait to build the other tables meanwhile and wait for it")]
    TableBusy {
        /// The table.
        table: String,
        /// The holder's stamp, as it wrote it in the lock file.
        holder: String,
    },
    /// Another build holds a lock this one cannot wait for.
    #[error("{what} is in use by another xqtb build ({holder})")]
    Busy {
        /// What is locked.
        what: String,
        /// Who holds it.
        holder: String,
    },
    /// Creating, opening, locking or writing a lock file failed.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> LockError + '_ {
    move |source| LockError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Exclusive (one holder) or shared (any number of holders, no exclusive one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One holder.
    Exclusive,
    /// Many holders.
    Shared,
}

/// A held lock on a file; released on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// Takes the lock of `path` (creating the file, not its directory) in `mode` if no other
    /// holder prevents it; `None` if one does.
    pub fn try_take(path: &Path, mode: Mode) -> Result<Option<FileLock>, LockError> {
        FileLock::try_take_file(path, mode, true)
    }

    /// [`FileLock::try_take`] of a lock file that exists: `None` if it does not, or if another
    /// holder prevents the lock. For a look at lock files other builds may be removing: a lock
    /// file created by the look would outlive the table it was for.
    pub fn try_take_existing(path: &Path, mode: Mode) -> Result<Option<FileLock>, LockError> {
        match FileLock::try_take_file(path, mode, false) {
            Err(LockError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                Ok(None)
            }
            r => r,
        }
    }

    fn try_take_file(path: &Path, mode: Mode, create: bool) -> Result<Option<FileLock>, LockError> {
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(create)
                .truncate(false)
                .open(path)
                .map_err(io_error(path))?;
            let taken = match mode {
                Mode::Exclusive => file.try_lock(),
                Mode::Shared => file.try_lock_shared(),
            };
            match taken {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(source)) => {
                    return Err(LockError::Io {
                        path: path.to_owned(),
                        source,
                    })
                }
            }
            // A holder may have removed the file between our open and our lock: then we hold a
            // lock on a file nobody else will open. Try again on the file the path names now.
            if same_file(&file, path).map_err(io_error(path))? {
                return Ok(Some(FileLock {
                    file,
                    path: path.to_owned(),
                }));
            }
        }
    }

    /// [`FileLock::try_take`] of `path`, creating its directory first, and again if another
    /// build removes the directory (one it left empty) before the file is created.
    pub fn try_take_creating_dir(path: &Path, mode: Mode) -> Result<Option<FileLock>, LockError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut tries = 0;
        loop {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
            match FileLock::try_take(path, mode) {
                Err(LockError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound && tries < 10 =>
                {
                    tries += 1
                }
                r => return r,
            }
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the lock file holds (a holder's stamp), trimmed.
    pub fn read(&mut self) -> String {
        let mut text = String::new();
        let _ = self.file.seek(SeekFrom::Start(0));
        let _ = self.file.read_to_string(&mut text);
        text.trim().to_string()
    }

    /// Replaces what the lock file holds with `text`.
    pub fn write(&mut self, text: &str) -> Result<(), LockError> {
        let path = self.path.clone();
        self.file.set_len(0).map_err(io_error(&path))?;
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(io_error(&path))?;
        self.file
            .write_all(text.as_bytes())
            .map_err(io_error(&path))
    }

    /// Removes the lock file, then releases the lock (an exclusive holder only: a shared holder
    /// would pull the file from under the others).
    pub fn remove(self) -> Result<(), LockError> {
        std::fs::remove_file(&self.path).map_err(io_error(&self.path))
    }
}

/// Does `path` name the open `file` (same device and inode)? A missing path does not.
pub(crate) fn same_file(file: &File, path: &Path) -> std::io::Result<bool> {
    let open = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(named) => Ok(named.dev() == open.dev() && named.ino() == open.ino()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// What another holder of a busy lock wrote in it, given a moment to write it (a holder that
/// has just taken the lock may not have yet).
pub fn holder_of(path: &Path) -> String {
    for _ in 0..10 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if !text.trim().is_empty() {
            return one_line(text.trim());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "a build that has just started".into()
}

/// A stamp's lines on one line, for messages.
fn one_line(stamp: &str) -> String {
    stamp
        .lines()
        .filter(|l| !l.starts_with("xqtb "))
        .collect::<Vec<_>>()
        .join(", ")
}

/// This machine's name (empty if it has none).
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // Safety: `buf` is writable for its whole length, which is passed; gethostname writes at
    // most that many bytes.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The stamp a build writes into a lock it holds (`formats/locks.md` §2): who holds it, since
/// when, under which rule set, with which command.
pub fn stamp(rules: &str) -> String {
    // Lossy: a path argument need not be UTF-8 (`std::env::args` panics on one).
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!(
        "xqtb lock 1\nhost {}\npid {}\nsince {since}\nrules {rules}\ncommand {}\n",
        host_name(),
        std::process::id(),
        args.join(" ")
    )
}

/// The value of `key` in a stamp (`rules asian` → `asian`).
pub fn stamp_field<'a>(stamp: &'a str, key: &str) -> Option<&'a str> {
    stamp
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.lock");
        let mut first = FileLock::try_take(&p, Mode::Exclusive).unwrap().unwrap();
        first.write(&stamp("asian")).unwrap();
        // flock locks belong to open file descriptions: a second open conflicts even in one
        // process, as a second process's would.
        assert!(FileLock::try_take(&p, Mode::Exclusive).unwrap().is_none());
        assert!(FileLock::try_take(&p, Mode::Shared).unwrap().is_none());
        let holder = holder_of(&p);
        assert!(
            holder.contains(&format!("pid {}", std::process::id()))
                && holder.contains("rules asian"),
            "{holder}"
        );
        drop(first);
        let mut again = FileLock::try_take(&p, Mode::Exclusive).unwrap().unwrap();
        // The last holder's stamp stays for the next one to read.
        assert_eq!(stamp_field(&again.read(), "rules"), Some("asian"));
    }

    #[test]
    fn shared_holders_exclude_an_exclusive_one() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("d.lock");
        let a = FileLock::try_take(&p, Mode::Shared).unwrap().unwrap();
        let b = FileLock::try_take(&p, Mode::Shared).unwrap().unwrap();
        assert!(FileLock::try_take(&p, Mode::Exclusive).unwrap().is_none());
        drop(a);
        assert!(FileLock::try_take(&p, Mode::Exclusive).unwrap().is_none());
        drop(b);
        assert!(FileLock::try_take(&p, Mode::Exclusive).unwrap().is_some());
    }

    #[test]
    fn a_removed_lock_file_is_never_held_twice() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("d.lock");
        let first = FileLock::try_take(&p, Mode::Exclusive).unwrap().unwrap();
        // A taker that opened the old file before its removal ...
        let stale = File::open(&p).unwrap();
        first.remove().unwrap();
        assert!(!p.exists());
        // ... locks a file no path names; `same_file` sends it to the new one.
        stale.try_lock().unwrap();
        assert!(!same_file(&stale, &p).unwrap());
        let new = FileLock::try_take(&p, Mode::Exclusive).unwrap().unwrap();
        assert!(same_file(&new.file, &p).unwrap());
        assert!(FileLock::try_take(&p, Mode::Exclusive).unwrap().is_none());
    }

    #[test]
    fn a_look_at_an_existing_lock_creates_none() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("gone.lock");
        assert!(FileLock::try_take_existing(&p, Mode::Shared)
            .unwrap()
            .is_none());
        assert!(!p.exists(), "the look created the lock file");
        let held = FileLock::try_take(&p, Mode::Exclusive).unwrap().unwrap();
        assert!(FileLock::try_take_existing(&p, Mode::Shared)
            .unwrap()
            .is_none());
        drop(held);
        assert!(FileLock::try_take_existing(&p, Mode::Shared)
            .unwrap()
            .is_some());
    }

    #[test]
    fn a_missing_directory_is_a_clear_error() {
        let d = tempfile::tempdir().unwrap();
        let msg = FileLock::try_take(&d.path().join("nope/t.lock"), Mode::Exclusive)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("cannot lock") && msg.contains("nope"), "{msg}");
    }

    /// The stamp's lines are `formats/locks.md` §2's, in its order.
    #[test]
    fn the_stamp_has_the_lines_of_the_format() {
        let doc = include_str!("../formats/locks.md");
        let section = doc.split("## 2. The stamp").nth(1).unwrap();
        let section = section.split("\n## ").next().unwrap();
        let rows: Vec<&str> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
            .collect();
        let s = stamp("dtc-asian");
        assert_eq!(rows[0], s.lines().next().unwrap());
        let word = |l: &str| l.split(' ').next().unwrap().to_string();
        assert_eq!(
            rows.iter().map(|r| word(r)).collect::<Vec<_>>(),
            s.lines().map(word).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_stamp_names_host_pid_and_rules() {
        let s = stamp("check");
        assert_eq!(stamp_field(&s, "host"), Some(host_name().as_str()));
        assert_eq!(
            stamp_field(&s, "pid"),
            Some(std::process::id().to_string().as_str())
        );
        assert_eq!(stamp_field(&s, "rules"), Some("check"));
        assert!(stamp_field(&s, "command").is_some());
    }
}
