//! `hark tui` as a real process in a real terminal: tmux runs it in a pane of 80×24 with `NO_COLOR`,
//! keys go in with `send-keys` and the screen comes back with `capture-pane`. Every step's screen is
//! saved as text under `target/tui/` to look at. `make test` installs tmux. (Beside the real desktop
//! window it is tested in the end-to-end suite, `tests/e2e/tui.rs`.)
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use hark_test_support::pane::Pane;
use serde_json::Value;

/// `hark tui ARGS` of this build in a new pane, its screens saved under `target/tui/`.
fn pane(name: &'static str, data: &Path, workspace: &Path, args: &[&str]) -> Pane {
    Pane::start(name, Path::new(env!("CARGO_BIN_EXE_hark")), data, workspace, args, target_dir().join("tui"))
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

fn hark_json(data: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_hark")).args(args).env("HARK_DATA_DIR", data).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The questions of the one session, as `hark questions --json` reads them.
fn questions(data: &Path) -> Value {
    let sessions = hark_json(data, &["sessions", "--json"]);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    hark_json(data, &["questions", &id, "--json"])
}

fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (data, workspace) = (tmp.path().join("data"), tmp.path().join("ws"));
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("README.md"), "notes app").unwrap();
    (tmp, data, workspace)
}

#[test]
fn a_batch_is_answered_with_the_keyboard_only() {
    let (_tmp, data, ws) = dirs();
    let mut pane = pane("batch", &data, &ws, &["--provider", "demo", "--script", "batch", "set up"]);
    pane.wait_for("question 1/3", "asked");
    pane.keys(&["2"]);
    pane.wait_for("question 2/3", "single-chosen");
    pane.keys(&["1", "Down", "Down", "Space"]);
    let multi = pane.wait_for("[x] 3 CI workflow", "multi-toggled");
    assert!(multi.contains("[x] 1 Docs") && multi.contains("[ ] 2 Tests"), "{multi}");
    pane.keys(&["Enter"]);
    let refused = pane.wait_for("question 3/3", "enter-points-at-the-rest");
    assert!(refused.contains("Answer or skip (s) every question"), "told why nothing was sent:\n{refused}");
    pane.keys(&["Enter"]);
    pane.type_text("hark-notes");
    pane.wait_for("hark-notes", "typed");
    pane.keys(&["Enter"]);
    let answered = pane.wait_for("Thanks! Your answers", "answered");
    assert!(answered.contains("Database: Postgres · Extras: Docs, CI workflow · Name: hark-notes"), "{answered}");
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");

    let q = questions(&data);
    let answers = &q[0]["answers"]["answers"];
    assert_eq!(answers[0]["selected"], serde_json::json!(["Postgres"]));
    assert_eq!(answers[1]["selected"], serde_json::json!(["Docs", "CI workflow"]));
    assert_eq!(answers[2]["custom"], "hark-notes");
}

#[test]
fn esc_closes_the_question_and_it_is_recorded_cancelled() {
    let (_tmp, data, ws) = dirs();
    let mut pane = pane("esc", &data, &ws, &["--provider", "demo", "--script", "timed", "--timed", "go"]);
    pane.wait_for("question 1/1", "asked");
    pane.keys(&["Escape"]);
    let closed = pane.wait_for("You closed the question", "closed");
    assert!(closed.contains("? Question (ASK_CANCELLED)"), "the row says how it ended:\n{closed}");
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");
    let sessions = hark_json(&data, &["sessions", "--json"]);
    let events = hark_json(&data, &["show", sessions[0]["id"].as_str().unwrap(), "--json"]);
    let cancelled = events.as_array().unwrap().iter().any(|e| {
        e["type"] == "tool/result"
            && e["outcome"]["status"] == "error"
            && e["outcome"]["error"]["code"] == "ASK_CANCELLED"
    });
    assert!(cancelled, "{events}");
}

