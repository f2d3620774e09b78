//! Timed questions: the host deadline, take-overs pausing it, and the move to continued.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{sleep, Instant};

use super::support::*;
use crate::question::{AnswerBatch, ErrorCode, UserInteractionError};
use crate::service::{Outcome, QuestionEvent, ServiceStats, UserQuestionService};

const TIMEOUT: Duration = Duration::from_secs(10);

fn spawn_timed(service: &UserQuestionService, call_id: &str) -> JoinHandle<Result<AnswerBatch, UserInteractionError>> {
    let s = service.clone();
    let p = params(call_id, vec![db_question()]);
    tokio::spawn(async move { s.ask_timed(p, TIMEOUT).await })
}

/// Awaits the ask and returns how long after `start` it finished.
async fn finished_after(
    ask: JoinHandle<Result<AnswerBatch, UserInteractionError>>,
    start: Instant,
) -> (Result<AnswerBatch, UserInteractionError>, Duration) {
    let r = ask.await.expect("join");
    (r, start.elapsed())
}

#[tokio::test(start_paused = true)]
async fn unattached_question_times_out_at_its_deadline_and_continues() {
    let (f, _reg, mut rx) = with_forwarding();
    let mut events = f.service.subscribe();
    let start = Instant::now();
    let ask = spawn_timed(&f.service, "c1");
    let request = rx.recv().await.expect("forwarded");
    let wait = request.wait.clone().expect("a timed request carries wait info");
    assert_eq!((wait.call_id.as_str(), wait.timed, wait.timeout_ms), ("c1", true, 10_000));
    assert_eq!(f.service.stats().timers, 1);
    let (r, took) = finished_after(ask, start).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    assert_eq!(took, TIMEOUT);
    assert!(request.abort.is_cancelled(), "the panel is told the foreground ended");
    let _requested = events.recv().await;
    assert!(matches!(events.recv().await, Ok(QuestionEvent::Resolved { outcome: Outcome::TimedOut, .. })));
    assert_eq!(
        f.service.stats(),
        ServiceStats { providers: 1, steer_channels: 1, ..ServiceStats::default() },
        "timer and pending entry released: the question lives on in the log once its pending result is recorded"
    );
}

#[tokio::test(start_paused = true)]
async fn attached_question_does_not_expire_while_held() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = spawn_timed(&f.service, "c1");
    rx.recv().await.expect("forwarded");
    sleep(Duration::from_secs(4)).await;
    let attached = f.service.attach(SESSION, "c1").expect("attached");
    assert_eq!(attached.remaining_ms, Some(6_000), "remaining time is computed by the host");
    sleep(Duration::from_secs(3600)).await;
    assert!(!ask.is_finished(), "no host expiry while a client holds the question");
    assert_eq!(f.service.stats().takeovers, 1);
    f.service.submit_foreground(SESSION, "c1", sqlite()).expect("the client's answer still counts");
    assert_eq!(ask.await.expect("join").expect("answered"), sqlite());
    assert_eq!(f.service.stats().takeovers, 0, "settling drops the take-over the client still holds");
    drop(attached);
    assert_eq!(f.service.stats().takeovers, 0, "releasing an inert take-over changes nothing");
}

#[tokio::test(start_paused = true)]
async fn last_takeover_leaving_after_the_deadline_expires_at_once() {
    let (f, _reg, mut rx) = with_forwarding();
    let start = Instant::now();
    let ask = spawn_timed(&f.service, "c1");
    rx.recv().await.expect("forwarded");
    sleep(Duration::from_secs(2)).await;
    let a = f.service.attach(SESSION, "c1").expect("first client");
    let b = f.service.attach(SESSION, "c1").expect("second client");
    assert_ne!(a.takeover.id(), b.takeover.id());
    sleep(Duration::from_secs(3)).await;
    a.takeover.release();
    sleep(Duration::from_secs(20)).await;
    assert!(!ask.is_finished(), "one take-over is still held");
    // t = 25 s: the original deadline (t = 10 s) passed while paused, and pausing never moves it.
    drop(b);
    let (r, took) = finished_after(ask, start).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    assert_eq!(took, Duration::from_secs(25), "expiry is immediate on the last release");
}

#[tokio::test(start_paused = true)]
async fn last_takeover_leaving_before_the_deadline_resumes_the_original_one() {
    let (f, _reg, mut rx) = with_forwarding();
    let start = Instant::now();
    let ask = spawn_timed(&f.service, "c1");
    rx.recv().await.expect("forwarded");
    sleep(Duration::from_secs(2)).await;
    let attached = f.service.attach(SESSION, "c1").expect("attached");
    sleep(Duration::from_secs(5)).await;
    drop(attached); // t = 7 s: 3 s remain on the original deadline, not 8 s
    let (r, took) = finished_after(ask, start).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    assert_eq!(took, TIMEOUT);
}

#[tokio::test(start_paused = true)]
async fn the_client_countdown_can_time_the_question_out() {
    let (f, _reg, mut rx) = with_forwarding();
    let start = Instant::now();
    let ask = spawn_timed(&f.service, "c1");
    rx.recv().await.expect("forwarded");
    let attached = f.service.attach(SESSION, "c1").expect("attached");
    sleep(Duration::from_secs(45)).await; // the person focused the empty answer area for a while
    f.service.expire(SESSION, "c1").expect("client countdown ran out");
    let (r, took) = finished_after(ask, start).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    assert_eq!(took, Duration::from_secs(45));
    drop(attached);
    assert_eq!(f.service.stats().takeovers, 0);
}

