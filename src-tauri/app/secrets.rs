//! API keys in the OS keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on
//! Windows). One entry per model server, keyed by its base URL, so a session recorded against a
//! server finds that server's key. Keys never reach SQLite, settings, logs or error messages.

use hark_core::model::{env_key_for, ApiKey, KeySource};

const SERVICE: &str = "app.hark.desktop";

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// The platform store could not be reached (no Secret Service running, locked keychain...). The
    /// message is the platform's reason; it never contains the key.
    #[error("the system keyring is not available: {0}")]
    Unavailable(String),
}

impl SecretError {
    pub fn code(&self) -> &'static str {
        "KEYRING_UNAVAILABLE"
    }
}

impl hark_core::error::CodedError for SecretError {
    fn name(&self) -> &str {
        "SecretError"
    }
    fn code(&self) -> &str {
        SecretError::code(self)
    }
}

fn entry(base_url: &str) -> Result<keyring::Entry, SecretError> {
    keyring::Entry::new(SERVICE, &format!("api-key {}", base_url.trim())).map_err(unavailable)
}

fn unavailable(e: keyring::Error) -> SecretError {
    // keyring's messages describe the store, not the secret; still keep them short.
    let text: String = e.to_string().chars().take(200).collect();
    SecretError::Unavailable(text)
}

/// The stored key for `base_url`; `Ok(None)` when none is stored.
pub fn get(base_url: &str) -> Result<Option<ApiKey>, SecretError> {
    match entry(base_url)?.get_password() {
        Ok(key) => Ok(ApiKey::from_optional(Some(key))),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(unavailable(e)),
    }
}

pub fn set(base_url: &str, key: &str) -> Result<(), SecretError> {
    entry(base_url)?.set_password(key.trim()).map_err(unavailable)
}

pub fn delete(base_url: &str) -> Result<(), SecretError> {
    match entry(base_url)?.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(unavailable(e)),
    }
}

/// An MCP server's secret (a header written `${keyring:<name>}` in mcp.json); `Ok(None)` when none.
pub fn mcp_get(name: &str) -> Result<Option<String>, SecretError> {
    match mcp_entry(name)?.get_password() {
        Ok(value) => Ok(Some(value)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(unavailable(e)),
    }
}

pub fn mcp_set(name: &str, value: &str) -> Result<(), SecretError> {
    mcp_entry(name)?.set_password(value).map_err(unavailable)
}

fn mcp_entry(name: &str) -> Result<keyring::Entry, SecretError> {
    keyring::Entry::new(SERVICE, &format!("mcp-secret {name}")).map_err(unavailable)
}

fn telegram_entry() -> Result<keyring::Entry, SecretError> {
    keyring::Entry::new(SERVICE, "telegram-bot-token").map_err(unavailable)
}

/// The phone relay's Telegram bot token: the keyring's entry, else `HARK_TELEGRAM_TOKEN` (as the
/// terminal reads it). `None` leaves the relay off.
pub fn telegram_token() -> Option<hark_core::phone::BotToken> {
    telegram_token_with_source().0
}

/// The token as [`telegram_token`] finds it, and where it came from (Settings shows only the latter).
pub fn telegram_token_with_source() -> (Option<hark_core::phone::BotToken>, KeySource) {
    let stored = telegram_entry().ok().and_then(|e| e.get_password().ok()).and_then(hark_core::phone::BotToken::new);
    if let Some(token) = stored {
        return (Some(token), KeySource::Keyring);
    }
    let variable = hark_core::phone::TOKEN_VARIABLE;
    match hark_core::phone::BotToken::new(std::env::var(variable).unwrap_or_default()) {
        Some(token) => (Some(token), KeySource::Env { variable: variable.to_string() }),
        None => (None, KeySource::None),
    }
}

/// Stores the bot token (already checked) in the keyring, replacing the one there.
pub fn telegram_set(token: &hark_core::phone::BotToken) -> Result<(), SecretError> {
    telegram_entry()?.set_password(token.expose()).map_err(unavailable)
}

pub fn telegram_delete() -> Result<(), SecretError> {
    match telegram_entry()?.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(unavailable(e)),
    }
}

/// Whether the keyring answers at all; `Some(reason)` when it does not.
pub fn probe() -> Option<String> {
    match get("probe:hark") {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// The key for a server and where it comes from: the keyring's entry for that server, else the
/// environment variable of the vendor whose host it is (the same rule `hark chat` follows).
pub fn key_for(base_url: &str) -> (Option<ApiKey>, KeySource) {
    if let Ok(Some(key)) = get(base_url) {
        return (Some(key), KeySource::Keyring);
    }
    match env_key_for(base_url) {
        Some((key, variable)) => (Some(key), KeySource::Env { variable: variable.to_string() }),
        None => (None, KeySource::None),
    }
}