#[test]
fn a_timed_question_counts_down_goes_on_and_is_answered_late_from_its_row() {
    let (_tmp, data, ws) = dirs();
    let ws_arg = ws.display().to_string();
    let args = ["--provider", "demo", "--script", "timed", "--timed", "--timeout", "2", "--workspace", &ws_arg, "go"];
    let mut pane = pane("timed", &data, &ws, &args);
    let counting = pane.wait_for("s left", "countdown");
    assert!(counting.contains("t takes your time"), "{counting}");
    let went_on = pane.wait_for("I wrote hark-notes.md", "went-on");
    assert!(went_on.contains("went on — Tab answers it"), "the row says it can still be answered:\n{went_on}");
    pane.keys(&["Tab"]);
    pane.wait_for("Answer late", "late-overlay");
    pane.keys(&["1", "Enter"]);
    let late = pane.wait_for("Your answer to my earlier question arrived", "answered-late");
    assert!(late.contains("answered late"), "{late}");
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");
    let q = questions(&data);
    assert_eq!(q[0]["answered_late"], true, "{q}");
}

#[test]
fn taking_your_time_stops_the_countdown() {
    let (_tmp, data, ws) = dirs();
    let args = ["--provider", "demo", "--script", "timed", "--timed", "--timeout", "2", "go"];
    let mut pane = pane("take-time", &data, &ws, &args);
    pane.wait_for("s left", "countdown");
    pane.keys(&["t"]);
    pane.wait_for("taking your time", "taking-time");
    // Well past the 2 s: still asked in the foreground, then answered in time.
    std::thread::sleep(Duration::from_secs(3));
    let still = pane.wait_for("question 1/1", "still-asked");
    assert!(!still.contains("went on"), "{still}");
    pane.keys(&["1", "Enter"]);
    pane.wait_for("You answered in time", "answered");
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");
    let q = questions(&data);
    assert_eq!(q[0]["answered_late"], false, "{q}");
    assert_eq!(q[0]["state"], "settled", "{q}");
}

/// The countdown keeps the window's rule: starting an "Other" answer pauses it, the first letter
/// stops it for good, so a slow typist on a 3 s question is never cut off.
#[test]
fn typing_an_other_answer_stops_the_countdown() {
    let (_tmp, data, ws) = dirs();
    let args = ["--provider", "demo", "--script", "timed", "--timed", "--timeout", "3", "go"];
    let mut pane = pane("type-other", &data, &ws, &args);
    pane.wait_for("s left", "countdown");
    pane.keys(&["o"]);
    pane.wait_for("paused while you start", "paused");
    for letter in ["m", "y", " ", "w", "a", "y"] {
        std::thread::sleep(Duration::from_millis(700));
        pane.keys(&[letter]);
    }
    let typing = pane.wait_for("taking your time", "typing");
    assert!(typing.contains("my way"), "{typing}");
    // Well past the 3 s since it was asked: still asked in the foreground, then answered in time.
    std::thread::sleep(Duration::from_secs(1));
    let still = pane.wait_for("question 1/1", "still-asked");
    assert!(!still.contains("went on"), "{still}");
    pane.keys(&["Enter"]);
    pane.wait_for("You answered in time", "answered");
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");
    let q = questions(&data);
    assert_eq!(q[0]["answered_late"], false, "{q}");
    assert_eq!(q[0]["state"], "settled", "{q}");
}

