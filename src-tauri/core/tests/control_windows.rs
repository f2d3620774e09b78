//! The control pipe on Windows (run under Wine on Linux): a request is answered, every instance is
//! renewed for the next client, bad input gets a clear refusal, and a stopped server is simply not
//! there.
#![cfg(windows)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;

use hark_core::control::{self, ControlError, Handler, Reply, Request};
use hark_core::host::AnswerPath;
use hark_core::question::AnswerBatch;

/// Answers every request late, naming the call it was given.
fn handler() -> Handler {
    Arc::new(|request, _gone| {
        let reply = match request {
            Request::Answer { session, call_id, .. } => {
                Reply::Answered { session_id: format!("{session}/{call_id}"), path: AnswerPath::Late }
            }
            other => panic!("this test sends only answers, not {other:?}"),
        };
        control::single(std::future::ready(reply))
    })
}

fn answer(call_id: &str) -> Request {
    Request::Answer {
        session: "s1".into(),
        call_id: call_id.into(),
        answers: AnswerBatch { answers: vec![] },
        path: None,
    }
}

async fn ask(dir: &Path, request: Request) -> Result<Reply, ControlError> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || control::request(&dir, &request)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_answered_one_after_another_and_a_stopped_server_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let server = control::serve(dir.path(), handler()).unwrap();
    for n in 0..5 {
        let reply = ask(dir.path(), answer(&format!("c{n}"))).await.unwrap();
        assert_eq!(reply, Reply::Answered { session_id: format!("s1/c{n}"), path: AnswerPath::Late });
    }

    // A line that is not a request gets the refusal, not a dropped connection.
    let name = control::pipe_name(dir.path());
    let raw = tokio::task::spawn_blocking(move || {
        let mut pipe = std::fs::OpenOptions::new().read(true).write(true).open(&name).unwrap();
        pipe.write_all(b"{\"op\":\"delete_everything\"}\n").unwrap();
        let mut line = String::new();
        BufReader::new(pipe).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let reply: Reply = serde_json::from_str(&raw).unwrap();
    assert!(matches!(reply, Reply::Refused { ref error } if error.code == "BAD_REQUEST"), "{reply:?}");

    server.shutdown().await;
    let gone = ask(dir.path(), answer("late")).await.unwrap_err();
    assert!(matches!(gone, ControlError::Unavailable { .. }), "{gone:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_at_the_same_moment_each_get_their_own_reply() {
    let dir = tempfile::tempdir().unwrap();
    let server = control::serve(dir.path(), handler()).unwrap();
    let asks: Vec<_> = (0..4).map(|n| ask(dir.path(), answer(&format!("p{n}")))).collect();
    let replies = futures_util::future::join_all(asks).await;
    for (n, reply) in replies.into_iter().enumerate() {
        assert_eq!(reply.unwrap(), Reply::Answered { session_id: format!("s1/p{n}"), path: AnswerPath::Late });
    }
    server.shutdown().await;
}
