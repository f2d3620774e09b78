//! Events the shell sends to the window outside a session's stream (see docs/desktop-ipc.md).

use std::sync::Arc;

use hark_core::error::BoundaryError;
use hark_core::service::QuestionEvent;
use serde::Serialize;
use tauri::{AppHandle, Emitter};

use crate::hub::Hub;
use crate::notifier::Notifier;

pub const SESSIONS_CHANGED: &str = "hark://sessions-changed";
pub const FOCUS: &str = "hark://focus";
pub const LAUNCH_ERROR: &str = "hark://launch-error";
pub const INBOX: &str = "hark://inbox";

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct Focus {
    pub session_id: String,
    pub call_id: Option<String>,
    /// Why the window is asked to show this (an answer from a notification that was not taken).
    pub notice: Option<BoundaryError>,
}

/// A session's sidebar entry changed (new session, badge counts).
pub fn sessions_changed(app: &AppHandle) {
    let _ = app.emit(SESSIONS_CHANGED, ());
}

/// Asks the window to show a session, and the question `call_id` in it, saying why when `notice` does.
pub fn focus_with(app: &AppHandle, session_id: &str, call_id: Option<&str>, notice: Option<BoundaryError>) {
    let focus = Focus { session_id: session_id.to_string(), call_id: call_id.map(str::to_string), notice };
    let _ = app.emit(FOCUS, focus);
}

/// Asks the window to show the inbox of every waiting question.
pub fn open_inbox(app: &AppHandle) {
    let _ = app.emit(INBOX, ());
}

/// A second launch's options could not be carried out here (e.g. `--session` named no session).
pub fn launch_error(app: &AppHandle, error: &BoundaryError) {
    let _ = app.emit(LAUNCH_ERROR, error);
}

/// Follows every question of every session, open in the window or not: badges and the tray change,
/// a resolved question's take-overs are let go, and the notifier decides whether to tell anyone.
/// Every new session, whichever front door started it, is listed at once.
pub fn watch_questions(app: AppHandle, hub: Arc<Hub>, notifier: Arc<Notifier>) {
    let mut events = hub.service().subscribe();
    let mut created = hub.host().subscribe_created();
    let mut creating = true;
    let mut requests = hub.take_requests();
    tauri::async_runtime::spawn(async move {
        loop {
            tokio::select! {
                made = created.recv(), if creating => match made {
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        sessions_changed(&app);
                        refresh_tray(&app, &hub);
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => creating = false,
                },
                event = events.recv() => match event {
                    Ok(event) => {
                        if let QuestionEvent::Resolved { session_id, call_id, .. } = &event {
                            hub.forget(session_id, call_id);
                            refresh_tray_once_recorded(&app, &hub);
                        }
                        sessions_changed(&app);
                        refresh_tray(&app, &hub);
                        notifier.on_event(&event).await;
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        sessions_changed(&app);
                        refresh_tray(&app, &hub);
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
                // Requests also arrive as `requested` events; the forwarded copy only has to be taken
                // off the channel.
                Some(_) = async { match requests.as_mut() { Some(r) => r.recv().await, None => None } } => {}
            }
        }
    });
}

/// A question resolves when its answer reaches the asker, a moment before the asker records it in
/// the log the tray counts from; with no event after that, the tray would go on counting it. So it
/// is counted again once the result is normally recorded, and once more for a slow disk.
fn refresh_tray_once_recorded(app: &AppHandle, hub: &Arc<Hub>) {
    let (app, hub) = (app.clone(), Arc::clone(hub));
    tauri::async_runtime::spawn(async move {
        for wait in [std::time::Duration::from_millis(300), std::time::Duration::from_secs(2)] {
            tokio::time::sleep(wait).await;
            refresh_tray(&app, &hub);
        }
    });
}

/// The tray is rebuilt on the main thread without waiting for it: a worker blocked on the main thread
/// would deadlock a quit, which runs the shutdown on the main thread.
fn refresh_tray(app: &AppHandle, hub: &Arc<Hub>) {
    let (handle, hub) = (app.clone(), Arc::clone(hub));
    let _ = app.run_on_main_thread(move || crate::tray::refresh(&handle, &hub));
}