#[test]
fn ctrl_c_stops_the_turn_then_quits_and_a_resize_redraws() {
    let (_tmp, data, ws) = dirs();
    let mut pane = pane("ctrl-c", &data, &ws, &["--provider", "demo", "--script", "batch", "set up"]);
    pane.wait_for("question 1/3", "asked");
    // A narrower terminal: the overlay is drawn again to fit.
    assert!(pane.tmux(&["resize-window", "-t", "tui", "-x", "60", "-y", "20"]).status.success());
    let narrow = pane.wait_for("question 1/3", "narrow");
    assert!(narrow.lines().all(|l| l.chars().count() <= 60), "fits 60 columns:\n{narrow}");
    assert!(narrow.contains("SQLite"), "{narrow}");
    // The first Ctrl-C stops the turn and says how to quit; its question ends with it (the overlay
    // goes once the question service says so, a moment after the turn stopped).
    pane.keys(&["C-c"]);
    pane.wait_until(
        "the turn stopped and its question gone",
        |s| s.contains("Ctrl-C again quits") && !s.contains("question 1/3"),
        "stopped",
    );
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");
    let sessions = hark_json(&data, &["sessions", "--json"]);
    let events = hark_json(&data, &["show", sessions[0]["id"].as_str().unwrap(), "--json"]);
    let events = events.as_array().unwrap();
    assert!(
        events.iter().any(|e| e["type"] == "tool/result" && e["outcome"]["error"]["code"] == "ASK_ABORTED"),
        "{events:?}"
    );
    assert!(events.iter().any(|e| e["type"] == "turn/ended" && e["reason"] == "aborted"), "{events:?}");
}

#[test]
fn questions_of_two_sessions_are_queued_one_overlay_at_a_time_and_the_list_shows_them() {
    let (_tmp, data, ws) = dirs();
    let mut pane = pane("queue", &data, &ws, &["--provider", "demo", "--script", "batch", "first"]);
    pane.wait_for("question 1/3", "first-asked");
    // Hidden, the first session's question keeps waiting; a second session asks meanwhile.
    pane.keys(&["h", "C-o"]);
    let listed = pane.wait_for("Sessions", "list");
    assert!(listed.contains("first  (1 waiting)"), "the list badges waiting questions:\n{listed}");
    pane.keys(&["n"]);
    pane.type_text("second");
    pane.keys(&["Enter"]);
    let queued = pane.wait_for("1 more question waiting", "second-asked");
    assert!(queued.contains("Hark · second"), "the new session is shown:\n{queued}");
    assert!(queued.contains("The agent asks · question 1/3"), "{queued}");
    pane.keys(&["1", "s", "s", "Enter"]);
    pane.wait_for("Thanks! Your answers", "second-answered");
    // One overlay at a time: the first session's question comes back, saying whose it is.
    pane.keys(&["Tab"]);
    let other = pane.wait_for("“first” asks", "first-again");
    assert!(!other.contains("more question waiting"), "{other}");
    pane.keys(&["2", "s", "s", "Enter"]);
    pane.keys(&["C-o"]);
    let settled = pane.wait_for("Sessions", "both-answered");
    assert!(!settled.contains("waiting)"), "no question waits any more:\n{settled}");
    pane.keys(&["Escape", "C-c"]);
    pane.wait_for("[exited]", "quit");
    let sessions = hark_json(&data, &["sessions", "--json"]);
    for session in sessions.as_array().unwrap() {
        let q = hark_json(&data, &["questions", session["id"].as_str().unwrap(), "--json"]);
        assert_eq!(q[0]["state"], "settled", "{q}");
    }
}

/// A stand-in for the desktop app in this process: a host of the data directory serving its control
/// socket with the app's handler, its sessions on the demo model's timed script.
mod app {
    use std::path::Path;
    use std::sync::Arc;

    use hark_core::control::{self, ControlServer};
    use hark_core::host::Host;
    use hark_core::service::ForwardingProvider;
    use hark_test_support::models::{timed, DemoModels};

    pub struct App {
        pub runtime: tokio::runtime::Runtime,
        pub host: Arc<Host>,
        server: ControlServer,
    }

    impl App {
        pub fn start(data: &Path) -> App {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            let _entered = runtime.enter();
            let (surface, requests) = ForwardingProvider::new();
            // Kept open for the app's life: a closed channel would refuse every question.
            std::mem::forget(requests);
            let host = Arc::new(
                Host::start(data, Arc::new(surface), Arc::new(DemoModels::script("timed").forcing(timed()))).unwrap(),
            );
            let server = control::serve(data, hark_core::front_door::control_handler(Arc::clone(&host))).unwrap();
            App { runtime, host, server }
        }

