//! `hark tui` while the desktop app runs: the terminal works the app's sessions through its control
//! socket. A question the window answers first closes the terminal's overlay; a session the
//! terminal starts asks in both, and the terminal's answer settles the window's too. Each step's
//! terminal screen is saved under `target/tui/`, the window under `target/e2e/`.

use std::time::Duration;

use hark_core::session::{project_questions, QuestionState, Store};

use crate::support::{e2e_enabled, hark_cli, screenshot_dir, App, Launch, PANEL};
use hark_test_support::pane::Pane;

const PANEL_CSS: &str = "section[aria-label='Question']";
const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn the_terminal_answers_the_apps_questions_and_the_first_answer_wins() {
    if !e2e_enabled("the_terminal_answers_the_apps_questions_and_the_first_answer_wins") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = (tmp.path().join("hark-data"), tmp.path().join("notes-app"));
    std::fs::create_dir_all(&project).expect("project folder");
    let args = ["--script", "timed", "--timed", "--timeout", "600", "--prompt", "plan the notes app"];
    let app = App::launch("tui-app", Launch::with_args(&data_dir, &args)).await;
    app.find(&format!("{PANEL_CSS} [role='timer']")).await;
    // The script asks with a 5 s timeout: both surfaces take their time, so neither runs out first.
    app.click_button(PANEL, "Take your time").await;

    let captures = screenshot_dir().parent().expect("target").join("tui");
    let mut pane = Pane::start("app", &hark_cli(), &data_dir, &project, &[], captures);
    let asked = pane.wait_for("question 1/1", "1-asked-in-both");
    assert!(asked.contains("in the Hark app"), "the terminal says whose sessions it works:\n{asked}");
    assert!(asked.contains("Which database should the notes app use?") && asked.contains("s left"), "{asked}");
    pane.keys(&["t"]);
    pane.wait_for("taking your time", "1-taking-time");
    app.screenshot("1-asked-in-both").await;

    // The window answers first: the terminal's overlay closes by itself.
    app.click_option("SQLite").await;
    app.click_button(PANEL, "Submit").await;
    pane.wait_until(
        "the overlay closed",
        |s| s.contains("What should the agent do?") && !s.contains("question 1/1"),
        "2-answered-in-the-window",
    );
    app.wait_until("the in-time reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You answered in time")
    })
    .await;

    // A session started from the terminal runs in the app and asks in both; the terminal answers.
    pane.type_text("plan the sync service");
    pane.keys(&["Enter"]);
    pane.wait_for("question 1/1", "3-second-session-asks");
    pane.keys(&["t"]);
    app.wait_until("the second session in the sidebar", WAIT, || async {
        app.text_of("nav[aria-label='Sessions']").await.contains("plan the sync service")
    })
    .await;
    pane.keys(&["2", "Enter"]);
    let answered = pane.wait_for("You answered in time", "4-answered-in-the-terminal");
    assert!(answered.contains("Postgres"), "{answered}");
    app.wait_until("no question in the window", WAIT, || async { !app.displayed(PANEL_CSS).await }).await;
    app.screenshot("2-answered-in-the-terminal").await;

    // Quitting the terminal leaves the app running.
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "5-quit");
    app.find("nav[aria-label='Sessions']").await;
    drop(pane);
    app.close().await;

    let store = Store::open(&data_dir).expect("the store the app wrote");
    let mut picked = Vec::new();
    for session in store.list_sessions().expect("sessions") {
        let records = project_questions(&store.events(&session.id).expect("events"));
        assert_eq!(records.len(), 1, "{}: {records:?}", session.title);
        assert_eq!(records[0].state, QuestionState::Settled, "{records:?}");
        let answer = records[0].answers.as_ref().map(|a| a.answers[0].selected.clone()).unwrap_or_default();
        picked.push((session.title, answer));
    }
    picked.sort();
    assert_eq!(
        picked,
        vec![
            ("plan the notes app".to_string(), vec!["SQLite".to_string()]),
            ("plan the sync service".to_string(), vec!["Postgres".to_string()]),
        ]
    );
}
