//! The question flows people rely on, in the real window with the demo model: answer a batch,
//! let a timed question continue and answer it late, take your time, close, quit and come back,
//! and untrusted model text.

use std::path::Path;
use std::time::Duration;

use hark_core::question::{Answer, AnswerBatch};
use hark_core::session::{project_questions, Event, QuestionState, ToolOutcome};

use crate::support::{e2e_enabled, only_session, row_state, tool_results, App, Launch, PANEL, QUESTION_ROW};

const ENTER: &str = "\u{E007}";
const MESSAGE_BOX: &str = "textarea[aria-label='Message']";

async fn panel_shown(app: &App) -> bool {
    app.displayed("section[aria-label='Question']").await
}

#[tokio::test]
async fn a_batch_is_answered_in_the_panel_and_the_composer_returns() {
    if !e2e_enabled("a_batch_is_answered_in_the_panel_and_the_composer_returns") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch(
        "batch",
        Launch::with_args(&data_dir, &["--provider", "demo", "--script", "batch", "--prompt", "set up the project"]),
    )
    .await;

    app.find("section[aria-label='Question']").await;
    assert!(!app.exists(MESSAGE_BOX).await, "the panel takes the composer's place");
    let first = app.text_of("section[aria-label='Question'] legend").await;
    assert!(first.contains("Which database"), "{first}");
    assert!(app.exists("section[aria-label='Question'] input[type='radio']").await, "real radio inputs");
    app.screenshot("1-first-question").await;

    // Single-select advances on choice.
    app.click_option("SQLite").await;
    app.wait_until("the extras question", Duration::from_secs(5), || async {
        app.text_of("section[aria-label='Question'] legend").await.contains("Which extras")
    })
    .await;
    // Multi-select toggles: three clicks leave two chosen.
    app.click_option("Docs").await;
    app.click_option("Tests").await;
    app.click_option("CI workflow").await;
    app.click_option("Tests").await;
    assert_eq!(
        app.client
            .find_all(fantoccini::Locator::Css("section[aria-label='Question'] input[type='checkbox']:checked"))
            .await
            .expect("query")
            .len(),
        2
    );
    app.screenshot("2-multi-select").await;

    // Back to the first item: "Other" replaces the chosen option with free text.
    app.find_x(&format!("{PANEL}//nav//button[starts-with(@aria-label, 'Question 1')]"))
        .await
        .click()
        .await
        .expect("go to 1");
    app.click_button(PANEL, "Other").await;
    let other = app.find("section[aria-label='Question'] input[aria-label='Other answer']").await;
    other.send_keys("DuckDB").await.expect("type other");
    // The third item (free-form name) is skipped.
    app.find_x(&format!("{PANEL}//nav//button[starts-with(@aria-label, 'Question 3')]"))
        .await
        .click()
        .await
        .expect("go to 3");
    app.click_button(PANEL, "Skip").await;
    app.screenshot("3-ready").await;
    // Enter submits once every item is answered or skipped.
    app.press(ENTER).await;

    app.wait_until("the composer to come back", Duration::from_secs(15), || async {
        app.exists(MESSAGE_BOX).await && !app.exists("section[aria-label='Question']").await
    })
    .await;
    app.wait_until("the row to show the answers", Duration::from_secs(15), || async {
        row_state(&app).await == "settled"
    })
    .await;
    let record = app.text_of("[data-testid='answers-record']").await;
    for expected in ["DuckDB", "Docs", "CI workflow"] {
        assert!(record.contains(expected), "record shows {expected}: {record}");
    }
    app.wait_until("the agent's reply", Duration::from_secs(15), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Thanks! Your answers")
    })
    .await;
    app.screenshot("4-answered").await;
    app.close().await;

    let events = only_session(&data_dir);
    let records = project_questions(&events);
    assert_eq!(records.len(), 1);
    let expected = AnswerBatch {
        answers: vec![
            Answer { id: "db".into(), selected: vec![], custom: Some("DuckDB".into()) },
            Answer { id: "extras".into(), selected: vec!["Docs".into(), "CI workflow".into()], custom: None },
            Answer { id: "name".into(), selected: vec![], custom: None },
        ],
    };
    assert_eq!(records[0].answers.as_ref(), Some(&expected), "the recorded tool result matches the panel");
    assert!(matches!(tool_results(&events).as_slice(), [ToolOutcome::Ok { .. }]));
}

