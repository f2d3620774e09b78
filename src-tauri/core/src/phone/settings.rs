//! What every host process reads about the phone: where the Bot API is, how long a question waits
//! before it goes to the phone, whether the phone gets only that a question waits, who is paired,
//! and a pairing under way. Kept as `phone.json` in the data directory, so the app, `hark chat`,
//! `hark tui` and `hark phone` all read the same file. The bot's token is never here (the OS keyring
//! or `HARK_TELEGRAM_TOKEN` holds it).

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::error::PhoneError;
use crate::model::is_loopback;

pub const PHONE_FILE: &str = "phone.json";
/// Telegram's own Bot API server.
pub const DEFAULT_API_URL: &str = "https://api.telegram.org";
/// How long a question waits in Hark before it goes to the phone.
pub const DEFAULT_DELAY_SECS: u64 = 60;
/// The longest delay a person can set: a day.
pub const MAX_DELAY_SECS: u64 = 86_400;
/// How long a pairing code may be sent to the bot.
pub const PAIRING_SECS: i64 = 600;

/// Fields missing from the file take their defaults, so an older file never resets anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct PhoneSettings {
    /// The Bot API server: Telegram's, a self-hosted one, or a local emulator (plain http only on
    /// this machine, since the token travels in every request's path).
    pub api_url: String,
    pub delay_secs: u64,
    /// The phone is told only that a question waits, never its text.
    pub only_that_it_waits: bool,
    pub paired: Option<PairedUser>,
    pub pairing: Option<Pairing>,
}

impl Default for PhoneSettings {
    fn default() -> Self {
        PhoneSettings {
            api_url: DEFAULT_API_URL.to_string(),
            delay_secs: DEFAULT_DELAY_SECS,
            only_that_it_waits: false,
            paired: None,
            pairing: None,
        }
    }
}

/// The one person the relay talks to, in the one private chat they paired from. Ids are the
/// messenger's, kept as text so another messenger's ids fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PairedUser {
    pub user_id: String,
    pub chat_id: String,
    /// How the messenger names them (for Settings and `hark phone status`).
    pub name: String,
}

/// A one-time code waiting to be sent to the bot as `/start <code>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Pairing {
    pub code: String,
    #[ts(type = "string")]
    pub expires_at: DateTime<Utc>,
}

impl Pairing {
    /// A fresh code: eight characters without the ones people misread (0/O, 1/I).
    pub fn new() -> Pairing {
        const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        let bytes = uuid::Uuid::new_v4().into_bytes();
        // Bytes 6 and 8 carry the uuid's version and variant bits; the others are random.
        let code = [0, 1, 2, 3, 4, 5, 10, 11]
            .iter()
            .map(|&i| ALPHABET[usize::from(bytes[i]) % ALPHABET.len()] as char)
            .collect();
        Pairing { code, expires_at: Utc::now() + chrono::Duration::seconds(PAIRING_SECS) }
    }

    /// Whether `typed` (what followed `/start`) is this code, still in time.
    pub fn accepts(&self, typed: &str) -> bool {
        Utc::now() < self.expires_at && typed.trim().eq_ignore_ascii_case(&self.code)
    }
}

impl Default for Pairing {
    fn default() -> Self {
        Pairing::new()
    }
}

impl PhoneSettings {
    /// Refuses what would only fail later, naming the field.
    pub fn validate(&self) -> Result<(), PhoneError> {
        check_api_url(&self.api_url)?;
        if self.delay_secs > MAX_DELAY_SECS {
            return Err(PhoneError::Invalid {
                field: "delay_secs",
                problem: format!("must be at most {MAX_DELAY_SECS} seconds"),
            });
        }
        Ok(())
    }

    /// The Bot API base without a trailing slash.
    pub fn api_base(&self) -> &str {
        self.api_url.trim().trim_end_matches('/')
    }

    pub fn delay(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.delay_secs)
    }
}

/// `https://`, or `http://` to this machine only: the same rule as a model server's key, since the
/// bot's token is in every request.
pub fn check_api_url(url: &str) -> Result<(), PhoneError> {
    let invalid = |problem: &str| PhoneError::Invalid { field: "api_url", problem: problem.to_string() };
    let parsed = url::Url::parse(url.trim()).map_err(|_| invalid("must be an https:// URL"))?;
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&parsed) => Ok(()),
        "http" => Err(invalid(
            "plain http:// only to a server on this machine: anyone on the network could read the bot's token",
        )),
        _ => Err(invalid("must be an https:// URL")),
    }
}

