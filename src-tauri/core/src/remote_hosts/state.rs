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

/// Which `hark` each remote host had when last looked at (by its tunnel before each forward, and by
/// `hark remote add`): its `--version` line, or null for none.
pub const REMOTE_HARKS_FILE: &str = "remote-harks.json";

/// A remote host's `hark` next to this one, for Settings and `hark remote list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "hark", rename_all = "snake_case")]
pub enum HarkThere {
    /// This very version.
    This,
    /// None found (at `~/.local/bin/hark` nor on the PATH its ssh sessions get).
    Missing,
    /// Another one, as its `--version` says.
    Other { version: String },
}

impl HarkThere {
    pub fn from_version(version: Option<&str>) -> HarkThere {
        match version {
            None => HarkThere::Missing,
            Some(v) if v == crate::control::this_build() => HarkThere::This,
            Some(v) => HarkThere::Other { version: v.to_string() },
        }
    }
}

/// Which `hark` each remote host had when last looked at; hosts never looked at are left out.
pub fn harks(dir: &Path) -> BTreeMap<String, HarkThere> {
    read_harks(dir).into_iter().map(|(host, version)| (host, HarkThere::from_version(version.as_deref()))).collect()
}

fn read_harks(dir: &Path) -> BTreeMap<String, Option<String>> {
    std::fs::read_to_string(dir.join(REMOTE_HARKS_FILE))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Notes which `hark` `host` has (`version`: its `--version` line, `None`: none). Best effort: it is
/// only a note for the person, and the next look writes it again.
pub fn note_hark(dir: &Path, host: &str, version: Option<&str>) {
    let path = dir.join(REMOTE_HARKS_FILE);
    let _ = crate::data_dir::private::with_lock(&path, || {
        let mut harks = read_harks(dir);
        if harks.get(host).map(Option::as_deref) == Some(version) {
            return Ok(());
        }
        harks.insert(host.to_string(), version.map(str::to_string));
        let text = serde_json::to_vec_pretty(&harks).map_err(std::io::Error::other)?;
        crate::data_dir::private::replace(&path, &text)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hosts_hark_is_this_one_missing_or_another_as_last_noted() {
        let dir = tempfile::tempdir().unwrap();
        assert!(harks(dir.path()).is_empty());
        note_hark(dir.path(), "devbox", None);
        note_hark(dir.path(), "lab", Some("hark 0.0.1"));
        note_hark(dir.path(), "build", Some(&crate::control::this_build()));
        let seen = harks(dir.path());
        assert_eq!(seen["devbox"], HarkThere::Missing);
        assert_eq!(seen["lab"], HarkThere::Other { version: "hark 0.0.1".into() });
        assert_eq!(seen["build"], HarkThere::This);
        note_hark(dir.path(), "devbox", Some(&crate::control::this_build()));
        assert_eq!(harks(dir.path())["devbox"], HarkThere::This, "the last look counts");
    }
}
