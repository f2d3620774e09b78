//! The end-to-end harness: the real `hark-desktop` build, launched through `tauri-driver` +
//! `WebKitWebDriver` and driven over WebDriver, each launch with its own data directory.
//!
//! Gated on `HARK_E2E=1` (set by `make test`, which also provides Xvfb, D-Bus and the drivers), so a
//! plain `cargo test` on a machine without a display skips with a visible message instead of failing.

#![allow(dead_code)] // Each e2e test binary uses a different part of the harness.

pub mod notification_daemon;
pub mod notifications;
pub mod process;
pub mod tray;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};

/// The question panel, as an XPath scope.
pub const PANEL: &str = "//section[@aria-label='Question']";

/// The transcript row of a question (its `data-state` is open / continued / answered ...).
pub const QUESTION_ROW: &str = "[data-testid='question-row']";

/// The `data-state` of the first question row, "" when there is none.
pub async fn row_state(app: &App) -> String {
    match app.client.find(Locator::Css(QUESTION_ROW)).await {
        Ok(row) => row.attr("data-state").await.ok().flatten().unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// Returns false (after saying why) when e2e tests should not run here.
pub fn e2e_enabled(test: &str) -> bool {
    if std::env::var("HARK_E2E").as_deref() == Ok("1") {
        assert!(
            std::env::var_os("DISPLAY").is_some(),
            "HARK_E2E=1 but DISPLAY is unset: run the e2e tests under xvfb-run (make test does)"
        );
        return true;
    }
    eprintln!("SKIPPED e2e test `{test}`: set HARK_E2E=1 with a display, tauri-driver and WebKitWebDriver (`make test` does all of this)");
    false
}

/// Where screenshots go: `target/e2e/`, kept after every run so people can look.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// The `hark` CLI of this build (another package, so Cargo does not hand its path to these tests;
/// `make test-e2e` builds it first).
pub fn hark_cli() -> PathBuf {
    let path = target_dir().join("debug").join("hark");
    assert!(
        path.exists(),
        "{} is missing: cargo test --workspace --no-run builds it (make test-e2e runs that build)",
        path.display()
    );
    path
}

pub fn screenshot_dir() -> PathBuf {
    let dir = target_dir().join("e2e");
    std::fs::create_dir_all(&dir).expect("create target/e2e");
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free local port").port()
}

fn wait_for_port(port: u16, within: Duration) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < within, "tauri-driver did not listen on port {port} within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One running app and the WebDriver session attached to it. Dropping it stops both.
pub struct App {
    pub client: Client,
    pub data_dir: PathBuf,
    driver: Child,
    name: String,
}

pub struct Launch {
    pub data_dir: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Launch {
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self { data_dir: data_dir.into(), args: Vec::new(), env: Vec::new() }
    }

    pub fn with_args(data_dir: impl Into<PathBuf>, args: &[&str]) -> Self {
        Self { args: args.iter().map(|s| s.to_string()).collect(), ..Self::new(data_dir) }
    }
}

/// The events of the one session in `data_dir`, read from the real store after the app closed.
/// Fails when `secret` is in any file of `dir` (the store, settings, logs): secrets live in the
/// keyring only.
pub fn assert_secret_not_in_files(dir: &Path, secret: &str) {
    for entry in std::fs::read_dir(dir).expect("read the directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_file() {
            let bytes = std::fs::read(&path).expect("read the file");
            let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!found, "the secret leaked into {}", path.display());
        }
    }
}

pub fn only_session(data_dir: &Path) -> Vec<hark_core::session::StoredEvent> {
    let store = hark_core::session::Store::open(data_dir).expect("open the store the app wrote");
    let sessions = store.list_sessions().expect("sessions");
    assert_eq!(sessions.len(), 1, "one session: {sessions:?}");
    store.events(&sessions[0].id).expect("events")
}

/// Every session in `data_dir` as (title, events), read from the real store after the app closed.
pub fn only_sessions(data_dir: &Path) -> Vec<(String, Vec<hark_core::session::StoredEvent>)> {
    let store = hark_core::session::Store::open(data_dir).expect("open the store the app wrote");
    let sessions = store.list_sessions().expect("sessions");
    sessions.into_iter().map(|s| (s.title.clone(), store.events(&s.id).expect("events"))).collect()
}