/// The settings in `dir`; the defaults when there is no file. A file that cannot be read is an
/// error, never silently replaced.
pub fn load(dir: &Path) -> Result<PhoneSettings, PhoneError> {
    let path = dir.join(PHONE_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(PhoneSettings::default()),
        Err(e) => return Err(PhoneError::Read { path: path.display().to_string(), reason: e.to_string() }),
    };
    serde_json::from_str(&text)
        .map_err(|e| PhoneError::Read { path: path.display().to_string(), reason: e.to_string() })
}

/// Writes atomically (a temp file renamed over), so a reader never sees half a file.
fn save(dir: &Path, settings: &PhoneSettings) -> Result<(), PhoneError> {
    settings.validate()?;
    let path = dir.join(PHONE_FILE);
    let write = |e: std::io::Error| PhoneError::Write { path: path.display().to_string(), reason: e.to_string() };
    let text = serde_json::to_string_pretty(settings)
        .map_err(|e| PhoneError::Write { path: path.display().to_string(), reason: e.to_string() })?;
    crate::data_dir::private::replace(&path, text.as_bytes()).map_err(write)
}

/// Reads, changes and writes the settings in one go. The host, Settings and `hark phone` all change
/// this file, so each change holds a lock beside it from reading to writing: none is lost to
/// another's write.
pub fn update(dir: &Path, change: impl FnOnce(&mut PhoneSettings)) -> Result<PhoneSettings, PhoneError> {
    locked(dir, load, change)
}

/// Like [`update`], but a file that cannot be read is replaced (Settings shows the defaults for it,
/// and what the person saves there takes its place).
pub fn update_over_unreadable(
    dir: &Path,
    change: impl FnOnce(&mut PhoneSettings),
) -> Result<PhoneSettings, PhoneError> {
    locked(dir, |dir| Ok(load(dir).unwrap_or_default()), change)
}

fn locked(
    dir: &Path,
    read: impl FnOnce(&Path) -> Result<PhoneSettings, PhoneError>,
    change: impl FnOnce(&mut PhoneSettings),
) -> Result<PhoneSettings, PhoneError> {
    let path = dir.join(PHONE_FILE);
    let failed = |e: std::io::Error| PhoneError::Write { path: path.display().to_string(), reason: e.to_string() };
    crate::data_dir::private::with_lock(&path, || {
        let mut settings = read(dir)?;
        change(&mut settings);
        save(dir, &settings)?;
        Ok(settings)
    })
    .map_err(failed)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_url_is_https_or_this_machine() {
        for ok in ["https://api.telegram.org", "http://127.0.0.1:9000", "http://localhost:8081/"] {
            assert!(check_api_url(ok).is_ok(), "{ok}");
        }
        for bad in ["http://api.telegram.org", "ftp://localhost", "not a url", "http://10.0.0.2:8081"] {
            assert!(check_api_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_code_is_accepted_once_in_time_and_in_any_case() {
        let pairing = Pairing::new();
        assert_eq!(pairing.code.len(), 8);
        assert!(pairing.accepts(&format!(" {} ", pairing.code.to_lowercase())));
        assert!(!pairing.accepts("WRONG123"));
        let expired = Pairing { expires_at: Utc::now() - chrono::Duration::seconds(1), ..pairing.clone() };
        assert!(!expired.accepts(&pairing.code));
    }

    #[test]
    fn a_missing_file_is_the_defaults_and_a_saved_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), PhoneSettings::default());
        let saved = update(dir.path(), |s| s.delay_secs = 0).unwrap();
        assert_eq!(load(dir.path()).unwrap(), saved);
        std::fs::write(dir.path().join(PHONE_FILE), "{not json").unwrap();
        assert!(load(dir.path()).is_err(), "an unreadable file is reported, not replaced");
        assert!(update(dir.path(), |s| s.delay_secs = 5).is_err(), "nor replaced by a change");
        assert_eq!(update_over_unreadable(dir.path(), |s| s.delay_secs = 5).unwrap().delay_secs, 5);
    }

    #[test]
    fn changes_from_many_writers_at_once_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        update(dir.path(), |s| s.delay_secs = 0).unwrap();
        // Each writer adds one to the delay many times, each through its own open of the lock, as
        // separate processes do: a read-change-write without the lock loses some of them.
        let (writers, each) = (8, 25);
        std::thread::scope(|scope| {
            for _ in 0..writers {
                scope.spawn(|| {
                    for _ in 0..each {
                        update(dir.path(), |s| s.delay_secs += 1).unwrap();
                    }
                });
            }
        });
        assert_eq!(load(dir.path()).unwrap().delay_secs, writers * each);
    }
}
