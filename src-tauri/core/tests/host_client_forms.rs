//! An MCP server's form that an outside agent received (Claude Code's `Elicitation` hook), asked in
//! the agent's session through the front door against a real host and its store: answered with
//! typed content, declined, closed, ended when the agent stops waiting, and refused with a code
//! when Hark cannot show it.

mod host_support;

use std::sync::Arc;
use std::time::Duration;

use hark_core::front_door::{FrontDoor, InProcess};
use hark_core::host::{ClientId, FormRequest, Host};
use hark_core::question::{Answer, AnswerBatch, FormOutcome, Intent};
use hark_core::service::{InteractionRequest, QuestionEvent};
use hark_core::session::Event;
use serde_json::json;

fn client() -> ClientId {
    ClientId { name: "Claude Code".into(), cwd: "/home/me/notes-app".into(), asker: Some("cc-1".into()) }
}

fn request(schema: serde_json::Value) -> FormRequest {
    FormRequest {
        server: "deployer".into(),
        message: "Deploy settings".into(),
        mode: Some("form".into()),
        url: None,
        elicitation_id: None,
        requested_schema: Some(schema),
    }
}

fn deploy_schema() -> serde_json::Value {
    json!({ "type": "object", "properties": {
        "env": { "type": "string", "title": "Environment", "enum": ["stg", "prod"] },
        "replicas": { "type": "integer", "title": "Replicas", "minimum": 1, "maximum": 9 },
        "notify": { "type": "boolean", "title": "Notify", "default": true },
    }, "required": ["env", "replicas"] })
}

