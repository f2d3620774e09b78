//! The agent with the offline demo provider under paused tokio time: the shipped `timed` script's
//! 5 s question expires without real waiting, the model keeps working in the workspace, and a late
//! answer continues the session.

use std::sync::Arc;
use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, AgentDeps, NewSession};
use hark_core::model::DemoProvider;
use hark_core::question::{Answer, AnswerBatch, ToolMode};
use hark_core::service::{ForwardingProvider, SessionLog, UserQuestionService};
use hark_core::session::{project_questions, Event, QuestionState, Store, ToolOutcome};
use hark_core::tools::QuestionSettings;
use hark_test_support::Events;

#[tokio::test(start_paused = true)]
async fn the_timed_demo_goes_pending_works_on_and_takes_a_late_answer() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
    // A surface that shows questions but never answers them.
    let (provider, mut shown) = ForwardingProvider::new();
    let _registration = service.register(Arc::new(provider)).unwrap();
    let deps = AgentDeps {
        store: store.clone(),
        service: service.clone(),
        model: Arc::new(DemoProvider::new("timed").unwrap()),
    };
    let config = AgentConfig {
        questions: QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 120, stop_turn: false },
        ..AgentConfig::default()
    };
    let session = NewSession { title: "demo".into(), workspace: Some(workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(deps, session, config).unwrap();
    let started = tokio::time::Instant::now();
    agent.steer("go").unwrap();
    let request = shown.recv().await.unwrap();
    assert_eq!(request.wait.as_ref().map(|w| w.timeout_ms), Some(5_000));
    agent.wait_idle().await;
    assert!(started.elapsed() >= Duration::from_secs(5), "the question waited its whole deadline");

    let events = store.events(agent.session_id()).unwrap();
    let outcomes: Vec<&ToolOutcome> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolResult { outcome, .. } => Some(outcome),
            _ => None,
        })
        .collect();
    assert!(matches!(outcomes[0], ToolOutcome::Pending { .. }));
    assert!(matches!(outcomes[1], ToolOutcome::Ok { .. }));
    assert!(matches!(outcomes[2], ToolOutcome::Ok { .. }));
    assert!(workspace.path().join("hark-notes.md").is_file());
    assert_eq!(project_questions(&events)[0].state, QuestionState::Continued);

    let batch =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }] };
    // The admission is recorded, and every record is announced: wait on those, not on a timer.
    let mut recorded = Events::new(agent.subscribe());
    service.answer(agent.session_id(), &request.call_id, batch).unwrap();
    recorded
        .wait_until_within("the late answer to be admitted", Duration::from_secs(60), || {
            project_questions(&store.events(agent.session_id()).unwrap())[0].state == QuestionState::Settled
        })
        .await;
    agent.wait_idle().await;
    let events = store.events(agent.session_id()).unwrap();
    let last = events.iter().rev().find_map(|e| match &e.event {
        Event::AssistantMessage { text, .. } => Some(text.clone()),
        _ => None,
    });
    assert!(last.unwrap().starts_with("Your answer to my earlier question arrived"));
    assert!(project_questions(&events)[0].answered_late);
}