#[tokio::test]
async fn a_hidden_timed_question_continues_and_is_answered_late_from_its_row() {
    if !e2e_enabled("a_hidden_timed_question_continues_and_is_answered_late_from_its_row") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let workspace = tmp.path().join("ws");
    std::fs::create_dir_all(&workspace).expect("workspace");
    std::fs::write(workspace.join("README.md"), "notes app").expect("readme");
    let ws = workspace.display().to_string();
    let args = ["--script", "timed", "--timed", "--timeout", "3", "--workspace", &ws, "--prompt", "plan the notes app"];
    let app = App::launch("timed", Launch::with_args(&data_dir, &args)).await;

    app.find("section[aria-label='Question'] [role='timer']").await;
    app.screenshot("1-countdown").await;
    app.click_button(PANEL, "Hide").await;
    assert!(!panel_shown(&app).await, "hidden");

    // Nobody answers: the question continues and the agent goes on with the workspace.
    app.wait_until("the question to continue", Duration::from_secs(20), || async {
        row_state(&app).await == "continued"
    })
    .await;
    app.wait_until("the agent to carry on", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("I wrote hark-notes.md")
    })
    .await;
    app.screenshot("2-continued").await;

    // Answer from the row: the late-answer path.
    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.wait_until("the panel", Duration::from_secs(5), || panel_shown(&app)).await;
    assert!(!app.exists("section[aria-label='Question'] [role='timer']").await, "no countdown when continued");
    app.click_option("Postgres").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the late answer to be admitted", Duration::from_secs(20), || async {
        app.text_of(QUESTION_ROW).await.contains("Answered late")
    })
    .await;
    // The strip counts from the same record as the row, so it is gone in the same frame.
    assert!(!app.exists("div.strip[role='status']").await, "no 'question is waiting' strip once answered late");
    app.wait_until("the continuation", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Your answer to my earlier question arrived")
    })
    .await;
    let record = app.text_of("[data-testid='answers-record']").await;
    assert!(record.contains("Postgres"), "read-only record of the late answer: {record}");
    assert!(app.exists(MESSAGE_BOX).await, "the composer is back");
    app.screenshot("3-answered-late").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    assert!(records[0].answered_late, "{records:?}");
    assert_eq!(records[0].state, QuestionState::Settled);
}

#[tokio::test]
async fn take_your_time_keeps_a_timed_question_open_past_its_timeout() {
    if !e2e_enabled("take_your_time_keeps_a_timed_question_open_past_its_timeout") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let args = ["--script", "timed", "--timed", "--timeout", "2", "--prompt", "plan the notes app"];
    let app = App::launch("take-your-time", Launch::with_args(&data_dir, &args)).await;

    app.find("section[aria-label='Question'] [role='timer']").await;
    app.click_button(PANEL, "Take your time").await;
    // Four times the timeout: still in the foreground, nothing continued.
    tokio::time::sleep(Duration::from_secs(8)).await;
    assert!(panel_shown(&app).await, "the panel is still up");
    assert_eq!(row_state(&app).await, "open", "the question is still open in the foreground");
    assert!(!app.text_of("section[aria-label='Transcript']").await.contains("No answer yet"));
    app.screenshot("1-still-open").await;

    app.click_option("SQLite").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the in-time reply", Duration::from_secs(15), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You answered in time")
    })
    .await;
    app.screenshot("2-answered").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    assert!(!records[0].answered_late && records[0].answers.is_some(), "{records:?}");
}

