//! Hark in the background: closing the window leaves it in the tray with the window (and WebKit's
//! processes) gone, questions that arrive then are answered from notifications or from a window built
//! anew from the tray, and a start at login (`--hidden`) puts only the icon there. The tray is the
//! tests' own StatusNotifierWatcher (`support::tray`), the window's close button an X client message.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hark_core::session::{project_questions, Event, Store};

use crate::support::notifications::NotificationServer;
use crate::support::tray::{close_windows_titled, windows_titled, Tray};
use crate::support::{e2e_enabled, only_sessions, process, App, Launch, PANEL};

const WAIT: Duration = Duration::from_secs(20);
const MESSAGE_BOX: &str = "textarea[aria-label='Message']";

/// A data directory in which the person already used Hark: one finished chat, nothing waiting.
fn used_before(data_dir: &Path) {
    std::fs::create_dir_all(data_dir).expect("data dir");
    let store = Store::open(data_dir).expect("open store");
    let id = store.create_session("An earlier chat", None, None).expect("session");
    let events = vec![
        Event::TurnStarted { turn_id: "t1".into(), run_id: "run-1".into() },
        Event::UserMessage { message_id: "m1".into(), text: "hello".into(), source: None },
        Event::AssistantMessage { text: "Hello!".into(), reasoning: None, tool_calls: vec![], usage: None },
        Event::TurnEnded { turn_id: "t1".into(), reason: hark_core::session::TurnEndReason::Completed },
    ];
    store.append_batch(&id, events).expect("append");
}

/// The processes below `pid` whose name starts with `prefix` (WebKit's are `WebKitWebProces`, ...).
fn children_named(pid: u32, prefix: &str) -> Vec<u32> {
    let stat = |p: u32| std::fs::read_to_string(format!("/proc/{p}/stat")).ok();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            let Some(s) = stat(*p) else { return false };
            let Some((head, rest)) = s.rsplit_once(") ") else { return false };
            let comm = head.split_once(" (").map(|(_, c)| c).unwrap_or_default();
            let ppid = rest.split_whitespace().nth(1).and_then(|v| v.parse::<u32>().ok());
            ppid == Some(pid) && comm.starts_with(prefix) && !rest.starts_with('Z')
        })
        .collect()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

