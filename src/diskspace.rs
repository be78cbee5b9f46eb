//! Free disk space, checked before a build starts so that a full disk is a clear error at the
//! start, not a failure an hour in.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Not enough free space.
#[derive(Debug, Error)]
#[error("{what} needs {} MiB free in {}, but only {} MiB are free", needed.div_ceil(1 << 20), path.display(), free >> 20)]
pub struct SpaceError {
    /// What needs the space (for the message), e.g. the table being built.
    pub what: String,
    /// The path whose filesystem was checked.
    pub path: PathBuf,
    /// Bytes needed.
    pub needed: u64,
    /// Bytes an unprivileged user may still write there.
    pub free: u64,
}

/// Bytes an unprivileged user may still write on the filesystem holding `path`.
pub fn available_bytes(path: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // Safety: `c` is a NUL-terminated path and `st` a writable statvfs; statvfs writes only it.
    let r = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Safety: statvfs returned 0, so it filled `st`.
    let st = unsafe { st.assume_init() };
    // The field types differ between platforms (u32 on some 32-bit ones).
    #[allow(clippy::unnecessary_cast)]
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Fails unless the filesystem of `path` has `needed` bytes free; `what` says what needs them.
pub fn check_space(path: &Path, needed: u64, what: &str) -> Result<(), SpaceError> {
    let free = available_bytes(path).unwrap_or(u64::MAX);
    if free < needed {
        return Err(SpaceError {
            what: what.to_string(),
            path: path.to_owned(),
            needed,
            free,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_directory_has_space_and_not_infinitely_much() {
        let d = tempfile::tempdir().unwrap();
        assert!(available_bytes(d.path()).unwrap() > 0);
        check_space(d.path(), 1, "a test").unwrap();
        let e = check_space(d.path(), u64::MAX, "a huge table").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("a huge table") && msg.contains(&d.path().display().to_string()),
            "{msg}"
        );
    }

    #[test]
    fn a_missing_path_is_an_error() {
        assert!(available_bytes(Path::new("/no/such/dir/xqtb")).is_err());
    }
}
