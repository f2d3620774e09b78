//! Start at login: an XDG autostart entry on Linux (written here), a login item on macOS and the Run
//! key on Windows (the ecosystem's `tauri-plugin-autostart`). The entry starts `hark-desktop
//! --hidden`, so Hark waits in the tray; a run on another data directory than the default passes it
//! along. The OS entry is the truth the settings show, since the person can remove it outside Hark.
//!
//! On Linux the plugin writes the program's path into the entry's `Exec` line unquoted, so Hark
//! installed under a path with a space would not start; so Hark writes that entry itself, in the
//! same place and under the same name, with every part quoted as the desktop entry format wants.

use std::path::Path;

use tauri::{AppHandle, Runtime};

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

/// `--hidden`, and the data directory when it is not the default, as the program receives them.
pub fn entry_args(data_dir: Option<&Path>, default_dir: Option<&Path>) -> Vec<String> {
    let mut args = vec!["--hidden".to_string()];
    if let Some(dir) = data_dir.filter(|d| Some(*d) != default_dir) {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        args.push(format!("--data-dir={}", dir.display()));
    }
    args
}

#[cfg(any(target_os = "macos", windows))]
mod os {
    use std::path::Path;

    use tauri::{AppHandle, Manager, Runtime};
    use tauri_plugin_autostart::ManagerExt;

    use super::AutostartError;

    /// The plugin, with the arguments its entry starts Hark with (a plist array, a quoted command
    /// line: they go as they are).
    pub fn plugin<R: Runtime>(data_dir: Option<&Path>, default_dir: Option<&Path>) -> tauri::plugin::TauriPlugin<R> {
        tauri_plugin_autostart::Builder::new().args(super::entry_args(data_dir, default_dir)).build()
    }

    pub fn is_enabled<R: Runtime>(app: &AppHandle<R>) -> bool {
        app.try_state::<tauri_plugin_autostart::AutoLaunchManager>().is_some_and(|m| m.is_enabled().unwrap_or(false))
    }

    pub fn enable<R: Runtime>(app: &AppHandle<R>, wanted: bool) -> Result<(), AutostartError> {
        let manager = app.autolaunch();
        let done = if wanted { manager.enable() } else { manager.disable() };
        done.map_err(|e| AutostartError(e.to_string()))
    }
}

#[cfg(not(any(target_os = "macos", windows)))]
mod os {
    use std::path::{Path, PathBuf};

    use tauri::{AppHandle, Manager, Runtime};

    use super::AutostartError;

    /// What the entry starts: this program (or the AppImage it runs from) with its arguments.
    pub struct LoginEntry {
        name: String,
        program: PathBuf,
        args: Vec<String>,
    }

    impl LoginEntry {
        /// `~/.config/autostart/<name>.desktop`: where the plugin put it, so an entry an earlier Hark
        /// wrote is still found and removed.
        fn file(&self) -> Result<PathBuf, AutostartError> {
            let home = dirs::home_dir().ok_or_else(|| AutostartError("no home folder to put the entry in".into()))?;
            Ok(home.join(".config").join("autostart").join(format!("{}.desktop", self.name)))
        }
    }

    /// A plugin that keeps what the entry starts, read when Tauri starts.
    pub fn plugin<R: Runtime>(data_dir: Option<&Path>, default_dir: Option<&Path>) -> tauri::plugin::TauriPlugin<R> {
        let args = super::entry_args(data_dir, default_dir);
        tauri::plugin::Builder::new("autostart")
            .setup(move |app, _api| {
                let program = std::env::current_exe()?;
                #[cfg(target_os = "linux")]
                let program = app.env().appimage.map(PathBuf::from).unwrap_or(program);
                app.manage(LoginEntry { name: app.package_info().name.clone(), program, args });
                Ok(())
            })
            .build()
    }

    pub fn is_enabled<R: Runtime>(app: &AppHandle<R>) -> bool {
        let entry = app.try_state::<LoginEntry>();
        entry.and_then(|e| e.file().ok()).is_some_and(|file| file.exists())
    }

