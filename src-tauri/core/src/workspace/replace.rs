//! How `write_file` puts content on disk: into a temporary file beside the target, flushed to the
//! disk, then renamed over the target. A reader (or a crash) sees the old file or the new one, never
//! half of each.
//!
//! A target with more than one hard link is refused. Its other names may live outside the workspace
//! (a package manager's store links the same file into many projects); writing in place would change
//! all of them, and replacing it would quietly split the workspace copy from the others. Either way
//! the person should decide, not the agent.

use std::fs::{Metadata, Permissions};
use std::io::Write;
use std::path::Path;

use super::WorkspaceError;

/// Creates or replaces `file` (already confined to the workspace; `shown` is the path the model gave).
pub(crate) fn replace_file(file: &Path, shown: &str, content: &[u8]) -> Result<(), WorkspaceError> {
    let keep = match std::fs::symlink_metadata(file) {
        Ok(meta) => {
            check_replaceable(&meta, shown)?;
            Some(meta.permissions())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(WorkspaceError::io(shown, &e)),
    };
    write_then_rename(file, content, keep).map_err(|e| WorkspaceError::io(shown, &e))
}

fn check_replaceable(meta: &Metadata, shown: &str) -> Result<(), WorkspaceError> {
    if !meta.is_file() {
        return Err(WorkspaceError::new("NOT_A_FILE", format!("{shown:?} is not a regular file")));
    }
    let links = link_count(meta);
    if links > 1 {
        return Err(WorkspaceError::new(
            "FILE_HARD_LINKED",
            format!(
                "{shown:?} has {links} hard links: the same file also appears under other names, possibly outside \
                 the workspace (a package manager's store links files like this), and writing it would change those \
                 too. Leave it as it is and write to another path, or ask the user to replace the link with a copy."
            ),
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn link_count(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

/// std exposes no link count elsewhere; the rename still leaves any other names untouched.
#[cfg(not(unix))]
fn link_count(_meta: &Metadata) -> u64 {
    1
}

/// Writes `content` to a fresh temporary file in `file`'s folder, gives it `keep` (the replaced
/// file's permissions) if any, syncs it and renames it over `file`. On any failure the temporary file
/// is removed when it is dropped, so nothing is left behind.
pub(crate) fn write_then_rename(file: &Path, content: &[u8], keep: Option<Permissions>) -> std::io::Result<()> {
    write_then_rename_if(file, content, keep, || Ok(true)).map(|_| ())
}

/// [`write_then_rename`], but `still` is asked right before the rename, once the new content is on
/// the disk, whether the rename should go ahead: when it says no, the temporary file is removed,
/// `file` is left as it is and this returns `false`. This keeps the time between that last look at
/// `file` and its replacement as short as it can be.
pub(crate) fn write_then_rename_if(
    file: &Path,
    content: &[u8],
    keep: Option<Permissions>,
    still: impl FnOnce() -> std::io::Result<bool>,
) -> std::io::Result<bool> {
    let dir = file
        .parent()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path has no parent folder"))?;
    let mut temp = create_temp(dir, keep.as_ref())?;
    temp.write_all(content)?;
    if let Some(permissions) = keep {
        // Puts back bits the umask took at creation: the temporary file was never wider than this.
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    if !still()? {
        return Ok(false);
    }
    temp.persist(file).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(true)
}

/// An empty temporary file in `dir`, created with `keep` as its mode (less what the umask takes) so
/// that it never holds content under wider permissions than the file it replaces: the settings Hark
/// rewrites can hold credentials. Without `keep` it gets the usual mode of a new file (0666 less the
/// umask), not tempfile's owner-only default.
pub(crate) fn create_temp(dir: &Path, keep: Option<&Permissions>) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".hark-write-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = keep.map_or(0o666, |p| p.mode() & 0o777);
        builder.permissions(Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = keep;
    builder.tempfile_in(dir)
}

/// Makes the rename itself durable. Best effort: some file systems refuse to sync a folder, and the
/// content already reached the disk.
#[cfg(unix)]
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) {}
