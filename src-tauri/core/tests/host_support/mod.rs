//! What the host tests share: a host over the demo model whose person is away. It stays in this
//! crate because only hark-core's own tests know where the `hark-run-code` worker binary is.

use std::path::Path;
use std::sync::Arc;

use hark_core::host::Host;
use hark_core::question::{Answer, AnswerBatch};
use hark_core::service::ForwardingProvider;
use hark_core::tools::QuestionSettings;
// Not every test file that shares this module runs the timed demo.
#[allow(unused_imports)]
pub use hark_test_support::models::timed;
use hark_test_support::models::DemoModels;

/// A host whose question surface shows nothing and never answers (the person is away).
pub fn host(dir: &Path, script: &'static str, forced: Option<QuestionSettings>) -> Host {
    // `run_code` scripts run in a worker process; this test harness's `main` cannot be one.
    hark_core::ptc::worker::set_program(env!("CARGO_BIN_EXE_hark-run-code"));
    let (surface, requests) = ForwardingProvider::new();
    // Kept open for the test's life: a closed channel would refuse every question.
    std::mem::forget(requests);
    Host::start(dir, Arc::new(surface), Arc::new(DemoModels::script(script).forcing(forced))).expect("host")
}

// Not every test file that shares this module answers the demo's database question.
#[allow(dead_code)]
pub fn db(label: &str) -> AnswerBatch {
    AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec![label.into()], custom: None }] }
}