async fn shown(events: &mut tokio::sync::broadcast::Receiver<QuestionEvent>) -> InteractionRequest {
    let wait = async {
        loop {
            if let Ok(QuestionEvent::Requested { request }) = events.recv().await {
                return *request;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), wait).await.expect("the form is shown")
}

fn events(host: &Host, session: &str) -> Vec<Event> {
    host.store().events(session).unwrap().into_iter().map(|e| e.event).collect()
}

fn forms(host: &Host, session: &str) -> Vec<FormOutcome> {
    events(host, session)
        .into_iter()
        .filter_map(|e| match e {
            Event::McpForm { outcome, .. } => Some(outcome),
            _ => None,
        })
        .collect()
}

fn answer(id: &str, selected: &[&str], custom: Option<&str>) -> Answer {
    Answer { id: id.into(), selected: selected.iter().map(|s| s.to_string()).collect(), custom: custom.map(Into::into) }
}

struct Setup {
    _dir: tempfile::TempDir,
    host: Arc<Host>,
    door: InProcess,
}

impl Setup {
    /// The deploy form, asked through the front door as the agent's hook asks it, on a task of its own.
    fn ask_deploy(
        &self,
    ) -> tokio::task::JoinHandle<Result<hark_core::host::FormReply, hark_core::error::BoundaryError>> {
        let door = self.door.clone();
        tokio::spawn(async move { door.form(&client(), request(deploy_schema())).await })
    }
}

fn start() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let host = Arc::new(host_support::host(dir.path(), "hello", None));
    let door = InProcess::new(Arc::clone(&host));
    Setup { _dir: dir, host, door }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answered_form_replies_accept_with_typed_content_and_is_recorded() {
    let s = start();
    let mut heard = s.host.service().subscribe();
    let asking = s.ask_deploy();
    let shown = shown(&mut heard).await;
    match &shown.intent {
        Intent::Form { server, message, fields, .. } => {
            assert_eq!((server.as_str(), message.as_str()), ("deployer", "Deploy settings"));
            assert_eq!(fields.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["env", "notify", "replicas"]);
        }
        other => panic!("not a form: {other:?}"),
    }
    let batch = AnswerBatch {
        answers: vec![answer("env", &["prod"], None), answer("replicas", &[], Some("3")), answer("notify", &[], None)],
    };
    s.host.answer_and_admit(&shown.session_id, &shown.call_id, batch, None).unwrap();
    let reply = asking.await.unwrap().unwrap();
    assert_eq!(reply.action, "accept");
    // Typed: the integer is a number and the skipped boolean its default.
    assert_eq!(reply.content, Some(json!({ "env": "prod", "replicas": 3, "notify": true })));
    assert_eq!(reply.session_id, shown.session_id);
    assert!(matches!(forms(&s.host, &shown.session_id).as_slice(), [FormOutcome::Accept { .. }]));
    assert!(s.host.service().foreground(Some(&shown.session_id)).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_form_replies_decline_and_a_closed_one_cancel() {
    let s = start();
    let mut heard = s.host.service().subscribe();
    for (decline, action, outcome) in [(true, "decline", FormOutcome::Decline), (false, "cancel", FormOutcome::Cancel)]
    {
        let asking = s.ask_deploy();
        let shown = shown(&mut heard).await;
        if decline {
            s.door.decline(&shown.session_id, &shown.call_id).await.unwrap();
        } else {
            s.host.cancel(&shown.session_id, &shown.call_id).unwrap();
        }
        let reply = asking.await.unwrap().unwrap();
        assert_eq!((reply.action.as_str(), reply.content), (action, None));
        assert_eq!(forms(&s.host, &shown.session_id).last(), Some(&outcome));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_whose_agent_stopped_waiting_ends_everywhere_and_a_late_answer_changes_nothing() {
    let s = start();
    let mut heard = s.host.service().subscribe();
    let asking = s.ask_deploy();
    let shown = shown(&mut heard).await;
    // The hook went away: its request future is dropped.
    asking.abort();
    let _ = asking.await;
    // Ended on every surface, and recorded (just after) in the log.
    let ended = async {
        while !s.host.service().foreground(Some(&shown.session_id)).is_empty()
            || forms(&s.host, &shown.session_id).is_empty()
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), ended).await.expect("the form ends when the agent stops waiting");
    let batch = AnswerBatch { answers: vec![answer("env", &["prod"], None), answer("replicas", &[], Some("3"))] };
    let late = s.host.answer_and_admit(&shown.session_id, &shown.call_id, batch, None).unwrap_err();
    assert_eq!(hark_core::error::CodedError::code(&late), "NOT_PENDING", "{late}");
    assert_eq!(forms(&s.host, &shown.session_id), [FormOutcome::Cancel]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_hark_cannot_show_is_refused_with_its_code_and_asked_nowhere() {
    let s = start();
    let nested = json!({ "type": "object", "properties": { "address": { "type": "object", "properties": {} } } });
    let too_many = json!({ "type": "object", "properties": {
        "n": { "type": "string", "enum": (0..40).map(|i| i.to_string()).collect::<Vec<_>>() } } });
    let url_without_link = FormRequest { mode: Some("url".into()), requested_schema: None, ..request(json!({})) };
    let unknown_mode = FormRequest { mode: Some("voice".into()), ..request(deploy_schema()) };
    for bad in [request(nested), request(too_many), url_without_link, unknown_mode] {
        let error = s.door.form(&client(), bad.clone()).await.unwrap_err();
        assert_eq!(error.code, "INVALID_REQUEST", "{bad:?}: {error:?}");
        assert!(error.message.contains("Hark cannot show this form") || error.message.contains("form"), "{error:?}");
    }
    let sessions = s.host.store().list_sessions().unwrap();
    for session in sessions {
        assert!(forms(&s.host, &session.id).is_empty(), "nothing recorded");
        assert!(s.host.service().foreground(Some(&session.id)).is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_form_shows_its_link_and_going_ahead_replies_accept_without_content() {
    let s = start();
    let mut heard = s.host.service().subscribe();
    let link = FormRequest {
        mode: Some("url".into()),
        url: Some("https://example.com/sign-in?code=42".into()),
        elicitation_id: Some("sign-in-1".into()),
        requested_schema: None,
        ..request(json!({}))
    };
    let asking = {
        let door = s.door.clone();
        tokio::spawn(async move { door.form(&client(), link).await })
    };
    let shown = shown(&mut heard).await;
    let Intent::Form { url, .. } = &shown.intent else { panic!("not a form: {:?}", shown.intent) };
    assert_eq!(url.as_deref(), Some("https://example.com/sign-in?code=42"));
    let go = AnswerBatch { answers: vec![answer(&shown.questions[0].id, &["Accept"], None)] };
    s.host.answer_and_admit(&shown.session_id, &shown.call_id, go, None).unwrap();
    let reply = asking.await.unwrap().unwrap();
    assert_eq!((reply.action.as_str(), reply.content), ("accept", None));
}
