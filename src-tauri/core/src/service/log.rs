//! Where the service records inbox events. The service owns this small trait so it can be tested
//! without SQLite; the real [`crate::session::Store`] implements it.

use std::sync::Mutex;

use super::lock;
use crate::error::CodedError;
use crate::session::Event;

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
}

/// An in-memory log for tests, benchmarks and front doors without a store.
#[derive(Debug, Default)]
pub struct MemoryLog {
    events: Mutex<Vec<(String, Event)>>,
    fail_with: Mutex<Option<LogError>>,
}

impl MemoryLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// The events appended to `session`, in order.
    pub fn events(&self, session: &str) -> Vec<Event> {
        lock(&self.events).iter().filter(|(s, _)| s == session).map(|(_, e)| e.clone()).collect()
    }

    /// Makes every later append fail (or succeed again with `None`), to exercise error paths.
    pub fn fail_appends(&self, error: Option<LogError>) {
        *lock(&self.fail_with) = error;
    }
}

impl SessionLog for MemoryLog {
    fn append(&self, session: &str, event: Event) -> Result<(), LogError> {
        if let Some(err) = lock(&self.fail_with).clone() {
            return Err(err);
        }
        lock(&self.events).push((session.to_string(), event));
        Ok(())
    }
}
