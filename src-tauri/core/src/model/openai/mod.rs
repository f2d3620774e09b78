//! The OpenAI-compatible Chat Completions provider: DeepSeek (the default), OpenAI, Ollama,
//! llama.cpp server, vLLM, LM Studio — anything that speaks `POST {base}/chat/completions` with
//! `stream: true` and server-sent events.

mod chunk;
mod config;
mod limits;
mod send;
mod sse;
mod stream;
mod wire;

use async_trait::async_trait;
use reqwest::Url;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use config::{ApiKey, OpenAiConfig, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL};

use super::error::ModelError;
use super::types::{ModelDescription, ModelEvent, ModelRequest};
use super::{ModelProvider, EVENT_BUFFER};

/// Streams Chat Completions from one configured endpoint. Cheap to share (`Arc<dyn ModelProvider>`);
/// connections are pooled across requests.
#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    config: OpenAiConfig,
    url: Url,
    client: reqwest::Client,
}

impl OpenAiProvider {
    /// Checks the base URL and builds the HTTP client. Fails with MODEL_CONFIG for a URL that is not
    /// http(s) or cannot be parsed, and for a key that would travel in plain http to another machine.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let endpoint = config.endpoint();
        let url = Url::parse(&endpoint).map_err(|e| ModelError::Config {
            message: format!("The base URL {:?} is not a valid URL ({e})", config.base_url),
        })?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(ModelError::Config {
                message: format!("The base URL {:?} must start with http:// or https://", config.base_url),
            });
        }
        super::keys::check_key_transport(&url, config.api_key.is_some())?;
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("hark/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ModelError::Config { message: format!("Cannot set up the HTTP client: {e}") })?;
        Ok(OpenAiProvider { config, url, client })
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The full URL requests are sent to.
    pub fn url(&self) -> &Url {
        &self.url
    }
}

#[async_trait]
impl ModelProvider for OpenAiProvider {
    fn describe(&self) -> ModelDescription {
        ModelDescription {
            provider: crate::session::ModelKind::Openai,
            label: format!("{} @ {}", self.config.model, host_label(&self.url)),
            base_url: Some(self.config.base_url.clone()),
            model: Some(self.config.model.clone()),
            script: None,
        }
    }

    async fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> Result<mpsc::Receiver<Result<ModelEvent, ModelError>>, ModelError> {
        let body = wire::request_body(&self.config, &request);
        let key = self.config.api_key.clone();
        let response = send::send(&self.client, &self.config, &self.url, &body, &cancel)
            .await
            .map_err(|e| redact(e, key.as_ref()))?;
        let (tx, rx) = mpsc::channel(EVENT_BUFFER);
        let limits = limits::Limits::of(&self.config);
        tokio::spawn(stream::pump(response, tx, cancel, self.config.read_timeout, limits, key));
        Ok(rx)
    }
}

/// Servers sometimes quote the key they rejected; it must not travel on in an error message.
fn redact(error: ModelError, key: Option<&ApiKey>) -> ModelError {
    match key.map(ApiKey::expose).filter(|k| !k.is_empty()) {
        Some(secret) => error.map_message(|m| m.replace(secret, "***")),
        None => error,
    }
}

/// `host` or `host:port`, for labels and messages.
fn host_label(url: &Url) -> String {
    let host = url.host_str().unwrap_or("?");
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

/// At most 200 characters of untrusted text for an error message, cut on a character boundary.
fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    let text = text.trim();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