    pub fn enable<R: Runtime>(app: &AppHandle<R>, wanted: bool) -> Result<(), AutostartError> {
        let entry = app.try_state::<LoginEntry>().ok_or_else(|| AutostartError("it is not available here".into()))?;
        let file = entry.file()?;
        let failed = |e: std::io::Error| AutostartError(format!("{}: {e}", file.display()));
        if !wanted {
            return match std::fs::remove_file(&file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(failed(e)),
                _ => Ok(()),
            };
        }
        // Built first: a program or argument an entry cannot hold writes no entry at all.
        let text = desktop_entry(&entry.name, &entry.program, &entry.args)?;
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(failed)?;
        }
        std::fs::write(&file, text).map_err(failed)
    }

    /// The autostart entry's text: what the plugin wrote, with an `Exec` line that quotes.
    pub(super) fn desktop_entry(name: &str, program: &Path, args: &[String]) -> Result<String, AutostartError> {
        let program = program.to_str().ok_or_else(|| {
            AutostartError(format!(
                "the program's path ({}) is not UTF-8 text, which a desktop entry cannot hold",
                program.display()
            ))
        })?;
        let exec: Vec<String> =
            std::iter::once(program).chain(args.iter().map(String::as_str)).map(exec_word).collect();
        let exec = exec.join(" ");
        Ok(format!(
            "[Desktop Entry]\nType=Application\nVersion=1.0\nName={name}\nComment={name} startup script\nExec={exec}\n\
             StartupNotify=false\nTerminal=false\n"
        ))
    }

    /// Characters the `Exec` format reserves: an argument holding one is quoted.
    const RESERVED: &[char] =
        &[' ', '\t', '\n', '\r', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(', ')', '`'];

    /// One word of an `Exec` line, as the format reads it back in two steps. First the value is a
    /// string: `\\` `\n` `\t` `\r` stand for a backslash, a line break, a tab and a carriage return
    /// (so a line break, which would end the line, can be written). Then the words are read: one
    /// with a reserved character is in double quotes, inside which `"` `` ` `` `$` `\` take a
    /// backslash. `%` starts a field code anywhere, so a literal one is doubled.
    pub(super) fn exec_word(arg: &str) -> String {
        let quoted = arg.contains(RESERVED) || arg.is_empty();
        let mut word = String::new();
        for c in arg.chars() {
            match c {
                '"' | '`' | '$' | '\\' if quoted => {
                    word.push('\\');
                    word.push(c);
                }
                '%' => word.push_str("%%"),
                c => word.push(c),
            }
        }
        if quoted {
            word = format!("\"{word}\"");
        }
        let mut escaped = String::new();
        for c in word.chars() {
            match c {
                '\\' => escaped.push_str("\\\\"),
                '\n' => escaped.push_str("\\n"),
                '\t' => escaped.push_str("\\t"),
                '\r' => escaped.push_str("\\r"),
                c => escaped.push(c),
            }
        }
        escaped
    }
}

/// Whether the OS will start Hark at login.
pub fn is_enabled<R: Runtime>(app: &AppHandle<R>) -> bool {
    os::is_enabled(app)
}

pub use os::plugin;

/// Adds or removes the login entry, when it differs from `wanted`.
pub fn set<R: Runtime>(app: &AppHandle<R>, wanted: bool) -> Result<(), AutostartError> {
    if is_enabled(app) == wanted {
        return Ok(());
    }
    os::enable(app, wanted)
}

#[cfg(all(test, not(any(target_os = "macos", windows))))]
mod tests {
    use super::os::{desktop_entry, exec_word};
    use super::*;

    #[test]
    fn the_entry_starts_hidden_on_the_data_directory_of_this_run() {
        let default = Path::new("/home/p/.local/share/app.hark.desktop");
        assert_eq!(entry_args(None, Some(default)), ["--hidden"]);
        assert_eq!(entry_args(Some(default), Some(default)), ["--hidden"], "the default needs no option");
        assert_eq!(entry_args(Some(Path::new("/srv/hark")), Some(default)), ["--hidden", "--data-dir=/srv/hark"]);
    }

    #[test]
    fn exec_words_are_quoted_as_desktop_entries_read_them() {
        assert_eq!(exec_word("--hidden"), "--hidden", "a plain word stays bare");
        assert_eq!(exec_word("/a b/c"), "\"/a b/c\"");
        // `\"` inside the quotes, then each backslash doubled by the string escape.
        assert_eq!(exec_word("/x$y`z\"w"), "\"/x\\\\$y\\\\`z\\\\\"w\"");
        assert_eq!(exec_word("/50%\\d"), "\"/50%%\\\\\\\\d\"");
        assert_eq!(exec_word("/50%"), "/50%%");
        assert_eq!(exec_word("/two\nlines"), "\"/two\\nlines\"", "a line break is written as the string escape");
    }

    #[test]
    fn the_entry_runs_a_program_under_a_path_with_spaces() {
        let args = entry_args(Some(Path::new("/home/p/My Data\nnew")), None);
        let text = desktop_entry("Hark", Path::new("/opt/My Apps/hark-desktop"), &args).unwrap();
        assert_eq!(
            text,
            "[Desktop Entry]\nType=Application\nVersion=1.0\nName=Hark\nComment=Hark startup script\n\
             Exec=\"/opt/My Apps/hark-desktop\" --hidden \"--data-dir=/home/p/My Data\\nnew\"\n\
             StartupNotify=false\nTerminal=false\n"
        );
        assert_eq!(text.lines().count(), 8, "the line break in the folder's name stays inside the Exec line");
    }

    #[cfg(unix)]
    #[test]
    fn a_program_path_an_entry_cannot_hold_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let program = Path::new(std::ffi::OsStr::from_bytes(b"/opt/\xffhark"));
        let err = desktop_entry("Hark", program, &[]).unwrap_err();
        assert!(err.to_string().contains("not UTF-8"), "{err}");
    }
}
