//! Exclusive advisory locks on directories: a build holds `<dir>/.xqtb.lock` while it writes, so
//! two builds never write the same tables or read each other's half-finished checkpoints.
//!
//! The lock is an OS file lock (`flock` through `File::try_lock`): the kernel releases it when the
//! holder exits, however it exits, so a killed build never leaves a stale lock. The lock file
//! itself is never deleted (deleting it while another process waits on it would let two holders
//! in); it holds the holder's process id and command line, for the message a second build shows.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The lock file's name.
pub const LOCK_FILE: &str = ".xqtb.lock";

/// Why a lock was not taken.
#[derive(Debug, Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{dir} is in use by another xqtb build ({holder}); wait for it to finish, or run with --wait")]
    Busy {
        /// The locked directory.
        dir: PathBuf,
        /// The holder's process id and command line, as it wrote them in the lock file.
        holder: String,
    },
    /// Opening, locking or writing the lock file failed.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// A held lock; released on drop.
#[derive(Debug)]
pub struct DirLock {
    file: File,
    path: PathBuf,
}

fn open(dir: &Path) -> Result<(File, PathBuf), LockError> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
    Ok((file, path))
}

/// Who holds the lock, as its holder wrote it (a holder that has just taken it may not have
/// written yet: give it a moment).
fn holder(file: &mut File) -> String {
    for _ in 0..10 {
        let mut text = String::new();
        let _ = file.seek(SeekFrom::Start(0));
        let _ = file.read_to_string(&mut text);
        if !text.trim().is_empty() {
            return text.trim().to_string();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "a process that has just started".into()
}

impl DirLock {
    /// Takes the lock of `dir` (which must exist), or fails at once if another process holds it.
    pub fn try_acquire(dir: &Path) -> Result<DirLock, LockError> {
        let (mut file, path) = open(dir)?;
        match file.try_lock() {
            Ok(()) => DirLock { file, path }.stamped(),
            Err(TryLockError::WouldBlock) => Err(LockError::Busy {
                dir: dir.to_owned(),
                holder: holder(&mut file),
            }),
            Err(TryLockError::Error(source)) => Err(LockError::Io { path, source }),
        }
    }

    /// Takes the lock of `dir`, waiting for another holder to release it; `on_wait` is called
    /// once, with the holder's description, if it has to wait.
    pub fn acquire_wait(dir: &Path, on_wait: impl FnOnce(&str)) -> Result<DirLock, LockError> {
        match DirLock::try_acquire(dir) {
            Err(LockError::Busy { holder, .. }) => {
                on_wait(&holder);
                let (file, path) = open(dir)?;
                file.lock().map_err(|source| LockError::Io {
                    path: path.clone(),
                    source,
                })?;
                DirLock { file, path }.stamped()
            }
            r => r,
        }
    }

    /// Writes this process's id and command line into the held lock file.
    fn stamped(mut self) -> Result<DirLock, LockError> {
        // Lossy: a path argument need not be UTF-8 (`std::env::args` panics on one).
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let text = format!("pid {}: {}\n", std::process::id(), args.join(" "));
        let io = |source| LockError::Io {
            path: self.path.clone(),
            source,
        };
        self.file.set_len(0).map_err(io)?;
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.file.write_all(text.as_bytes()).map_err(io)?;
        Ok(self)
    }

    /// The lock file's path (`<dir>/.xqtb.lock`).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let d = tempfile::tempdir().unwrap();
        let first = DirLock::try_acquire(d.path()).unwrap();
        // flock locks belong to open file descriptions: a second open conflicts even in one
        // process, as a second process's would.
        match DirLock::try_acquire(d.path()) {
            Err(LockError::Busy { dir, holder }) => {
                assert_eq!(dir, d.path());
                assert!(
                    holder.contains(&format!("pid {}", std::process::id())),
                    "{holder}"
                );
            }
            other => panic!("second lock: {other:?}"),
        }
        let msg = DirLock::try_acquire(d.path()).unwrap_err().to_string();
        assert!(
            msg.contains("in use by another xqtb build") && msg.contains("--wait"),
            "{msg}"
        );
        drop(first);
        let again = DirLock::try_acquire(d.path()).unwrap();
        assert!(again.path().ends_with(LOCK_FILE));
    }

    #[test]
    fn a_waiter_gets_the_lock_when_it_is_released() {
        let d = tempfile::tempdir().unwrap();
        let first = DirLock::try_acquire(d.path()).unwrap();
        let dir = d.path().to_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let l = DirLock::acquire_wait(&dir, |h| tx.send(h.to_string()).unwrap());
            l.map(|_| ())
        });
        let holder = rx.recv().unwrap();
        assert!(holder.starts_with("pid "), "{holder}");
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "the waiter did not wait");
        drop(first);
        waiter.join().unwrap().unwrap();
    }

    #[test]
    fn a_missing_directory_is_a_clear_error() {
        let d = tempfile::tempdir().unwrap();
        let msg = DirLock::try_acquire(&d.path().join("nope"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("cannot lock") && msg.contains("nope"), "{msg}");
    }
}
