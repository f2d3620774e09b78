//! The end-to-end harness: the real `hark-desktop` build, launched through `tauri-driver` +
//! `WebKitWebDriver` and driven over WebDriver, each launch with its own data directory.
//!
//! Gated on `HARK_E2E=1` (set by `make test`, which also provides Xvfb, D-Bus and the drivers), so a
//! plain `cargo test` on a machine without a display skips with a visible message instead of failing.

#![allow(dead_code)] // Each e2e test binary uses a different part of the harness.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};

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
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("e2e");
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

    /// Saves `target/e2e/<test>-<step>.png` and returns its path.
    pub async fn screenshot(&self, step: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let path = screenshot_dir().join(format!("{}-{step}.png", self.name));
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    pub async fn close(mut self) {
        let client = self.client.clone();
        let _ = client.close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.driver.kill();
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
