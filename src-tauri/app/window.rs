//! The one main window. It exists only while the person has it open: closing it destroys it (and
//! with it the webview and WebKit's processes) while Hark stays in the tray, and whatever brings it
//! back (the tray, a notification, a second launch, the `hark` command) builds it fresh from the
//! window of `tauri.conf.json`. What the person was doing lives in the shell and core, not the page.

use tauri::{AppHandle, Manager, WebviewWindow, WebviewWindowBuilder};

use crate::state::{AppState, Launched};

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
/// reads `first` when it starts (`app_info`), since it cannot hear events sent before it listens.
/// Runs on the main thread, which serialises every caller: two clicks cannot build two windows.
pub fn show(app: &AppHandle, first: Launched) {
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || show_now(&handle, first));
}

fn show_now(app: &AppHandle, first: Launched) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
        if let Some(session) = &first.session {
            crate::events::focus_with(app, session, first.call_id.as_deref(), first.notice.clone());
        }
        if let Some(error) = &first.error {
            crate::events::launch_error(app, error);
        }
        if first.inbox {
            crate::events::open_inbox(app);
        }
        return;
    }
    if let Some(state) = app.try_state::<AppState>() {
        state.set_first_shown(first);
    }
    match build(app) {
        Ok(window) => {
            let _ = window.set_focus();
        }
        Err(e) => eprintln!("hark-desktop: {e}"),
    }
}
