//! Only the session's live root agent may ask.

use super::support::*;
use crate::question::ErrorCode;
use crate::service::Caller;

#[tokio::test(start_paused = true)]
async fn a_stale_instance_is_not_live_and_the_new_root_may_ask() {
    let f = fixture();
    let _reg = f.service.register(Scripted::new(Ok(sqlite()))).expect("registers");
    f.service.ask(params("c1", vec![db_question()])).await.expect("the live root asks");

    // The session was reopened: a new root instance took over.
    let _steer = f.service.set_live_root(SESSION, "agent-2");
    let stale = f.service.ask(params("c2", vec![db_question()])).await;
    assert_eq!(code(stale), ErrorCode::CallerNotLive);
    let mut p = params("c3", vec![db_question()]);
    p.caller = Caller::root(SESSION, "agent-2");
    f.service.ask(p).await.expect("the new root asks");
    assert_eq!(f.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn a_session_without_a_live_agent_cannot_ask() {
    let f = fixture();
    let _reg = f.service.register(Scripted::new(Ok(sqlite()))).expect("registers");
    let mut p = params("c1", vec![db_question()]);
    p.caller = Caller::root("nobody-runs-here", "agent-9");
    assert_eq!(code(f.service.ask(p).await), ErrorCode::CallerNotLive);
}

#[tokio::test(start_paused = true)]
async fn a_sub_agent_owned_by_another_agent_is_delegated() {
    let f = fixture();
    let _reg = f.service.register(Scripted::new(Ok(sqlite()))).expect("registers");
    let mut p = params("c1", vec![db_question()]);
    p.caller = Caller { session_id: SESSION.into(), agent_instance_id: "sub-1".into(), parent: Some(ROOT.into()) };
    let err = f.service.ask(p).await.expect_err("delegated");
    assert_eq!(err.code, ErrorCode::DelegatedCaller);
    assert!(err.message.contains("sub-1"));
}

#[tokio::test(start_paused = true)]
async fn clearing_the_root_only_works_for_the_live_instance() {
    let f = fixture();
    let _reg = f.service.register(Scripted::new(Ok(sqlite()))).expect("registers");
    assert!(!f.service.clear_live_root(SESSION, "someone-else"));
    f.service.ask(params("c1", vec![db_question()])).await.expect("still live");
    assert!(f.service.clear_live_root(SESSION, ROOT));
    assert_eq!(code(f.service.ask(params("c2", vec![db_question()])).await), ErrorCode::CallerNotLive);
}
