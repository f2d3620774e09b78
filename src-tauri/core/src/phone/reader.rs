//! One reader per bot on a machine. Telegram hands each update to whichever program polls first, so
//! two Harks on one bot (the app and a `hark chat` with another data directory) would take each
//! other's taps. The first to start holds an OS lock named for the bot; another one waits and says
//! the bot is in use, and takes over when the first one ends (the OS drops a dead process's lock).

use std::fs::File;
use std::path::Path;

use super::telegram::BotToken;

/// Held while this process reads the bot's updates.
#[derive(Debug)]
pub struct ReaderLock {
    _file: File,
}

/// Why the bot could not be taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Taken {
    /// Another Hark reads it; who, as its lock file says.
    Elsewhere(String),
    /// The lock itself failed (no private folder for it): reading goes on unguarded.
    Unavailable(String),
}

/// Takes the bot at `api_base` with `token` for this process without waiting. `data_dir` is written
/// into the lock so the other Hark can name this one. The same token on another Bot API server is
/// another bot.
pub fn take(api_base: &str, token: &BotToken, data_dir: &Path) -> Result<ReaderLock, Taken> {
    let unavailable = |e: std::io::Error| Taken::Unavailable(e.to_string());
    let folder = crate::data_dir::private::ensure_user_folder().map_err(unavailable)?;
    let key = format!("{}\n{}", api_base.trim_end_matches('/'), token.expose());
    let hash = crate::data_dir::stable_hash(key.as_bytes());
    let path = folder.join(format!("bot-{hash:016x}.lock"));
    let note = format!("the Hark of {} (pid {}) on this computer", data_dir.display(), std::process::id());
    let file = crate::data_dir::private::try_lock(&path, &note).map_err(unavailable)?.map_err(|held_by| {
        Taken::Elsewhere(if held_by.is_empty() { "another Hark on this computer".to_string() } else { held_by })
    })?;
    Ok(ReaderLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_has_one_reader_and_is_free_again_when_it_lets_go() {
        let token = BotToken::new(format!("77:{}", uuid::Uuid::new_v4())).unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first = take("http://127.0.0.1:1", &token, a.path()).expect("free");
        match take("http://127.0.0.1:1", &token, b.path()) {
            Err(Taken::Elsewhere(who)) => assert!(who.contains(&a.path().display().to_string()), "{who}"),
            other => panic!("the second reader must be refused, got {other:?}"),
        }
        // The same token on another server is another bot.
        let other_server = take("http://127.0.0.1:2", &token, b.path()).expect("another bot");
        drop(first);
        take("http://127.0.0.1:1", &token, b.path()).expect("free once the first let go");
        drop(other_server);
    }
}
