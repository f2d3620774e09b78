//! MCP servers in Settings: the data directory's `mcp.json` as forms, each with how its last start
//! went and the tools it listed then, each marked as core's one rule (`hark_core::mcp::offer`)
//! decides: offered, turned off, or left out past the model's limit. Saving stores secret headers in the OS keyring first, then writes the file (whole, by
//! rename); the host then reads it again for sessions opened from now on (running ones keep theirs).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hark_core::error::{BoundaryError, CodedError};
use hark_core::mcp::{
    invalid, read_entries, read_text, write_entries, McpEntry, ServerStatus, StatusBoard, ToolOffer, CONFIG_FILE,
    KEYRING_PREFIX, MAX_MODEL_TOOLS,
};
use serde::Serialize;

use crate::error::CommandError;

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct McpServerView {
    pub entry: McpEntry,
    pub status: ServerStatus,
    /// The tools the server listed when a session last started it, by name; empty until then.
    pub tools: Vec<McpToolView>,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct McpToolView {
    /// As the server lists it (untrusted text).
    pub name: String,
    pub offer: ToolOffer,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct McpView {
    /// The file, so the person can edit it by hand too.
    pub path: String,
    pub servers: Vec<McpServerView>,
    /// The file cannot be read (shown instead of the list; saving replaces the servers).
    pub error: Option<BoundaryError>,
    /// The most tools a model is offered in one request, Hark's own included.
    pub tool_limit: u32,
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

/// What Settings shows; `status` tells how each server last started and what it listed.
pub fn view(data_dir: &Path, status: &StatusBoard) -> McpView {
    let path = config_path(data_dir);
    let read = read_text(&path).and_then(|t| read_entries(t.as_deref()).map_err(|m| invalid(&path, m)));
    let (servers, error) = match read {
        Ok(entries) => {
            // As the file says now: a server turned off offers nothing, and a tool turned off in the
            // file counts even before a session starts with it.
            let off: Vec<(&str, BTreeSet<String>)> = entries
                .iter()
                .filter(|e| !e.disabled)
                .map(|e| (e.name.as_str(), e.disabled_tools.iter().cloned().collect()))
                .collect();
            let off: Vec<(&str, &BTreeSet<String>)> = off.iter().map(|(name, tools)| (*name, tools)).collect();
            let mut offers = status.offers(&off);
            let servers = entries
                .into_iter()
                .map(|entry| {
                    let tools = offers.remove(&entry.name).unwrap_or_default();
                    let tools = tools.into_iter().map(|(name, offer)| McpToolView { name, offer }).collect();
                    McpServerView { status: status.get(&entry.name), tools, entry }
                })
                .collect();
            (servers, None)
        }
        Err(e) => (Vec::new(), Some(e.boundary())),
    };
    let tool_limit = u32::try_from(MAX_MODEL_TOOLS).unwrap_or(u32::MAX);
    McpView { path: path.display().to_string(), servers, error, tool_limit }
}

/// Writes `entries` as the file's servers (secrets to the keyring first). A broken file is replaced
/// only in its servers when it is still JSON.
pub fn save(data_dir: &Path, entries: &[McpEntry]) -> Result<(), CommandError> {
    let path = config_path(data_dir);
    let old = read_text(&path)?;
    // A file that is not JSON at all cannot keep its other keys; saving starts it afresh.
    let old = old.filter(|t| serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| v.is_object()));
    let (text, secrets) = write_entries(old.as_deref(), entries).map_err(|m| invalid(&path, m))?;
    for secret in &secrets {
        crate::secrets::mcp_set(&secret.name, &secret.value)?;
    }
    let tmp = path.with_extension("json.saving");
    hark_core::data_dir::private::write(&tmp, text.as_bytes())
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| invalid(&path, format!("could not write it: {e}")))?;
    Ok(())
}
