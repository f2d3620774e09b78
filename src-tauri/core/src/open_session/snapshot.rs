//! What an open session keeps, saved beside the log, so opening it again reads only the events
//! appended since instead of the whole log. The log stays the only record: a snapshot that is
//! missing, unreadable, from another build or `keep` setting, or no longer matches the log (its
//! last event is not in the log as it was) is ignored, and the session is folded from the log.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Folds;

/// Bumped whenever what [`Folds`] holds or means changes: an older snapshot is then ignored.
const VERSION: u32 = 2;

/// The folder beside the database that holds the snapshots.
const DIR: &str = "snapshots";

/// Saved with `F = &Folds`, read back with `F = Folds`.
#[derive(Serialize, Deserialize)]
struct Snapshot<S, F> {
    version: u32,
    session: S,
    /// The `seq` the folds are complete up to, and when that event was stored.
    seq: u64,
    at: DateTime<Utc>,
    keep_tokens: usize,
    folds: F,
}

/// `data_dir` is the folder holding the database.
fn path(data_dir: &Path, session: &str) -> Option<PathBuf> {
    // Session ids are uuids; anything else never names a file here.
    let safe = !session.is_empty() && session.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    safe.then(|| data_dir.join(DIR).join(format!("{session}.json")))
}

/// The saved folds of `session`, if a usable snapshot exists; `check` says when the log's event
/// `seq` was stored (None: not in the log), to tell a snapshot of this log from a stale one.
pub(super) fn load(
    data_dir: &Path,
    session: &str,
    keep_tokens: usize,
    check: impl FnOnce(u64) -> Option<DateTime<Utc>>,
) -> Option<Folds> {
    let text = std::fs::read(path(data_dir, session)?).ok()?;
    let snapshot: Snapshot<String, Folds> = serde_json::from_slice(&text).ok()?;
    let fits = snapshot.version == VERSION
        && snapshot.session == session
        && snapshot.keep_tokens == keep_tokens
        && snapshot.folds.last_seq() == snapshot.seq;
    (fits && check(snapshot.seq) == Some(snapshot.at)).then_some(snapshot.folds)
}

/// Saves `folds` (complete up to their last event, stored at `at`): written beside, then renamed
/// over the old one, so a crash leaves either snapshot whole.
pub(super) fn save(
    data_dir: &Path,
    session: &str,
    keep_tokens: usize,
    at: DateTime<Utc>,
    folds: &Folds,
) -> std::io::Result<()> {
    let Some(target) = path(data_dir, session) else { return Ok(()) };
    let snapshot = Snapshot { version: VERSION, session, seq: folds.last_seq(), at, keep_tokens, folds };
    let body = serde_json::to_vec(&snapshot).map_err(std::io::Error::other)?;
    let dir = data_dir.join(DIR);
    crate::data_dir::private::create_dir(&dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(&dir)?;
    temp.write_all(&body)?;
    temp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// Forgets `session`'s snapshot (when it cannot be trusted any more).
pub(super) fn remove(data_dir: &Path, session: &str) {
    if let Some(path) = path(data_dir, session) {
        let _ = std::fs::remove_file(path);
    }
}
