//! Settings of the OpenAI-compatible provider, and the API key wrapper that keeps the key out of
//! logs, errors and `Debug` output.

use std::fmt;
use std::time::Duration;

/// DeepSeek, the default vendor. Its API accepts the base URL with or without `/v1`.
pub const DEEPSEEK_BASE_URL: &str = "https://api.deepseek.com";
pub const DEEPSEEK_MODEL: &str = "deepseek-chat";

const MIB: usize = 1024 * 1024;

/// An API key. `Debug` prints `***`; there is deliberately no `Display` or `Serialize`, so the key
/// can only leave this type through [`ApiKey::expose`], which the provider calls once per request to
/// build the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Surrounding whitespace is dropped: keys are often pasted with a trailing newline.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into().trim().to_string())
    }

    /// `None` for a missing or blank key, so "no key" has one representation.
    pub fn from_optional(key: Option<String>) -> Option<Self> {
        key.map(ApiKey::new).filter(|k| !k.is_blank())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_blank(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Settings of one OpenAI-compatible endpoint (DeepSeek, OpenAI, Ollama, llama.cpp, vLLM, LM Studio).
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The API root. `/chat/completions` is appended after trimming trailing slashes, so give the URL
    /// that precedes it: `https://api.deepseek.com` (or `.../v1`), `https://api.openai.com/v1`,
    /// `http://localhost:11434/v1` (Ollama), `http://localhost:8080/v1` (llama.cpp, vLLM).
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer <key>`; no header at all when `None` (local servers).
    pub api_key: Option<ApiKey>,
    /// Establishing the TCP/TLS connection.
    pub connect_timeout: Duration,
    /// Waiting for the response headers, and then the longest silence between two body chunks.
    /// SSE keep-alive comments count as activity.
    pub read_timeout: Duration,
    /// Extra attempts after a 429, a 5xx or a failed connection, before any body byte was read.
    pub max_retries: u32,
    /// Delay before the first retry; it doubles on each further attempt (capped by `max_backoff`).
    pub backoff_base: Duration,
    pub max_backoff: Duration,
    /// Upper bound on a server's `Retry-After`, so a hostile or confused server cannot park a turn.
    pub max_retry_after: Duration,
    /// Ask for `stream_options: {include_usage: true}`. Turn off for a server that rejects it.
    pub include_usage: bool,
    /// Sent as `max_tokens`, so the server itself stops a model that would talk forever; `None`
    /// leaves it out and the server's own default applies. 8192 is the most DeepSeek's chat model
    /// accepts (its default is 4096) and far beyond a normal step elsewhere.
    pub max_tokens: Option<u32>,
    /// The most text plus reasoning plus tool calls one step may stream, in bytes. A server that
    /// ignores `max_tokens` is stopped here instead of growing memory until the user presses Stop.
    /// 4 MiB is about a million tokens: hundreds of times a long answer, still harmless to hold, log
    /// and render. Also bounds the body of a server that answers without streaming.
    pub max_output_bytes: usize,
    /// The most one tool call's arguments may stream, in bytes. 1 MiB holds any file a model should
    /// write in one call; a call that keeps growing past it is a model stuck in a loop.
    pub max_tool_arguments_bytes: usize,
    /// The longest SSE line, and the most data one SSE event may gather, in bytes. A normal chunk is
    /// well under a KiB; 4 MiB leaves room for a server that sends a whole tool call (up to
    /// `max_tool_arguments_bytes`, JSON-escaped) in one event.
    pub max_event_bytes: usize,
    /// How much of a failed response's body is read for its message. 64 KiB holds any real error.
    pub max_error_body_bytes: usize,
}

impl OpenAiConfig {
    /// An endpoint with the default timeouts and retry policy.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>, api_key: Option<ApiKey>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: api_key.filter(|k| !k.is_blank()),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(120),
            max_retries: 3,
            backoff_base: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(30),
            include_usage: true,
            max_tokens: Some(8192),
            max_output_bytes: 4 * MIB,
            max_tool_arguments_bytes: MIB,
            max_event_bytes: 4 * MIB,
            max_error_body_bytes: 64 * 1024,
        }
    }

    /// DeepSeek with `deepseek-chat`, the default vendor.
    pub fn deepseek(api_key: Option<ApiKey>) -> Self {
        OpenAiConfig::new(DEEPSEEK_BASE_URL, DEEPSEEK_MODEL, api_key)
    }

    /// The URL requests go to: the base URL without trailing slashes, plus `/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim().trim_end_matches('/'))
    }

    /// The delay before retry number `retry` (0-based) when the server gave no `Retry-After`.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry.min(16)).unwrap_or(u32::MAX);
        self.backoff_base.saturating_mul(factor).min(self.max_backoff)
    }
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        OpenAiConfig::deepseek(None)
    }
}
