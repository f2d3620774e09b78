//! The demo provider: deterministic scripts shipped with the app, played offline.
//!
//! Each step reads the end of the request (see [`Trigger`]), picks the first matching rule of the
//! script and streams its reply in small chunks. The scripts live in `src-tauri/core/scripts/*.json`
//! and are compiled into the binary; tests can also load them from a directory.

mod render;
mod script;
mod trigger;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use script::{Condition, DemoScript, DemoToolCall, Reply, Rule, ToolStatus};
pub use trigger::{ToolResultInfo, Trigger};

use super::error::ModelError;
use super::types::{ChatMessage, ModelDescription, ModelEvent, ModelRequest};
use super::{ModelEventReceiver, ModelProvider, EVENT_BUFFER};
use render::{chunks, Context, Rendered};

/// What the UI calls every demo provider, whatever the script.
pub const DEMO_LABEL: &str = "Demo model";

/// The script a fresh install starts with: it works in both question modes.
pub const DEFAULT_DEMO_SCRIPT: &str = "batch";

/// The shipped scripts, in the order a script picker lists them.
const BUILTIN: &[(&str, &str)] = &[
    ("batch", include_str!("../../../scripts/batch.json")),
    ("timed", include_str!("../../../scripts/timed.json")),
    ("blocking", include_str!("../../../scripts/blocking.json")),
    ("untrusted", include_str!("../../../scripts/untrusted.json")),
    ("hello", include_str!("../../../scripts/hello.json")),
    ("plan", include_str!("../../../scripts/plan.json")),
    ("ptc", include_str!("../../../scripts/ptc.json")),
];

/// The reply when no rule matches: visible, harmless, and it ends the turn.
const NO_RULE_TEXT: &str = "(The demo script has no reply for this. Start a new session to play it again.)";

/// The names of the shipped demo scripts.
pub fn demo_scripts() -> Vec<&'static str> {
    BUILTIN.iter().map(|(name, _)| *name).collect()
}

impl DemoScript {
    /// A shipped script by name; DEMO_SCRIPT (listing the available names) for an unknown one.
    pub fn builtin(name: &str) -> Result<DemoScript, ModelError> {
        let (_, json) = BUILTIN.iter().find(|(n, _)| *n == name).ok_or_else(|| unknown(name))?;
        DemoScript::parse(json)
    }

    /// `{dir}/{name}.json`.
    pub fn from_dir(dir: &Path, name: &str) -> Result<DemoScript, ModelError> {
        let valid_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(ModelError::DemoScript { message: format!("{name:?} is not a demo script name") });
        }
        let path = dir.join(format!("{name}.json"));
        let json = std::fs::read_to_string(&path).map_err(|e| ModelError::DemoScript {
            message: format!("Cannot read demo script {}: {e}", path.display()),
        })?;
        DemoScript::parse(&json)
    }
}

fn unknown(name: &str) -> ModelError {
    ModelError::DemoScript {
        message: format!("There is no demo script named {name:?}; available: {}", demo_scripts().join(", ")),
    }
}

/// Plays one script. Stateless between steps; share it freely.
#[derive(Debug, Clone)]
pub struct DemoProvider {
    script: Arc<DemoScript>,
    chunk_delay: Duration,
}

impl DemoProvider {
    /// A shipped script by name.
    pub fn new(script_name: &str) -> Result<Self, ModelError> {
        Ok(DemoProvider::from_script(DemoScript::builtin(script_name)?))
    }

    pub fn from_script(script: DemoScript) -> Self {
        DemoProvider { script: Arc::new(script), chunk_delay: Duration::ZERO }
    }

    /// Waits this long before each streamed piece (default none), for demos that should look typed.
    pub fn with_chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    pub fn script(&self) -> &DemoScript {
        &self.script
    }

    /// The id of the rule that answers `request`, or `None` when none matches. Lets tests and
    /// tooling see which branch a conversation takes without streaming it.
    pub fn rule_for(&self, request: &ModelRequest) -> Option<&Rule> {
        self.script.rule_for(&Trigger::from_request(request))
    }

    fn reply(&self, request: &ModelRequest) -> Rendered {
        let trigger = Trigger::from_request(request);
        let step = 1 + request.messages.iter().filter(|m| matches!(***m, ChatMessage::Assistant { .. })).count();
        let matched =
            self.script.rules.iter().find_map(|rule| trigger.matches(&rule.when).map(|subject| (rule, subject)));
        match matched {
            Some((rule, subject)) => Context::new(&trigger, subject).render(&rule.reply, step),
            None => Rendered { reasoning: None, text: NO_RULE_TEXT.into(), tool_calls: Vec::new() },
        }
    }
}

#[async_trait]
impl ModelProvider for DemoProvider {
    fn describe(&self) -> ModelDescription {
        ModelDescription {
            provider: crate::session::ModelKind::Demo,
            label: DEMO_LABEL.into(),
            base_url: None,
            model: None,
            script: Some(self.script.name.clone()),
        }
    }

    async fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> Result<ModelEventReceiver, ModelError> {
        if cancel.is_cancelled() {
            return Err(ModelError::Cancelled);
        }
        let reply = self.reply(&request);
        let (tx, rx) = mpsc::channel(EVENT_BUFFER);
        tokio::spawn(play(reply, tx, cancel, self.chunk_delay));
        Ok(rx)
    }
}

async fn play(
    reply: Rendered,
    tx: mpsc::Sender<Result<ModelEvent, ModelError>>,
    cancel: CancellationToken,
    delay: Duration,
) {
    let finish_reason = if reply.tool_calls.is_empty() { "stop" } else { "tool_calls" };
    let mut events: Vec<ModelEvent> = Vec::new();
    if let Some(reasoning) = &reply.reasoning {
        events.extend(chunks(reasoning).into_iter().map(|c| ModelEvent::ReasoningDelta(c.to_string())));
    }
    events.extend(chunks(&reply.text).into_iter().map(|c| ModelEvent::TextDelta(c.to_string())));
    events.extend(reply.tool_calls.into_iter().map(ModelEvent::ToolCall));
    events.push(ModelEvent::Finished { finish_reason: Some(finish_reason.into()) });
    for event in events {
        let step = async {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            tx.send(Ok(event)).await.is_ok()
        };
        let delivered = tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                let _ = tx.try_send(Err(ModelError::Cancelled));
                return;
            }
            delivered = step => delivered,
        };
        if !delivered {
            return;
        }
    }
}
