//! Shared fixtures: a service with an in-memory log, a live root, sample questions, and providers
//! that answer on cue.

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::question::{Answer, AnswerBatch, ErrorCode, Question, QuestionOption, UserInteractionError};
use crate::service::{
    AskParams, BoxFuture, Caller, ForwardingProvider, InteractionProvider, InteractionRequest, MemoryLog,
    ProviderRegistration, SteerReceiver, UserQuestionService,
};

pub const SESSION: &str = "s-1";
pub const ROOT: &str = "agent-1";

pub struct Fixture {
    pub service: UserQuestionService,
    pub log: Arc<MemoryLog>,
    pub steer: SteerReceiver,
}

/// A service whose session `SESSION` has `ROOT` as live root, with no provider yet.
pub fn fixture() -> Fixture {
    let log = Arc::new(MemoryLog::new());
    let service = UserQuestionService::new(log.clone());
    let steer = service.set_live_root(SESSION, ROOT);
    Fixture { service, log, steer }
}

/// A service with a forwarding provider: requests arrive on the returned channel, answers go back
/// through the pending table like the desktop panel's.
pub fn with_forwarding() -> (Fixture, ProviderRegistration, mpsc::UnboundedReceiver<InteractionRequest>) {
    let f = fixture();
    let (provider, rx) = ForwardingProvider::new();
    let reg = f.service.register(Arc::new(provider)).expect("first provider registers");
    (f, reg, rx)
}

pub fn db_question() -> Question {
    Question {
        id: "db".into(),
        question: "Which database?".into(),
        header: Some("Database".into()),
        options: vec![
            QuestionOption { label: "SQLite".into(), description: Some("embedded".into()) },
            QuestionOption { label: "Postgres".into(), description: None },
        ],
        multi_select: false,
    }
}

pub fn extras_question() -> Question {
    Question {
        id: "extras".into(),
        question: "Which extras?".into(),
        header: None,
        options: vec![
            QuestionOption { label: "Docs".into(), description: None },
            QuestionOption { label: "CI".into(), description: None },
            QuestionOption { label: "Benchmarks".into(), description: None },
        ],
        multi_select: true,
    }
}

pub fn name_question() -> Question {
    Question { id: "name".into(), question: "Project name?".into(), header: None, options: vec![], multi_select: false }
}

pub fn pick(id: &str, labels: &[&str]) -> Answer {
    Answer { id: id.into(), selected: labels.iter().map(|l| l.to_string()).collect(), custom: None }
}

pub fn custom(id: &str, text: &str) -> Answer {
    Answer { id: id.into(), selected: vec![], custom: Some(text.into()) }
}

pub fn batch(answers: Vec<Answer>) -> AnswerBatch {
    AnswerBatch { answers }
}

pub fn sqlite() -> AnswerBatch {
    batch(vec![pick("db", &["SQLite"])])
}

pub fn params(call_id: &str, questions: Vec<Question>) -> AskParams {
    AskParams {
        call_id: call_id.into(),
        caller: Caller::root(SESSION, ROOT),
        intent: crate::question::Intent::Question,
        questions,
        abort: CancellationToken::new(),
    }
}

pub fn code<T: std::fmt::Debug>(r: Result<T, UserInteractionError>) -> ErrorCode {
    r.expect_err("expected an error").code
}

/// A provider that answers every request with a fixed result, recording what it was asked.
pub struct Scripted {
    pub reply: Result<AnswerBatch, UserInteractionError>,
    pub seen: Mutex<Vec<InteractionRequest>>,
}

impl Scripted {
    pub fn new(reply: Result<AnswerBatch, UserInteractionError>) -> Arc<Self> {
        Arc::new(Scripted { reply, seen: Mutex::new(Vec::new()) })
    }
}

impl InteractionProvider for Scripted {
    fn ask(&self, request: InteractionRequest) -> BoxFuture<'_, Result<AnswerBatch, UserInteractionError>> {
        self.seen.lock().expect("test lock").push(request);
        let reply = self.reply.clone();
        Box::pin(async move { reply })
    }
}

/// A provider that never answers by itself and keeps each request's abort token: models a stdio
/// prompt that must learn when the service stops wanting an answer.
#[derive(Default)]
pub struct Holding {
    pub tokens: Mutex<Vec<(String, CancellationToken)>>,
}

impl Holding {
    pub fn all_released(&self) -> bool {
        self.tokens.lock().expect("test lock").iter().all(|(_, t)| t.is_cancelled())
    }

    pub fn asked(&self) -> usize {
        self.tokens.lock().expect("test lock").len()
    }
}

impl InteractionProvider for Holding {
    fn ask(&self, request: InteractionRequest) -> BoxFuture<'_, Result<AnswerBatch, UserInteractionError>> {
        self.tokens.lock().expect("test lock").push((request.call_id.clone(), request.abort.clone()));
        Box::pin(std::future::pending())
    }
}

/// Lets spawned tasks run until they block, without moving the paused clock.
pub async fn settle_tasks() {
    for _ in 0..16 {
        tokio::task::yield_now().await;
    }
}
