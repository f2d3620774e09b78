//! OS notifications against our own notification server on the session bus, with the real app
//! under Xvfb: what is shown, answering from it, replacing and closing, and servers without actions.

use std::path::Path;
use std::time::Duration;

use hark_core::session::{project_questions, Event, ToolOutcome};

use crate::support::notifications::{unfocus_all_windows, NotificationServer, Notified, OnClose};
use crate::support::{e2e_enabled, only_session, tool_results, App, Launch, PANEL};

const ENTER: &str = "\u{E007}";
const MESSAGE_BOX: &str = "textarea[aria-label='Message']";
const WAIT: Duration = Duration::from_secs(20);

pub(crate) fn pairs(n: &Notified) -> Vec<(&str, &str)> {
    n.actions.iter().map(|(k, l)| (k.as_str(), l.as_str())).collect()
}

async fn has_focus(app: &App) -> bool {
    app.client.execute("return document.hasFocus()", vec![]).await.ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The person switches to another app: the window loses focus, so questions notify.
pub(crate) async fn move_focus_away(app: &App) {
    unfocus_all_windows();
    app.wait_until("the window to lose focus", WAIT, || async { !has_focus(app).await }).await;
}

/// Launches on `script`, moves focus away, then starts a chat from the composer (typing through
/// WebDriver does not give the window focus back).
pub(crate) async fn away_and_ask(name: &str, data_dir: &Path, args: &[&str], prompt: &str) -> App {
    let app = App::launch(name, Launch::with_args(data_dir, args)).await;
    let input = app.find(MESSAGE_BOX).await;
    move_focus_away(&app).await;
    input.send_keys(prompt).await.expect("type");
    input.send_keys(ENTER).await.expect("send");
    app
}

#[tokio::test]
async fn a_live_question_is_answered_from_its_notification() {
    if !e2e_enabled("a_live_question_is_answered_from_its_notification") {
        return;
    }
    let server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-live", &data_dir, &["--script", "blocking"], "publish it").await;

    let n = server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    assert_eq!(n.app_name, "Hark");
    assert_eq!(n.body, "Publish the demo site to production now?");
    assert_eq!(
        pairs(&n),
        [
            ("default", "Open"),
            ("option:0", "Not yet (Recommended)"),
            ("option:1", "Publish now"),
            ("answer", "Answer…")
        ]
    );
    assert!(n.icon.ends_with("hark-icon.png") && Path::new(&n.icon).exists(), "app icon: {}", n.icon);
    app.find("section[aria-label='Question']").await;
    // The recommendation is a badge in the panel, and nothing is chosen for the person.
    let badge = app.text_of("section[aria-label='Question'] .option .badge").await;
    assert_eq!(badge, "Recommended");
    assert!(!app.exists("section[aria-label='Question'] input:checked").await, "nothing selected by itself");
    app.screenshot("1-panel-while-notified").await;

    server.invoke(n.id, "option:1").await;
    app.wait_until("the panel to close", WAIT, || async { !app.exists("section[aria-label='Question']").await }).await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose")
    })
    .await;
    app.screenshot("2-answered-from-notification").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    let answers = records[0].answers.as_ref().expect("answered");
    assert_eq!(answers.answers[0].selected, ["Publish now"], "the second option's label was recorded");
}

#[tokio::test]
async fn a_click_made_the_instant_a_notification_appears_answers() {
    if !e2e_enabled("a_click_made_the_instant_a_notification_appears_answers") {
        return;
    }
    let server = NotificationServer::start(true).await;
    // The server says the option was chosen before it even replies to `Notify`.
    server.click_at_once("option:1");
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-instant", &data_dir, &["--script", "blocking"], "publish it").await;
    server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose")
    })
    .await;
    app.close().await;
    let records = project_questions(&only_session(&data_dir));
    let answers = records[0].answers.as_ref().expect("answered by the instant click");
    assert_eq!(answers.answers[0].selected, ["Publish now"]);
}

#[tokio::test]
async fn text_typed_into_a_notifications_inline_reply_answers_as_other() {
    if !e2e_enabled("text_typed_into_a_notifications_inline_reply_answers_as_other") {
        return;
    }
    let server = NotificationServer::start_with_inline_reply().await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-reply", &data_dir, &["--script", "blocking"], "publish it").await;
    let n = server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    assert_eq!(
        pairs(&n),
        [
            ("default", "Open"),
            ("option:0", "Not yet (Recommended)"),
            ("option:1", "Publish now"),
            ("inline-reply", "Reply…"),
            ("answer", "Answer…")
        ]
    );
    server.reply(n.id, "Publish to staging first").await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Publish to staging first")
    })
    .await;
    app.screenshot("inline-reply-answered").await;
    app.close().await;
    let records = project_questions(&only_session(&data_dir));
    let answer = &records[0].answers.as_ref().expect("answered from the reply").answers[0];
    assert_eq!((answer.selected.is_empty(), answer.custom.as_deref()), (true, Some("Publish to staging first")));
}