#[tokio::test(start_paused = true)]
async fn expire_is_refused_on_a_blocking_question() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("c1", vec![db_question()])).await }
    });
    rx.recv().await.expect("forwarded");
    assert_eq!(code(f.service.expire(SESSION, "c1")), ErrorCode::InvalidRequest);
    // A plain blocking question ends with its turn when the host quits; it does not continue.
    assert_eq!(code(f.service.continue_on_quit(SESSION, "c1")), ErrorCode::InvalidRequest);
    let attached = f.service.attach(SESSION, "c1").expect("attaching a blocking question is harmless");
    assert_eq!(attached.remaining_ms, None);
    f.service.cancel(SESSION, "c1").expect("cancel");
    assert_eq!(code(ask.await.expect("join")), ErrorCode::AskCancelled);
    assert_eq!(code(f.service.expire(SESSION, "c1")), ErrorCode::NotPending);
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_timed_question_does_not_continue_it() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = spawn_timed(&f.service, "c1");
    rx.recv().await.expect("forwarded");
    f.service.cancel(SESSION, "c1").expect("cancel");
    assert_eq!(code(ask.await.expect("join")), ErrorCode::AskCancelled);
    assert_eq!(f.service.stats().timers, 0);
}

#[tokio::test(start_paused = true)]
async fn parent_abort_of_a_timed_question_is_aborted_not_pending() {
    let (f, _reg, mut rx) = with_forwarding();
    let p = params("c1", vec![db_question()]);
    let abort = p.abort.clone();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(p, TIMEOUT).await }
    });
    rx.recv().await.expect("forwarded");
    sleep(Duration::from_secs(3)).await;
    abort.cancel();
    assert_eq!(code(ask.await.expect("join")), ErrorCode::AskAborted);
    assert_eq!(f.service.stats().timers, 0);
}

#[tokio::test(start_paused = true)]
async fn without_a_provider_a_timed_question_waits_its_deadline_then_continues() {
    let f = fixture();
    let start = Instant::now();
    let ask = spawn_timed(&f.service, "c1");
    settle_tasks().await;
    assert_eq!(f.service.foreground(Some(SESSION)).len(), 1, "visible to surfaces that subscribe");
    let (r, took) = finished_after(ask, start).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    assert_eq!(took, TIMEOUT);
}

#[tokio::test(start_paused = true)]
async fn a_provider_reporting_no_provider_does_not_cut_a_timed_wait_short() {
    let f = fixture();
    let no_surface = UserInteractionError::new(ErrorCode::NoProvider, "window closed");
    let _reg = f.service.register(Scripted::new(Err(no_surface))).expect("registers");
    let start = Instant::now();
    let ask = spawn_timed(&f.service, "c1");
    settle_tasks().await;
    // A surface that appears meanwhile can still take the question over and answer it.
    let attached = f.service.attach(SESSION, "c1").expect("attached");
    sleep(Duration::from_secs(30)).await;
    f.service.submit_foreground(SESSION, "c1", sqlite()).expect("answered");
    let (r, took) = finished_after(ask, start).await;
    assert_eq!(r.expect("answered"), sqlite());
    assert_eq!(took, Duration::from_secs(30));
    drop(attached);
    assert_eq!(f.service.stats(), ServiceStats { providers: 1, steer_channels: 1, ..ServiceStats::default() });
}

#[tokio::test(start_paused = true)]
async fn attach_after_settlement_is_not_pending() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = spawn_timed(&f.service, "c1");
    rx.recv().await.expect("forwarded");
    f.service.submit_foreground(SESSION, "c1", sqlite()).expect("answered");
    ask.await.expect("join").expect("answered");
    assert_eq!(code(f.service.attach(SESSION, "c1")), ErrorCode::NotPending);
}

#[tokio::test(start_paused = true)]
async fn a_deadline_beyond_the_clock_is_a_long_wait_not_a_panic() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        let p = params("c1", vec![db_question()]);
        async move { s.ask_timed(p, Duration::MAX).await }
    });
    let request = tokio::time::timeout(Duration::from_secs(1), rx.recv())
        .await
        .expect("the question reaches the provider")
        .expect("forwarded");
    assert_eq!(request.wait.map(|w| w.timeout_ms), Some(u64::MAX));
    assert_eq!(f.service.stats().timers, 1, "still a timed wait");
    sleep(Duration::from_secs(365 * 24 * 60 * 60)).await;
    assert!(!ask.is_finished(), "a year later the deadline is still ahead");
    let attached = f.service.attach(SESSION, "c1").expect("attached");
    assert_eq!(attached.remaining_ms, Some(u64::MAX), "as far away as the count can say");
    drop(attached);
    f.service.submit_foreground(SESSION, "c1", sqlite()).expect("answered");
    assert_eq!(ask.await.expect("join").expect("the answer is taken"), sqlite());
    assert_eq!(f.service.stats().timers, 0);
}