#[tokio::test]
async fn hark_answer_from_a_terminal_settles_the_question_in_the_open_window() {
    if !e2e_enabled("hark_answer_from_a_terminal_settles_the_question_in_the_open_window") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let args = ["--script", "timed", "--timed", "--timeout", "600", "--prompt", "plan the notes app"];
    let app = App::launch("terminal-answer", Launch::with_args(&data_dir, &args)).await;
    app.find("section[aria-label='Question'] [role='timer']").await;
    // "Take your time" holds the question in the window; it does not keep another client out.
    app.click_button(PANEL, "Take your time").await;
    app.screenshot("1-asking").await;

    // A terminal on the same machine: the read-only commands read the store, `hark answer` goes to
    // the running app over its control socket.
    let cli = |args: &[&str]| {
        std::process::Command::new(crate::support::hark_cli())
            .args(args)
            .env("HARK_DATA_DIR", &data_dir)
            .output()
            .expect("run hark")
    };
    let sessions: serde_json::Value = serde_json::from_slice(&cli(&["sessions", "--json"]).stdout).expect("sessions");
    let session = sessions[0]["id"].as_str().expect("a session").to_string();
    let questions: serde_json::Value =
        serde_json::from_slice(&cli(&["questions", &session, "--json"]).stdout).expect("questions");
    let call_id = questions[0]["call_id"].as_str().expect("a question").to_string();
    let answered = cli(&["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["Postgres"]}]}"#]);
    let stdout = String::from_utf8_lossy(&answered.stdout);
    assert!(answered.status.success(), "{stdout}{}", String::from_utf8_lossy(&answered.stderr));
    assert!(stdout.contains("answered while it waited"), "{stdout}");

    app.wait_until("the panel to close", Duration::from_secs(10), || async { !panel_shown(&app).await }).await;
    app.wait_until("the in-time reply", Duration::from_secs(15), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You answered in time")
    })
    .await;
    // The window was not the one that answered; a second answer is told the question resolved.
    let again = cli(&["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["SQLite"]}]}"#]);
    assert_eq!(again.status.code(), Some(3), "{}", String::from_utf8_lossy(&again.stderr));
    app.screenshot("2-answered-from-terminal").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    let picked = records[0].answers.as_ref().map(|a| a.answers[0].selected.clone());
    assert_eq!(picked, Some(vec!["Postgres".to_string()]), "{records:?}");
}

#[tokio::test]
async fn closing_the_panel_records_ask_cancelled() {
    if !e2e_enabled("closing_the_panel_records_ask_cancelled") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app =
        App::launch("close", Launch::with_args(&data_dir, &["--script", "blocking", "--prompt", "publish it"])).await;

    app.find("section[aria-label='Question']").await;
    app.click_button(PANEL, "Close").await;
    app.wait_until("the agent's reply to the cancel", Duration::from_secs(15), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You closed the question")
    })
    .await;
    assert!(app.exists(MESSAGE_BOX).await, "the composer is back");
    app.screenshot("cancelled").await;
    app.close().await;

    let results = tool_results(&only_session(&data_dir));
    match results.as_slice() {
        [ToolOutcome::Error { error }] => assert_eq!(error.code, "ASK_CANCELLED", "{error}"),
        other => panic!("expected one ASK_CANCELLED result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_continued_question_survives_quitting_and_is_answered_after_relaunch() {
    if !e2e_enabled("a_continued_question_survives_quitting_and_is_answered_after_relaunch") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let args = ["--script", "timed", "--timed", "--timeout", "1", "--prompt", "plan the notes app"];
    let app = App::launch("relaunch", Launch::with_args(&data_dir, &args)).await;
    app.find("section[aria-label='Question']").await;
    app.click_button(PANEL, "Hide").await;
    app.wait_until("the question to continue", Duration::from_secs(20), || async {
        row_state(&app).await == "continued"
    })
    .await;
    app.screenshot("1-before-quit").await;
    app.close().await;

    // A new process on the same data directory, no launch options: the person opens the session.
    let app = App::launch("relaunch-2", Launch::new(&data_dir)).await;
    let row = app.find("nav[aria-label='Sessions'] button[data-session-id]").await;
    assert!(app.exists("nav [aria-label='1 question waiting']").await, "the badge counts the continued question");
    row.click().await.expect("open the session");
    app.wait_until("the continued row", Duration::from_secs(10), || async { row_state(&app).await == "continued" })
        .await;
    app.screenshot("2-reopened").await;
    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.click_option("SQLite").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the continuation after the late answer", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Your answer to my earlier question arrived")
    })
    .await;
    app.wait_until("the row to say answered late", Duration::from_secs(10), || async {
        app.text_of(QUESTION_ROW).await.contains("Answered late")
    })
    .await;
    app.screenshot("3-answered").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    assert!(records[0].answered_late, "{records:?}");
}

#[tokio::test]
async fn untrusted_model_text_stays_inert_and_the_layout_holds() {
    if !e2e_enabled("untrusted_model_text_stays_inert_and_the_layout_holds") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app =
        App::launch("untrusted", Launch::with_args(&data_dir, &["--script", "untrusted", "--prompt", "render this"]))
            .await;

    app.find("section[aria-label='Question']").await;
    let transcript = app.text_of("section[aria-label='Transcript']").await;
    assert!(transcript.contains("<script>alert('text')</script>"), "markup shown as text: {transcript}");
    let panel = app.text_of("section[aria-label='Question']").await;
    assert!(panel.contains("<img src=x onerror=alert(1)>"), "question markup shown as text: {panel}");
    for css in ["main img", "main script", "main iframe", "main style", "main a[href^='javascript']"] {
        assert!(!app.exists(css).await, "model text became an element: {css}");
    }
    let layout = app
        .client
        .execute(
            "const m = document.querySelector('main'); \
             return { overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth, \
                      main: m.scrollWidth - m.clientWidth, title: document.title, \
                      pageScroll: document.scrollingElement.scrollTop, mainScroll: m.scrollTop, \
                      newChatTop: document.querySelector('[data-testid=new-chat]').getBoundingClientRect().top, \
                      panelBottom: document.querySelector('section[aria-label=Question]').getBoundingClientRect().bottom, \
                      height: window.innerHeight };",
            vec![],
        )
        .await
        .expect("measure");
    assert_eq!(layout["overflow"], 0, "no horizontal overflow of the page: {layout}");
    assert!(layout["main"].as_i64().unwrap_or(1) <= 0, "the main column holds: {layout}");
    assert_eq!(layout["title"], "Hark");
    assert_eq!(layout["pageScroll"], 0, "the window itself never scrolls: {layout}");
    assert_eq!(layout["mainScroll"], 0, "the main column does not scroll away: {layout}");
    assert!(layout["newChatTop"].as_f64().is_some_and(|t| t >= 0.0), "the sidebar stays in place: {layout}");
    assert!(
        layout["panelBottom"].as_f64().zip(layout["height"].as_f64()).is_some_and(|(b, h)| b <= h),
        "the panel fits the window: {layout}"
    );
    app.screenshot("1-untrusted").await;

    // The javascript: link is not clickable as a link.
    let link_buttons = app
        .client
        .find_all(fantoccini::Locator::XPath("//main//button[contains(., 'javascript')]"))
        .await
        .expect("query");
    assert!(link_buttons.is_empty(), "javascript: links stay text");
    app.close().await;
}

#[tokio::test]
async fn quitting_with_a_live_question_records_it_and_it_is_answerable_after_restart() {
    if !e2e_enabled("quitting_with_a_live_question_records_it_and_it_is_answerable_after_restart") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let args = ["--script", "timed", "--timed", "--timeout", "600", "--prompt", "plan the notes app"];
    let app = App::launch("quit-live", Launch::with_args(&data_dir, &args)).await;
    app.find("section[aria-label='Question'] [role='timer']").await;
    app.terminate().await;

    // Recorded cleanly: the question's result says it is still open, and the turn's end is in the
    // log (no crash repair needed on the next start).
    let events = only_session(&data_dir);
    let results = tool_results(&events);
    assert!(matches!(results.first(), Some(ToolOutcome::Pending { .. })), "{results:?}");
    assert!(matches!(events.last().map(|e| &e.event), Some(Event::TurnEnded { .. })), "{events:?}");
    assert_eq!(project_questions(&events)[0].state, QuestionState::Continued);

    let app = App::launch("quit-live-2", Launch::new(&data_dir)).await;
    app.find("nav[aria-label='Sessions'] button[data-session-id]").await.click().await.expect("open the session");
    app.wait_until("the continued row", Duration::from_secs(10), || async { row_state(&app).await == "continued" })
        .await;
    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.click_option("Postgres").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the row to say answered late", Duration::from_secs(20), || async {
        app.text_of(QUESTION_ROW).await.contains("Answered late")
    })
    .await;
    app.screenshot("answered-after-restart").await;
    app.close().await;
}

