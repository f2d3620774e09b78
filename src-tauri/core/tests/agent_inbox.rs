//! Input the agent accepted but has not admitted yet: a message typed while it is busy, and a late
//! answer queued while a turn runs. Both are in the log from the moment they are accepted, so a
//! Stop, a Quit or a SIGKILL never loses them: the next turn (or the next open) admits them.
//!
//! The kill tests re-run this test binary as a child (filtered to `child_agent`, told what to do
//! through environment variables). The child drives a real agent to the moment under test, prints a
//! marker, and is SIGKILLed; the parent reopens the data directory with a fresh store, service and
//! agent and checks what reaches the model.

mod child_process;

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use child_process::spawn_until_ready;
use hark_core::agent::{Agent, AgentDeps};
use hark_core::model::{OpenAiConfig, OpenAiProvider};
use hark_core::question::{Answer, AnswerBatch, ErrorCode, ToolMode};
use hark_core::service::{
    ForwardingProvider, InteractionRequest, ProviderRegistration, SessionLog, UserQuestionService,
};
use hark_core::session::{project_questions, Event, QuestionState, Store, StoredEvent};
use hark_test_support::agent::*;
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;

const CHILD_SCENARIO: &str = "HARK_INBOX_TEST_CHILD_SCENARIO";
const CHILD_DIR: &str = "HARK_INBOX_TEST_CHILD_DIR";
const CHILD_SESSION: &str = "HARK_INBOX_TEST_CHILD_SESSION";
const READY: &str = "HARK_INBOX_CHILD_READY";

const TYPED: &str = "also use docker";

/// A store, question service and model client over `dir`, as one process of Hark has them.
struct Process {
    store: Arc<Store>,
    service: UserQuestionService,
    deps: AgentDeps,
    requests: UnboundedReceiver<InteractionRequest>,
    _provider: ProviderRegistration,
}

fn process_at(dir: &Path, server: &TestServer) -> Process {
    let store = Arc::new(Store::open(dir).unwrap());
    let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
    let (provider, requests) = ForwardingProvider::new();
    let registration = service.register(Arc::new(provider)).unwrap();
    let mut config = OpenAiConfig::new(server.base_url(), "test-model", None);
    config.backoff_base = Duration::from_millis(5);
    config.max_backoff = Duration::from_millis(20);
    config.read_timeout = Duration::from_secs(10);
    let model = Arc::new(OpenAiProvider::new(config).unwrap());
    let deps = AgentDeps { store: store.clone(), service: service.clone(), model };
    Process { store, service, deps, requests, _provider: registration }
}

fn sqlite() -> AnswerBatch {
    AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }] }
}

/// The first step asks a timed question that runs out after a second; the model then says it
/// waits; the next turn's model stream never ends, so that turn keeps running.
fn timed_then_held() -> Vec<Reply> {
    let first = format!("data: {}\n\n", chunk(json!({ "content": "Working on it" }), None));
    vec![
        tool_reply("Asking.", &[("call_t", "ask_user_question", ask_args(db_question(), Some(1)))]),
        text_reply("Waiting for your answer."),
        Reply::sse_pieces(&[(0, &first)], Ending::Hold),
    ]
}

async fn idle(agent: &Agent) {
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.expect("the agent went idle");
}

/// Leaves `agent` inside a running turn (its model stream held) with a late answer to `call_t`
/// and a typed message both queued for the next step boundary (the answer recorded first).
async fn queue_both_during_a_running_turn(h: &Harness, agent: &Agent) {
    agent.steer("plan the app").unwrap();
    idle(agent).await;
    assert_eq!(project_questions(&h.events(agent))[0].state, QuestionState::Continued);
    agent.steer("keep going").unwrap();
    // The held step started once its request reached the server.
    h.server.wait_for_requests(3).await;
    h.service.answer(agent.session_id(), "call_t", sqlite()).expect("the late answer is queued");
    agent.steer(TYPED).unwrap();
}

