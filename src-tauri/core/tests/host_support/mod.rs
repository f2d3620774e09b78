//! What the host tests share: a front door's model choices over the demo model, a host whose person
//! is away, and waiting for a condition.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hark_core::host::{Host, ModelSource};
use hark_core::model::{provider_for, ModelError, ModelProvider};
use hark_core::question::{Answer, AnswerBatch, ToolMode};
use hark_core::service::ForwardingProvider;
use hark_core::session::ModelRef;
use hark_core::tools::QuestionSettings;

/// A front door's choices: one demo script; timed questions when `forced` says so.
pub struct Demo {
    pub script: &'static str,
    pub forced: Option<QuestionSettings>,
}

impl ModelSource for Demo {
    fn for_new(&self) -> ModelRef {
        ModelRef {
            provider: hark_core::session::ModelKind::Demo,
            base_url: None,
            model: None,
            script: Some(self.script.into()),
        }
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

pub fn timed() -> Option<QuestionSettings> {
    Some(QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 600 })
}

/// A host whose question surface shows nothing and never answers (the person is away).
pub fn host(dir: &Path, script: &'static str, forced: Option<QuestionSettings>) -> Host {
    // `run_code` scripts run in a worker process; this test harness's `main` cannot be one.
    hark_core::ptc::worker::set_program(env!("CARGO_BIN_EXE_hark-run-code"));
    let (surface, requests) = ForwardingProvider::new();
    // Kept open for the test's life: a closed channel would refuse every question.
    std::mem::forget(requests);
    Host::start(dir, Arc::new(surface), Arc::new(Demo { script, forced })).expect("host")
}

pub async fn until(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..500 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

pub fn db(label: &str) -> AnswerBatch {
    AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec![label.into()], custom: None }] }
}
