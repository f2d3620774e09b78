//! Model provider errors. Every failure a provider can hit has a code the UI and the session log can
//! route on; none of them carries the API key.

use crate::error::CodedError;

const CANCELLED_MESSAGE: &str = "The model request was cancelled.";

/// A model provider failure; it crosses a boundary as `{"name":"ModelError","code","message"}`.
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

/// How servers word a request that does not fit the model's context, lower-cased: OpenAI's error
/// code and message ("This model's maximum context length is 128000 tokens. However, your messages
/// resulted in ..."), which DeepSeek, vLLM, Groq, Mistral and OpenRouter share; llama.cpp ("the
/// request exceeds the available context size", type `exceed_context_size_error`); Ollama ("input
/// length exceeds the context length"); LM Studio ("the model is loaded with context length of
/// only ..."); Anthropic-style gateways ("prompt is too long"); and the generic ones.
const CONTEXT_LENGTH_PHRASES: &[&str] = &[
    "context_length_exceeded",
    "exceed_context_size",
    "maximum context length",
    "context length",
    "context size",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length of the messages",
];

impl ModelError {
    /// Whether the server refused the request because it does not fit the model's context window,
    /// so that a shorter history could succeed where the same request again never will. Servers
    /// say so in a 400 (some in a 413, a few in a 5xx or inside the stream) worded their own way.
    pub fn is_context_length(&self) -> bool {
        let message = match self {
            ModelError::Http { status: 413, .. } => return true,
            ModelError::Http { message, .. } | ModelError::Server { message, .. } => message,
            _ => return false,
        };
        let message = message.to_lowercase();
        CONTEXT_LENGTH_PHRASES.iter().any(|phrase| message.contains(phrase))
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

impl CodedError for ModelError {
    fn name(&self) -> &str {
        "ModelError"
    }
    fn code(&self) -> &str {
        ModelError::code(self)
    }
    fn message(&self) -> String {
        ModelError::message(self).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_length_errors_are_recognised_as_servers_word_them() {
        let http = |message: &str| ModelError::Http { status: 400, message: message.into() };
        let refused = [
            // OpenAI, DeepSeek and vLLM.
            "api.openai.com refused the request (HTTP 400: This model's maximum context length is 128000 tokens. \
             However, your messages resulted in 130412 tokens. Please reduce the length of the messages. \
             [context_length_exceeded])",
            "api.deepseek.com refused the request (HTTP 400: This model's maximum context length is 65536 tokens. \
             However, you requested 70123 tokens (61931 in the messages, 8192 in the completion).)",
            // llama.cpp server, Ollama, LM Studio.
            "HTTP 400: the request exceeds the available context size, try increasing it",
            "HTTP 400: input length exceeds the context length",
            "HTTP 400: Trying to keep the first 9000 tokens when context the overflows. However, the model is \
             loaded with context length of only 4096 tokens, which is not enough.",
            // Anthropic-style gateways and Mistral.
            "HTTP 400: prompt is too long: 210000 tokens > 200000 maximum",
            "HTTP 400: Prompt contains 40000 tokens, too large for model with 32768 maximum context length",
        ];
        for message in refused {
            assert!(http(message).is_context_length(), "{message}");
        }
        assert!(ModelError::Http { status: 413, message: "Payload Too Large".into() }.is_context_length());
        let server = ModelError::Server { status: None, message: "the context window is full".into() };
        assert!(server.is_context_length());

        let other = [
            http("HTTP 400: Model Not Exist"),
            http("HTTP 400: Invalid parameter: messages with role 'tool' must be a response to a preceeding message"),
            ModelError::Auth { status: 401, message: "maximum context length".into() },
            ModelError::RateLimited { message: "too many tokens per minute".into() },
            ModelError::Cancelled,
        ];
        for error in other {
            assert!(!error.is_context_length(), "{error}");
        }
    }
}
