//! The write path. Each append is one immediate transaction that inserts the events and updates the
//! session's summary row; the question counters come from the same fold `project_questions` uses.

use std::collections::HashMap;
use std::path::Path;

use chrono::Utc;
use rusqlite::{params, Connection, TransactionBehavior};

use super::{from_micros, read, repair, to_micros};
use crate::session::error::StoreError;
use crate::session::events::{Event, StoredEvent};
use crate::session::projection::questions::{fold_events, fold_stored, QuestionCounts, QuestionFold};

/// The writer's view of a session it has written to: where its log ends and its question fold, so an
/// append never replays the log. Trusted only while `next_seq` matches the stored event count.
struct Live {
    next_seq: u64,
    fold: QuestionFold,
    counts: QuestionCounts,
}

impl Live {
    fn new(fold: QuestionFold, next_seq: u64) -> Live {
        Live { next_seq, counts: fold.counts(), fold }
    }

    fn from_events(events: &[StoredEvent]) -> Live {
        Live::new(fold_stored(events), events.last().map_or(1, |e| e.seq + 1))
    }
}

pub struct Writer {
    conn: Connection,
    live: HashMap<String, Live>,
}

impl Writer {
    pub fn new(conn: Connection) -> Self {
        Writer { conn, live: HashMap::new() }
    }

    pub fn forget_all(&mut self) {
        self.live.clear();
    }

    pub fn create(&mut self, path: &Path, id: &str, title: &str, created: Event) -> Result<(), StoreError> {
        let err = |e| StoreError::sqlite(path, e);
        let now = to_micros(Utc::now());
        let body = encode(path, &created)?;
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(err)?;
        tx.prepare_cached("INSERT INTO sessions (id, title, created_at) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![id, title, now]))
            .map_err(err)?;
        insert_event(&tx, id, 1, now, created.type_name(), &body).map_err(err)?;
        tx.commit().map_err(err)?;
        self.live.insert(id.to_string(), Live::new(fold_events([&created]), 2));
        Ok(())
    }

    pub fn append(&mut self, path: &Path, session: &str, events: Vec<Event>) -> Result<Vec<StoredEvent>, StoreError> {
        let mut events = Some(events);
        self.append_decided(path, session, &mut |_| events.take().unwrap_or_default())
    }

    /// Appends what `decide` makes of the session's question fold, in the transaction that reads it.
    pub fn append_decided(
        &mut self,
        path: &Path,
        session: &str,
        decide: &mut dyn FnMut(&QuestionFold) -> Vec<Event>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let result = append_in_tx(&mut self.conn, &mut self.live, path, session, decide);
        if result.is_err() {
            // The fold may hold events whose transaction rolled back: rebuild it from disk next time.
            self.live.remove(session);
        }
        result
    }

    /// `f` on the session's question fold as stored now.
    pub fn with_questions<R>(
        &mut self,
        path: &Path,
        session: &str,
        f: impl FnOnce(&QuestionFold) -> R,
    ) -> Result<R, StoreError> {
        let state = live_state(&self.conn, &mut self.live, path, session)?;
        Ok(f(&state.fold))
    }

    pub fn adopt(&mut self, session: &str, last_seq: u64, fold: QuestionFold) {
        self.live.insert(session.to_string(), Live::new(fold, last_seq + 1));
    }

    pub fn repair(&mut self, path: &Path, session: &str) -> Result<Vec<StoredEvent>, StoreError> {
        let events = read::events(&self.conn, path, session)?;
        let needed = repair::repairs_needed(events.iter().map(|e| &e.event));
        if needed.is_empty() {
            return Ok(Vec::new());
        }
        // The log was just read whole; seed the fold from it rather than reading it again.
        self.live.entry(session.to_string()).or_insert_with(|| Live::from_events(&events));
        self.append(path, session, needed)
    }
}

/// The writer's state of `session`, checked against the file: a mismatch means the file changed
/// behind this writer (another process, or a failed append), and the fold is rebuilt from what is
/// actually stored. NOT_FOUND for an unknown session.
fn live_state<'a>(
    conn: &Connection,
    live: &'a mut HashMap<String, Live>,
    path: &Path,
    session: &str,
) -> Result<&'a mut Live, StoreError> {
    // Every session starts with `session/created`, so no last event means no session.
    let count: i64 = conn
        .prepare_cached("SELECT max(seq) FROM events WHERE session_id = ?1")
        .and_then(|mut s| s.query_row([session], |r| r.get::<_, Option<i64>>(0)))
        .map_err(|e| StoreError::sqlite(path, e))?
        .ok_or_else(|| StoreError::not_found(session))?;
    if live.get(session).is_none_or(|l| to_sql_int(l.next_seq) != count + 1) {
        let stored = read::events(conn, path, session)?;
        live.insert(session.to_string(), Live::from_events(&stored));
    }
    live.get_mut(session).ok_or_else(|| StoreError::not_found(session))
}

fn append_in_tx(
    conn: &mut Connection,
    live: &mut HashMap<String, Live>,
    path: &Path,
    session: &str,
    decide: &mut dyn FnMut(&QuestionFold) -> Vec<Event>,
) -> Result<Vec<StoredEvent>, StoreError> {
    let err = |e| StoreError::sqlite(path, e);
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(err)?;
    let state = live_state(&tx, live, path, session)?;
    let events = decide(&state.fold);
    if events.is_empty() {
        return Ok(Vec::new());
    }

    // Truncated to what is stored, so the returned events equal the ones read back later.
    let micros = to_micros(Utc::now());
    let at = from_micros(micros);
    let mut stored = Vec::with_capacity(events.len());
    let mut changed = false;
    let mut seq = state.next_seq;
    for event in events {
        let body = encode(path, &event)?;
        insert_event(&tx, session, seq, micros, event.type_name(), &body).map_err(err)?;
        changed |= state.fold.apply_at(&event, at);
        stored.push(StoredEvent { session_id: session.to_string(), seq, at, event });
        seq += 1;
    }
    // Most events leave the counters alone; then the append writes only the events table.
    let counts = if changed { state.fold.counts() } else { state.counts };
    if counts != state.counts {
        tx.prepare_cached("UPDATE sessions SET open_questions = ?2, continued_questions = ?3 WHERE id = ?1")
            .and_then(|mut s| s.execute(params![session, counts.open, counts.continued]))
            .map_err(err)?;
    }
    tx.commit().map_err(err)?;
    state.next_seq = seq;
    state.counts = counts;
    Ok(stored)
}

fn insert_event(
    conn: &Connection,
    session: &str,
    seq: u64,
    at: i64,
    kind: &str,
    body: &str,
) -> rusqlite::Result<usize> {
    conn.prepare_cached("INSERT INTO events (session_id, seq, at, type, body) VALUES (?1, ?2, ?3, ?4, ?5)")?
        .execute(params![session, to_sql_int(seq), at, kind, body])
}

/// Sequence numbers count events, so they never come near `i64::MAX`.
fn to_sql_int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The stored body. Events of an unknown type are refused: this build cannot vouch for one it did
/// not read, and writing it back would put a row in the log no build defined.
fn encode(path: &Path, event: &Event) -> Result<String, StoreError> {
    if let Event::Unknown { type_name, .. } = event {
        return Err(StoreError::UnknownEventType { type_name: type_name.clone() });
    }
    serde_json::to_string(event).map_err(|e| StoreError::Io {
        path: path.to_path_buf(),
        detail: format!("cannot encode a {} event: {e}", event.type_name()),
    })
}
