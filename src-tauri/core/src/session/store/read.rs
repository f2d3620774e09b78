//! Queries shared by the read connections and the writer.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::{decode, from_micros, SessionSummary};
use crate::session::error::StoreError;
use crate::session::events::StoredEvent;

/// A session's log in one statement, so it is one consistent snapshot even while the writer appends.
pub fn events(conn: &Connection, path: &Path, session: &str) -> Result<Vec<StoredEvent>, StoreError> {
    let err = |e| StoreError::sqlite(path, e);
    let mut stmt = conn
        .prepare_cached("SELECT seq, at, type, body FROM events WHERE session_id = ?1 ORDER BY seq")
        .map_err(err)?;
    let mut out = Vec::with_capacity(last_seq(conn, path, session)?.unwrap_or(0));
    let mut rows = stmt.query([session]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        let seq: i64 = row.get(0).map_err(err)?;
        // Decoding straight from SQLite's buffers avoids copying every body into a String first.
        let text = |i| row.get_ref(i).map_err(err)?.as_str().map_err(|e| StoreError::bad_row(path, session, seq, e));
        out.push(stored_event(path, session, seq, row.get(1).map_err(err)?, text(2)?, text(3)?)?);
    }
    drop(rows);
    if out.is_empty() && !session_exists(conn, path, session)? {
        return Err(StoreError::not_found(session));
    }
    Ok(out)
}

/// Hands the session's events from `from_seq` on to `each`, in `seq` order, one at a time: a long log
/// is folded without being held whole. One statement, so one consistent snapshot. NOT_FOUND for an
/// unknown session.
pub fn scan(
    conn: &Connection,
    path: &Path,
    session: &str,
    from_seq: u64,
    each: &mut dyn FnMut(StoredEvent),
) -> Result<(), StoreError> {
    let err = |e| StoreError::sqlite(path, e);
    let mut stmt = conn
        .prepare_cached("SELECT seq, at, type, body FROM events WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq")
        .map_err(err)?;
    let from = i64::try_from(from_seq).unwrap_or(i64::MAX);
    let mut rows = stmt.query(rusqlite::params![session, from]).map_err(err)?;
    let mut any = false;
    while let Some(row) = rows.next().map_err(err)? {
        let seq: i64 = row.get(0).map_err(err)?;
        let text = |i| row.get_ref(i).map_err(err)?.as_str().map_err(|e| StoreError::bad_row(path, session, seq, e));
        each(stored_event(path, session, seq, row.get(1).map_err(err)?, text(2)?, text(3)?)?);
        any = true;
    }
    drop(rows);
    if !any && !session_exists(conn, path, session)? {
        return Err(StoreError::not_found(session));
    }
    Ok(())
}

/// The session's first event (its `session/created`), read alone.
pub fn first_event(conn: &Connection, path: &Path, session: &str) -> Result<Option<StoredEvent>, StoreError> {
    let err = |e| StoreError::sqlite(path, e);
    let mut stmt = conn
        .prepare_cached("SELECT seq, at, type, body FROM events WHERE session_id = ?1 ORDER BY seq LIMIT 1")
        .map_err(err)?;
    let mut rows = stmt.query(rusqlite::params![session]).map_err(err)?;
    let Some(row) = rows.next().map_err(err)? else { return Ok(None) };
    let seq: i64 = row.get(0).map_err(err)?;
    let text = |i| row.get_ref(i).map_err(err)?.as_str().map_err(|e| StoreError::bad_row(path, session, seq, e));
    Ok(Some(stored_event(path, session, seq, row.get(1).map_err(err)?, text(2)?, text(3)?)?))
}

