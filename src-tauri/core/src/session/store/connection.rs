//! Opening SQLite connections with the store's settings, and the small pool of read connections.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::session::error::StoreError;

/// How long a statement waits for a lock held by another connection before failing with STORE_BUSY.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Read connections kept for reuse; more may exist briefly under concurrent reads.
const MAX_IDLE_READERS: usize = 4;
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Refuses a file that exists but is not SQLite before SQLite touches it: opening a foreign file in
/// WAL mode would create `-wal`/`-shm` companions next to it, and the user's file must stay as it was.
pub fn check_header(path: &Path) -> Result<(), StoreError> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::Io { path: path.to_path_buf(), detail: e.to_string() }),
    };
    let mut head = Vec::with_capacity(SQLITE_MAGIC.len());
    (&mut file)
        .take(SQLITE_MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| StoreError::Io { path: path.to_path_buf(), detail: e.to_string() })?;
    // SQLite treats an empty file as a new database.
    if head.is_empty() || head == SQLITE_MAGIC {
        return Ok(());
    }
    Err(StoreError::Corrupt {
        path: path.to_path_buf(),
        detail: "the file does not start with the SQLite header".into(),
    })
}

/// The writer connection. Durability choice: WAL with `synchronous=NORMAL`. A commit is in the WAL
/// (the OS page cache) before `append` returns, so a killed or crashed process loses nothing it was
/// told was stored, and the database is never left corrupt. Only an OS crash or power cut can drop the
/// last few commits (never part of one); crash repair already copes with a log that ends early.
/// `FULL` would add an fsync to every append, roughly an order of magnitude slower on ordinary disks,
/// for the power-cut case alone.
pub fn open_writer(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(|e| StoreError::sqlite(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| StoreError::sqlite(path, e))?;
    Ok(conn)
}

/// Switches an opened, version-checked writer to the store's journal settings.
pub fn configure_writer(path: &Path, conn: &Connection) -> Result<(), StoreError> {
    let err = |e| StoreError::sqlite(path, e);
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Io {
            path: path.to_path_buf(),
            detail: format!("cannot enable WAL (journal_mode is {mode})"),
        });
    }
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(err)?;
    conn.set_prepared_statement_cache_capacity(32);
    Ok(())
}

fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| StoreError::sqlite(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| StoreError::sqlite(path, e))?;
    // Reads walk a session's rows in order once: a page cache barely helps them (the OS caches the
    // file), while the default 2 MiB per connection stays allocated for as long as the pool keeps it.
    conn.pragma_update(None, "cache_size", READER_CACHE_KIB).map_err(|e| StoreError::sqlite(path, e))?;
    Ok(conn)
}

/// A reader's page cache, as SQLite's `cache_size` takes it (negative: KiB).
const READER_CACHE_KIB: i64 = -256;

/// Read-only connections, so reads see the last committed state without waiting for the writer.
pub struct ReaderPool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl ReaderPool {
    pub fn new(path: PathBuf) -> Self {
        ReaderPool { path, idle: Mutex::new(Vec::new()) }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on a read connection, returning the connection to the pool afterwards.
    pub fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let pooled = crate::sync::lock(&self.idle).pop();
        let conn = match pooled {
            Some(c) => c,
            None => open_reader(&self.path)?,
        };
        let out = f(&conn);
        let mut idle = crate::sync::lock(&self.idle);
        if idle.len() < MAX_IDLE_READERS {
            idle.push(conn);
        }
        out
    }
}
