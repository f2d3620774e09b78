//! How each tunnel stands, as the host that runs them last wrote it (`remote-status.json`): for
//! `hark remote list` and Settings, in other processes.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Where the host that runs the tunnels writes their states.
pub const REMOTE_STATUS_FILE: &str = "remote-status.json";

/// How one tunnel stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TunnelState {
    Connecting,
    /// Agents on the host reach this Hark.
    Connected,
    /// The last attempt ended (the reason is ssh's); the next one comes after a pause.
    Reconnecting {
        reason: String,
    },
    /// ssh refused it (keys, host key, the forward itself): tried again, but someone has to act.
    Refused {
        reason: String,
    },
}

/// How each tunnel stands, as the running host last wrote it; empty when no host runs tunnels.
pub fn status(dir: &Path) -> BTreeMap<String, TunnelState> {
    std::fs::read_to_string(dir.join(REMOTE_STATUS_FILE))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

#[cfg_attr(not(unix), allow(dead_code))] // only the Unix tunnels write it
pub(crate) fn write_status(dir: &Path, states: &BTreeMap<String, TunnelState>) {
    if let Ok(text) = serde_json::to_vec_pretty(states) {
        let _ = crate::data_dir::private::replace(&dir.join(REMOTE_STATUS_FILE), &text);
    }
}
