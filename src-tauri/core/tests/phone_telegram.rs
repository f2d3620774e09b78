//! The phone relay end to end: a real host on the demo model, its relay talking to a local Telegram
//! Bot API (npm telegram-test-api), and a person pressing buttons and replying there. What is
//! checked is what the host recorded and what the model got, and what the phone's messages say.

mod host_support;

use std::sync::Arc;

use hark_core::agent::AgentEvent;
use hark_core::host::{AnswerPath, Host};
use hark_core::phone::{self, settings, BotToken, Link, PairedUser, Phone};
use hark_core::question::{Answer, AnswerBatch};
use hark_core::session::project_questions;
use hark_test_support::telegram::{BotMessage, Emulator};
use hark_test_support::wait::{question_requested, Events};
use host_support::{host, timed};
use tokio::sync::broadcast;

const TOKEN: &str = "4242:phone-relay-test-token-Zq9";
const PERSON: i64 = 5001;
const STRANGER: i64 = 6002;

/// A host whose phone settings point at `emulator`, paired with [`PERSON`] (unless `paired` is
/// false), with questions sent after `delay_secs`; and its running relay.
fn relay(
    dir: &std::path::Path,
    emulator: &Emulator,
    script: &'static str,
    timed_mode: bool,
    delay_secs: u64,
    paired: bool,
) -> (Arc<Host>, Phone) {
    settings::update(dir, |s| {
        s.api_url = emulator.url.clone();
        s.delay_secs = delay_secs;
        s.paired = paired.then(|| PairedUser {
            user_id: PERSON.to_string(),
            chat_id: PERSON.to_string(),
            name: "@ada".into(),
        });
    })
    .unwrap();
    let host = Arc::new(host(dir, script, if timed_mode { timed() } else { None }));
    let phone = phone::start(&host, BotToken::new(TOKEN));
    (host, phone)
}

/// The model's replies so far, as the session recorded them.
fn recorded(host: &Host, session: &str) -> String {
    serde_json::to_string(&host.store().events(session).unwrap()).unwrap()
}

async fn until_recorded(host: &Host, session: &str, events: broadcast::Receiver<AgentEvent>, text: &str) {
    Events::new(events)
        .wait_until(&format!("the session to record {text:?}"), || recorded(host, session).contains(text))
        .await;
}

/// What the session recorded as the answer to its first question (what the model got).
fn answered(host: &Host, session: &str) -> Vec<Answer> {
    let records = project_questions(&host.store().events(session).unwrap());
    records[0].answers.clone().map(|b| b.answers).unwrap_or_default()
}

