//! Agent step overhead: what a turn costs the agent itself (admitting the message, building the
//! request, recording the reply), with a model that answers at once, on a 100-event and a
//! 100 000-event session side by side: both open at once, their turns alternating. Prints
//! `name value unit` lines.
//!
//! Goals: `step_overhead_100k_vs_100` ≤ 1.2; `event_update_100k_us` ≤ 1000 (from appending an event
//! to the window's delta, the 100k session open). `log_read_100k_ms` is what reading the whole log
//! back would cost, which no step does any more.
//! Run with `cargo bench -p hark-core --bench agent`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use hark_core::agent::{history_keep_tokens, Agent, AgentConfig, AgentDeps, AgentEvent};
use hark_core::model::{ModelDescription, ModelError, ModelEvent, ModelEventReceiver, ModelProvider, ModelRequest};
use hark_core::open_session::Session;
use hark_core::service::{SessionLog, UserQuestionService};
use hark_core::session::{Event, Store};
use tokio_util::sync::CancellationToken;

#[path = "support/filler.rs"]
mod filler;
use filler::filler;

const SMALL: usize = 100;
const BIG: usize = 100_000;
const TURNS: usize = 60;

/// Answers every request at once with one short text.
struct AtOnce;

#[async_trait]
impl ModelProvider for AtOnce {
    fn describe(&self) -> ModelDescription {
        ModelDescription {
            provider: hark_core::session::ModelKind::Other,
            label: "instant".into(),
            base_url: None,
            model: None,
            script: None,
        }
    }

    async fn stream(
        &self,
        _request: ModelRequest,
        _cancel: CancellationToken,
    ) -> Result<ModelEventReceiver, ModelError> {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let _ = tx.send(Ok(ModelEvent::TextDelta("ok".into()))).await;
        let _ = tx.send(Ok(ModelEvent::Finished { finish_reason: Some("stop".into()) })).await;
        Ok(rx)
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// A session of `events` filler events and its agent, opened as a later run opens it.
struct Opened {
    _dir: tempfile::TempDir,
    agent: Agent,
    read_ms: f64,
}

fn open(events: usize) -> Opened {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(Store::open(dir.path()).expect("store"));
    let session = store.create_session("bench", None, None).expect("session");
    let mut batch = Vec::new();
    for i in 0..events {
        batch.push(filler(i));
        if batch.len() == 5_000 {
            store.append_batch(&session, std::mem::take(&mut batch)).expect("seed");
        }
    }
    store.append_batch(&session, batch).expect("seed");
    let read = Instant::now();
    let _ = store.events(&session).expect("read");
    let read_ms = read.elapsed().as_secs_f64() * 1e3;

    // The session's first open in this process reads the whole log and leaves a snapshot, as a
    // first run does; the agent measured opens it again, from that snapshot, as every later run does.
    drop(
        Session::open(Arc::clone(&store), &session, history_keep_tokens(&AgentConfig::default())).expect("first open"),
    );
    let service = UserQuestionService::new(Arc::clone(&store) as Arc<dyn SessionLog>);
    let deps = AgentDeps { store: Arc::clone(&store), service, model: Arc::new(AtOnce) };
    let agent = Agent::open(deps, &session, AgentConfig::default()).expect("open");
    Opened { _dir: dir, agent, read_ms }
}

/// Microseconds from `steer` until the agent is idle again.
async fn one_turn(agent: &Agent, i: usize) -> f64 {
    let start = Instant::now();
    agent.steer(format!("next {i}")).expect("steer");
    tokio::time::timeout(Duration::from_secs(60), agent.wait_idle()).await.expect("the turn ends");
    start.elapsed().as_secs_f64() * 1e6
}

/// Host work from appending an event to the window's delta: the append, the folds, the broadcast,
/// and the delta's JSON (what the desktop sends over its channel).
async fn event_update_us(session: &Session) -> f64 {
    let mut rx = session.subscribe();
    let mut times = Vec::new();
    for i in 0..200 {
        let start = Instant::now();
        let event = Event::UserMessage { message_id: format!("update{i}"), text: "one more".into(), source: None };
        session.record_one(event).expect("record");
        loop {
            match rx.recv().await.expect("stream") {
                update @ AgentEvent::Transcript { .. } => {
                    let json = serde_json::to_vec(&update).expect("json");
                    assert!(json.len() > 10);
                    break;
                }
                _ => continue,
            }
        }
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    median(times)
}

fn main() {
    // One thread: a turn hops between the driver, the forwarders and this task, and on two workers each
    // hop can cost a thread wake-up of ~100 us, which would drown what the agent itself does.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let (small, big) = (open(SMALL), open(BIG));
        // Turns alternate between the two sessions, so whatever the machine does meanwhile weighs on
        // both medians alike.
        let (mut small_times, mut big_times) = (Vec::new(), Vec::new());
        for i in 0..TURNS + 3 {
            let (s, b) = (one_turn(&small.agent, i).await, one_turn(&big.agent, i).await);
            if i >= 3 {
                small_times.push(s);
                big_times.push(b);
            }
        }
        let read_ms = big.read_ms;
        let (small_session, big_session) = (Arc::clone(small.agent.session()), Arc::clone(big.agent.session()));
        small.agent.close().await;
        big.agent.close().await;
        let (update_small, update_big) = (event_update_us(&small_session).await, event_update_us(&big_session).await);
        let (small, big) = (median(small_times), median(big_times));
        println!("step_overhead_100_us {small:.0} us");
        println!("step_overhead_100k_us {big:.0} us");
        println!("step_overhead_100k_vs_100 {:.2} ratio", big / small);
        println!("log_read_100k_ms {read_ms:.1} ms");
        println!("event_update_100_us {update_small:.0} us");
        println!("event_update_100k_us {update_big:.0} us");
    });
}
