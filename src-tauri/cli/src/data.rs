//! Finding and opening the session store for the read-only commands (`sessions`, `show`,
//! `questions`), and the output conventions they share.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use hark_core::data_dir;
use hark_core::session::{SessionSummary, Store, StoreError, StoredEvent, DB_FILE};

/// The desktop app's bundle identifier: its data directory is `<platform data dir>/<identifier>`,
/// and the CLI reads the same one.
pub const APP_IDENTIFIER: &str = "app.hark.desktop";

/// `<platform data dir>/app.hark.desktop` (e.g. `~/.local/share/app.hark.desktop` on Linux).
pub fn platform_default() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join(APP_IDENTIFIER))
}

/// Why a command stopped: what to print on stderr and the exit code.
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// Exit code 2: the user named something that does not exist (or a usage mistake).
    pub fn not_found(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: 2 }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: 1 }
    }

    pub fn exit(self) -> ExitCode {
        eprintln!("hark: {}", self.message);
        ExitCode::from(self.code)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound { .. } => Failure::not_found(e.to_string()),
            other => Failure::failed(other.to_string()),
        }
    }
}

/// The store of the chosen data directory, or `None` when nothing was ever stored there. Reading
/// must not create a data directory or an empty database as a side effect.
pub fn open_store() -> Result<Option<Store>, Failure> {
    let dir = data_dir::choose(None, platform_default()).map_err(|e| Failure::failed(e.to_string()))?;
    if !dir.join(DB_FILE).exists() {
        return Ok(None);
    }
    Store::open(&dir).map(Some).map_err(Failure::from)
}

/// Resolves a session id typed by a person: the full id, or a prefix matching exactly one session.
pub fn resolve_session(store: &Store, typed: &str) -> Result<SessionSummary, Failure> {
    match_session(store.list_sessions()?, typed)
}

/// The session named by its full id or a unique prefix, among `sessions`.
pub fn match_session(sessions: Vec<SessionSummary>, typed: &str) -> Result<SessionSummary, Failure> {
    hark_core::session::match_session(sessions, typed).map_err(Failure::not_found)
}

/// The whole log of the session named by `typed`, for the read-only commands.
pub fn load_events(typed: &str) -> Result<Vec<StoredEvent>, Failure> {
    let Some(store) = open_store()? else {
        return Err(Failure::not_found(format!("session {typed:?} not found (no sessions stored yet)")));
    };
    let session = resolve_session(&store, typed)?;
    Ok(store.events(&session.id)?)
}

/// The arguments of `hark show` and `hark questions`.
#[derive(clap::Args)]
pub struct SessionArgs {
    /// The session: its id or a unique prefix.
    pub session: String,
    /// Print JSON instead of lines of text.
    #[arg(long)]
    pub json: bool,
}

/// Writes the whole output at once; a closed pipe (`hark show … | head`) ends quietly.
pub fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => Failure::failed(format!("could not write the output: {e}")).exit(),
    }
}

pub fn emit_json<T: serde::Serialize>(value: &T) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(text) => emit(&(text + "\n")),
        Err(e) => Failure::failed(format!("could not render JSON: {e}")).exit(),
    }
}

/// Text recorded from models and users, made safe for a terminal: control characters (escape
/// sequences could recolour or rewrite the screen) are shown escaped, and long text is cut.
pub fn safe_text(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max_chars {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_text_escapes_terminal_controls_and_cuts() {
        assert_eq!(safe_text("a\u{1b}[31mred\nline", 100), "a\\u{1b}[31mred\\nline");
        assert_eq!(safe_text("abcdef", 3), "abc…");
        assert_eq!(safe_text("héllo", 5), "héllo");
    }

    #[test]
    fn the_platform_default_ends_with_the_app_identifier() {
        if let Some(dir) = platform_default() {
            assert!(dir.ends_with(APP_IDENTIFIER));
        }
    }
}
