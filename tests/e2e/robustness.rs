//! The window when things go sideways: the page is reloaded under a paused question, a second launch
//! names a session that does not exist.

use std::time::Duration;

use crate::support::{e2e_enabled, row_state, App, Launch, PANEL};

#[tokio::test]
async fn a_reloaded_page_does_not_keep_a_question_paused_for_ever() {
    if !e2e_enabled("a_reloaded_page_does_not_keep_a_question_paused_for_ever") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let args = ["--script", "timed", "--timed", "--timeout", "3", "--prompt", "plan the notes app"];
    let app = App::launch("reload", Launch::with_args(&data_dir, &args)).await;

    // The page takes the question over and the person takes their time: its deadline is paused.
    app.find("section[aria-label='Question'] [role='timer']").await;
    app.click_button(PANEL, "Take your time").await;
    app.screenshot("1-taking-time").await;

    // The page goes away without a word to the shell, as a crashed web process does (a page that
    // unloads normally may still get its release out as it is hidden; this one is made to believe it
    // stays visible), and a new page loads. The old page's take-over must not outlive it.
    app.client
        .execute(
            "Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' })",
            vec![],
        )
        .await
        .expect("keep the old page from releasing on its way out");
    app.client.refresh().await.expect("reload the page");
    // The new page shows the question; hiding it leaves nobody holding it.
    app.find("section[aria-label='Question']").await;
    app.click_button(PANEL, "Hide").await;
    app.screenshot("2-reloaded-and-hidden").await;

    // Nobody looks at it, so it continues on its deadline instead of waiting for a dead page.
    app.wait_until("the question to continue after the reload", Duration::from_secs(20), || async {
        row_state(&app).await == "continued"
    })
    .await;
    app.screenshot("3-continued").await;
    app.close().await;
}

#[tokio::test]
async fn a_second_launch_that_names_no_session_says_so_in_the_window() {
    if !e2e_enabled("a_second_launch_that_names_no_session_says_so_in_the_window") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch("second-launch-error", Launch::with_args(&data_dir, &["--script", "hello"])).await;
    app.find("textarea[aria-label='Message']").await;
    assert!(!app.exists("[data-testid='launch-error']").await);

    let second = std::process::Command::new(env!("CARGO_BIN_EXE_hark-desktop"))
        .args(["--session", "nope", "--prompt", "hello"])
        .env("HARK_DATA_DIR", &data_dir)
        .output()
        .expect("run a second hark-desktop");
    assert!(second.status.success(), "the second launch hands over and exits: {second:?}");

    app.wait_until("the running app to say why", Duration::from_secs(15), || async {
        app.text_of("[data-testid='launch-error']").await.contains("nope")
    })
    .await;
    let banner = app.text_of("[data-testid='launch-error']").await;
    assert!(banner.contains("NOT_FOUND"), "{banner}");
    app.screenshot("shown").await;
    app.close().await;
}

#[tokio::test]
async fn a_session_another_program_starts_shows_in_the_window_at_once_with_who_started_it() {
    if !e2e_enabled("a_session_another_program_starts_shows_in_the_window_at_once_with_who_started_it") {
        return;
    }
    use hark_core::control::{self, ControlError, Reply, Request};
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch("started-elsewhere", Launch::with_args(&data_dir, &["--script", "hello"])).await;
    app.find("textarea[aria-label='Message']").await;

    // A program of this user's starts a session over the control socket; it asks no question, so
    // nothing but the start itself can make the window list it.
    let start = Request::Start {
        text: "tidy the notes".into(),
        workspace: None,
        by: Some("a nightly script".into()),
        plan_first: Some(false),
        ptc: None,
    };
    let started = std::time::Instant::now();
    let session_id = loop {
        match control::call(&data_dir, &start).await {
            Ok(Reply::Started { session_id }) => break session_id,
            Err(ControlError::Unavailable { .. }) if started.elapsed() < Duration::from_secs(20) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            other => panic!("the app starts the session: {other:?}"),
        }
    };
    let row = format!("nav[aria-label='Sessions'] button[data-session-id='{session_id}']");
    app.wait_until("the session in the sidebar", Duration::from_secs(5), || app.exists(&row)).await;
    app.screenshot("1-listed").await;
    app.find(&row).await.click().await.expect("open the session");
    app.wait_until("where it came from", Duration::from_secs(10), || async {
        app.text_of("[data-testid='started-by']").await.contains("Started from a nightly script")
    })
    .await;
    app.screenshot("2-started-by").await;
    app.close().await;
}
