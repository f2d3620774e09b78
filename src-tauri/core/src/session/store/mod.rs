//! The session store: one SQLite file, `hark.sqlite3`, in the data directory.
//!
//! One writer connection behind a mutex appends; a pool of read-only connections serves reads, which
//! in WAL mode see the last committed transaction without waiting for the writer. Every append is one
//! transaction, so a batch is stored whole or not at all, and readers never see half of one.

mod append;
mod connection;
mod decode;
mod read;
mod repair;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use serde::Serialize;

use self::append::Writer;
use self::connection::ReaderPool;
use super::error::StoreError;
use super::events::{Event, ModelRef, SessionId, StoredEvent};
use super::migrations::{self, Outcome};
use super::projection::questions::QuestionFold;

pub use self::repair::{repairs_needed, RepairFold};

/// The store's file name inside the data directory.
pub use crate::data_dir::DB_FILE;

/// A row of the sessions list, read from the summary kept by every append (no replay).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, ts_rs::TS)]
pub struct SessionSummary {
    pub id: SessionId,
    pub title: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub open_questions: u32,
    pub continued_questions: u32,
    pub event_count: u64,
}

/// One per process: it owns the only writer connection to the data directory's database.
pub struct Store {
    path: PathBuf,
    writer: Mutex<Writer>,
    readers: ReaderPool,
}

impl Store {
    /// Opens (creating if needed) `hark.sqlite3` in `data_dir` and brings its schema up to date. A file
    /// from a newer build fails with SCHEMA_TOO_NEW, a file that is not a Hark database with
    /// STORE_CORRUPT; neither is modified.
    pub fn open(data_dir: &Path) -> Result<Store, StoreError> {
        let path = data_dir.join(DB_FILE);
        // Owner-only from its first byte; SQLite gives its journal files the database's mode.
        crate::data_dir::private::touch(&path)
            .map_err(|e| StoreError::Io { path: path.clone(), detail: e.to_string() })?;
        connection::check_header(&path)?;
        let mut conn = connection::open_writer(&path)?;
        // Everything that could refuse the file is decided before the first write to it.
        refuse(&path, migrations::preflight(&conn).map_err(|e| StoreError::sqlite(&path, e))?)?;
        connection::configure_writer(&path, &conn)?;
        refuse(&path, migrations::migrate(&mut conn).map_err(|e| StoreError::sqlite(&path, e))?)?;
        Ok(Store { readers: ReaderPool::new(path.clone()), writer: Mutex::new(Writer::new(conn)), path })
    }

    /// The database file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates a session whose log starts with `session/created`.
    pub fn create_session(
        &self,
        title: &str,
        workspace: Option<&str>,
        model: Option<ModelRef>,
    ) -> Result<SessionId, StoreError> {
        self.create(title, workspace, model, None, None)
    }

    /// [`create_session`](Self::create_session), started by another front door (see
    /// [`Event::SessionCreated`]'s `started_by`).
    pub fn create_session_started_by(
        &self,
        title: &str,
        workspace: Option<&str>,
        model: Option<ModelRef>,
        started_by: Option<&str>,
    ) -> Result<SessionId, StoreError> {
        self.create(title, workspace, model, None, started_by.map(str::to_string))
    }

    /// Creates the session of an outside agent (see [`Event::SessionCreated`]'s `client`).
    pub fn create_client_session(&self, title: &str, workspace: &str, client: &str) -> Result<SessionId, StoreError> {
        self.create(title, Some(workspace), None, Some(client.to_string()), None)
    }

    fn create(
        &self,
        title: &str,
        workspace: Option<&str>,
        model: Option<ModelRef>,
        client: Option<String>,
        started_by: Option<String>,
    ) -> Result<SessionId, StoreError> {
        let id = uuid::Uuid::new_v4().to_string();
        let workspace = workspace.map(str::to_string);
        let created = Event::SessionCreated { title: title.to_string(), workspace, model, client, started_by };
        self.writer().create(&self.path, &id, title, created)?;
        Ok(id)
    }

    /// Appends one event; it is durable when this returns.
    pub fn append(&self, session: &str, event: Event) -> Result<StoredEvent, StoreError> {
        let mut stored = self.append_batch(session, vec![event])?;
        stored
            .pop()
            .ok_or_else(|| StoreError::Io { path: self.path.clone(), detail: "the append stored nothing".into() })
    }

    /// Appends events in one transaction: all are stored with consecutive `seq`, or none is. A batch
    /// holding an [`Event::Unknown`] is refused whole with UNKNOWN_EVENT_TYPE.
    pub fn append_batch(&self, session: &str, events: Vec<Event>) -> Result<Vec<StoredEvent>, StoreError> {
        self.writer().append(&self.path, session, events)
    }