/// The typed `text` was queued in the inbox and then admitted once, under the same message id.
fn assert_queued_then_admitted(events: &[StoredEvent], text: &str) {
    let queued: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::InboxQueued { message_id, text: t, .. } if t == text => Some(message_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(queued.len(), 1, "{text:?} was queued once");
    let admitted: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::UserMessage { message_id, text: t, .. } if t == text => Some(message_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(admitted, queued, "{text:?} was admitted once, under its inbox id");
}

/// The user messages at the end of a request the model received.
fn trailing_user_texts(messages: &[Value], n: usize) -> Vec<String> {
    let tail = &messages[messages.len() - n..];
    assert!(tail.iter().all(|m| m["role"] == "user"), "{tail:#?}");
    tail.iter().map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

fn turn_ends(events: &[StoredEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::TurnEnded { reason, .. } => Some(reason.as_str()),
            _ => None,
        })
        .collect()
}

/// The child's body: drives an agent to the scenario's moment, then waits to be killed. A no-op in
/// an ordinary test run.
#[test]
fn child_agent() {
    let (Ok(scenario), Some(dir), Ok(session)) =
        (std::env::var(CHILD_SCENARIO), std::env::var_os(CHILD_DIR), std::env::var(CHILD_SESSION))
    else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let dir = std::path::PathBuf::from(dir);
        match scenario.as_str() {
            "typed" => {
                let server = TestServer::start(vec![tool_reply(
                    "",
                    &[("call_b", "ask_user_question", ask_args(db_question(), None))],
                )])
                .await;
                let mut p = process_at(&dir, &server);
                let agent = Agent::open(p.deps.clone(), &session, config(ToolMode::Legacy)).unwrap();
                agent.steer("set it up").unwrap();
                tokio::time::timeout(Duration::from_secs(20), p.requests.recv()).await.unwrap().unwrap();
                // The blocking question waits: this message cannot be admitted before it is answered.
                agent.steer(TYPED).unwrap();
                println!("\n{READY}");
                tokio::time::sleep(Duration::from_secs(60)).await;
                drop(agent);
            }
            "late" => {
                let server = TestServer::start(timed_then_held()).await;
                let p = process_at(&dir, &server);
                let agent = Agent::open(p.deps.clone(), &session, config(ToolMode::Timed)).unwrap();
                agent.steer("plan the app").unwrap();
                idle(&agent).await;
                agent.steer("keep going").unwrap();
                // The held step started once its request reached the server.
                server.wait_for_requests(3).await;
                p.service.answer(&session, "call_t", sqlite()).expect("the late answer is queued");
                println!("\n{READY}");
                tokio::time::sleep(Duration::from_secs(60)).await;
                drop(agent);
            }
            other => panic!("unknown child scenario {other}"),
        }
    });
}

/// Runs the child `scenario` on `session` in `dir` and SIGKILLs it once it reports ready.
fn kill_child_when_ready(scenario: &str, dir: &Path, session: &str) {
    let env =
        [(CHILD_SCENARIO, OsStr::new(scenario)), (CHILD_DIR, dir.as_os_str()), (CHILD_SESSION, OsStr::new(session))];
    let Some(mut child) = spawn_until_ready("child_agent", &env, READY, Duration::from_secs(30)) else {
        panic!("the {scenario} child never got ready");
    };
    child.kill().unwrap(); // SIGKILL on Unix: no destructor, no Quit, no turn end recorded.
    child.wait().unwrap();
}

fn new_session(dir: &Path) -> String {
    Store::open(dir).unwrap().create_session("inbox", None, None).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_typed_while_a_question_blocks_reaches_the_model_after_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let session = new_session(dir.path());
    kill_child_when_ready("typed", dir.path(), &session);

    let server = TestServer::start(vec![text_reply("Docker noted.")]).await;
    let p = process_at(dir.path(), &server);
    let agent = Agent::open(p.deps.clone(), &session, config(ToolMode::Legacy)).unwrap();
    idle(&agent).await;
    let sent: Vec<Vec<Value>> =
        server.requests().iter().map(|r| r.body["messages"].as_array().unwrap().clone()).collect();
    assert_eq!(sent.len(), 1, "the message typed before the kill started a turn after the reopen");
    assert_eq!(trailing_user_texts(&sent[0], 1), [TYPED]);
    let events = p.store.events(&session).unwrap();
    assert_queued_then_admitted(&events, TYPED);
    assert_eq!(turn_ends(&events), ["interrupted", "completed"]);
    assert_eq!(last_assistant_text(&events), "Docker noted.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_queued_mid_turn_stays_reserved_and_reaches_the_model_after_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let session = new_session(dir.path());
    kill_child_when_ready("late", dir.path(), &session);

    let server = TestServer::start(vec![text_reply("Thanks, SQLite it is.")]).await;
    let p = process_at(dir.path(), &server);
    // What `hark answer` does before it opens the agent: the first answer still holds the question.
    p.store.repair_after_crash(&session).unwrap();
    let postgres =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }] };
    let second = p.service.answer(&session, "call_t", postgres.clone());
    assert_eq!(
        second.expect_err("a second answer while the first is queued").interaction_code(),
        Some(ErrorCode::ReplyQueued)
    );

    let agent = Agent::open(p.deps.clone(), &session, config(ToolMode::Timed)).unwrap();
    idle(&agent).await;
    let sent: Vec<Vec<Value>> =
        server.requests().iter().map(|r| r.body["messages"].as_array().unwrap().clone()).collect();
    assert_eq!(sent.len(), 1, "the answer queued before the kill started a turn after the reopen");
    let late = trailing_user_texts(&sent[0], 1).remove(0);
    assert!(late.contains("answer_to_pending_question") && late.contains("SQLite"), "{late}");
    let events = p.store.events(&session).unwrap();
    let record = &project_questions(&events)[0];
    assert_eq!((record.state, record.answered_late), (QuestionState::Settled, true));
    assert_eq!(record.answers, Some(sqlite()), "the first answer won");
    assert_eq!(
        p.service.answer(&session, "call_t", postgres).expect_err("settled").interaction_code(),
        Some(ErrorCode::NotPending)
    );
    assert_eq!(last_assistant_text(&events), "Thanks, SQLite it is.");
}

