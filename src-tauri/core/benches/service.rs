//! Service round-trip latency: the `ask_user_question` tool is called, the provider receives the
//! request, a "panel" task submits the answer through the pending table, the tool returns its
//! result. All in process, 100 000 iterations per variant after a warm-up.
//!
//! Prints `name value unit` lines; `service_roundtrip_p50_us` / `service_roundtrip_p99_us` are the
//! timed-mode figures (deadline armed, the heavier path), the others are for comparison.

use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::question::{AnswerBatch, ToolMode, TOOL_NAME};
use hark_core::service::{Caller, ForwardingProvider, MemoryLog, UserQuestionService};
use hark_core::tools::{AskUserQuestionTool, QuestionSettings, ToolContext, ToolRegistry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ITERATIONS: usize = 100_000;
const WARMUP: usize = 5_000;
const SESSION: &str = "bench-session";

async fn run(mode: ToolMode) -> Result<Vec<Duration>, Box<dyn Error>> {
    let service = UserQuestionService::new(Arc::new(MemoryLog::new()));
    let _steer = service.set_live_root(SESSION, "agent");
    let (provider, mut requests) = ForwardingProvider::new();
    let _registration = service.register(Arc::new(provider))?;
    let mut tools = ToolRegistry::new();
    tools.register(Arc::new(AskUserQuestionTool::new(
        service.clone(),
        QuestionSettings { mode, default_timeout_secs: 120, stop_turn: false },
    )))?;

    let answer: AnswerBatch = serde_json::from_value(json!({ "answers": [{ "id": "db", "selected": ["SQLite"] }] }))?;
    let panel = tokio::spawn({
        let service = service.clone();
        async move {
            while let Some(request) = requests.recv().await {
                if let Err(e) = service.submit_foreground(&request.session_id, &request.call_id, answer.clone()) {
                    eprintln!("panel submit failed: {e}");
                    return;
                }
            }
        }
    });

    let args = json!({ "questions": [{
        "id": "db", "question": "Which database?", "header": "Database",
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres" }]
    }]});
    let ctx = ToolContext { caller: Caller::root(SESSION, "agent"), abort: CancellationToken::new(), workspace: None };
    let mut samples = Vec::with_capacity(ITERATIONS);
    for i in 0..WARMUP + ITERATIONS {
        let call_id = format!("call-{i}");
        let start = Instant::now();
        let out = tools.execute(&ctx, &call_id, TOOL_NAME, args.clone()).await?;
        let took = start.elapsed();
        if out.pending() || !out.content.contains("SQLite") {
            return Err(format!("unexpected tool result: {out:?}").into());
        }
        if i >= WARMUP {
            samples.push(took);
        }
    }
    let stats = service.stats();
    if stats.pending_waits != 0 || stats.timers != 0 || stats.takeovers != 0 {
        return Err(format!("resources leaked: {stats:?}").into());
    }
    drop(_registration);
    panel.abort();
    Ok(samples)
}

fn percentile_us(sorted: &[Duration], p: f64) -> f64 {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank.min(sorted.len() - 1)].as_secs_f64() * 1e6
}

fn report(prefix: &str, mut samples: Vec<Duration>) {
    samples.sort_unstable();
    println!("{prefix}_p50_us {:.2} us", percentile_us(&samples, 0.50));
    println!("{prefix}_p99_us {:.2} us", percentile_us(&samples, 0.99));
}

fn main() -> Result<(), Box<dyn Error>> {
    let current = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    report("service_roundtrip", current.block_on(run(ToolMode::Timed))?);
    report("service_roundtrip_legacy", current.block_on(run(ToolMode::Legacy))?);
    // The desktop shell runs a multi-threaded runtime: the panel's submit wakes the tool on another
    // worker, which adds a cross-thread hop.
    let multi = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    report("service_roundtrip_multithread", multi.block_on(run(ToolMode::Timed))?);
    Ok(())
}