/// Every tool result recorded in `events`, in order.
pub fn tool_results(events: &[hark_core::session::StoredEvent]) -> Vec<hark_core::session::ToolOutcome> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            hark_core::session::Event::ToolResult { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .collect()
}

impl App {
    /// Starts `tauri-driver` with `HARK_DATA_DIR` set (WebKitWebDriver starts the app with the driver's
    /// environment) and opens a WebDriver session on the `hark-desktop` binary Cargo built for this test.
    pub async fn launch(name: &str, launch: Launch) -> App {
        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new(tauri_driver());
        cmd.args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .env("HARK_DATA_DIR", &launch.data_dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (k, v) in &launch.env {
            cmd.env(k, v);
        }
        // Its own process group, so a failed test can take down the driver, WebKitWebDriver and the app.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let driver = cmd.spawn().expect("start tauri-driver (cargo install tauri-driver --locked)");
        wait_for_port(port, Duration::from_secs(20));

        let mut caps = serde_json::Map::new();
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": env!("CARGO_BIN_EXE_hark-desktop"), "args": launch.args }),
        );
        let client = ClientBuilder::native()
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("open a WebDriver session on hark-desktop");
        App { client, data_dir: launch.data_dir, driver, name: name.to_string() }
    }

    /// Waits (up to 20 s) for an element; the one way tests look things up.
    pub async fn find(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element `{css}` in the window: {e}"))
    }

    /// Saves `target/e2e/<test>-<step>.png` and returns its path: the X screen the app draws on, as a
    /// person sees it (popups and all). Not WebDriver's screenshot: WebKitWebDriver takes that from
    /// the compositor, which Hark turns off on machines without a GPU (like this one), and the call
    /// then never returns.
    pub async fn screenshot(&self, step: &str) -> PathBuf {
        // Two animation frames: whatever the last action changed has been painted.
        self.client
            .execute_async("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))", vec![])
            .await
            .expect("wait for a painted frame");
        let path = screenshot_dir().join(format!("{}-{step}.png", self.name));
        let status = Command::new("import")
            .args(["-window", "root"])
            .arg(&path)
            .status()
            .expect("run ImageMagick's import (make test installs it)");
        assert!(status.success(), "capturing the screen failed: {status}");
        path
    }

