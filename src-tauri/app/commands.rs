//! IPC commands the UI calls. Each one is a thin adapter over hark-core.

use hark_core::session::{project_transcript, SessionSummary, Transcript};
use serde::Serialize;
use tauri::State;

use crate::error::CommandError;
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct AppInfo {
    pub name: &'static str,
    pub version: &'static str,
    pub data_dir: String,
}

#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> Result<AppInfo, CommandError> {
    let dir = state.data_dir()?;
    Ok(AppInfo { name: "Hark", version: env!("CARGO_PKG_VERSION"), data_dir: dir.display().to_string() })
}

/// The sessions sidebar: every stored session, most recently active first, with its question counts.
#[tauri::command]
pub fn list_sessions(state: State<'_, AppState>) -> Result<Vec<SessionSummary>, CommandError> {
    Ok(state.store()?.list_sessions()?)
}

/// A session's transcript as the core projects it from the event log (read-only view).
#[tauri::command]
pub fn session_transcript(state: State<'_, AppState>, session_id: String) -> Result<Transcript, CommandError> {
    let events = state.store()?.events(&session_id)?;
    Ok(project_transcript(&events))
}
