//! One reader per bot on a machine. Telegram hands each update to whichever program polls first, so
//! two Harks on one bot (the app and a `hark chat` with another data directory) would take each
//! other's taps. The first to start holds an OS lock named for the bot; another one waits and says
//! the bot is in use, and takes over when the first one ends (the OS drops a dead process's lock).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use fs4::fs_std::FileExt;

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
    // Not truncated on open: the holder's words must stay readable to the one that loses the race.
    let mut file = crate::data_dir::private::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(unavailable)?;
    if !file.try_lock_exclusive().map_err(unavailable)? {
        let mut holder = String::new();
        let _ = file.read_to_string(&mut holder);
        let holder = holder.trim();
        let who = if holder.is_empty() { "another Hark on this computer".to_string() } else { holder.to_string() };
        return Err(Taken::Elsewhere(who));
    }
    let holder = format!("the Hark of {} (pid {}) on this computer", data_dir.display(), std::process::id());
    file.set_len(0).map_err(unavailable)?;
    file.seek(SeekFrom::Start(0)).map_err(unavailable)?;
    file.write_all(holder.as_bytes()).map_err(unavailable)?;
    file.flush().map_err(unavailable)?;
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