#[tokio::test]
async fn a_second_launch_hands_its_prompt_to_the_running_app() {
    if !e2e_enabled("a_second_launch_hands_its_prompt_to_the_running_app") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch("single-instance", Launch::with_args(&data_dir, &["--script", "hello"])).await;
    app.find(MESSAGE_BOX).await;

    let started = std::time::Instant::now();
    let second = std::process::Command::new(env!("CARGO_BIN_EXE_hark-desktop"))
        .args(["--prompt", "hello from a second launch"])
        .env("HARK_DATA_DIR", &data_dir)
        .output()
        .expect("run a second hark-desktop");
    assert!(second.status.success(), "the second launch exits cleanly: {second:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "it hands over instead of running");

    app.wait_until("the forwarded session", Duration::from_secs(15), || async {
        app.text_of("nav[aria-label='Sessions']").await.contains("hello from a second launch")
    })
    .await;
    app.wait_until("the running app to show it", Duration::from_secs(15), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("hello from a second launch")
    })
    .await;
    app.screenshot("forwarded").await;
    app.close().await;
}

#[tokio::test]
async fn settings_survive_a_corrupt_file_and_save_without_secrets() {
    if !e2e_enabled("settings_survive_a_corrupt_file_and_save_without_secrets") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    std::fs::create_dir_all(&data_dir).expect("data dir");
    std::fs::write(data_dir.join("settings.json"), "{ \"provider\": ").expect("corrupt settings");
    let app = App::launch("settings", Launch::new(&data_dir)).await;

    // First launch with nothing usable configured: the demo model, said plainly.
    app.find("[data-testid='demo-banner']").await;
    app.find("[data-testid='settings-open']").await.click().await.expect("open settings");
    let dialog = "//*[@role='dialog']";
    let warning = app.find_x(&format!("{dialog}//*[contains(., 'SETTINGS_CORRUPT')]")).await;
    let shown = warning.prop("textContent").await.expect("text").unwrap_or_default();
    assert!(shown.contains("settings.json.corrupt-"), "names where the bad file was kept: {shown}");
    let kept: Vec<_> = std::fs::read_dir(&data_dir)
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("settings.json.corrupt-"))
        .collect();
    assert_eq!(kept.len(), 1, "the corrupt file is kept aside, not lost");
    app.screenshot("1-corrupt-warning").await;

    // Switch to Ollama (no key) and the legacy question mode, each section saved by its own Save.
    app.settings_section("model").await;
    let provider = app.find_x(&format!("{dialog}//label[.//span[normalize-space(.)='Provider']]//select")).await;
    provider.select_by_value("ollama").await.expect("choose ollama");
    app.save_settings_section().await;
    app.settings_section("questions").await;
    app.find_x(&format!("{dialog}//input[@name='question-mode' and @value='wait']"))
        .await
        .click()
        .await
        .expect("legacy");
    app.save_settings_section().await;
    app.click_button(dialog, "Close").await;
    app.wait_until("the dialog to close", Duration::from_secs(10), || async { !app.exists("[role='dialog']").await })
        .await;
    app.wait_until("the demo banner to go", Duration::from_secs(10), || async {
        !app.exists("[data-testid='demo-banner']").await
    })
    .await;
    app.screenshot("2-saved").await;
    app.close().await;

    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data_dir.join("settings.json")).expect("settings written"))
            .expect("valid JSON");
    assert_eq!(saved["provider"], "ollama");
    assert_eq!(saved["question_mode"], "legacy");
    assert!(saved.get("api_key").is_none(), "no key in the settings file: {saved}");
}

