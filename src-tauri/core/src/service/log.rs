//! Where the service records inbox events and reads question state. The service keeps no question
//! state of its own: what is continued and which reply is queued is the session log's question fold,
//! read in the same step as the write that depends on it. The service owns this small trait so it can
//! be tested without SQLite; the real [`crate::session::Store`] implements it, and so does the host's
//! set of open sessions.

use std::collections::HashMap;
use std::sync::Mutex;

use super::lock;
use crate::error::CodedError;
use crate::session::{Event, QuestionFold};

/// An append to the session log failed. `code` is the underlying error's code (e.g. `STORE_IO`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct LogError {
    pub code: String,
    pub message: String,
}

impl CodedError for LogError {
    fn name(&self) -> &str {
        "LogError"
    }
    fn code(&self) -> &str {
        &self.code
    }
    fn message(&self) -> String {
        self.message.clone()
    }
}

pub trait SessionLog: Send + Sync {
    fn append(&self, session: &str, event: Event) -> Result<(), LogError>;

    /// Appends the event `decide` makes of the session's question fold, with no other append to the
    /// session between the look and the write; `None` appends nothing. A session the log does not
    /// have is an empty fold. Returns whether an event was appended.
    fn append_decided(
        &self,
        session: &str,
        decide: &mut dyn FnMut(&QuestionFold) -> Option<Event>,
    ) -> Result<bool, LogError>;

    /// `f` on the session's question fold as the log says now (empty for an unknown session).
    fn with_questions(&self, session: &str, f: &mut dyn FnMut(&QuestionFold)) -> Result<(), LogError>;
}

/// An in-memory log for tests, benchmarks and front doors without a store. It folds what it is given
/// with the same [`QuestionFold`] as the store.
#[derive(Debug, Default)]
pub struct MemoryLog {
    state: Mutex<Memory>,
    fail_with: Mutex<Option<LogError>>,
}

#[derive(Debug, Default)]
struct Memory {
    events: Vec<(String, Event)>,
    folds: HashMap<String, QuestionFold>,
}

impl MemoryLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// The events appended to `session`, in order.
    pub fn events(&self, session: &str) -> Vec<Event> {
        lock(&self.state).events.iter().filter(|(s, _)| s == session).map(|(_, e)| e.clone()).collect()
    }

    /// Makes every later append fail (or succeed again with `None`), to exercise error paths.
    pub fn fail_appends(&self, error: Option<LogError>) {
        *lock(&self.fail_with) = error;
    }
}

impl SessionLog for MemoryLog {
    fn append(&self, session: &str, event: Event) -> Result<(), LogError> {
        let mut event = Some(event);
        self.append_decided(session, &mut |_| event.take()).map(|_| ())
    }

    fn append_decided(
        &self,
        session: &str,
        decide: &mut dyn FnMut(&QuestionFold) -> Option<Event>,
    ) -> Result<bool, LogError> {
        let mut state = lock(&self.state);
        let Some(event) = decide(state.folds.entry(session.to_string()).or_default()) else {
            return Ok(false);
        };
        if let Some(err) = lock(&self.fail_with).clone() {
            return Err(err);
        }
        state.folds.entry(session.to_string()).or_default().apply(&event);
        state.events.push((session.to_string(), event));
        Ok(true)
    }

    fn with_questions(&self, session: &str, f: &mut dyn FnMut(&QuestionFold)) -> Result<(), LogError> {
        match lock(&self.state).folds.get(session) {
            Some(fold) => f(fold),
            None => f(&QuestionFold::new()),
        }
        Ok(())
    }
}
