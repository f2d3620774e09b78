//! The Tauri shell: commands, event channels, notifier, tray. Thin on purpose: every policy lives in
//! hark-core; this crate adapts it to IPC and the desktop.

mod commands;
mod error;
mod state;

use tauri::Manager;

/// Builds and runs the desktop app. Start-up failures that leave no window to report into end the
/// process with a message; everything after start-up reports into the window.
pub fn run() {
    let result = tauri::Builder::default()
        .setup(|app| {
            let platform_default = app.path().app_data_dir().ok();
            app.manage(state::AppState::prepare(platform_default));
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::list_sessions,
            commands::session_transcript
        ])
        .run(tauri::generate_context!());
    if let Err(error) = result {
        eprintln!("hark-desktop: {error}");
        std::process::exit(1);
    }
}