/// A Secret Service for this test: gnome-keyring with a fresh login keyring, its files in `dir`.
pub(crate) fn start_keyring(dir: &Path) -> std::process::Child {
    use std::io::Write;
    let mut child = std::process::Command::new("gnome-keyring-daemon")
        // --replace: a daemon D-Bus activated earlier in this session (by another test's keyring check)
        // has no login keyring; this one creates and unlocks it.
        .args(["--replace", "--foreground", "--unlock", "--components=secrets"])
        .env("XDG_DATA_HOME", dir)
        .env("XDG_RUNTIME_DIR", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start gnome-keyring-daemon (make test installs gnome-keyring)");
    // The password that creates and unlocks a fresh login keyring (an empty one creates none).
    drop(child.stdin.take().map(|mut s| s.write_all(b"hark-e2e")));
    std::thread::sleep(Duration::from_secs(2));
    child
}

#[tokio::test]
async fn an_api_key_goes_to_the_os_keyring_and_nowhere_else() {
    if !e2e_enabled("an_api_key_goes_to_the_os_keyring_and_nowhere_else") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut keyring = start_keyring(&tmp.path().join("keyring"));
    let data_dir = tmp.path().join("hark-data");
    const KEY: &str = "sk-hark-e2e-SECRET-4242";
    let app = App::launch("keyring", Launch::new(&data_dir)).await;

    let dialog = "//*[@role='dialog']";
    app.settings_section("model").await;
    let provider = app.find_x(&format!("{dialog}//label[.//span[normalize-space(.)='Provider']]//select")).await;
    provider.select_by_value("deepseek").await.expect("choose deepseek");
    let key_field = app.find_x(&format!("{dialog}//input[@type='password']")).await;
    if !key_field.is_enabled().await.expect("enabled") {
        let note = app.text_of("[role='dialog'] .note").await;
        panic!("the keyring should be available: {note}");
    }
    key_field.send_keys(KEY).await.expect("type the key");
    app.save_settings_section().await;
    app.click_button(dialog, "Close").await;
    app.wait_until("the dialog to close", Duration::from_secs(10), || async { !app.exists("[role='dialog']").await })
        .await;

    // Reopened, the field is write-only: it says a key is stored and never shows it.
    app.settings_section("model").await;
    let field = app.find_x(&format!("{dialog}//input[@type='password']")).await;
    let placeholder = field.attr("placeholder").await.expect("placeholder").unwrap_or_default();
    assert!(placeholder.contains("stored in the system keyring"), "{placeholder}");
    assert_eq!(field.prop("value").await.expect("value").unwrap_or_default(), "");
    let page = app.client.source().await.expect("page source");
    assert!(!page.contains(KEY), "the key never comes back to the window");
    app.screenshot("stored").await;
    app.close().await;
    let _ = keyring.kill();
    let _ = keyring.wait();

    crate::support::assert_secret_not_in_files(&data_dir, KEY);
}

#[tokio::test]
async fn a_model_error_shows_a_banner_and_retry_streams_the_reply() {
    use hark_test_support::server::{text_pieces, Reply, TestServer};
    if !e2e_enabled("a_model_error_shows_a_banner_and_retry_streams_the_reply") {
        return;
    }
    let server = TestServer::start(vec![
        Reply::error(401, "invalid api key"),
        text_pieces(&["Hello ", "from the **local** ", "model."]),
    ])
    .await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let base_url = server.base_url();
    let args = ["--provider", "openai", "--base-url", &base_url, "--model", "test-model", "--prompt", "hi"];
    let app = App::launch("model-error", Launch::with_args(&data_dir, &args)).await;

    let banner = app.find("[data-testid='model-error']").await;
    let text = banner.prop("textContent").await.expect("text").unwrap_or_default();
    assert!(text.contains("MODEL_AUTH"), "a readable error with its code: {text}");
    assert!(!app.exists("[data-testid='demo-banner']").await, "a real model, no demo banner");
    app.screenshot("1-error").await;

    app.click_button("//*[@data-testid='model-error']", "Retry").await;
    app.wait_until("the streamed reply", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Hello from the local model.")
    })
    .await;
    // Markdown renders as elements built from text, never as HTML from the model.
    assert!(app.exists("section[aria-label='Transcript'] strong").await);
    assert_eq!(server.requests().len(), 2, "one failed request, one retry");
    app.screenshot("2-retried").await;
    app.close().await;
}

