//! Which model and question settings a session runs with. The rules differ by front door only in
//! where the choices come from (the desktop's settings and launch options, the CLI's flags); the
//! host asks through this trait so the order of precedence lives in one place: what a session
//! recorded, then what this run says explicitly, then the defaults for new sessions.

use std::sync::Arc;

use crate::model::{ModelError, ModelProvider, DEEPSEEK_MODEL, DEFAULT_DEMO_SCRIPT, DEMO_LABEL};
use crate::session::{ModelKind, ModelRef};
use crate::tools::QuestionSettings;

pub trait ModelSource: Send + Sync {
    /// The model a new session starts with.
    fn for_new(&self) -> ModelRef;
    /// The model an existing session runs on, given what it recorded (if anything).
    fn for_existing(&self, recorded: Option<ModelRef>) -> ModelRef;
    /// Question settings this run forces (a `--timed`/`--timeout` flag), if any.
    fn forced_questions(&self) -> Option<QuestionSettings>;
    /// Question settings of sessions that recorded none (new ones).
    fn default_questions(&self) -> QuestionSettings;
    /// Plan first when this run says so (`--plan`), over what a session recorded.
    fn forced_plan_first(&self) -> Option<bool> {
        None
    }
    /// Plan first for sessions that recorded no choice (new ones).
    fn default_plan_first(&self) -> bool {
        false
    }
    /// Programmatic tool calls when this run says so (`--ptc`), over what a session recorded.
    fn forced_ptc(&self) -> Option<bool> {
        None
    }
    /// Programmatic tool calls for sessions that recorded no choice (new ones).
    fn default_ptc(&self) -> bool {
        false
    }
    /// The value of a `${NAME}` in `mcp.json`: the environment's variable. A front door that can read
    /// the OS keyring also gives its `keyring:` secrets.
    fn variable(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
    /// The provider for `model`; API keys are the front door's business.
    fn provider(&self, model: &ModelRef) -> Result<Arc<dyn ModelProvider>, ModelError>;
}

/// The question settings a session runs with: forced by this run, else what it last recorded, else
/// the defaults. A session keeps how it asks, as it keeps its model.
pub fn questions_for(models: &dyn ModelSource, recorded: Option<QuestionSettings>) -> QuestionSettings {
    models.forced_questions().or(recorded).unwrap_or_else(|| models.default_questions())
}

/// Whether a session runs plan first: forced by this run, else what it last recorded, else the
/// default. Like its model and its question settings, a session keeps the way it works.
pub fn plan_first_for(models: &dyn ModelSource, recorded: Option<bool>) -> bool {
    models.forced_plan_first().or(recorded).unwrap_or_else(|| models.default_plan_first())
}

/// Whether a session runs with programmatic tool calls, by the same precedence as plan first.
pub fn ptc_for(models: &dyn ModelSource, recorded: Option<bool>) -> bool {
    models.forced_ptc().or(recorded).unwrap_or_else(|| models.default_ptc())
}

/// How a model is named to the person: "Demo model (batch)", "deepseek-chat · api.deepseek.com".
pub fn label(model: &ModelRef) -> String {
    match model.provider {
        ModelKind::Demo => format!("{DEMO_LABEL} ({})", model.script.as_deref().unwrap_or(DEFAULT_DEMO_SCRIPT)),
        _ => {
            let name = model.model.as_deref().unwrap_or(DEEPSEEK_MODEL);
            let host = model
                .base_url
                .as_deref()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_else(|| "api.deepseek.com".into());
            format!("{name} · {host}")
        }
    }
}
