//! How the relay's link to the messenger stands, for Settings → Phone and `hark phone status`:
//! reported when it changes, never once per failed attempt.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The running relay's link, as it last changed: for `hark phone status` in another process.
pub const LINK_FILE: &str = "phone-link.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Link {
    /// No bot token: the relay does not run.
    NoToken,
    /// The settings cannot be used (the message says which field and why).
    Misconfigured {
        reason: String,
    },
    /// Started, no answer from the server yet.
    Connecting,
    Online,
    /// The server cannot be reached; the relay retries with a growing pause.
    Offline {
        reason: String,
    },
    /// The server refused the token (revoked in @BotFather, or mistyped).
    TokenRejected {
        reason: String,
    },
    /// The paired person blocked the bot.
    Blocked {
        reason: String,
    },
    /// Another Hark reads this bot's updates (on this machine: named in `reason`; elsewhere:
    /// Telegram's 409 Conflict). This host sends no cards while it does, so no tap meant for one
    /// Hark is taken by the other.
    InUseElsewhere {
        reason: String,
    },
}

impl Link {
    /// A line for a log or a terminal; `None` for states not worth a line.
    pub fn describe(&self) -> Option<String> {
        match self {
            Link::NoToken | Link::Connecting => None,
            Link::Online => Some("connected to Telegram".into()),
            Link::Misconfigured { reason } => Some(format!("not started: {reason}")),
            Link::Offline { reason } => Some(format!("Telegram cannot be reached ({reason}); retrying")),
            Link::TokenRejected { reason } => Some(format!("Telegram refused the bot token ({reason})")),
            Link::Blocked { reason } => Some(format!("the bot was blocked in Telegram ({reason})")),
            Link::InUseElsewhere { reason } => Some(format!("this bot is in use by another Hark ({reason})")),
        }
    }
}

/// Writes the link for other processes to read (the running host does, at each change).
pub(crate) fn publish(dir: &Path, link: &Link) {
    if let Ok(text) = serde_json::to_vec(link) {
        let _ = crate::data_dir::private::replace(&dir.join(LINK_FILE), &text);
    }
}

/// The link of the relay running for `dir`, as it last published it; `None` when none did. Only
/// meaningful while a host of `dir` runs (a killed one leaves its last word behind).
pub fn published(dir: &Path) -> Option<Link> {
    serde_json::from_slice(&std::fs::read(dir.join(LINK_FILE)).ok()?).ok()
}