const REVIEW: &str = "//section[@aria-label='Plan review']";

async fn review_shown(app: &App) -> bool {
    app.displayed("section[aria-label='Plan review']").await
}

#[tokio::test]
async fn a_plan_is_reviewed_in_the_panel_changes_reach_the_model_and_the_write_waits_for_approval() {
    if !e2e_enabled("a_plan_is_reviewed_in_the_panel_changes_reach_the_model_and_the_write_waits_for_approval") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let workspace = tmp.path().join("ws");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let ws = workspace.display().to_string();
    let args = ["--script", "plan", "--plan", "--workspace", &ws, "--prompt", "outline the notes app"];
    let app = App::launch("plan", Launch::with_args(&data_dir, &args)).await;

    // The agent's first write was refused; its plan waits for review, rendered as Markdown.
    app.wait_until("the plan review", Duration::from_secs(20), || review_shown(&app)).await;
    let plan = app.text_of("[data-testid='plan']").await;
    assert!(plan.contains("Write hark-plan.md with the outline"), "{plan}");
    assert!(app.exists("[data-testid='plan'] h2").await && app.exists("[data-testid='plan'] strong").await);
    assert!(!workspace.join("hark-plan.md").exists(), "nothing written before the approval");
    app.screenshot("1-review").await;

    // Request changes: the feedback reaches the model, which revises the plan and asks again.
    app.click_button(REVIEW, "Request changes").await;
    let feedback = app.find("textarea[aria-label='What should change']").await;
    feedback.send_keys("add a section on search").await.expect("type the feedback");
    app.screenshot("2-feedback").await;
    app.click_button(REVIEW, "Send feedback").await;
    app.wait_until("the revised plan", Duration::from_secs(20), || async {
        app.text_of("[data-testid='plan']").await.contains("Revised plan")
    })
    .await;
    let transcript = app.text_of("section[aria-label='Transcript']").await;
    assert!(transcript.contains("You asked for changes: add a section on search"), "{transcript}");
    assert!(app.text_of("[data-testid='plan']").await.contains("add a section on search"));
    assert!(!workspace.join("hark-plan.md").exists(), "a change request approves nothing");
    app.screenshot("3-revised").await;

    // Approve: the write happens.
    app.click_button(REVIEW, "Approve").await;
    app.wait_until("the write", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("I wrote hark-plan.md")
    })
    .await;
    app.wait_until("the review to close", Duration::from_secs(5), || async { !review_shown(&app).await }).await;
    assert!(app.exists(MESSAGE_BOX).await, "the composer is back");
    let rows = app.text_of("section[aria-label='Transcript']").await;
    assert!(rows.contains("Plan review"), "plan reviews have question rows: {rows}");
    app.screenshot("4-approved").await;
    app.close().await;

    assert!(std::fs::read_to_string(workspace.join("hark-plan.md")).expect("written").starts_with("# Notes app"));
    let records = project_questions(&only_session(&data_dir));
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(records.iter().all(|r| r.intent.is_plan_review() && r.state == QuestionState::Settled));
    let outcomes = tool_results(&only_session(&data_dir));
    assert!(
        matches!(&outcomes[0], ToolOutcome::Error { error } if error.code == "PLAN_NOT_APPROVED"),
        "the first write was refused: {outcomes:?}"
    );
}

