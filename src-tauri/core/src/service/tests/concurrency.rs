//! First wins under real parallelism: many threads racing to settle one question.

use std::sync::Arc;

use tokio::sync::Barrier;

use super::support::*;
use crate::question::ErrorCode;
use crate::service::ServiceStats;

const RACERS: usize = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn a_thousand_concurrent_submissions_have_exactly_one_winner() {
    let (f, reg, mut rx) = with_forwarding();
    let ask = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(params("c1", vec![name_question()]), std::time::Duration::from_secs(60)).await }
    });
    rx.recv().await.expect("forwarded");
    let takeover = f.service.attach(SESSION, "c1").expect("attached");

    let barrier = Arc::new(Barrier::new(RACERS));
    let racers: Vec<_> = (0..RACERS)
        .map(|i| {
            let s = f.service.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                let answer = batch(vec![custom("name", &format!("racer {i}"))]);
                (answer.clone(), s.submit_foreground(SESSION, "c1", answer))
            })
        })
        .collect();
    let mut winners = Vec::new();
    let mut not_pending = 0;
    for racer in racers {
        let (answer, result) = racer.await.expect("join");
        match result {
            Ok(()) => winners.push(answer),
            Err(e) if e.code == ErrorCode::NotPending => not_pending += 1,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(winners.len(), 1);
    assert_eq!(not_pending, RACERS - 1);
    assert_eq!(ask.await.expect("join").expect("answered"), winners[0], "the asker gets the winner's batch");
    drop(takeover);
    drop(reg);
    assert_eq!(f.service.stats(), ServiceStats { steer_channels: 1, ..ServiceStats::default() });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn concurrent_questions_all_settle_and_release_everything() {
    let (f, _reg, mut rx) = with_forwarding();
    let asks: Vec<_> = (0..200)
        .map(|i| {
            let s = f.service.clone();
            tokio::spawn(async move {
                let p = params(&format!("c{i}"), vec![db_question()]);
                if i % 2 == 0 {
                    s.ask(p).await
                } else {
                    s.ask_timed(p, std::time::Duration::from_secs(3600)).await
                }
            })
        })
        .collect();
    let answerer = tokio::spawn({
        let s = f.service.clone();
        async move {
            for n in 0..200 {
                let request = rx.recv().await.expect("forwarded");
                if n % 3 == 0 {
                    s.cancel(&request.session_id, &request.call_id).expect("cancel");
                } else {
                    s.submit_foreground(&request.session_id, &request.call_id, sqlite()).expect("answer");
                }
            }
        }
    });
    let mut answered = 0;
    for ask in asks {
        match ask.await.expect("join") {
            Ok(b) => {
                assert_eq!(b, sqlite());
                answered += 1;
            }
            Err(e) => assert_eq!(e.code, ErrorCode::AskCancelled),
        }
    }
    answerer.await.expect("join");
    assert_eq!(answered, 200 - 67);
    let stats = f.service.stats();
    assert_eq!((stats.pending_waits, stats.timers, stats.takeovers), (0, 0, 0));
}
