//! Start at login, the ecosystem's way (`tauri-plugin-autostart`: an XDG autostart entry on Linux, a
//! login item on macOS, the Run key on Windows). The entry starts `hark-desktop --hidden`, so Hark
//! waits in the tray; a run on another data directory than the default passes it along. The OS entry
//! is the truth the settings show, since the person can remove it outside Hark.

use std::path::Path;

use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_autostart::ManagerExt;

#[derive(Debug, thiserror::Error)]
#[error("Could not change starting at login: {0}")]
pub struct AutostartError(String);

impl hark_core::error::CodedError for AutostartError {
    fn name(&self) -> &str {
        "AutostartError"
    }
    fn code(&self) -> &str {
        "AUTOSTART"
    }
}

/// The plugin, with the arguments its entry starts Hark with.
pub fn plugin<R: Runtime>(data_dir: Option<&Path>, default_dir: Option<&Path>) -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_autostart::Builder::new().args(entry_args(data_dir, default_dir)).build()
}

/// `--hidden`, and the data directory when it is not the default. The plugin writes them into the
/// entry's `Exec` line as they are, so each is quoted here as the desktop entry format wants.
pub fn entry_args(data_dir: Option<&Path>, default_dir: Option<&Path>) -> Vec<String> {
    let mut args = vec!["--hidden".to_string()];
    if let Some(dir) = data_dir.filter(|d| Some(*d) != default_dir) {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        args.push(exec_quoted(&format!("--data-dir={}", dir.display())));
    }
    args
}

/// One argument of an `Exec` line: in double quotes, `"` `` ` `` `$` `\` escaped with a backslash,
/// then every backslash doubled (the string-value escape, applied before the quoting is read), and
/// `%` doubled (a bare `%` starts a field code).
#[cfg(not(any(target_os = "macos", windows)))]
fn exec_quoted(arg: &str) -> String {
    let mut quoted = String::from("\"");
    for c in arg.chars() {
        match c {
            '"' | '`' | '$' => {
                quoted.push_str("\\\\");
                quoted.push(c);
            }
            '\\' => quoted.push_str("\\\\\\\\"),
            '%' => quoted.push_str("%%"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// macOS and Windows pass the arguments as they are (a plist array, a quoted command line).
#[cfg(any(target_os = "macos", windows))]
fn exec_quoted(arg: &str) -> String {
    arg.to_string()
}

/// Whether the OS will start Hark at login.
pub fn is_enabled<R: Runtime>(app: &AppHandle<R>) -> bool {
    app.try_state::<tauri_plugin_autostart::AutoLaunchManager>().is_some_and(|m| m.is_enabled().unwrap_or(false))
}

/// Adds or removes the login entry, when it differs from `wanted`.
pub fn set<R: Runtime>(app: &AppHandle<R>, wanted: bool) -> Result<(), AutostartError> {
    if is_enabled(app) == wanted {
        return Ok(());
    }
    let manager = app.autolaunch();
    let done = if wanted { manager.enable() } else { manager.disable() };
    done.map_err(|e| AutostartError(e.to_string()))
}

#[cfg(all(test, not(any(target_os = "macos", windows))))]
mod tests {
    use super::*;

    #[test]
    fn the_entry_starts_hidden_on_the_data_directory_of_this_run() {
        let default = Path::new("/home/p/.local/share/app.hark.desktop");
        assert_eq!(entry_args(None, Some(default)), ["--hidden"]);
        assert_eq!(entry_args(Some(default), Some(default)), ["--hidden"], "the default needs no option");
        assert_eq!(entry_args(Some(Path::new("/srv/hark")), Some(default)), ["--hidden", "\"--data-dir=/srv/hark\""]);
    }

    #[test]
    fn exec_arguments_are_quoted_as_desktop_entries_read_them() {
        assert_eq!(exec_quoted("/a b/c"), "\"/a b/c\"");
        assert_eq!(exec_quoted("/x$y`z\"w"), "\"/x\\\\$y\\\\`z\\\\\"w\"");
        assert_eq!(exec_quoted("/50%\\d"), "\"/50%%\\\\\\\\d\"");
    }
}