    /// Waits (up to 20 s) for an element found by XPath.
    pub async fn find_x(&self, xpath: &str) -> Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::XPath(xpath))
            .await
            .unwrap_or_else(|e| panic!("no element `{xpath}` in the window: {e}"))
    }

    /// Clicks the button whose visible name is `name` inside the element matching `scope` (XPath).
    pub async fn click_button(&self, scope: &str, name: &str) {
        let xpath = format!("{scope}//button[normalize-space(.)='{name}']");
        self.find_x(&xpath).await.click().await.unwrap_or_else(|e| panic!("click {name:?}: {e}"));
    }

    /// Opens Settings, unless it is open, on `section` (as its list names it in `data-section`:
    /// general, model, questions, agents, phone, mcp, remote, startup).
    pub async fn settings_section(&self, section: &str) {
        if !self.exists("[role='dialog'] [data-testid='settings-section']").await {
            self.find("[data-testid='settings-open']").await.click().await.expect("open settings");
        }
        let link = format!("[data-testid='settings-section'][data-section='{section}']");
        self.find(&link).await.click().await.unwrap_or_else(|e| panic!("show the {section} section: {e}"));
        self.find(&format!("[data-testid='settings-pane'][data-section='{section}']:not([hidden])")).await;
    }

    /// Presses Save at the foot of the Settings section shown, and waits for it to say it saved.
    pub async fn save_settings_section(&self) {
        let pane = "//*[@data-testid='settings-pane' and not(@hidden)]";
        self.click_button(pane, "Save").await;
        self.wait_until("the section to say it saved", Duration::from_secs(20), || async {
            self.text_of("[data-testid='settings-pane']:not([hidden]) [data-testid='section-save'] [role='status']")
                .await
                .starts_with("Saved.")
        })
        .await;
    }

    /// Clicks the option shown as `label` in the question panel (its text before any badge; the
    /// label wraps the real input).
    pub async fn click_option(&self, label: &str) {
        let xpath =
            format!("{PANEL}//label[.//span[contains(@class, 'label') and normalize-space(text()[1])='{label}']]");
        self.find_x(&xpath).await.click().await.unwrap_or_else(|e| panic!("click option {label:?}: {e}"));
    }

    /// `textContent` of the first element matching `css`, "" when there is none.
    pub async fn text_of(&self, css: &str) -> String {
        match self.client.find(Locator::Css(css)).await {
            Ok(el) => el.prop("textContent").await.ok().flatten().unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    pub async fn exists(&self, css: &str) -> bool {
        self.client.find_all(Locator::Css(css)).await.map(|v| !v.is_empty()).unwrap_or(false)
    }

    /// Whether `css` matches an element that is displayed (the panel can be mounted but hidden).
    pub async fn displayed(&self, css: &str) -> bool {
        match self.client.find(Locator::Css(css)).await {
            Ok(el) => el.is_displayed().await.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// Polls `check` every 100 ms until it holds; panics with `what` (and a screenshot) after `within`.
    pub async fn wait_until<F, Fut>(&self, what: &str, within: Duration, mut check: F)
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let start = Instant::now();
        while !check().await {
            if start.elapsed() > within {
                let shot = self.screenshot("timeout").await;
                panic!("timed out after {within:?} waiting for {what} (screenshot {})", shot.display());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Presses a key in whatever has focus (WebDriver key codes, e.g. `\u{E007}` for Enter).
    pub async fn press(&self, keys: &str) {
        let active = self.client.active_element().await.expect("an element has focus");
        active.send_keys(keys).await.expect("send keys");
    }

    /// The app's process id: the `hark-desktop` process below this test's tauri-driver.
    pub fn app_pid(&self) -> u32 {
        let parent_of = |pid: u32| -> Option<(u32, String)> {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (comm, rest) = stat.split_once(") ")?;
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((ppid, comm.rsplit('(').next()?.to_string()))
        };
        let below_driver = |mut pid: u32| {
            while pid > 1 {
                if pid == self.driver.id() {
                    return true;
                }
                pid = parent_of(pid).map_or(0, |(p, _)| p);
            }
            false
        };
        std::fs::read_dir("/proc")
            .expect("/proc")
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .find(|pid| parent_of(*pid).is_some_and(|(_, comm)| comm == "hark-desktop") && below_driver(*pid))
            .expect("the hark-desktop process of this test")
    }

    /// Sends SIGTERM to the app (what logout or `kill` does) and waits until it let go of its data dir.
    pub async fn terminate(mut self) {
        let pid = self.app_pid();
        process::signal_process(pid, libc::SIGTERM).expect("SIGTERM the app");
        let start = Instant::now();
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "));
            if zombie {
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(15), "the app did not quit on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        std::thread::sleep(Duration::from_millis(500));
    }

    /// Ends the WebDriver session (which closes the app) and waits until the app let go of its data
    /// directory, so a relaunch on the same directory starts a new app instead of reaching this one.
    pub async fn close(mut self) {
        let client = self.client.clone();
        let _ = client.close().await;
        let start = Instant::now();
        while self.data_dir.is_dir() {
            match hark_core::host::HostLock::acquire(&self.data_dir) {
                Ok(lock) => {
                    drop(lock);
                    break;
                }
                Err(_) if start.elapsed() < Duration::from_secs(15) => std::thread::sleep(Duration::from_millis(100)),
                Err(e) => panic!("the app still holds {} after closing: {e}", self.data_dir.display()),
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        // The single-instance D-Bus name goes with the process, just after the lock.
        std::thread::sleep(Duration::from_millis(500));
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // After a panic nothing closed the app: end the whole group so no window outlives its test.
        // The driver was spawned with `process_group(0)`, so its pid is the group's id.
        let _ = process::signal_group(self.driver.id(), libc::SIGKILL);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn tauri_driver() -> PathBuf {
    if let Some(p) = std::env::var_os("TAURI_DRIVER") {
        return PathBuf::from(p);
    }
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| home.join("bin/tauri-driver"));
    match cargo_bin {
        Some(p) if p.exists() => p,
        _ => PathBuf::from("tauri-driver"),
    }
}
