//! The one demo model source: what a front door offers its host when every session runs on the
//! built-in demo model, so host tests need no network and no keys.

use std::sync::Arc;

use hark_core::host::ModelSource;
use hark_core::model::{provider_for, ModelError, ModelProvider};
use hark_core::question::ToolMode;
use hark_core::session::{ModelKind, ModelRef};
use hark_core::tools::QuestionSettings;

/// New sessions run the demo `script` (the demo's default when `None`); a session keeps the model it
/// recorded. `forced` is the question schema this run imposes, as a `--timed`-style flag would.
#[derive(Debug, Clone, Default)]
pub struct DemoModels {
    pub script: Option<String>,
    pub forced: Option<QuestionSettings>,
}

impl DemoModels {
    /// Sessions on the demo `script`, with no question schema forced.
    pub fn script(script: &str) -> DemoModels {
        DemoModels { script: Some(script.into()), forced: None }
    }

    /// The same, with the question schema this run forces.
    pub fn forcing(mut self, forced: Option<QuestionSettings>) -> DemoModels {
        self.forced = forced;
        self
    }
}

/// Timed questions with a ten-minute countdown: long enough that none expires during a test.
pub fn timed() -> Option<QuestionSettings> {
    Some(QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 600, stop_turn: false })
}

impl ModelSource for DemoModels {
    fn for_new(&self) -> ModelRef {
        ModelRef { provider: ModelKind::Demo, base_url: None, model: None, script: self.script.clone() }
    }
    fn for_existing(&self, recorded: Option<ModelRef>) -> ModelRef {
        recorded.unwrap_or_else(|| self.for_new())
    }
    fn forced_questions(&self) -> Option<QuestionSettings> {
        self.forced
    }
    fn default_questions(&self) -> QuestionSettings {
        QuestionSettings::default()
    }
    fn provider(&self, model: &ModelRef) -> Result<Arc<dyn ModelProvider>, ModelError> {
        provider_for(model, None)
    }
}
