//! What goes wrong with the phone relay, as every boundary reports errors: `{name, code, message}`.
//! No message ever carries the bot's token or an answer's text.

use crate::error::CodedError;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum PhoneError {
    #[error("{field}: {problem}")]
    Invalid { field: &'static str, problem: String },
    #[error("The phone settings {path} could not be read ({reason}); fix or remove the file")]
    Read { path: String, reason: String },
    #[error("Could not save the phone settings to {path}: {reason}")]
    Write { path: String, reason: String },
    #[error("No Telegram bot token: create a bot with @BotFather and paste its token in Settings → Phone (the terminal reads HARK_TELEGRAM_TOKEN)")]
    NoToken,
    #[error("The pairing code expired before it was sent to the bot; start pairing again")]
    PairingExpired,
    /// The Bot API could not be reached (the message says why, without the request's address).
    #[error("Telegram cannot be reached: {0}")]
    Network(String),
    /// The Bot API refused the token: revoked in @BotFather, or mistyped.
    #[error("Telegram refused the bot token (revoked or mistyped): {0}")]
    TokenRejected(String),
    /// The paired person blocked the bot (or deleted the chat).
    #[error("The bot was blocked in Telegram: {0}")]
    Blocked(String),
    /// Another program polls the same bot (Telegram's 409 Conflict): two Harks share one token.
    #[error("This bot is in use by another Hark (Telegram: {0}); give each Hark a bot of its own")]
    InUseElsewhere(String),
    /// Telegram asked to wait this many seconds before the next request (429).
    #[error("Telegram asked Hark to slow down for {retry_after} s")]
    RateLimited { retry_after: u64 },
    #[error("Telegram refused the request: {0}")]
    Api(String),
}

impl CodedError for PhoneError {
    fn name(&self) -> &str {
        "PhoneError"
    }
    fn code(&self) -> &str {
        match self {
            PhoneError::Invalid { .. } => "INVALID_SETTINGS",
            PhoneError::Read { .. } => "PHONE_SETTINGS_READ",
            PhoneError::Write { .. } => "PHONE_SETTINGS_WRITE",
            PhoneError::NoToken => "NO_TOKEN",
            PhoneError::PairingExpired => "PAIRING_EXPIRED",
            PhoneError::Network(_) => "PHONE_OFFLINE",
            PhoneError::TokenRejected(_) => "TOKEN_REJECTED",
            PhoneError::Blocked(_) => "BOT_BLOCKED",
            PhoneError::InUseElsewhere(_) => "BOT_IN_USE",
            PhoneError::RateLimited { .. } => "RATE_LIMITED",
            PhoneError::Api(_) => "TELEGRAM_REFUSED",
        }
    }
}