async fn wait_for(what: &str, within: Duration, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < within, "timed out after {within:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A second `hark-desktop --hidden --prompt ...` on the same data directory: it hands the prompt to
/// the running app (a session starts there, its agent asks) and exits, leaving the window as it is.
fn ask_through_a_second_launch(data_dir: &Path, prompt: &str) {
    let second = Command::new(env!("CARGO_BIN_EXE_hark-desktop"))
        .args(["--hidden", "--prompt", prompt])
        .env("HARK_DATA_DIR", data_dir)
        .output()
        .expect("run a second hark-desktop");
    assert!(second.status.success(), "the second launch hands over and exits: {second:?}");
}

#[tokio::test]
async fn closing_with_nothing_waiting_stays_in_the_tray_and_a_question_then_is_answered_from_its_notification() {
    if !e2e_enabled(
        "closing_with_nothing_waiting_stays_in_the_tray_and_a_question_then_is_answered_from_its_notification",
    ) {
        return;
    }
    let tray = Tray::start().await;
    let server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    used_before(&data_dir);
    let app = App::launch("tray-close", Launch::with_args(&data_dir, &["--script", "blocking"])).await;
    app.find("nav[aria-label='Sessions']").await;
    let item = tray.wait_for_item(WAIT).await;
    let pid = app.app_pid();
    assert!(!children_named(pid, "WebKitWebProces").is_empty(), "the window has its web process");

    // The person closes the window with its close button: nothing waits, yet Hark stays.
    assert_eq!(close_windows_titled("Hark"), 1);
    wait_for("the window to be gone", WAIT, || windows_titled("Hark") == 0).await;
    // Destroyed, not hidden: its web process goes with it (WebKit's network process stays under
    // WebDriver; `with_the_window_closed_webkit_is_gone_and_the_next_window_draws_its_page` sees it go).
    wait_for("the web process to exit", WAIT, || children_named(pid, "WebKitWebProces").is_empty()).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(alive(pid), "Hark quit when its window closed");
    assert_eq!(tray.live_items().await, std::slice::from_ref(&item), "its icon is still in the tray");

    // An agent asks while no window is open: the notification says so, and its button answers.
    ask_through_a_second_launch(&data_dir, "publish it");
    let n = server.wait_for("for the deploy question", WAIT, |n| n.summary == "Deploy").await;
    assert_eq!(windows_titled("Hark"), 0, "a question alone opens no window");
    tray.wait_for_entry(&item, "Hark — 1 question waiting", WAIT).await;
    server.invoke(n.id, "option:1").await;
    // Answered: the tray's count goes back to none.
    tray.wait_for_entry(&item, "Hark", WAIT).await;
    let start = Instant::now();
    while tray.menu(&item).await.iter().any(|e| e.label.contains("waiting")) {
        assert!(start.elapsed() < WAIT, "the tray still counts a waiting question");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Quit in the tray quits.
    tray.click(&item, "Quit Hark").await;
    wait_for("Hark to quit from the tray", WAIT, || !alive(pid)).await;
    app.close().await;

    let sessions = only_sessions(&data_dir);
    let asked = sessions.iter().find(|(title, _)| title == "publish it").expect("the asked session");
    let records = project_questions(&asked.1);
    let answers = records[0].answers.as_ref().expect("answered from the notification");
    assert_eq!(answers.answers[0].selected, ["Publish now"]);
}

#[tokio::test]
async fn the_window_reopened_from_the_tray_shows_the_question_that_arrived_meanwhile() {
    if !e2e_enabled("the_window_reopened_from_the_tray_shows_the_question_that_arrived_meanwhile") {
        return;
    }
    let tray = Tray::start().await;
    let _server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    used_before(&data_dir);
    let app = App::launch("tray-reopen", Launch::with_args(&data_dir, &["--script", "blocking"])).await;
    app.find("nav[aria-label='Sessions']").await;
    let item = tray.wait_for_item(WAIT).await;
    let first = app.client.window().await.expect("the first window's handle");
    // Something half typed when the window closes.
    app.find(MESSAGE_BOX).await.send_keys("a half-written thought").await.expect("type");

    assert_eq!(close_windows_titled("Hark"), 1);
    wait_for("the window to be gone", WAIT, || windows_titled("Hark") == 0).await;
    ask_through_a_second_launch(&data_dir, "publish it");
    tray.wait_for_entry(&item, "publish it — 1 question waiting", WAIT).await;

    // The tray's entry for the waiting session builds the window anew, on that question.
    tray.click(&item, "publish it").await;
    wait_for("a window to open", WAIT, || windows_titled("Hark") == 1).await;
    let start = Instant::now();
    let reopened = loop {
        let handles = app.client.windows().await.unwrap_or_default();
        if let Some(h) = handles.into_iter().find(|h| *h != first) {
            break h;
        }
        assert!(start.elapsed() < WAIT, "WebDriver never saw the new window");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    app.client.switch_to_window(reopened).await.expect("switch to the new window");
    let panel = app.find_x(&format!("{PANEL}[contains(., 'Publish the demo site to production now?')]")).await;
    assert!(panel.is_displayed().await.unwrap_or(false), "the question is shown");
    app.screenshot("reopened-on-the-question").await;

    // And it answers as ever.
    app.click_option("Publish now").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the agent's reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose")
    })
    .await;
    // The composer is back where the panel was, with what the person had typed in the old window.
    let composer = app.find(MESSAGE_BOX).await;
    assert_eq!(composer.prop("value").await.expect("value").as_deref(), Some("a half-written thought"));
    app.close().await;
}

#[tokio::test]
async fn a_question_picked_in_the_tray_while_the_window_is_built_is_the_one_it_opens_on() {
    if !e2e_enabled("a_question_picked_in_the_tray_while_the_window_is_built_is_the_one_it_opens_on") {
        return;
    }
    let tray = Tray::start().await;
    let _server = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    used_before(&data_dir);
    let app = App::launch("tray-open-then-question", Launch::with_args(&data_dir, &["--script", "blocking"])).await;
    app.find("nav[aria-label='Sessions']").await;
    let item = tray.wait_for_item(WAIT).await;
    let first = app.client.window().await.expect("the first window's handle");
    assert_eq!(close_windows_titled("Hark"), 1);
    wait_for("the window to be gone", WAIT, || windows_titled("Hark") == 0).await;
    ask_through_a_second_launch(&data_dir, "publish it");
    tray.wait_for_entry(&item, "publish it — 1 question waiting", WAIT).await;

    // Open, and at once the waiting session's entry: the second comes while the window is built,
    // before its page listens, and is the one the window opens on.
    tray.click(&item, "Open Hark").await;
    tray.click(&item, "publish it").await;
    wait_for("a window to open", WAIT, || windows_titled("Hark") == 1).await;
    let start = Instant::now();
    let reopened = loop {
        let handles = app.client.windows().await.unwrap_or_default();
        if let Some(h) = handles.into_iter().find(|h| *h != first) {
            break h;
        }
        assert!(start.elapsed() < WAIT, "WebDriver never saw the new window");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    app.client.switch_to_window(reopened).await.expect("switch to the new window");
    let panel = app.find_x(&format!("{PANEL}[contains(., 'Publish the demo site to production now?')]")).await;
    assert!(panel.is_displayed().await.unwrap_or(false), "the question is shown");
    app.screenshot("tray-open-then-question").await;
    assert_eq!(windows_titled("Hark"), 1, "one window");
    app.close().await;
}

/// The app started as the login entry starts it, straight, not through WebDriver (there is no window
/// to drive). Dropping it ends its process group.
struct Started {
    child: Child,
}

impl Started {
    /// `hark-desktop ARGS` on `data_dir` without WebDriver, in a process group of its own.
    fn launch(data_dir: &Path, args: &[&str]) -> Started {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark-desktop"));
        cmd.args(args).env("HARK_DATA_DIR", data_dir).stdout(Stdio::null()).stderr(Stdio::inherit());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        Started { child: cmd.spawn().expect("start hark-desktop") }
    }

    /// Its exit status, which must come within `WAIT` (`why` it should end).
    async fn exited(&mut self, why: &str) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(start.elapsed() < WAIT, "Hark did not quit {why}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = process::signal_group(self.child.id(), libc::SIGKILL);
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn started_hidden_there_is_only_the_tray_icon_until_it_opens_the_window() {
    if !e2e_enabled("started_hidden_there_is_only_the_tray_icon_until_it_opens_the_window") {
        return;
    }
    let tray = Tray::start().await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let mut app = Started::launch(&data_dir, &["--hidden"]);
    let pid = app.child.id();

    let item = tray.wait_for_item(WAIT).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(windows_titled("Hark"), 0, "no window");
    assert!(children_named(pid, "WebKit").is_empty(), "no webview, so no WebKit process");
    let entries: Vec<String> = tray.menu(&item).await.into_iter().map(|e| e.label).collect();
    assert!(entries.contains(&"Open Hark".to_string()) && entries.contains(&"Quit Hark".to_string()), "{entries:?}");

    tray.click(&item, "Open Hark").await;
    wait_for("the window to open", WAIT, || windows_titled("Hark") == 1).await;
    assert!(alive(pid));

    // Nothing was ever used here: closing this window quits, as a first look should.
    assert_eq!(close_windows_titled("Hark"), 1);
    let status = app.exited("with no session and its window closed").await;
    assert!(status.success(), "{status}");
}

/// The app's proportional set size in KiB, from /proc.
fn pss_kib(pid: u32) -> u64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).expect("smaps_rollup");
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("a Pss line")
}

/// How many colours the X screen shows: a window whose page was drawn (text, buttons) shows
/// hundreds, an empty one a few.
fn colours_on_screen() -> usize {
    let out = Command::new("sh")
        .args(["-c", "import -window root png:- | identify -format %k -"])
        .output()
        .expect("ImageMagick's import and identify (make test-system-deps)");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(0)
}

/// Not under WebDriver (WebKit would end its session with the network process): what a person's
/// closed window leaves running, and a window built after it that still draws its page.
#[tokio::test]
async fn with_the_window_closed_webkit_is_gone_and_the_next_window_draws_its_page() {
    if !e2e_enabled("with_the_window_closed_webkit_is_gone_and_the_next_window_draws_its_page") {
        return;
    }
    let tray = Tray::start().await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    used_before(&data_dir);
    let mut app = Started::launch(&data_dir, &[]);
    let pid = app.child.id();
    let item = tray.wait_for_item(WAIT).await;
    wait_for("the window to open", WAIT, || windows_titled("Hark") == 1).await;
    wait_for("its page to be drawn", WAIT, || colours_on_screen() > 50).await;
    let with_window = pss_kib(pid);

    assert_eq!(close_windows_titled("Hark"), 1);
    wait_for("every WebKit process to exit", WAIT, || children_named(pid, "WebKit").is_empty()).await;
    // The libraries' pages the window used are let go a moment after.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let without = pss_kib(pid);
    assert!(without < with_window / 2, "the app holds {without} KiB without its window, {with_window} KiB with it");
    assert!(colours_on_screen() < 10, "nothing is drawn with the window closed");

    tray.click(&item, "Open Hark").await;
    wait_for("the window to open again", WAIT, || windows_titled("Hark") == 1).await;
    wait_for("its page to be drawn", WAIT, || colours_on_screen() > 50).await;
    assert!(!children_named(pid, "WebKitNetworkPr").is_empty(), "a new network process serves it");

    tray.click(&item, "Quit Hark").await;
    app.exited("from the tray").await;
}

/// The `Exec` line of a desktop entry, split into words as its format quotes them (enough for the
/// entry Hark writes: plain words and double-quoted ones with backslash escapes).
fn exec_words(entry: &str) -> Vec<String> {
    let exec = entry.lines().find_map(|l| l.strip_prefix("Exec=")).expect("an Exec line");
    let (mut words, mut word, mut quoted, mut chars) = (Vec::new(), String::new(), false, exec.chars());
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' if quoted => word.extend(chars.next()),
            ' ' if !quoted => words.extend((!word.is_empty()).then(|| std::mem::take(&mut word))),
            c => word.push(c),
        }
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

#[tokio::test]
async fn start_at_login_writes_an_entry_that_starts_hark_hidden_in_the_tray() {
    if !e2e_enabled("start_at_login_writes_an_entry_that_starts_hark_hidden_in_the_tray") {
        return;
    }
    let tray = Tray::start().await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, home) = (tmp.path().join("hark data"), tmp.path().join("home"));
    std::fs::create_dir_all(&home).expect("home");
    let mut launch = Launch::new(&data_dir);
    launch.env.push(("HOME".into(), home.display().to_string()));
    let app = App::launch("start-at-login", launch).await;

    app.settings_section("startup").await;
    let start_at_login = crate::mcp::in_view(&app, "//label[contains(., 'Start at login')]//input").await;
    assert!(!start_at_login.is_selected().await.expect("checked?"), "off by default");
    start_at_login.click().await.expect("tick Start at login");
    app.save_settings_section().await;
    let entry_path = home.join(".config/autostart/Hark.desktop");
    let start = Instant::now();
    while !entry_path.exists() {
        assert!(start.elapsed() < WAIT, "no login entry at {}", entry_path.display());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.close().await;

    // What the desktop runs at the next login: Hark, hidden, on this (not the default) data directory.
    let entry = std::fs::read_to_string(&entry_path).expect("read the entry");
    let words = exec_words(&entry);
    assert_eq!(words[1..], ["--hidden".to_string(), format!("--data-dir={}", data_dir.display())], "{entry}");
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).env("HOME", &home).stdout(Stdio::null()).stderr(Stdio::inherit());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let started = Started { child: cmd.spawn().expect("run the entry's command") };
    let item = tray.wait_for_item(WAIT).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(windows_titled("Hark"), 0, "logged in: only the tray icon");
    assert!(children_named(started.child.id(), "WebKit").is_empty(), "no webview");
    tray.click(&item, "Quit Hark").await;
    let pid = started.child.id();
    wait_for("Hark to quit from the tray", WAIT, || !alive(pid)).await;
}
