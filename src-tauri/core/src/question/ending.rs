//! How a question's call ended without the person's answer, as data: the model reads it, and so can
//! any program reading the log, without parsing prose. None of these ever carries answers: a timeout,
//! a quit or a withdrawal is never the person's choice.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Why a question's call returned `pending`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PendingReason {
    /// Its timeout ran out (the host's deadline, or the countdown of the surface showing it).
    TimedOut,
    /// Hark quit while it waited.
    HarkQuit,
}

/// A `pending` tool result: `{"status": "pending", "reason", "call_id", "waited_secs", "since",
/// "next"}`. `since` is when the wait ended, so a late answer can say how long after it came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename = "pending")]
pub struct PendingResult {
    pub reason: PendingReason,
    pub call_id: String,
    pub waited_secs: u64,
    pub since: DateTime<Utc>,
    /// What the model should do now, in plain words.
    pub next: String,
}

impl PendingResult {
    pub fn text(&self) -> String {
        // Serializing a struct of strings and numbers cannot fail; the fallback keeps it total anyway.
        serde_json::to_string(self).unwrap_or_else(|_| self.next.clone())
    }

    /// The result back from a recorded `pending` outcome; `None` for results older than this shape
    /// (plain prose), which carry no timing.
    pub fn parse(content: &str) -> Option<PendingResult> {
        serde_json::from_str(content).ok()
    }
}

/// The result of withdrawing a question: `{"status": "withdrawn", "call_id", "reason"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename = "withdrawn")]
pub struct WithdrawnResult {
    pub call_id: String,
    pub reason: String,
}

impl WithdrawnResult {
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("withdrawn: {}", self.call_id))
    }
}

/// The most characters a withdrawal's reason keeps: it is shown on the question's row.
pub const MAX_WITHDRAW_REASON_CHARS: usize = 200;

/// How long after its timeout a late answer came, in whole seconds (0 when the clock went back).
pub fn secs_after(since: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
    u64::try_from((now - since).num_seconds()).unwrap_or(0)
}
