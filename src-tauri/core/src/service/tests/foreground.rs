//! Blocking questions answered, cancelled or aborted through the pending table.

use std::sync::Arc;

use super::support::*;
use crate::question::{ErrorCode, UserInteractionError};
use crate::service::{Outcome, QuestionEvent, ServiceStats};

#[tokio::test(start_paused = true)]
async fn batched_multi_select_custom_and_skip_answers_come_back_as_given() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("c1", vec![db_question(), extras_question(), name_question()])).await }
    });
    let request = rx.recv().await.expect("forwarded");
    assert_eq!(request.questions.len(), 3);
    let answers = batch(vec![
        custom("name", "hark-demo"),
        pick("extras", &["Docs", "Benchmarks"]),
        pick("db", &[]), // explicit skip
    ]);
    f.service.submit_foreground(SESSION, "c1", answers.clone()).expect("accepted");
    assert_eq!(ask.await.expect("join").expect("answered"), answers);
    assert!(request.abort.is_cancelled());
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn a_bad_batch_is_refused_and_the_question_stays_open() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("c1", vec![db_question(), name_question()])).await }
    });
    rx.recv().await.expect("forwarded");
    let missing_one = batch(vec![pick("db", &["SQLite"])]);
    let unknown_label = batch(vec![pick("db", &["MySQL"]), custom("name", "x")]);
    let two_on_single = batch(vec![pick("db", &["SQLite", "Postgres"]), custom("name", "x")]);
    for bad in [missing_one, unknown_label, two_on_single] {
        let r = f.service.submit_foreground(SESSION, "c1", bad);
        assert_eq!(code(r), ErrorCode::BadAnswer);
    }
    assert_eq!(f.service.foreground(Some(SESSION)).len(), 1, "still waiting after bad batches");
    let good = batch(vec![pick("db", &["Postgres"]), custom("name", "x")]);
    f.service.submit_foreground(SESSION, "c1", good.clone()).expect("accepted");
    assert_eq!(ask.await.expect("join").expect("answered"), good);
}

#[tokio::test(start_paused = true)]
async fn the_second_submission_gets_not_pending() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("c1", vec![db_question()])).await }
    });
    rx.recv().await.expect("forwarded");
    f.service.submit_foreground(SESSION, "c1", sqlite()).expect("first wins");
    let late = f.service.submit_foreground(SESSION, "c1", batch(vec![pick("db", &["Postgres"])]));
    assert_eq!(code(late), ErrorCode::NotPending);
    assert_eq!(code(f.service.cancel(SESSION, "c1")), ErrorCode::NotPending);
    assert_eq!(ask.await.expect("join").expect("answered"), sqlite());
}

#[tokio::test(start_paused = true)]
async fn cancel_ends_a_blocking_question_with_cancelled() {
    let (f, _reg, mut rx) = with_forwarding();
    let mut events = f.service.subscribe();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("c1", vec![db_question()])).await }
    });
    rx.recv().await.expect("forwarded");
    f.service.cancel(SESSION, "c1").expect("cancelled");
    assert_eq!(code(ask.await.expect("join")), ErrorCode::AskCancelled);
    assert!(matches!(events.recv().await, Ok(QuestionEvent::Requested { request }) if request.call_id == "c1"));
    assert!(matches!(
        events.recv().await,
        Ok(QuestionEvent::Resolved { call_id, outcome: Outcome::Cancelled, .. }) if call_id == "c1"
    ));
}

#[tokio::test(start_paused = true)]
async fn parent_abort_ends_the_wait_with_aborted() {
    let holding = Arc::new(Holding::default());
    let f = fixture();
    let _reg = f.service.register(holding.clone()).expect("registers");
    let p = params("c1", vec![db_question()]);
    let abort = p.abort.clone();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(p).await }
    });
    settle_tasks().await;
    abort.cancel();
    assert_eq!(code(ask.await.expect("join")), ErrorCode::AskAborted);
    assert!(holding.all_released());
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_ask_future_leaves_nothing_behind() {
    let (f, _reg, mut rx) = with_forwarding();
    let mut events = f.service.subscribe();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(params("c1", vec![db_question()]), std::time::Duration::from_secs(30)).await }
    });
    let request = rx.recv().await.expect("forwarded");
    let _takeover = f.service.attach(SESSION, "c1").expect("attached");
    assert_eq!(f.service.stats().takeovers, 1);
    ask.abort();
    assert!(ask.await.expect_err("aborted task").is_cancelled());
    assert_eq!(
        f.service.stats(),
        ServiceStats { providers: 1, steer_channels: 1, ..ServiceStats::default() },
        "entry, timer and take-over are gone although the take-over handle still lives"
    );
    assert!(request.abort.is_cancelled());
    let _requested = events.recv().await;
    assert!(matches!(events.recv().await, Ok(QuestionEvent::Resolved { outcome: Outcome::Aborted, .. })));
}

#[tokio::test(start_paused = true)]
async fn a_provider_answer_that_does_not_fit_fails_the_call() {
    let f = fixture();
    let _reg = f.service.register(Scripted::new(Ok(batch(vec![pick("nope", &[])])))).expect("registers");
    let r = f.service.ask(params("c1", vec![db_question()])).await;
    let err = r.expect_err("misfit");
    assert_eq!(err.code, ErrorCode::BadAnswer);
    assert!(err.message.contains("provider"), "{}", err.message);
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn provider_errors_propagate_unchanged() {
    let f = fixture();
    let failure = UserInteractionError::new(ErrorCode::AskCancelled, "closed in the terminal");
    let _reg = f.service.register(Scripted::new(Err(failure.clone()))).expect("registers");
    let r = f.service.ask(params("c1", vec![db_question()])).await;
    assert_eq!(r, Err(failure));
}

#[tokio::test(start_paused = true)]
async fn reconnecting_surfaces_see_the_waiting_requests() {
    let (f, _reg, mut rx) = with_forwarding();
    let other = f.service.set_live_root("s-2", "agent-2");
    let asks: Vec<_> = [("c2", SESSION), ("c1", SESSION), ("x", "s-2")]
        .into_iter()
        .map(|(call, session)| {
            let s = f.service.clone();
            let mut p = params(call, vec![db_question()]);
            p.caller = crate::service::Caller::root(session, if session == SESSION { ROOT } else { "agent-2" });
            tokio::spawn(async move { s.ask(p).await })
        })
        .collect();
    for _ in 0..3 {
        rx.recv().await.expect("forwarded");
    }
    let mine: Vec<String> = f.service.foreground(Some(SESSION)).into_iter().map(|r| r.call_id).collect();
    assert_eq!(mine, ["c1", "c2"]);
    assert_eq!(f.service.foreground(None).len(), 3);
    f.service.shutdown();
    for ask in asks {
        assert_eq!(code(ask.await.expect("join")), ErrorCode::AskAborted);
    }
    drop(other);
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn respond_uses_the_foreground_while_the_question_waits_there() {
    let (f, _reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask(params("c1", vec![db_question()])).await }
    });
    rx.recv().await.expect("forwarded");
    let path = f.service.respond(SESSION, "c1", sqlite()).expect("accepted");
    assert_eq!(path, crate::service::Responded::Foreground);
    assert_eq!(ask.await.expect("join").expect("answered"), sqlite());
    let again = f.service.respond(SESSION, "c1", sqlite()).expect_err("settled");
    assert_eq!(again.interaction_code(), Some(ErrorCode::NotPending));
}
