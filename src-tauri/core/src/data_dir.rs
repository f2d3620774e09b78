//! Where Hark keeps its data: `HARK_DATA_DIR` when set, else the platform app-data directory.

use std::path::{Path, PathBuf};

use crate::error::CodedError;

/// The environment variable that overrides the data directory (tests and scripting use it).
pub const DATA_DIR_ENV: &str = "HARK_DATA_DIR";

/// The file whose lock says which process hosts the directory (`host::HostLock`).
pub const LOCK_FILE: &str = "hark.lock";

/// The session store's file (`session::Store`).
pub const DB_FILE: &str = "hark.sqlite3";

#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error("no data directory: set {DATA_DIR_ENV} or run on a platform with an app-data directory")]
    Unknown,
    #[error("the data directory {path} cannot be used: {reason}")]
    Unusable { path: PathBuf, reason: String },
}

impl DataDirError {
    pub fn code(&self) -> &'static str {
        match self {
            DataDirError::Unknown => "DATA_DIR_UNKNOWN",
            DataDirError::Unusable { .. } => "DATA_DIR_UNUSABLE",
        }
    }
}

impl CodedError for DataDirError {
    fn name(&self) -> &str {
        "DataDirError"
    }
    fn code(&self) -> &str {
        DataDirError::code(self)
    }
}