#[tokio::test]
async fn a_scripts_question_continues_after_its_timeout_and_is_answered_late_from_its_row() {
    if !e2e_enabled("a_scripts_question_continues_after_its_timeout_and_is_answered_late_from_its_row") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let workspace = tmp.path().join("ws");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let ws = workspace.display().to_string();
    let args = [
        "--script",
        "ptc",
        "--ptc",
        "--timed",
        "--timeout",
        "3",
        "--workspace",
        &ws,
        "--prompt",
        "set up the notes app",
    ];
    let app = App::launch("ptc", Launch::with_args(&data_dir, &args)).await;

    // The script's question shows like any, with its countdown; nobody answers.
    app.find("section[aria-label='Question'] [role='timer']").await;
    app.screenshot("1-script-question").await;
    app.click_button(PANEL, "Hide").await;
    app.wait_until("the script's question to continue", Duration::from_secs(20), || async {
        row_state(&app).await == "continued"
    })
    .await;
    app.wait_until("the script to finish", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("The script finished and wrote hark-notes.md")
    })
    .await;
    assert!(app.text_of(QUESTION_ROW).await.contains("from a script"), "the row says who asked");
    assert!(workspace.join("hark-notes.md").exists(), "the script went on and wrote");
    app.screenshot("2-continued").await;

    // Answered late from its row: it reaches the model.
    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.wait_until("the panel", Duration::from_secs(5), || panel_shown(&app)).await;
    app.click_option("Postgres").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the late answer to reach the model", Duration::from_secs(20), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Your answer to the script's question arrived")
    })
    .await;
    assert!(app.text_of(QUESTION_ROW).await.contains("Answered late"));
    app.screenshot("3-answered-late").await;
    app.close().await;

    let records = project_questions(&only_session(&data_dir));
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(records[0].parent_call_id.is_some() && records[0].answered_late, "{records:?}");
}
