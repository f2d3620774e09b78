//! Confinement: every path a workspace tool touches must resolve inside the workspace folder.
//! Checked lexically first (absolute paths, `..` past the root) and then on disk, through the
//! deepest existing ancestor, so a symlink pointing outside is refused as well.

use std::path::{Component, Path, PathBuf};

use super::{outside, WorkspaceError};

/// The absolute path `relative` names inside `root`, or PATH_OUTSIDE_WORKSPACE.
pub fn resolve(root: &Path, relative: &str) -> Result<PathBuf, WorkspaceError> {
    let root = root.canonicalize().map_err(|e| WorkspaceError::io("the workspace folder", &e))?;
    let given = Path::new(relative);
    let mut inside = PathBuf::new();
    for part in given.components() {
        match part {
            Component::Normal(p) => inside.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if !inside.pop() {
                    return Err(outside(relative));
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside(relative)),
        }
    }
    let full = root.join(&inside);
    // Follow symlinks on the part that exists; what does not exist yet cannot be a link.
    let mut existing = full.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return Err(outside(relative)),
        }
    }
    let mut real = existing.canonicalize().map_err(|e| WorkspaceError::io(relative, &e))?;
    if !real.starts_with(&root) {
        return Err(outside(relative));
    }
    for name in rest.into_iter().rev() {
        real.push(name);
    }
    // A dangling symlink does not `exist()` but would be followed by a write.
    if std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(outside(relative));
    }
    Ok(real)
}
