//! Settings of the OpenAI-compatible provider, and the API key wrapper that keeps the key out of
//! logs, errors and `Debug` output.

use std::fmt;
use std::time::Duration;

/// DeepSeek, the default vendor. Its API accepts the base URL with or without `/v1`.
pub const DEEPSEEK_BASE_URL: &str = "https://api.deepseek.com";
pub const DEEPSEEK_MODEL: &str = "deepseek-chat";

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
