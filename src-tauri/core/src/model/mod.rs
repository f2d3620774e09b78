//! Model providers: where an agent step's text, reasoning and tool calls come from.
//!
//! One trait, [`ModelProvider`], shared as `Arc<dyn ModelProvider>`, with two implementations:
//! - [`OpenAiProvider`]: any OpenAI-compatible Chat Completions server, streamed over SSE
//!   (DeepSeek by default; OpenAI, Ollama, llama.cpp, vLLM, LM Studio by base URL);
//! - [`DemoProvider`]: deterministic offline scripts shipped with the app, always labelled
//!   "Demo model", for first launch without a key, demos and tests.
//!
//! Everything a model sends is untrusted data: providers pass it on verbatim and never interpret it.

mod demo;
mod error;
mod keys;
mod openai;
mod types;

use async_trait::async_trait;

use crate::session::ModelKind;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use demo::{
    demo_scripts, Condition, DemoProvider, DemoScript, DemoToolCall, Reply, Rule, ToolResultInfo, ToolStatus, Trigger,
    DEFAULT_DEMO_SCRIPT, DEMO_LABEL,
};
pub use error::ModelError;
pub use keys::{check_key_transport, env_key_for, is_loopback, KeySource, ENV_KEYS};
pub use openai::{ApiKey, OpenAiConfig, OpenAiProvider, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL};
pub use types::{ChatMessage, ModelDescription, ModelEvent, ModelRequest, ToolCallRequest};

/// The receiving end of one streamed step.
pub type ModelEventReceiver = mpsc::Receiver<Result<ModelEvent, ModelError>>;

/// Events buffered between a provider's reader task and the caller.
const EVENT_BUFFER: usize = 64;

/// A source of model steps.
///
/// `stream` resolves once the provider is ready to stream (for HTTP: a success status arrived, after
/// any retries) or with the error that prevented it. The receiver then yields events in order and
/// ends after `Finished` or after the first `Err` item; text streamed before an error stays valid.
/// Cancelling the token (or dropping the receiver) stops the step and releases its connection; a
/// receiver still held then sees a final `Err(MODEL_CANCELLED)` (unless its buffer is full).
#[async_trait]
pub trait ModelProvider: Send + Sync {
    fn describe(&self) -> ModelDescription;

    async fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> Result<ModelEventReceiver, ModelError>;
}

/// The provider a session's recorded [`ModelRef`](crate::session::ModelRef) names: `demo` (with its
/// script) or `openai` (any OpenAI-compatible server; DeepSeek when the base URL or model is unset).
/// Both front doors build their models here so a session means the same model in either.
pub fn provider_for(
    model: &crate::session::ModelRef,
    key: Option<ApiKey>,
) -> Result<std::sync::Arc<dyn ModelProvider>, ModelError> {
    match model.provider {
        ModelKind::Demo => {
            let script = model.script.as_deref().unwrap_or(DEFAULT_DEMO_SCRIPT);
            Ok(std::sync::Arc::new(DemoProvider::new(script)?))
        }
        ModelKind::Openai => {
            let base = model.base_url.clone().unwrap_or_else(|| DEEPSEEK_BASE_URL.to_string());
            let name = model.model.clone().unwrap_or_else(|| DEEPSEEK_MODEL.to_string());
            Ok(std::sync::Arc::new(OpenAiProvider::new(OpenAiConfig::new(base, name, key))?))
        }
        ModelKind::Other => Err(ModelError::Config {
            message: "the session names a provider this build does not know: use openai or demo".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ModelRef;

    #[test]
    fn a_provider_a_newer_build_records_reads_as_other_and_is_not_run() {
        let newer: ModelRef = serde_json::from_value(serde_json::json!({"provider": "anthropic"})).unwrap();
        assert_eq!(newer.provider, ModelKind::Other);
        let refused = provider_for(&newer, None).err().map(|e| e.code());
        assert_eq!(refused, Some("MODEL_CONFIG"));
        assert_eq!(serde_json::to_value(ModelKind::Openai).unwrap(), "openai");
        assert_eq!(ModelKind::parse("demo"), Some(ModelKind::Demo));
        assert_eq!(ModelKind::parse("other"), None, "--provider never names the placeholder");
    }
}