        /// Quits as the app does: the socket stops, then the host (a live timed question continues).
        pub fn quit(self) {
            let App { runtime, host, server } = self;
            runtime.block_on(async move {
                server.shutdown().await;
                host.shutdown().await;
            });
        }
    }
}

#[test]
fn beside_a_running_app_the_terminal_takes_over_when_it_quits_and_keeps_the_answer_being_given() {
    let (_tmp, data, ws) = dirs();
    std::fs::create_dir_all(&data).unwrap();
    let app = app::App::start(&data);
    {
        let _entered = app.runtime.enter();
        app.host.start_session("plan the notes app", Some(ws.clone())).unwrap();
    }
    let ws_arg = ws.display().to_string();
    let args = ["--provider", "demo", "--script", "timed", "--timed", "--workspace", &ws_arg];
    let mut pane = pane("takeover", &data, &ws, &args);
    let asked = pane.wait_for("question 1/1", "asked-through-the-app");
    // The script asks with a 5 s timeout: this screen takes its time first.
    pane.keys(&["t"]);
    assert!(asked.contains("· in the Hark app"), "{asked}");
    assert!(asked.contains("In the running Hark app: its models, tools and question settings apply."), "{asked}");
    pane.wait_for("taking your time", "taking-time");
    pane.keys(&["2"]);
    pane.wait_for("(•) 2 Postgres", "chosen");

    app.quit();
    let taken = pane.wait_for("this terminal hosts your sessions now", "taken-over");
    assert!(taken.contains("(•) 2 Postgres"), "the choice stays:\n{taken}");
    pane.wait_for("Enter answers it late", "went-on-while-shown");
    pane.keys(&["Enter"]);
    let late = pane.wait_for("Your answer to my earlier question arrived", "answered-late");
    assert!(late.contains("answered late"), "{late}");
    pane.keys(&["C-c"]);
    std::thread::sleep(Duration::from_millis(500));
    if !pane.screen().contains("[exited]") {
        pane.keys(&["C-c"]);
    }
    pane.wait_for("[exited]", "quit");
    let q = questions(&data);
    assert_eq!(q[0]["answered_late"], true, "{q}");
    assert_eq!(q[0]["answers"]["answers"][0]["selected"], serde_json::json!(["Postgres"]), "{q}");
}

#[test]
fn a_plan_review_shows_its_plan_and_enter_alone_approves_nothing() {
    let (_tmp, data, ws) = dirs();
    let folder = ws.to_string_lossy().to_string();
    let args = ["--provider", "demo", "--script", "plan", "--plan", "--workspace", &folder, "write the outline"];
    let mut pane = pane("plan", &data, &ws, &args);
    let asked = pane.wait_for("Approve this plan", "plan-shown");
    assert!(asked.contains("Write `hark-plan.md` with the outline"), "the plan is in the overlay:\n{asked}");
    pane.keys(&["Enter"]);
    let refused = pane.wait_for("Choose 1 to approve the plan", "enter-approves-nothing");
    assert!(refused.contains("Approve this plan"), "still asked:\n{refused}");
    assert!(!ws.join("hark-plan.md").exists(), "nothing was approved");
    // Its last line is not on the screen yet: Approve waits for it.
    pane.keys(&["1"]);
    pane.wait_for("Read the whole plan before you approve it", "approve-waits-for-the-rest");
    pane.keys(&["NPage"]);
    let rest = pane.wait_for("lines 2–7 of 7", "the-rest-shown");
    assert!(rest.contains("2. Change nothing else in the folder."), "{rest}");
    pane.keys(&["1", "Enter"]);
    pane.wait_for("I wrote hark-plan.md.", "approved");
    assert!(ws.join("hark-plan.md").exists(), "written once approved");
    pane.keys(&["C-c"]);
    pane.wait_for("[exited]", "quit");
    let q = questions(&data);
    assert_eq!(q[0]["answers"]["answers"][0]["selected"], serde_json::json!(["Approve"]), "{q}");
}
