//! The one main window. It exists only while the person has it open: closing it destroys it (and
//! with it the webview and WebKit's processes) while Hark stays in the tray, and whatever brings it
//! back (the tray, a notification, a second launch, the `hark` command) builds it fresh from the
//! window of `tauri.conf.json`. What the person was doing lives in the shell and core, not the page.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use hark_core::sync::lock;
use tauri::{AppHandle, Manager, WebviewWindow, WebviewWindowBuilder};

use crate::state::{AppState, Launched, Route};

/// The label of the window in `tauri.conf.json`, which the IPC capabilities are granted to.
pub const MAIN: &str = "main";

#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("tauri.conf.json has no window labelled {MAIN:?}")]
    NotConfigured,
    #[error("the window could not be built: {0}")]
    Build(#[from] tauri::Error),
}

/// Builds the main window from its configuration. Call only when none exists.
pub fn build(app: &AppHandle) -> Result<WebviewWindow, WindowError> {
    let config = app.config().app.windows.iter().find(|w| w.label == MAIN).ok_or(WindowError::NotConfigured)?;
    // The configured window has `create: false` so that nothing builds it behind the shell's back.
    let config = tauri::utils::config::WindowConfig { create: true, ..config.clone() };
    Ok(WebviewWindowBuilder::from_config(app, &config)?.build()?)
}

/// Brings the main window up showing `first` (a session, a question in it, why an answer was not
/// taken, a launch's error). An open window is raised and told; a closed one is built, and its page
/// reads `first` when it starts (`app_info`), since it cannot hear events sent before it listens; a
/// show while it is being built changes what its page will read (see [`crate::state::Opening`]).
/// Runs on the main thread, which serialises every caller: two clicks cannot build two windows.
pub fn show(app: &AppHandle, first: Launched) {
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || show_now(&handle, first));
}

fn show_now(app: &AppHandle, first: Launched) {
    if network_process_still_ending(app) {
        // Built now, the page could load through the process on its way out and stay blank.
        let handle = app.clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(ENDING_POLL).await;
            show(&handle, first);
        });
        return;
    }
    let Some(state) = app.try_state::<AppState>() else { return };
    let window = app.get_webview_window(MAIN);
    match state.route_show(first, window.is_some()) {
        Route::Build => match build(app) {
            Ok(window) => {
                let _ = window.set_focus();
            }
            Err(e) => eprintln!("hark-desktop: {e}"),
        },
        // Its page opens on the target when it starts.
        Route::Pending => raise(window.as_ref()),
        Route::Tell(first) => {
            raise(window.as_ref());
            if let Some(session) = &first.session {
                crate::events::focus_with(app, session, first.call_id.as_deref(), first.notice.clone());
            }
            if let Some(error) = &first.error {
                crate::events::launch_error(app, error);
            }
            if first.inbox {
                crate::events::open_inbox(app);
            }
        }
    }
}

fn raise(window: Option<&WebviewWindow>) {
    if let Some(window) = window {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// WebKit's network process outlives the window: Tauri keeps the web context (and WebKit the
/// process with it) for the app's lifetime, so that windows built later reuse it. Waiting in the
/// tray it held some 34 MB of PSS for nothing (measured after a window on a 100 000-event session
/// was closed). Hark's pages load nothing from the network and keep only the composer's draft in
/// the page's storage, which WebKit writes to disk within half a second; so once no window has been
/// open for a while, the process is ended, and the next window's page starts a new one, as at
/// start-up.
#[derive(Default)]
pub struct NetworkProcess {
    /// The processes being ended, and when they were told to.
    ending: Mutex<Option<(Vec<u32>, Instant)>>,
}

/// How long after the last window went the process is ended: the web process has exited by then
/// and the page's storage is on disk (written within 0.5 s), and a window opened again meanwhile
/// keeps it.
const NETWORK_PROCESS_GRACE: Duration = Duration::from_secs(3);
/// How often a window to build checks that the process it waits for is gone.
const ENDING_POLL: Duration = Duration::from_millis(50);
/// A process that has not exited this long after SIGTERM is left to WebKit, which treats a network
/// process that goes away as crashed and starts another.
const ENDING_LIMIT: Duration = Duration::from_secs(2);

/// Called when the window is destroyed: ends WebKit's network process a while later if no window is
/// open then.
pub fn end_network_process_later(app: &AppHandle) {
    let handle = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(NETWORK_PROCESS_GRACE).await;
        let app = handle.clone();
        // On the main thread, like every window build, so that none starts between the check that
        // no window is open and the signal.
        let _ = handle.run_on_main_thread(move || end_network_process_now(&app));
    });
}

fn end_network_process_now(app: &AppHandle) {
    let Some(state) = app.try_state::<NetworkProcess>() else { return };
    if !app.webview_windows().is_empty() || under_webdriver() {
        return;
    }
    let pids = webkit_network_processes();
    if pids.is_empty() {
        return;
    }
    #[cfg(unix)]
    for pid in &pids {
        // SAFETY: kill only sends a signal; the pid is a child of this process (WebKit's), which
        // stays ours to signal until it is reaped.
        unsafe {
            libc::kill(*pid as libc::pid_t, libc::SIGTERM);
        }
    }
    *lock(&state.ending) = Some((pids, Instant::now()));
}

/// Whether WebDriver drives the app (Tauri's variable for it, set by tauri-driver): WebKit ends a
/// WebDriver session with its network process, so the tests' next window could not be driven.
fn under_webdriver() -> bool {
    std::env::var("TAURI_WEBVIEW_AUTOMATION").as_deref() == Ok("true")
}

/// Whether a network process told to end is still running. A window waits for it, and for one poll
/// more, in which WebKit's main loop takes in that the process is gone.
fn network_process_still_ending(app: &AppHandle) -> bool {
    let Some(state) = app.try_state::<NetworkProcess>() else { return false };
    let mut ending = lock(&state.ending);
    let Some((pids, since)) = ending.as_mut() else { return false };
    if since.elapsed() > ENDING_LIMIT {
        *ending = None;
        return false;
    }
    if pids.is_empty() {
        *ending = None;
        return true;
    }
    pids.retain(|pid| running(*pid));
    true
}

/// The children of this process that run WebKit's network process.
fn webkit_network_processes() -> Vec<u32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| parent_of(*pid) == Some(me))
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "WebKitNetworkProcess"))
        })
        .collect()
}

/// The fields of `/proc/PID/stat` after the process's name (`None` once it is gone). The name may
/// hold spaces and parentheses, so they start after its last ')': state, then parent, ...
fn stat_after_name(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')').map(|(_, rest)| rest.to_string())
}

/// The parent of `pid` from /proc (`None` once it is gone).
fn parent_of(pid: u32) -> Option<u32> {
    stat_after_name(pid)?.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` still runs: not gone, and not a zombie waiting to be reaped (it has exited).
fn running(pid: u32) -> bool {
    stat_after_name(pid).is_some_and(|rest| !rest.trim_start().starts_with('Z'))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_read_from_proc() {
        let me = std::process::id();
        assert_eq!(parent_of(me), Some(std::os::unix::process::parent_id()));
        assert!(running(me));
        assert!(!running(u32::MAX), "no such process");
        assert!(webkit_network_processes().is_empty(), "a test process starts no WebKit");
    }
}
