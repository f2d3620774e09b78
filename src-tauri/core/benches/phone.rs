//! The phone relay's latency: from a question being recorded (the service announces it) to the
//! local Telegram Bot API (npm telegram-test-api, as the tests use) holding the message, with the
//! delay set to 0. The median of several questions, each in a session of its own. Prints
//! `name value unit` lines.
//!
//! Goal: `question_to_phone_ms` ≤ 1000. Run with `cargo bench -p hark-core --bench phone`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::host::Host;
use hark_core::phone::{self, settings, BotToken, PairedUser};
use hark_core::service::{ForwardingProvider, QuestionEvent};
use hark_test_support::models::DemoModels;
use hark_test_support::telegram::Emulator;

const TOKEN: &str = "1:bench-token";
const QUESTIONS: usize = 15;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().expect("a temp dir");
    settings::update(dir.path(), |s| {
        s.api_url = emulator.url.clone();
        s.delay_secs = 0;
        s.paired = Some(PairedUser { user_id: "1".into(), chat_id: "1".into(), name: "bench".into() });
    })
    .expect("phone settings");
    let (surface, requests) = ForwardingProvider::new();
    // Kept open: a closed channel would refuse every question.
    std::mem::forget(requests);
    let host =
        Arc::new(Host::start(dir.path(), Arc::new(surface), Arc::new(DemoModels::script("blocking"))).expect("a host"));
    let relay = phone::start(&host, BotToken::new(TOKEN));
    let mut events = host.service().subscribe();
    let mut took = Vec::new();
    for n in 0..QUESTIONS {
        host.start_session("publish it", None).expect("a session");
        loop {
            if let Ok(QuestionEvent::Requested { .. }) = events.recv().await {
                break;
            }
        }
        let asked = Instant::now();
        while emulator.bot_messages(TOKEN).await.len() <= n {
            assert!(asked.elapsed() < Duration::from_secs(20), "the question never reached the emulator");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        took.push(asked.elapsed().as_secs_f64() * 1000.0);
    }
    took.sort_by(f64::total_cmp);
    println!("question_to_phone_ms {:.0} ms", took[took.len() / 2]);
    drop(relay);
    host.shutdown().await;
}