fn is_card(m: &BotMessage) -> bool {
    m.text.starts_with("❓")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pairing_takes_the_person_who_sends_the_code_in_private() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "hello", false, 0, false);
    let pairing = phone::pairing_code(dir.path()).unwrap();
    let stranger = emulator.person(TOKEN, STRANGER, "mallory");
    stranger.send("/start WRONGCODE").await;
    let ada = emulator.person(TOKEN, PERSON, "ada");
    ada.send(&format!("/start {}", pairing.code)).await;
    emulator.wait_message(TOKEN, "the paired message", |m| m.text.starts_with("Paired with Hark")).await;
    let now = settings::load(dir.path()).unwrap();
    assert_eq!(
        now.paired,
        Some(PairedUser { user_id: PERSON.to_string(), chat_id: PERSON.to_string(), name: "@ada".into() })
    );
    assert_eq!(now.pairing, None, "the code is used up");
    // The code works once: sent again by someone else, it pairs nobody.
    stranger.send(&format!("/start {}", pairing.code)).await;
    ada.send("/start").await;
    emulator.wait_message(TOKEN, "the already-paired note", |m| m.text.starts_with("This chat is paired")).await;
    assert_eq!(settings::load(dir.path()).unwrap().paired.unwrap().user_id, PERSON.to_string());
    assert!(
        emulator.bot_messages(TOKEN).await.iter().all(|m| m.chat_id == PERSON.to_string()),
        "nothing went to the stranger"
    );
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_button_answers_and_the_model_gets_it_while_a_strangers_tap_changes_nothing() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let (session, events) = host.start_session("publish it", None).unwrap();
    let card = emulator.wait_message(TOKEN, "the question's card", is_card).await;
    assert!(card.text.contains("Deploy: Publish the demo site to production now?"), "{}", card.text);
    assert!(card.text.contains("• Not yet (recommended) — Keep it in staging"), "{}", card.text);
    let labels: Vec<&str> = card.buttons.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["Not yet", "Publish now", "Other…", "Skip"]);

    let stranger = emulator.person(TOKEN, STRANGER, "mallory");
    stranger.press(&card, "Publish now").await;
    let refused = emulator.ack(1).await.unwrap_or_default();
    assert!(refused.starts_with("Refused"), "{refused}");
    assert_eq!(host.questions(&session).len(), 1, "the question still waits");

    let ada = emulator.person(TOKEN, PERSON, "ada");
    ada.press(&card, "Not yet").await;
    assert_eq!(emulator.ack(2).await.as_deref(), Some("Answered"));
    until_recorded(&host, &session, events, "You chose").await;
    let got = answered(&host, &session);
    assert_eq!(got[0].selected, ["Not yet (Recommended)"], "the person's choice, not the stranger's: {got:?}");
    let done = emulator
        .wait_message(TOKEN, "the card marked answered", |m| m.message_id == card.message_id && m.buttons.is_empty())
        .await;
    assert!(done.text.contains("✓ Answered from this phone: Not yet (Recommended)"), "{}", done.text);
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_answered_item_by_item_with_ticks_and_a_reply_for_other() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "batch", false, 0, true);
    let (session, events) = host.start_session("set it up", None).unwrap();
    let ada = emulator.person(TOKEN, PERSON, "ada");
    let card = emulator.wait_message(TOKEN, "the batch's card", is_card).await;
    assert!(card.text.contains("1/3 Database: Which database should the project use?"), "{}", card.text);
    ada.press(&card, "SQLite").await;
    let card = emulator
        .wait_message(TOKEN, "the second item's buttons", |m| m.buttons.iter().any(|(l, _)| l == "☐ Tests"))
        .await;
    assert!(card.text.contains("✓ SQLite"), "{}", card.text);
    ada.press(&card, "☐ Tests").await;
    let card = emulator.wait_message(TOKEN, "Tests ticked", |m| m.buttons.iter().any(|(l, _)| l == "☑ Tests")).await;
    ada.press(&card, "☐ Docs").await;
    let card = emulator.wait_message(TOKEN, "Docs ticked", |m| m.buttons.iter().any(|(l, _)| l == "☑ Docs")).await;
    ada.press(&card, "Submit").await;
    let card =
        emulator.wait_message(TOKEN, "the free-form item", |m| m.buttons.iter().any(|(l, _)| l == "Answer…")).await;
    ada.press(&card, "Answer…").await;
    let prompt = emulator.wait_message(TOKEN, "the reply prompt", |m| m.force_reply).await;
    assert!(prompt.text.contains("What should the project be called?"), "{}", prompt.text);
    ada.reply(&prompt, "Quill").await;
    until_recorded(&host, &session, events, "Thanks! Your answers").await;
    let got: Vec<(String, Vec<String>, Option<String>)> =
        answered(&host, &session).into_iter().map(|a| (a.id, a.selected, a.custom)).collect();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        [
            ("db".to_string(), strings(&["SQLite"]), None),
            ("extras".to_string(), strings(&["Docs", "Tests"]), None),
            ("name".to_string(), vec![], Some("Quill".to_string())),
        ]
    );
    let done = emulator
        .wait_message(TOKEN, "the card marked answered", |m| m.message_id == card.message_id && m.buttons.is_empty())
        .await;
    assert!(done.text.contains("SQLite · Docs, Tests · “Quill”"), "{}", done.text);
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answered_in_hark_first_the_card_says_so_and_a_later_tap_is_told() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let (session, events) = host.start_session("publish it", None).unwrap();
    let card = emulator.wait_message(TOKEN, "the question's card", is_card).await;
    let call = host.questions(&session)[0].call_id.clone();
    let window = AnswerBatch {
        answers: vec![Answer { id: "deploy".into(), selected: vec!["Publish now".into()], custom: None }],
    };
    host.answer(&session, &call, window, Some(AnswerPath::Foreground)).unwrap();
    let edited = emulator
        .wait_message(TOKEN, "the card edited", |m| m.message_id == card.message_id && m.buttons.is_empty())
        .await;
    assert!(edited.text.contains("Already answered in Hark"), "{}", edited.text);
    emulator.person(TOKEN, PERSON, "ada").press(&card, "Not yet").await;
    assert_eq!(emulator.ack(1).await.as_deref(), Some("Already answered in Hark"));
    until_recorded(&host, &session, events, "You chose").await;
    assert_eq!(answered(&host, &session)[0].selected, ["Publish now"], "the window's answer; the tap changed nothing");
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_that_went_on_reaches_the_phone_at_once_and_is_answered_late_from_it() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    // A day's delay: only going on (the script's 5 s timeout) sends it.
    let (host, phone) = relay(dir.path(), &emulator, "timed", true, 86_400, true);
    let (session, events) = host.start_session("plan the notes app", None).unwrap();
    let mut events = Events::new(events);
    events.wait_for("the question", question_requested).await;
    assert!(emulator.bot_messages(TOKEN).await.is_empty(), "nothing before the delay or a timeout");
    let card = emulator.wait_message(TOKEN, "the continued question's card", is_card).await;
    assert!(card.text.contains("went on without your answer"), "{}", card.text);
    assert!(!host.service().continued(&session).is_empty(), "it is continued when it reaches the phone");
    emulator.person(TOKEN, PERSON, "ada").press(&card, "SQLite").await;
    assert_eq!(emulator.ack(1).await.as_deref(), Some("Answered"));
    events
        .wait_until("the late answer reaching the model", || {
            recorded(&host, &session).contains("Your answer to my earlier question arrived")
        })
        .await;
    drop(phone);
    host.shutdown().await;
    // The token is in no file of the data directory (the database, its journal, the settings).
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(!bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()), "the token is in {}", path.display());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_approved_from_the_phone_and_only_that_it_waits_hides_the_text() {
    let emulator = Emulator::start().await;
    let (dir, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (host, phone) = relay(dir.path(), &emulator, "plan", false, 0, true);
    let choices = hark_core::host::WorkingChoices { plan_first: Some(true), ptc: None };
    let (_, events) = host.start_session_with("outline it", Some(workspace.path().into()), choices).unwrap();
    let card = emulator.wait_message(TOKEN, "the plan review's card", is_card).await;
    assert!(card.text.starts_with("❓ Plan review from Hark"), "{}", card.text);
    assert!(card.text.contains("Write `hark-plan.md`"), "the plan itself, as plain text: {}", card.text);
    emulator.person(TOKEN, PERSON, "ada").press(&card, "Approve").await;
    assert_eq!(emulator.ack(1).await.as_deref(), Some("Answered"));
    Events::new(events).wait_until("the approved write", || workspace.path().join("hark-plan.md").exists()).await;
    drop(phone);
    host.shutdown().await;
    drop(host);

    // The same kind of question with only that it waits: no question text, no plan, no title.
    settings::update(dir.path(), |s| s.only_that_it_waits = true).unwrap();
    let host = Arc::new(host_support::host(dir.path(), "blocking", None));
    let phone = phone::start(&host, BotToken::new(TOKEN));
    let (session, _) = host.start_session("publish it", None).unwrap();
    let shown =
        emulator.wait_message(TOKEN, "the bare notice", |m| m.text.contains("A question waits for you in Hark")).await;
    assert!(shown.buttons.is_empty() && !shown.text.contains("Publish") && !shown.text.contains("Deploy"), "{shown:?}");
    assert_eq!(host.questions(&session).len(), 1);
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_reported_as_offline_without_the_token() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 9 of this machine (discard): every poll is refused.
    settings::update(dir.path(), |s| s.api_url = "http://127.0.0.1:9".into()).unwrap();
    let host = Arc::new(host_support::host(dir.path(), "hello", None));
    let phone = phone::start(&host, BotToken::new(TOKEN));
    let mut link = phone.watch();
    let offline = tokio::time::timeout(hark_test_support::WAIT, link.wait_for(|l| matches!(l, Link::Offline { .. })))
        .await
        .expect("reported offline")
        .unwrap()
        .clone();
    let Link::Offline { reason } = offline else { unreachable!() };
    assert!(!reason.contains(TOKEN) && !reason.contains("phone-relay"), "{reason}");
    // A relay with no token stays off and says so.
    assert_eq!(phone::start(&host, None).link(), Link::NoToken);
    drop(phone);
    host.shutdown().await;
}
