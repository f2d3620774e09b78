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
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
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
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
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
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
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
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
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
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
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
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn a_tap_on_a_card_from_an_earlier_run_answers_only_its_own_question() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    // The first run asks, and ends without the card being told (the relay stops first, as in a
    // crash): its card still shows live buttons.
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let (first_session, _) = host.start_session("publish it", None).unwrap();
    let old = emulator.wait_message(TOKEN, "the first run's card", is_card).await;
    drop(phone);
    host.shutdown().await;
    drop(host);
    assert!(!old.buttons.is_empty());

    // The next run asks the same kind of question again; its card is new.
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let cleared = emulator
        .wait_message(TOKEN, "the old card losing its buttons", |m| {
            m.message_id == old.message_id && m.buttons.is_empty()
        })
        .await;
    assert!(cleared.text.contains("no longer waiting"), "{}", cleared.text);
    let (session, events) = host.start_session("publish it", None).unwrap();
    let new =
        emulator.wait_message(TOKEN, "the second run's card", |m| is_card(m) && m.message_id != old.message_id).await;
    assert_ne!(old.button("Publish now"), new.button("Publish now"), "a button names its own card");

    let ada = emulator.person(TOKEN, PERSON, "ada");
    // The old card's button (the phone may still show it) answers nothing now.
    ada.press(&old, "Publish now").await;
    assert_eq!(emulator.ack(1).await.as_deref(), Some("This question is no longer waiting"));
    // A button's data pressed on another message than its own card changes nothing.
    ada.press_data(&old, new.button("Publish now")).await;
    let refused = emulator.ack(2).await.unwrap_or_default();
    assert!(refused.starts_with("That button does not belong to this card"), "{refused}");
    // Nor does a card this Hark never sent (another Hark on the same bot, or one long forgotten).
    ada.press_data(&new, "0123456789abcdef:p0.1").await;
    let refused = emulator.ack(3).await.unwrap_or_default();
    assert!(refused.starts_with("This card is not open in this Hark"), "{refused}");
    assert_eq!(host.questions(&session).len(), 1, "the current question still waits");
    assert!(host.questions(&first_session).is_empty());

    ada.press(&new, "Not yet").await;
    assert_eq!(emulator.ack(4).await.as_deref(), Some("Answered"));
    until_recorded(&host, &session, events, "You chose").await;
    assert_eq!(answered(&host, &session)[0].selected, ["Not yet (Recommended)"]);
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn two_harks_on_one_bot_take_turns_and_never_each_others_taps() {
    let emulator = Emulator::start().await;
    let (first_dir, second_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (first, first_phone) = relay(first_dir.path(), &emulator, "blocking", false, 0, true);
    let mut first_link = first_phone.watch();
    tokio::time::timeout(hark_test_support::WAIT, first_link.wait_for(|l| *l == Link::Online))
        .await
        .expect("the first Hark reads the bot")
        .unwrap();
    // A second Hark (another data directory, the same bot) says the bot is in use and sends nothing.
    let (second, second_phone) = relay(second_dir.path(), &emulator, "blocking", false, 0, true);
    let mut second_link = second_phone.watch();
    let in_use = tokio::time::timeout(
        hark_test_support::WAIT,
        second_link.wait_for(|l| matches!(l, Link::InUseElsewhere { .. })),
    )
    .await
    .expect("the second Hark says the bot is in use")
    .unwrap()
    .clone();
    let Link::InUseElsewhere { reason } = in_use else { unreachable!() };
    assert!(reason.contains(&first_dir.path().display().to_string()), "it names the other Hark: {reason}");
    let (second_session, second_events) = second.start_session("publish it", None).unwrap();
    Events::new(second_events.resubscribe())
        .wait_until("the second Hark's question", || !second.questions(&second_session).is_empty())
        .await;
    let (first_session, first_events) = first.start_session("publish it", None).unwrap();
    let card = emulator.wait_message(TOKEN, "the first Hark's card", is_card).await;
    let ada = emulator.person(TOKEN, PERSON, "ada");
    ada.press(&card, "Publish now").await;
    assert_eq!(emulator.ack(1).await.as_deref(), Some("Answered"));
    until_recorded(&first, &first_session, first_events, "You chose").await;
    assert_eq!(answered(&first, &first_session)[0].selected, ["Publish now"]);
    assert_eq!(second.questions(&second_session).len(), 1, "the other Hark's question is untouched");
    assert_eq!(emulator.bot_messages(TOKEN).await.iter().filter(|m| is_card(m)).count(), 1, "only the reader sent");

    // The first Hark stops: the second takes the bot over and its question reaches the phone.
    drop(first_phone);
    first.shutdown().await;
    let second_card =
        emulator.wait_message(TOKEN, "the second Hark's card", |m| is_card(m) && m.message_id != card.message_id).await;
    ada.press(&second_card, "Not yet").await;
    assert_eq!(emulator.ack(2).await.as_deref(), Some("Answered"));
    until_recorded(&second, &second_session, second_events, "You chose").await;
    drop(second_phone);
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn another_program_polling_the_bot_is_shown_as_the_bot_in_use() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "hello", false, 0, true);
    let mut link = phone.watch();
    tokio::time::timeout(hark_test_support::WAIT, link.wait_for(|l| *l == Link::Online)).await.unwrap().unwrap();
    // Another machine's Hark polls the same bot: Telegram ends Hark's held poll with 409 Conflict.
    let in_use = |l: &Link| matches!(l, Link::InUseElsewhere { .. });
    let deadline = tokio::time::Instant::now() + hark_test_support::WAIT;
    while !in_use(&link.borrow()) {
        assert!(tokio::time::Instant::now() < deadline, "never shown as in use: {:?}", *link.borrow());
        let other = emulator.get_updates(TOKEN, 1).await;
        assert!(other["ok"] == true || other["error_code"] == 409, "{other}");
    }
    let in_use = link.borrow().clone();
    assert!(in_use.describe().unwrap().starts_with("this bot is in use by another Hark"), "{in_use:?}");
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn telegram_asking_to_slow_down_is_obeyed_and_a_failed_edit_is_tried_again() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    emulator.fail("sendMessage", 429, Some(3), 1).await;
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let (session, events) = host.start_session("publish it", None).unwrap();
    Events::new(events).wait_until("the question", || !host.questions(&session).is_empty()).await;
    let asked = std::time::Instant::now();
    let card = emulator.wait_message(TOKEN, "the card, once Telegram allows it", is_card).await;
    assert!(asked.elapsed() >= std::time::Duration::from_millis(2500), "sent after {:?}", asked.elapsed());

    // The edit that ends the card fails twice; it is tried until it is taken.
    emulator.fail("editMessageText", 500, None, 2).await;
    let call = host.questions(&session)[0].call_id.clone();
    let batch = AnswerBatch {
        answers: vec![Answer { id: "deploy".into(), selected: vec!["Publish now".into()], custom: None }],
    };
    host.answer(&session, &call, batch, Some(AnswerPath::Foreground)).unwrap();
    let edited = emulator
        .wait_message(TOKEN, "the card ended despite the failed edits", |m| {
            m.message_id == card.message_id && m.buttons.is_empty()
        })
        .await;
    assert!(edited.text.contains("Already answered in Hark"), "{}", edited.text);
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn the_cards_with_live_buttons_are_bounded_and_the_rest_wait_their_turn() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let mut sessions = Vec::new();
    for i in 0..=phone::MAX_OPEN_CARDS {
        let (session, _) = host.start_session(&format!("publish it {i}"), None).unwrap();
        sessions.push(session);
    }
    emulator.wait_message(TOKEN, "the note that more wait", |m| m.text.starts_with("More questions wait")).await;
    let cards = |messages: Vec<BotMessage>| messages.into_iter().filter(is_card).collect::<Vec<_>>();
    let shown = cards(emulator.bot_messages(TOKEN).await);
    assert_eq!(shown.len(), phone::MAX_OPEN_CARDS, "no more cards than the bound");
    // One is answered in Hark: the question that waited its turn comes to the phone.
    let first = &sessions[0];
    let call = host.questions(first)[0].call_id.clone();
    let batch = AnswerBatch {
        answers: vec![Answer { id: "deploy".into(), selected: vec!["Not yet (Recommended)".into()], custom: None }],
    };
    host.answer(first, &call, batch, Some(AnswerPath::Foreground)).unwrap();
    let deadline = tokio::time::Instant::now() + hark_test_support::WAIT;
    while cards(emulator.bot_messages(TOKEN).await).len() <= phone::MAX_OPEN_CARDS {
        assert!(tokio::time::Instant::now() < deadline, "the held question never reached the phone");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn typed_text_is_an_answer_only_as_a_reply_to_its_prompt_in_the_paired_chat() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "batch", false, 0, true);
    let (session, events) = host.start_session("set it up", None).unwrap();
    let ada = emulator.person(TOKEN, PERSON, "ada");
    let card = emulator.wait_message(TOKEN, "the batch's card", is_card).await;
    ada.press(&card, "SQLite").await;
    let card = emulator.wait_message(TOKEN, "the second item", |m| m.buttons.iter().any(|(l, _)| l == "Submit")).await;
    ada.press(&card, "Skip").await;
    let card =
        emulator.wait_message(TOKEN, "the free-form item", |m| m.buttons.iter().any(|(l, _)| l == "Answer…")).await;
    ada.press(&card, "Answer…").await;
    let prompt = emulator.wait_message(TOKEN, "the reply prompt", |m| m.force_reply).await;

    // In a group the bot is in: not an answer, and nothing said there.
    ada.send_in_group(-777, "Quill from the group").await;
    // A reply to another message (the card): not an answer; told how to answer.
    ada.reply(&card, "Quill to the card").await;
    emulator
        .wait_message(TOKEN, "the note on a reply to the card", |m| m.text.starts_with("That message does not ask"))
        .await;
    assert_eq!(host.questions(&session).len(), 1, "neither was taken as the answer");
    assert!(emulator.bot_messages(TOKEN).await.iter().all(|m| m.chat_id == PERSON.to_string()), "nothing in the group");

    ada.reply(&prompt, "Quill").await;
    until_recorded(&host, &session, events, "Thanks! Your answers").await;
    let got = answered(&host, &session);
    assert_eq!(got[2].custom.as_deref(), Some("Quill"), "{got:?}");
    // Editing the reply afterwards changes nothing, and says so.
    ada.edit(ada.last_message_id().await, "Quill 2").await;
    emulator.wait_message(TOKEN, "the note on the edit", |m| m.text.starts_with("Hark already took your answer")).await;
    assert_eq!(answered(&host, &session)[2].custom.as_deref(), Some("Quill"));
    drop(phone);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn a_tap_hark_cannot_read_is_answered_and_the_next_one_works() {
    let emulator = Emulator::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (host, phone) = relay(dir.path(), &emulator, "blocking", false, 0, true);
    let (session, events) = host.start_session("publish it", None).unwrap();
    let card = emulator.wait_message(TOKEN, "the question's card", is_card).await;
    let ada = emulator.person(TOKEN, PERSON, "ada");
    ada.press_unreadable(&card, "Publish now").await;
    let said = emulator.ack(1).await.unwrap_or_default();
    assert!(said.starts_with("Hark could not read this tap"), "{said}");
    assert_eq!(host.questions(&session).len(), 1, "nothing changed");
    ada.press(&card, "Not yet").await;
    assert_eq!(emulator.ack(2).await.as_deref(), Some("Answered"));
    until_recorded(&host, &session, events, "You chose").await;
    drop(phone);
    host.shutdown().await;
}
