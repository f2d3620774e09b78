//! Model provider errors. Every failure a provider can hit has a code the UI and the session log can
//! route on; none of them carries the API key.

use serde::Serialize;

use crate::error::serialize_error;

const CANCELLED_MESSAGE: &str = "The model request was cancelled.";

/// A model provider failure, serialized as `{"name":"ModelError","code","message"}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// 401/403: the API key was missing or rejected.
    #[error("MODEL_AUTH: {message}")]
    Auth { status: u16, message: String },
    /// 429 after the bounded retries.
    #[error("MODEL_RATE_LIMITED: {message}")]
    RateLimited { message: String },
    /// 5xx after the bounded retries, or an error object sent inside the stream.
    #[error("MODEL_SERVER: {message}")]
    Server { status: Option<u16>, message: String },
    /// Any other non-success status (400, 404, 422, ...), with the server's own message.
    #[error("MODEL_HTTP: {message}")]
    Http { status: u16, message: String },
    /// The server could not be reached (after the bounded retries).
    #[error("MODEL_CONNECT: {message}")]
    Connect { message: String },
    /// Connecting, waiting for the response, or waiting for the next chunk took too long.
    #[error("MODEL_TIMEOUT: {message}")]
    Timeout { message: String },
    /// The response was not a stream this client understands; the message quotes a short excerpt.
    #[error("MODEL_BAD_STREAM: {message}")]
    BadStream { message: String },
    /// The caller cancelled the request.
    #[error("MODEL_CANCELLED: {CANCELLED_MESSAGE}")]
    Cancelled,
    /// The demo provider was asked for a script it does not have, or a script is invalid.
    #[error("DEMO_SCRIPT: {message}")]
    DemoScript { message: String },
    /// The provider settings cannot work (e.g. a base URL that is not http(s)).
    #[error("MODEL_CONFIG: {message}")]
    Config { message: String },
    /// The model's output outgrew one of the provider's size limits (`limit` bytes), so the stream
    /// was stopped; what was streamed before stays valid. The message names the part and the limit.
    #[error("MODEL_OUTPUT_TOO_LARGE: {message}")]
    OutputTooLarge { limit: usize, message: String },
}

impl ModelError {
    pub fn code(&self) -> &'static str {
        match self {
            ModelError::Auth { .. } => "MODEL_AUTH",
            ModelError::RateLimited { .. } => "MODEL_RATE_LIMITED",
            ModelError::Server { .. } => "MODEL_SERVER",
            ModelError::Http { .. } => "MODEL_HTTP",
            ModelError::Connect { .. } => "MODEL_CONNECT",
            ModelError::Timeout { .. } => "MODEL_TIMEOUT",
            ModelError::BadStream { .. } => "MODEL_BAD_STREAM",
            ModelError::Cancelled => "MODEL_CANCELLED",
            ModelError::DemoScript { .. } => "DEMO_SCRIPT",
            ModelError::Config { .. } => "MODEL_CONFIG",
            ModelError::OutputTooLarge { .. } => "MODEL_OUTPUT_TOO_LARGE",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            ModelError::Auth { message, .. }
            | ModelError::RateLimited { message }
            | ModelError::Server { message, .. }
            | ModelError::Http { message, .. }
            | ModelError::Connect { message }
            | ModelError::Timeout { message }
            | ModelError::BadStream { message }
            | ModelError::DemoScript { message }
            | ModelError::Config { message }
            | ModelError::OutputTooLarge { message, .. } => message,
            ModelError::Cancelled => CANCELLED_MESSAGE,
        }
    }

    /// The HTTP status behind the error, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ModelError::Auth { status, .. } | ModelError::Http { status, .. } => Some(*status),
            ModelError::Server { status, .. } => *status,
            ModelError::RateLimited { .. } => Some(429),
            _ => None,
        }
    }

    /// Whether trying the same request again later may succeed (a transient condition). The provider
    /// has already retried these within its bounds; this tells the caller whether to offer "Retry".
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            ModelError::RateLimited { .. }
                | ModelError::Server { .. }
                | ModelError::Connect { .. }
                | ModelError::Timeout { .. }
        )
    }
}

impl ModelError {
    /// The same error with its message rewritten (used to scrub the API key from server text).
    pub(crate) fn map_message(self, f: impl FnOnce(String) -> String) -> Self {
        match self {
            ModelError::Auth { status, message } => ModelError::Auth { status, message: f(message) },
            ModelError::RateLimited { message } => ModelError::RateLimited { message: f(message) },
            ModelError::Server { status, message } => ModelError::Server { status, message: f(message) },
            ModelError::Http { status, message } => ModelError::Http { status, message: f(message) },
            ModelError::Connect { message } => ModelError::Connect { message: f(message) },
            ModelError::Timeout { message } => ModelError::Timeout { message: f(message) },
            ModelError::BadStream { message } => ModelError::BadStream { message: f(message) },
            ModelError::DemoScript { message } => ModelError::DemoScript { message: f(message) },
            ModelError::Config { message } => ModelError::Config { message: f(message) },
            ModelError::OutputTooLarge { limit, message } => ModelError::OutputTooLarge { limit, message: f(message) },
            ModelError::Cancelled => ModelError::Cancelled,
        }
    }
}

impl Serialize for ModelError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_error(s, "ModelError", self.code(), self.message())
    }
}
