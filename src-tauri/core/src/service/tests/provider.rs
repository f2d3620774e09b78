//! Registration, disposal and the checks that happen before a provider is involved.

use std::sync::Arc;

use super::support::*;
use crate::question::ErrorCode;
use crate::service::{ForwardingProvider, ServiceStats};

#[tokio::test(start_paused = true)]
async fn second_provider_is_refused_until_the_first_is_disposed() {
    let f = fixture();
    let first = f.service.register(Scripted::new(Ok(sqlite()))).expect("first registers");
    assert_eq!(f.service.stats().providers, 1);
    let second = f.service.register(Scripted::new(Ok(sqlite())));
    assert_eq!(second.expect_err("duplicate").code, ErrorCode::DuplicateProvider);
    first.dispose();
    assert_eq!(f.service.stats().providers, 0);
    let again = f.service.register(Scripted::new(Ok(sqlite())));
    assert!(again.is_ok(), "the slot is free again after disposal");
}

#[tokio::test(start_paused = true)]
async fn registered_provider_answers_and_sees_the_request() {
    let f = fixture();
    let provider = Scripted::new(Ok(sqlite()));
    let _reg = f.service.register(provider.clone()).expect("registers");
    let answer = f.service.ask(params("c1", vec![db_question()])).await.expect("answered");
    assert_eq!(answer, sqlite());
    let seen = provider.seen.lock().expect("lock");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].call_id, "c1");
    assert_eq!(seen[0].session_id, SESSION);
    assert_eq!(seen[0].caller.agent_instance_id, ROOT);
    assert!(seen[0].wait.is_none(), "a blocking ask carries no wait info");
    assert!(seen[0].abort.is_cancelled(), "the provider is released once the call settles");
    drop(seen);
    assert_eq!(f.service.stats(), ServiceStats { providers: 1, steer_channels: 1, ..ServiceStats::default() });
}

#[tokio::test(start_paused = true)]
async fn disposal_rejects_every_held_question_with_aborted() {
    let f = fixture();
    let holding = Arc::new(Holding::default());
    let reg = f.service.register(holding.clone()).expect("registers");
    let a = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("a", vec![db_question()])).await }
    });
    let b = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(params("b", vec![db_question()]), std::time::Duration::from_secs(60)).await }
    });
    settle_tasks().await;
    assert_eq!(holding.asked(), 2);
    assert_eq!(f.service.stats().pending_waits, 2);
    reg.dispose();
    assert_eq!(code(a.await.expect("join")), ErrorCode::AskAborted);
    assert_eq!(code(b.await.expect("join")), ErrorCode::AskAborted);
    assert!(holding.all_released());
    assert_eq!(f.service.stats(), ServiceStats { steer_channels: 1, ..ServiceStats::default() });
}

#[tokio::test(start_paused = true)]
async fn blocking_ask_without_provider_fails_at_once() {
    let f = fixture();
    let start = tokio::time::Instant::now();
    let r = f.service.ask(params("c1", vec![db_question()])).await;
    assert_eq!(code(r), ErrorCode::NoProvider);
    assert_eq!(start.elapsed(), std::time::Duration::ZERO);
    assert_eq!(f.service.stats(), ServiceStats { steer_channels: 1, ..ServiceStats::default() });
}

#[tokio::test(start_paused = true)]
async fn abort_before_a_provider_exists_reports_aborted_not_no_provider() {
    let f = fixture();
    let p = params("c1", vec![db_question()]);
    p.abort.cancel();
    assert_eq!(code(f.service.ask(p.clone()).await), ErrorCode::AskAborted);
    assert_eq!(code(f.service.ask_timed(p, std::time::Duration::from_secs(5)).await), ErrorCode::AskAborted);
    assert_eq!(f.service.stats(), ServiceStats { steer_channels: 1, ..ServiceStats::default() });
}

#[tokio::test(start_paused = true)]
async fn empty_questions_are_an_invalid_request() {
    let f = fixture();
    let _reg = f.service.register(Scripted::new(Ok(sqlite()))).expect("registers");
    let r = f.service.ask(params("c1", vec![])).await;
    assert_eq!(code(r), ErrorCode::InvalidRequest);
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn forwarding_provider_whose_surface_is_gone_reports_no_provider() {
    let f = fixture();
    let (provider, rx) = ForwardingProvider::new();
    drop(rx);
    let _reg = f.service.register(Arc::new(provider)).expect("registers");
    let r = f.service.ask(params("c1", vec![db_question()])).await;
    assert_eq!(code(r), ErrorCode::NoProvider);
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn same_call_id_cannot_wait_twice_in_a_session() {
    let (f, _reg, mut rx) = with_forwarding();
    let first = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("dup", vec![db_question()])).await }
    });
    rx.recv().await.expect("first request forwarded");
    let second = f.service.ask(params("dup", vec![db_question()])).await;
    assert_eq!(code(second), ErrorCode::InvalidRequest);
    // The refused duplicate must not have disturbed the first question.
    f.service.submit_foreground(SESSION, "dup", sqlite()).expect("first still pending");
    assert_eq!(first.await.expect("join").expect("answered"), sqlite());
    assert_eq!(f.service.stats().timers, 0);
}
