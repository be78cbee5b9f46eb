//! Durable file replacement: write to a temporary name, fsync, rename, fsync the directory, so
//! a crash leaves either the old file or the new one, never a torn one.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Renames a complete, synced `tmp` to `path` and syncs the directory entry.
pub fn rename_synced(tmp: &Path, path: &Path) -> io::Result<()> {
    std::fs::rename(tmp, path)?;
    sync_dir(path)
}

/// Syncs the directory holding `path` (makes a rename or creation durable).
pub fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// Replaces `path` with `bytes` atomically and durably.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = Path::new(&tmp);
    let mut f = File::create(tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    rename_synced(tmp, path)
}