#[tokio::test]
async fn a_continued_question_notifies_and_its_action_answers_late() {
    if !e2e_enabled("a_continued_question_notifies_and_its_action_answers_late") {
        return;
    }
    let server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let args = ["--script", "timed", "--timed", "--timeout", "2"];
    let app = away_and_ask("notify-continued", &data_dir, &args, "plan the notes app").await;

    let asked = server.wait_for("for the question", WAIT, |n| n.summary == "Database").await;
    let continued = server
        .wait_for("saying it continued", WAIT, |n| n.body.starts_with("The agent went on without your answer"))
        .await;
    assert!(continued.body.contains("Which database should the notes app use?"), "{}", continued.body);
    assert!(server.closed_by_app().contains(&asked.id), "one notification per session: the first was replaced");
    assert_eq!(pairs(&continued)[1..3], [("option:0", "SQLite"), ("option:1", "Postgres")]);

    server.invoke(continued.id, "option:0").await;
    app.wait_until("the late answer's continuation", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Your answer to my earlier question arrived")
    })
    .await;
    app.wait_until("the row to say answered late", WAIT, || async {
        app.text_of("[data-testid='question-row']").await.contains("Answered late")
    })
    .await;
    app.screenshot("answered-late").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    assert!(records[0].answered_late, "{records:?}");
    assert_eq!(records[0].answers.as_ref().map(|a| a.answers[0].selected.clone()), Some(vec!["SQLite".to_string()]));
}

#[tokio::test]
async fn answering_in_the_panel_first_closes_the_notification_and_a_late_action_is_harmless() {
    if !e2e_enabled("answering_in_the_panel_first_closes_the_notification_and_a_late_action_is_harmless") {
        return;
    }
    let server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-panel-first", &data_dir, &["--script", "blocking"], "publish it").await;

    let n = server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    app.click_option("Publish now").await;
    app.click_button(PANEL, "Submit").await;
    server.wait_closed(n.id, WAIT).await;
    // The person clicks the stale notification anyway.
    server.invoke(n.id, "option:1").await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose")
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!app.exists("[role='alert']").await, "no error shown for the stale action");
    app.close().await;

    let events = only_session(&data_dir);
    assert_eq!(tool_results(&events).len(), 1, "one settlement");
    let records = project_questions(&events);
    assert_eq!(records[0].answers.as_ref().map(|a| a.answers[0].selected.clone()), Some(vec!["Publish now".into()]));
}

#[tokio::test]
async fn several_questions_get_answer_only_which_focuses_the_panel() {
    if !e2e_enabled("several_questions_get_answer_only_which_focuses_the_panel") {
        return;
    }
    let server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-multi", &data_dir, &["--script", "batch"], "set up the project").await;

    let n = server.wait_for("for the batch", WAIT, |n| n.body.starts_with("3 questions")).await;
    assert_eq!(n.summary, "set up the project", "several questions: titled by the session");
    assert_eq!(pairs(&n), [("default", "Open"), ("answer", "Answer…")]);
    assert!(!has_focus(&app).await);

    server.invoke(n.id, "answer").await;
    app.wait_until("the window to take focus", WAIT, || has_focus(&app)).await;
    assert!(app.displayed("section[aria-label='Question']").await, "the panel shows the question");
    app.screenshot("focused").await;
    app.close().await;
}

#[tokio::test]
async fn a_server_without_actions_gets_a_body_only_notification() {
    if !e2e_enabled("a_server_without_actions_gets_a_body_only_notification") {
        return;
    }
    let server = NotificationServer::start(false).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-no-actions", &data_dir, &["--script", "blocking"], "publish it").await;

    let n = server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    assert!(n.actions.is_empty(), "no buttons offered: {:?}", n.actions);
    assert_eq!(n.body, "Publish the demo site to production now?");
    // The app carries on: the question is answered in the panel as usual.
    app.click_option("Not yet").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose")
    })
    .await;
    app.close().await;
}

#[tokio::test]
async fn a_refused_notification_answer_opens_the_question_and_says_why() {
    if !e2e_enabled("a_refused_notification_answer_opens_the_question_and_says_why") {
        return;
    }
    // A server that never confirms closing: the app keeps hearing the notification's buttons.
    let server = NotificationServer::start_with(true, OnClose::Silent).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-refused", &data_dir, &["--script", "blocking"], "publish it").await;

    let n = server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    app.click_option("Publish now").await;
    app.click_button(PANEL, "Submit").await;
    server.wait_closed(n.id, WAIT).await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose")
    })
    .await;

    // The person clicks the other option on the notification still on their screen.
    server.invoke(n.id, "option:1").await;
    app.wait_until("the window to say the answer was not taken", WAIT, || async {
        app.text_of("[role='alert']").await.contains("not taken")
    })
    .await;
    let alert = app.text_of("[role='alert']").await;
    assert!(alert.contains("NOT_PENDING"), "{alert}");
    app.screenshot("refused-shown").await;
    app.close().await;

    let events = only_session(&data_dir);
    assert_eq!(tool_results(&events).len(), 1, "still one settlement");
    let records = project_questions(&events);
    assert_eq!(records[0].answers.as_ref().map(|a| a.answers[0].selected.clone()), Some(vec!["Publish now".into()]));
}

#[tokio::test]
async fn quitting_does_not_wait_for_a_notification_server_that_never_answers() {
    if !e2e_enabled("quitting_does_not_wait_for_a_notification_server_that_never_answers") {
        return;
    }
    let server = NotificationServer::start_with(true, OnClose::Hang).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = away_and_ask("notify-hung", &data_dir, &["--script", "blocking"], "publish it").await;
    server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;

    let quitting = std::time::Instant::now();
    app.terminate().await;
    assert!(quitting.elapsed() < Duration::from_secs(10), "quit took {:?}", quitting.elapsed());

    // The session was recorded before anything waited on the server: the live question got its
    // result (under the default timed mode it continues, answerable after the next start) and the
    // turn ended.
    let events = only_session(&data_dir);
    let recorded = tool_results(&events);
    assert!(matches!(recorded.as_slice(), [ToolOutcome::Pending { .. }]), "{recorded:?}");
    assert!(matches!(events.last().map(|e| &e.event), Some(Event::TurnEnded { .. })), "{events:?}");
}
