//! The schema, versioned by `PRAGMA user_version`. Migration `i` takes a database from version `i` to
//! `i + 1`; released migrations are never edited, only appended.

use rusqlite::{Connection, TransactionBehavior};

/// Version 1: sessions with their question counters, and the events of every session clustered by
/// `(session_id, seq)` so one session's log is a single range scan and its last event one seek. The
/// event count and last activity are read from that last event rather than stored, so an ordinary
/// append writes only the events table. Times are unix microseconds.
const V1: &str = "
CREATE TABLE sessions (
    id TEXT PRIMARY KEY NOT NULL,
    title TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    open_questions INTEGER NOT NULL DEFAULT 0,
    continued_questions INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
";

const MIGRATIONS: &[&str] = &[V1];

/// The newest schema this build can read and write.
pub const LATEST: i64 = MIGRATIONS.len() as i64;

/// What [`migrate`] found before doing anything.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Ready,
    /// The file was written by a newer build; nothing was changed.
    TooNew(i64),
    /// A version-0 file that already holds tables: some other program's database.
    Foreign,
}

pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Checks a file before anything writes to it: a file we refuse must stay byte-for-byte as it was,
/// and even switching the journal mode writes to it.
pub fn preflight(conn: &Connection) -> rusqlite::Result<Outcome> {
    classify(conn, user_version(conn)?)
}

fn classify(conn: &Connection, version: i64) -> rusqlite::Result<Outcome> {
    if version > LATEST {
        return Ok(Outcome::TooNew(version));
    }
    if version == 0 {
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if tables > 0 {
            return Ok(Outcome::Foreign);
        }
    }
    Ok(Outcome::Ready)
}

/// Brings the schema up to [`LATEST`] in one immediate transaction, so two processes opening the same
/// fresh file cannot both run a migration.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<Outcome> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version = user_version(&tx)?;
    let outcome = classify(&tx, version)?;
    if outcome != Outcome::Ready {
        return Ok(outcome);
    }
    let from = usize::try_from(version).unwrap_or(0);
    for step in MIGRATIONS.iter().skip(from) {
        tx.execute_batch(step)?;
    }
    if version < LATEST {
        tx.pragma_update(None, "user_version", LATEST)?;
    }
    tx.commit()?;
    Ok(Outcome::Ready)
}