pub fn event_time(
    conn: &Connection,
    path: &Path,
    session: &str,
    seq: u64,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, StoreError> {
    let seq = i64::try_from(seq).unwrap_or(i64::MAX);
    conn.prepare_cached("SELECT at FROM events WHERE session_id = ?1 AND seq = ?2")
        .and_then(|mut s| s.query_row(rusqlite::params![session, seq], |r| r.get::<_, i64>(0)).optional())
        .map(|at| at.map(from_micros))
        .map_err(|e| StoreError::sqlite(path, e))
}

/// One row as an event; `tag` is the `type` column.
fn stored_event(
    path: &Path,
    session: &str,
    seq: i64,
    at: i64,
    tag: &str,
    body: &str,
) -> Result<StoredEvent, StoreError> {
    Ok(StoredEvent {
        session_id: session.to_string(),
        seq: u64::try_from(seq).map_err(|e| StoreError::bad_row(path, session, seq, e))?,
        at: from_micros(at),
        event: decode::event(tag, body)
            .map_err(|e| StoreError::bad_row(path, session, seq, format!("its {tag} body does not decode ({e})")))?,
    })
}

/// The session's last `seq` (its event count), one index seek. Sizes the result of [`events`] so a long
/// log is not copied while it grows.
fn last_seq(conn: &Connection, path: &Path, session: &str) -> Result<Option<usize>, StoreError> {
    conn.prepare_cached("SELECT max(seq) FROM events WHERE session_id = ?1")
        .and_then(|mut s| s.query_row([session], |r| r.get::<_, Option<i64>>(0)))
        .map(|n| n.and_then(|n| usize::try_from(n).ok()))
        .map_err(|e| StoreError::sqlite(path, e))
}

pub fn session_exists(conn: &Connection, path: &Path, session: &str) -> Result<bool, StoreError> {
    conn.prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")
        .and_then(|mut s| s.query_row([session], |_| Ok(())).optional())
        .map(|found| found.is_some())
        .map_err(|e| StoreError::sqlite(path, e))
}

/// One index probe per session. `CROSS JOIN` pins the loop order: left to itself, SQLite's planner
/// (no statistics) may drive the join from `events` and read the whole log of every session, which
/// cost 75 ms on one 100 000-event session at every start-up and every sessions-list refresh.
const SESSIONS: &str = "SELECT s.id, s.title, s.created_at, e.at, e.seq, s.open_questions, s.continued_questions
     FROM sessions s
     CROSS JOIN events e ON e.session_id = s.id AND e.seq = (SELECT max(seq) FROM events WHERE session_id = s.id)
     ORDER BY e.at DESC, s.id";

pub fn sessions(conn: &Connection, path: &Path) -> Result<Vec<SessionSummary>, StoreError> {
    let err = |e| StoreError::sqlite(path, e);
    let mut stmt = conn.prepare_cached(SESSIONS).map_err(err)?;
    let rows = stmt
        .query_map([], |r| {
            Ok(SessionSummary {
                id: r.get(0)?,
                title: r.get(1)?,
                created_at: from_micros(r.get(2)?),
                updated_at: from_micros(r.get(3)?),
                event_count: u64::try_from(r.get::<_, i64>(4)?).unwrap_or_default(),
                open_questions: r.get(5)?,
                continued_questions: r.get(6)?,
            })
        })
        .map_err(err)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(err)
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use crate::session::{Event, Store, DB_FILE};

    /// The plan SQLite picks for the sessions list, one line per step.
    fn plan(conn: &Connection) -> Vec<String> {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {}", super::SESSIONS)).unwrap();
        stmt.query_map([], |r| r.get::<_, String>(3)).unwrap().collect::<Result<_, _>>().unwrap()
    }

    #[test]
    fn the_sessions_list_never_scans_a_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let long = store.create_session("long", None, None).unwrap();
        let filler: Vec<Event> = (0..2_000)
            .map(|i| Event::AssistantMessage {
                text: format!("line {i}"),
                reasoning: None,
                tool_calls: vec![],
                usage: None,
            })
            .collect();
        store.append_batch(&long, filler).unwrap();
        store.create_session("short", None, None).unwrap();
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        let steps = plan(&conn);
        assert!(steps.iter().any(|s| s.starts_with("SCAN s")), "{steps:?}");
        assert!(!steps.iter().any(|s| s.starts_with("SCAN e") || s.starts_with("SCAN events")), "{steps:?}");
        let listed = store.list_sessions().unwrap();
        assert_eq!(listed.iter().map(|s| s.event_count).max(), Some(2_001));
    }
}