#[tokio::test]
async fn input_queued_at_quit_is_admitted_when_the_session_is_opened_again() {
    let mut script = timed_then_held();
    script.push(text_reply("Both noted."));
    let h = Harness::new(script).await;
    let agent = h.agent(ToolMode::Timed);
    let session = agent.session_id().to_string();
    queue_both_during_a_running_turn(&h, &agent).await;
    agent.close().await;
    let closed = h.store.events(&session).unwrap();
    assert!(!types(&closed).contains(&"inbox/discarded"), "Quit discards nothing");

    let deps = h.restarted_deps();
    let store = deps.store.clone();
    let agent = Agent::open(deps, &session, config(ToolMode::Timed)).unwrap();
    idle(&agent).await;
    let sent = h.sent();
    assert_eq!(sent.len(), 4, "what was queued at Quit started a turn after the reopen");
    let [late, typed] = <[String; 2]>::try_from(trailing_user_texts(&sent[3], 2)).unwrap();
    assert!(late.contains("answer_to_pending_question") && late.contains("SQLite"), "{late}");
    assert_eq!(typed, TYPED);
    let events = store.events(&session).unwrap();
    assert_queued_then_admitted(&events, TYPED);
    let record = &project_questions(&events)[0];
    assert_eq!((record.state, record.answered_late), (QuestionState::Settled, true));
    assert_eq!(turn_ends(&events), ["completed", "aborted", "completed"]);
    assert_eq!(last_assistant_text(&events), "Both noted.");
}

#[tokio::test]
async fn stop_keeps_queued_input_and_the_next_turn_admits_it() {
    let mut script = timed_then_held();
    script.push(text_reply("Both noted."));
    let h = Harness::new(script).await;
    let agent = h.agent(ToolMode::Timed);
    queue_both_during_a_running_turn(&h, &agent).await;
    assert!(agent.abort());
    idle(&agent).await;

    let sent = h.sent();
    assert_eq!(sent.len(), 4, "the queued input started the next turn");
    // Both are admitted at the same boundary; which comes first depends on when the service's
    // channel delivered the late answer.
    let mut both = trailing_user_texts(&sent[3], 2);
    both.sort_by_key(|t| t != TYPED);
    assert_eq!(both[0], TYPED);
    assert!(both[1].contains("answer_to_pending_question"), "{}", both[1]);
    let events = h.events(&agent);
    assert!(!types(&events).contains(&"inbox/discarded"), "Stop discards nothing");
    assert_queued_then_admitted(&events, TYPED);
    assert_eq!(turn_ends(&events), ["completed", "aborted", "completed"]);
    assert!(project_questions(&events)[0].answered_late);
}

#[tokio::test]
async fn a_message_is_in_the_log_when_steer_returns() {
    let h = Harness::new(vec![text_reply("Hi.")]).await;
    let agent = h.agent(ToolMode::Legacy);
    agent.steer("hello").unwrap();
    // Nothing awaited yet: the driver has had no chance to run, so only `steer` can have written it.
    let queued =
        h.events(&agent).iter().any(|e| matches!(&e.event, Event::InboxQueued { text, .. } if text == "hello"));
    assert!(queued, "an accepted message is durable before steer returns");
    idle(&agent).await;
    assert_queued_then_admitted(&h.events(&agent), "hello");
    assert_eq!(h.sent().len(), 1);
}
