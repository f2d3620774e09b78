//! The session event log in SQLite and the projections rebuilt from it.
//!
//! A session is an append-only sequence of typed [`Event`]s. Everything shown after a restart is a
//! projection of that log ([`project_questions`], [`project_transcript`]); there is no second source
//! of truth. The sessions list reads a summary row kept by each append instead of replaying logs.
//! A session opened to work on, in memory and kept up to date as it records, is `open_session`'s.

mod error;
mod events;
mod migrations;
pub mod projection;
mod store;

pub use error::StoreError;
pub use events::{
    Event, MessageSource, ModelKind, ModelRef, SessionId, SourceKind, SourceOutcome, StoredEvent, ToolOutcome,
    TurnEndReason,
};
pub use migrations::LATEST as SCHEMA_VERSION;
pub use projection::inbox::{queued_messages, InboxFold, QueuedMessage};
pub use projection::questions::{
    fold_events, project_questions, QuestionCounts, QuestionFold, QuestionRecord, QuestionState,
};
pub use projection::transcript::{
    project_transcript, ToolResultView, Transcript, TranscriptDelta, TranscriptFold, TranscriptItem, Turn, TurnEnd,
};
pub use store::{repairs_needed, RepairFold, SessionSummary, Store, DB_FILE};

/// The session a person typed: its full id, or a prefix matching exactly one session. `Err` is the
/// sentence to show them.
pub fn match_session(sessions: Vec<SessionSummary>, typed: &str) -> Result<SessionSummary, String> {
    if let Some(exact) = sessions.iter().find(|s| s.id == typed) {
        return Ok(exact.clone());
    }
    let mut matches = sessions.into_iter().filter(|s| !typed.is_empty() && s.id.starts_with(typed));
    match (matches.next(), matches.next()) {
        (Some(one), None) => Ok(one),
        (Some(_), Some(_)) => Err(format!("session prefix {typed:?} matches several sessions")),
        (None, _) => Err(format!("session {typed:?} not found")),
    }
}
