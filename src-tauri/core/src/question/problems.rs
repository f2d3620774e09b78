//! Collects every problem found in one pass, so a model fixes all of them in a single retry instead of
//! discovering them one call at a time.

use super::error::{ErrorCode, UserInteractionError};

/// How many problems one message lists; the rest are counted.
const MAX_LISTED: usize = 8;
/// Model-provided strings quoted in messages are cut to this many chars.
const MAX_QUOTED_CHARS: usize = 40;

#[derive(Debug, Default)]
pub(super) struct Problems(Vec<String>);

impl Problems {
    pub(super) fn push(&mut self, path: &str, what: impl std::fmt::Display) {
        if path.is_empty() {
            self.0.push(what.to_string());
        } else {
            self.0.push(format!("{path}: {what}"));
        }
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// `Ok(())` when nothing was found, else one error listing the problems in the order found.
    pub(super) fn finish(self, code: ErrorCode, suffix: &str) -> Result<(), UserInteractionError> {
        if self.0.is_empty() {
            return Ok(());
        }
        let total = self.0.len();
        let mut msg = self.0.into_iter().take(MAX_LISTED).collect::<Vec<_>>().join("; ");
        if total > MAX_LISTED {
            msg.push_str(&format!("; and {} more", total - MAX_LISTED));
        }
        if !suffix.is_empty() {
            msg.push_str(". ");
            msg.push_str(suffix);
        }
        Err(UserInteractionError::new(code, msg))
    }
}

/// Quotes untrusted text for a message: JSON-style escaping (no raw newlines or control characters
/// reach a log line or prompt) and a length cap.
pub(super) fn quote(s: &str) -> String {
    let cut: String = s.chars().take(MAX_QUOTED_CHARS).collect();
    let quoted = serde_json::Value::String(cut).to_string();
    if s.chars().count() > MAX_QUOTED_CHARS {
        format!("{quoted}…")
    } else {
        quoted
    }
}

/// A field name for a path: bare when it is a plain identifier, quoted otherwise.
pub(super) fn field_name(key: &str) -> String {
    let plain =
        !key.is_empty() && key.len() <= MAX_QUOTED_CHARS && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        key.to_string()
    } else {
        quote(key)
    }
}

/// "a string", "an array", ... for "got ..." messages.
pub(super) fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// "1 option", "3 options".
pub(super) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub(super) fn chars(s: &str) -> usize {
    s.chars().count()
}

pub(super) fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}
