//! Only one process hosts a data directory at a time: the store has one writer, the
//! service keeps pending questions in memory, and crash repair assumes every earlier run is dead.
//! The host holds an OS advisory lock on `hark.lock` for its whole life; the OS drops it when the
//! process dies, so a crash never leaves a stale lock behind.

use std::fs::File;
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use crate::error::CodedError;

pub use crate::data_dir::LOCK_FILE;

#[derive(Debug, Clone, thiserror::Error)]
pub enum LockError {
    #[error("another Hark process{} already uses the data directory {path}; close it first", pid_text(.pid))]
    Busy { path: PathBuf, pid: Option<u32> },
    #[error("cannot lock the data directory {path}: {detail}")]
    Io { path: PathBuf, detail: String },
}

fn pid_text(pid: &Option<u32>) -> String {
    pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
}

impl LockError {
    pub fn code(&self) -> &'static str {
        match self {
            LockError::Busy { .. } => "DATA_DIR_BUSY",
            LockError::Io { .. } => "DATA_DIR_LOCK",
        }
    }
}

impl CodedError for LockError {
    fn name(&self) -> &str {
        "HostError"
    }
    fn code(&self) -> &str {
        LockError::code(self)
    }
}

/// Held for as long as this process hosts the data directory; dropping it releases the lock.
#[derive(Debug)]
pub struct HostLock {
    file: File,
    path: PathBuf,
}

impl HostLock {
    /// Takes the lock without waiting: DATA_DIR_BUSY (naming the holder's pid) when another process has it.
    pub fn acquire(data_dir: &Path) -> Result<HostLock, LockError> {
        let path = data_dir.join(LOCK_FILE);
        let io = |e: std::io::Error| LockError::Io { path: path.clone(), detail: e.to_string() };
        let file = crate::data_dir::private::try_lock(&path, &std::process::id().to_string())
            .map_err(io)?
            .map_err(|held_by| LockError::Busy { path: data_dir.to_path_buf(), pid: held_by.parse().ok() })?;
        Ok(HostLock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for HostLock {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = HostLock::acquire(dir.path()).unwrap();
        let err = HostLock::acquire(dir.path()).unwrap_err();
        assert_eq!(err.code(), "DATA_DIR_BUSY");
        assert!(err.to_string().contains(&std::process::id().to_string()), "{err}");
        drop(first);
        HostLock::acquire(dir.path()).unwrap();
    }
}
