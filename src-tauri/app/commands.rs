//! IPC commands the UI calls. Each one is a thin adapter over hark-core.

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
    let dir = state.data_dir.as_ref().map_err(|e| CommandError::DataDir(e.clone()))?;
    Ok(AppInfo { name: "Hark", version: env!("CARGO_PKG_VERSION"), data_dir: dir.display().to_string() })
}
