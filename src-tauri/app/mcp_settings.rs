//! MCP servers in Settings: the data directory's `mcp.json` as forms, each with how its last start
//! went. Saving stores secret headers in the OS keyring first, then writes the file (whole, by
//! rename), then gives sessions opened from now on the new servers; running sessions keep theirs.

use std::path::{Path, PathBuf};

use hark_core::error::{BoundaryError, CodedError};
use hark_core::mcp::{
    read_entries, write_entries, McpConfig, McpEntry, McpError, ServerStatus, CONFIG_FILE, KEYRING_PREFIX,
};
use serde::Serialize;

use crate::error::CommandError;

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct McpServerView {
    pub entry: McpEntry,
    pub status: ServerStatus,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct McpView {
    /// The file, so the person can edit it by hand too.
    pub path: String,
    pub servers: Vec<McpServerView>,
    /// The file cannot be read (shown instead of the list; saving replaces the servers).
    pub error: Option<BoundaryError>,
}

pub fn config_path(data_dir: &Path) -> PathBuf {
    data_dir.join(CONFIG_FILE)
}

/// `${NAME}` for the desktop: a `keyring:` name from the OS keyring, anything else from the
/// environment. A keyring that does not answer leaves the server out with the reason.
pub fn lookup(name: &str) -> Option<String> {
    match name.strip_prefix(KEYRING_PREFIX) {
        Some(secret) => crate::secrets::mcp_get(secret).ok().flatten(),
        None => std::env::var(name).ok(),
    }
}

fn invalid(path: &Path, message: String) -> McpError {
    McpError::ConfigInvalid { path: path.display().to_string(), message }
}

fn read_text(path: &Path) -> Result<Option<String>, McpError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(invalid(path, e.to_string())),
    }
}

/// The servers of the data directory's file, resolved for this app (secrets from the keyring).
pub fn load(data_dir: &Path) -> Result<McpConfig, McpError> {
    let path = config_path(data_dir);
    match read_text(&path)? {
        None => Ok(McpConfig::default()),
        Some(text) => McpConfig::parse(&text, &lookup).map_err(|m| invalid(&path, m)),
    }
}

/// What Settings shows; `status` tells how each server last started.
pub fn view(data_dir: &Path, status: &dyn Fn(&str) -> ServerStatus) -> McpView {
    let path = config_path(data_dir);
    let read = read_text(&path).and_then(|t| read_entries(t.as_deref()).map_err(|m| invalid(&path, m)));
    let (servers, error) = match read {
        Ok(entries) => {
            let servers =
                entries.into_iter().map(|entry| McpServerView { status: status(&entry.name), entry }).collect();
            (servers, None)
        }
        Err(e) => (Vec::new(), Some(e.boundary())),
    };
    McpView { path: path.display().to_string(), servers, error }
}

/// Writes `entries` as the file's servers (secrets to the keyring first) and returns what the app
/// reads from it now. A broken file is replaced only in its servers when it is still JSON.
pub fn save(data_dir: &Path, entries: &[McpEntry]) -> Result<McpConfig, CommandError> {
    let path = config_path(data_dir);
    let old = read_text(&path)?;
    // A file that is not JSON at all cannot keep its other keys; saving starts it afresh.
    let old = old.filter(|t| serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| v.is_object()));
    let (text, secrets) = write_entries(old.as_deref(), entries).map_err(|m| invalid(&path, m))?;
    for secret in &secrets {
        crate::secrets::mcp_set(&secret.name, &secret.value)?;
    }
    let tmp = path.with_extension("json.saving");
    std::fs::write(&tmp, &text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| invalid(&path, format!("could not write it: {e}")))?;
    Ok(load(data_dir)?)
}