/// FNV-1a of `bytes`: stable across builds and platforms (std's hasher is neither), so a name made
/// from it (a data directory's socket, pipe or single-instance id; a shortened tool name) is the
/// same for every process and every run that computes it.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// Picks the data directory: an explicit override, then `HARK_DATA_DIR`, then `platform_default`.
pub fn choose(explicit: Option<PathBuf>, platform_default: Option<PathBuf>) -> Result<PathBuf, DataDirError> {
    explicit
        .or_else(|| std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
        .or(platform_default)
        .ok_or(DataDirError::Unknown)
}

/// Creates the directory if missing (owner-only) and proves it is writable, so a bad path fails here
/// with a clear message instead of deep inside SQLite. A directory an older Hark left readable by
/// other users is made private, once, with a note on stderr: it holds every transcript and answer.
pub fn prepare(path: &Path) -> Result<PathBuf, DataDirError> {
    let unusable = |reason: String| DataDirError::Unusable { path: path.to_path_buf(), reason };
    private::create_dir(path).map_err(|e| unusable(e.to_string()))?;
    let probe = path.join(".hark-write-probe");
    std::fs::write(&probe, b"ok").map_err(|e| unusable(format!("not writable: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    match private::tighten(path) {
        Ok(0) => {}
        Ok(fixed) => match fixed.saturating_sub(1) {
            0 => eprintln!("hark: {} was readable by other users; it is now private to you", path.display()),
            n => eprintln!(
                "hark: {} and {n} of the files and folders in it were readable by other users; they are now \
                 private to you",
                path.display()
            ),
        },
        Err(e) => return Err(unusable(format!("cannot make it private: {e}"))),
    }
    path.canonicalize().map_err(|e| unusable(e.to_string()))
}

/// Owner-only files and directories: a data directory holds everything the person typed and answered.
pub mod private {
    use std::fs::OpenOptions;
    use std::io::Write;
    use std::path::Path;

    /// Directories only their owner may enter.
    #[cfg(unix)]
    pub const DIR_MODE: u32 = 0o700;
    /// Files only their owner may read or write.
    #[cfg(unix)]
    pub const FILE_MODE: u32 = 0o600;

    /// Creates `path` and its missing parents as owner-only directories.
    pub fn create_dir(path: &Path) -> std::io::Result<()> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
        builder.create(path)
    }

    /// Options that create a file owner-only (the mode applies when the file is created).
    pub fn options() -> OpenOptions {
        #[cfg_attr(not(unix), allow(unused_mut))] // only Unix sets a mode
        let mut options = OpenOptions::new();
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
        options
    }

    /// Writes `bytes` to `path`, creating it owner-only or replacing what it held.
    pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = options().write(true).create(true).truncate(true).open(path)?;
        file.write_all(bytes)?;
        file.sync_all()
    }

    /// Replaces `path` with `bytes` at once (a private temp file beside it renamed over it), so a
    /// reader never sees half a file.
    pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
        write(&tmp, bytes)?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Takes an OS lock on the file `path` without waiting and writes `note` in it (who holds it), or
    /// returns the note of the process that holds it. The OS lets go of a dead process's lock, so a
    /// crash never leaves one behind.
    pub fn try_lock(path: &Path, note: &str) -> std::io::Result<Result<std::fs::File, String>> {
        use fs4::fs_std::FileExt;
        use std::io::{Read, Seek, SeekFrom};
        // Not truncated on open: the holder's note must stay readable to a process that loses the race.
        let mut file = options().read(true).write(true).create(true).truncate(false).open(path)?;
        if !file.try_lock_exclusive()? {
            let mut held_by = String::new();
            let _ = file.read_to_string(&mut held_by);
            return Ok(Err(held_by.trim().to_string()));
        }
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(note.as_bytes())?;
        file.flush()?;
        Ok(Ok(file))
    }

    /// Runs `change` while holding an OS lock on `<path>.lock`: the read-change-write of a file that
    /// several processes change (the host, Settings, the CLI) loses none of their changes.
    pub fn with_lock<T>(path: &Path, change: impl FnOnce() -> T) -> std::io::Result<T> {
        use fs4::fs_std::FileExt;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let lock = options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path.with_file_name(format!("{name}.lock")))?;
        lock.lock_exclusive()?;
        let changed = change();
        // Dropping the file lets the lock go.
        drop(lock);
        Ok(changed)
    }

    /// Creates `path` empty and owner-only unless it exists, so what a library creates in its place
    /// later (SQLite's journal files copy the database's mode) is owner-only too.
    pub fn touch(path: &Path) -> std::io::Result<()> {
        match options().write(true).create_new(true).open(path) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
            _ => Ok(()),
        }
    }

    /// Takes group and other access away from `dir` and what Hark keeps in it, when `dir` (a link
    /// to it is followed) still grants any and holds Hark's files or nothing: a folder that is not
    /// Hark's is left as it is, and one made private before is not walked again. Returns how many
    /// entries changed. Links inside are left alone, as is what they point to, and so is an entry
    /// this user may not change (a file another user left there): it stays as it was.
    #[cfg(unix)]
    pub fn tighten(dir: &Path) -> std::io::Result<usize> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = std::fs::canonicalize(dir)?;
        if std::fs::metadata(&dir)?.mode() & 0o077 == 0 || !is_harks(&dir)? {
            return Ok(0);
        }
        fn walk(path: &Path, depth: usize, fixed: &mut usize) {
            let Ok(meta) = std::fs::symlink_metadata(path) else { return };
            if meta.file_type().is_symlink() {
                return;
            }
            let mode = meta.mode() & 0o7777;
            let private = std::fs::Permissions::from_mode(mode & 0o700);
            if mode & 0o077 != 0 && std::fs::set_permissions(path, private).is_ok() {
                *fixed += 1;
            }
            // Hark's own layout is two levels deep; anything deeper is not its to change.
            if meta.is_dir() && depth < 3 {
                for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                    walk(&entry.path(), depth + 1, fixed);
                }
            }
        }
        let mut fixed = 0;
        walk(&dir, 0, &mut fixed);
        // The directory itself must be private; what could not change inside does not stop Hark.
        if std::fs::metadata(&dir)?.mode() & 0o077 != 0 {
            return Err(std::io::Error::other("its mode could not be changed"));
        }
        Ok(fixed)
    }

    /// Whether `dir` is Hark's to tighten: empty, or holding its database or lock.
    #[cfg(unix)]
    fn is_harks(dir: &Path) -> std::io::Result<bool> {
        let mut entries = std::fs::read_dir(dir)?.flatten().peekable();
        if entries.peek().is_none() {
            return Ok(true);
        }
        Ok(entries.any(|e| {
            let name = e.file_name();
            name == super::DB_FILE || name == super::LOCK_FILE
        }))
    }

    /// Elsewhere a new directory inherits its parent's access list, which is the user's own profile.
    #[cfg(not(unix))]
    pub fn tighten(_dir: &Path) -> std::io::Result<usize> {
        Ok(0)
    }

    /// The folder of this user's alone that every Hark process of theirs shares, whatever its data
    /// directory: `hark-<uid>` in the runtime directory (the user's own), else under the temporary
    /// directory. Not created here.
    #[cfg(unix)]
    pub fn user_folder() -> std::path::PathBuf {
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        let base = std::env::var_os("XDG_RUNTIME_DIR")
            .map(std::path::PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .unwrap_or_else(std::env::temp_dir);
        base.join(format!("hark-{uid}"))
    }

    /// Elsewhere the temporary directory is the user's own.
    #[cfg(not(unix))]
    pub fn user_folder() -> std::path::PathBuf {
        std::env::temp_dir().join("hark")
    }

    /// Whether `folder` is a directory only this user may use (one another user made first, in a
    /// shared temporary directory, is not).
    #[cfg(unix)]
    pub fn is_mine(folder: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0)
    }

    #[cfg(not(unix))]
    pub fn is_mine(folder: &Path) -> bool {
        folder.is_dir()
    }

    /// [`user_folder`], created owner-only when missing; refused when it is not this user's alone.
    pub fn ensure_user_folder() -> std::io::Result<std::path::PathBuf> {
        let folder = user_folder();
        create_dir(&folder)?;
        if !is_mine(&folder) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} is not a folder of this user's alone", folder.display()),
            ));
        }
        Ok(folder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_path_wins_and_is_created() {
        let tmp = tempfile::tempdir().unwrap();
        let want = tmp.path().join("nested/data");
        let chosen = choose(Some(want.clone()), None).unwrap();
        assert_eq!(chosen, want);
        let ready = prepare(&chosen).unwrap();
        assert!(ready.is_dir());
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[cfg(unix)]
    #[test]
    fn a_new_directory_is_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = prepare(&tmp.path().join("a/b/data")).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&tmp.path().join("a")), 0o700, "parents it had to create too");
        private::write(&dir.join("f"), b"x").unwrap();
        assert_eq!(mode(&dir.join("f")), 0o600);
        private::touch(&dir.join("g")).unwrap();
        private::touch(&dir.join("g")).unwrap();
        assert_eq!(mode(&dir.join("g")), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn an_old_open_directory_is_made_private_once() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        let set = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
        std::fs::create_dir_all(dir.join("snapshots")).unwrap();
        std::fs::write(dir.join("hark.sqlite3"), b"").unwrap();
        std::fs::write(dir.join("snapshots/s.json"), b"{}").unwrap();
        let outside = tmp.path().join("outside.txt");
        std::fs::write(&outside, b"not ours").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("link")).unwrap();
        for (p, m) in [(&dir, 0o755), (&dir.join("snapshots"), 0o755)] {
            set(p, m);
        }
        for p in [dir.join("hark.sqlite3"), dir.join("snapshots/s.json"), outside.clone()] {
            set(&p, 0o644);
        }
        assert_eq!(private::tighten(&dir).unwrap(), 4);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("snapshots")), 0o700);
        assert_eq!(mode(&dir.join("hark.sqlite3")), 0o600);
        assert_eq!(mode(&dir.join("snapshots/s.json")), 0o600);
        assert_eq!(mode(&outside), 0o644, "a link's target is not the data directory's");
        // Once private, it is not walked again.
        set(&dir.join("hark.sqlite3"), 0o644);
        assert_eq!(private::tighten(&dir).unwrap(), 0);
        set(&dir, 0o750);
        prepare(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("hark.sqlite3")), 0o600);

        // Reached through a link, it is the directory that is made private, not the link.
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("hark.sqlite3"), b"").unwrap();
        set(&real, 0o755);
        set(&real.join("hark.sqlite3"), 0o644);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        prepare(&link).unwrap();
        assert_eq!((mode(&real), mode(&real.join("hark.sqlite3"))), (0o700, 0o600));

        // A folder that holds other things and none of Hark's is not Hark's to change.
        let home = tmp.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("notes.txt"), b"").unwrap();
        set(&home, 0o755);
        assert_eq!(private::tighten(&home).unwrap(), 0);
        assert_eq!(mode(&home), 0o755);
    }

    #[test]
    fn a_file_in_the_way_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("occupied");
        std::fs::write(&file, b"x").unwrap();
        let err = prepare(&file.join("data")).unwrap_err();
        assert_eq!(err.code(), "DATA_DIR_UNUSABLE");
        let json = serde_json::to_value(err.boundary()).unwrap();
        assert_eq!(json["name"], "DataDirError");
        assert_eq!(json["code"], "DATA_DIR_UNUSABLE");
        assert!(json["message"].as_str().unwrap().contains("occupied"));
    }
}