    /// Appends the events `decide` makes of the session's question fold as stored now, in the
    /// transaction that reads it: no other append comes between the look and the write, so a check
    /// made on the fold (is this question still continued? is a reply already queued?) still holds
    /// when its event is stored. `decide` returning nothing appends nothing.
    pub fn append_decided(
        &self,
        session: &str,
        decide: &mut dyn FnMut(&QuestionFold) -> Vec<Event>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.writer().append_decided(&self.path, session, decide)
    }

    /// `f` on the session's question fold as stored now (the one every append updates).
    pub fn with_questions<R>(&self, session: &str, f: impl FnOnce(&QuestionFold) -> R) -> Result<R, StoreError> {
        self.writer().with_questions(&self.path, session, f)
    }

    /// The whole log of a session, in `seq` order. NOT_FOUND for an unknown session. A row of a type
    /// a newer build added reads as [`Event::Unknown`]; a row that does not decode otherwise fails
    /// the read with EVENT_UNREADABLE, naming the row.
    pub fn events(&self, session: &str) -> Result<Vec<StoredEvent>, StoreError> {
        self.readers.with(|conn| read::events(conn, self.readers.path(), session))
    }

    /// The session's events from `from_seq` on, handed to `each` one at a time in `seq` order (see
    /// [`Store::events`] for errors). For folding a long log without holding it.
    pub fn scan(&self, session: &str, from_seq: u64, each: &mut dyn FnMut(StoredEvent)) -> Result<(), StoreError> {
        self.readers.with(|conn| read::scan(conn, self.readers.path(), session, from_seq, each))
    }

    /// Tells the writer the question fold of a session whose log the caller has just read whole and
    /// whose last `seq` is `last_seq`, so its next append does not read the log again to rebuild it.
    /// Ignored when the log has grown since (the writer then rebuilds it as usual).
    pub fn adopt(&self, session: &str, last_seq: u64, fold: QuestionFold) {
        self.writer().adopt(session, last_seq, fold);
    }

    /// When the session's event `seq` was stored, if there is one: a cheap check that a copy of
    /// what the log held up to `seq` still belongs to this log.
    pub fn event_time(&self, session: &str, seq: u64) -> Result<Option<DateTime<Utc>>, StoreError> {
        self.readers.with(|conn| read::event_time(conn, self.readers.path(), session, seq))
    }

    /// The outside agent whose questions the session holds, as its `session/created` says (`None`
    /// for Hark's own sessions). Reads one event, not the log.
    pub fn client_of(&self, session: &str) -> Result<Option<String>, StoreError> {
        let first = self.readers.with(|conn| read::first_event(conn, self.readers.path(), session))?;
        Ok(match first.map(|e| e.event) {
            Some(Event::SessionCreated { client, .. }) => client,
            _ => None,
        })
    }

    /// All sessions, most recently active first.
    pub fn list_sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        self.readers.with(|conn| read::sessions(conn, self.readers.path()))
    }

    /// Closes what a dead run left open: every tool call without a result gets `TOOL_OUTCOME_UNKNOWN`
    /// and every turn without an end gets `turn/ended` "interrupted". Call it once when this process
    /// starts running a session (only one process hosts a data directory, so any earlier run is dead).
    /// Idempotent; returns the events it appended.
    pub fn repair_after_crash(&self, session: &str) -> Result<Vec<StoredEvent>, StoreError> {
        self.writer().repair(&self.path, session)
    }

    fn writer(&self) -> MutexGuard<'_, Writer> {
        // A panic while holding the lock rolled back its transaction (rusqlite rolls back on drop), so
        // the connection is usable; the writer drops its caches to be safe.
        match self.writer.lock() {
            Ok(w) => w,
            Err(poisoned) => {
                let mut w = poisoned.into_inner();
                w.forget_all();
                self.writer.clear_poison();
                w
            }
        }
    }
}

fn refuse(path: &Path, outcome: Outcome) -> Result<(), StoreError> {
    match outcome {
        Outcome::Ready => Ok(()),
        Outcome::TooNew(found) => {
            Err(StoreError::SchemaTooNew { path: path.to_path_buf(), found, known: migrations::LATEST })
        }
        Outcome::Foreign => Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: "it is an SQLite database that Hark did not create".into(),
        }),
    }
}

/// Stored times are unix microseconds.
fn to_micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

fn from_micros(micros: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(micros).unwrap_or_default()
}
