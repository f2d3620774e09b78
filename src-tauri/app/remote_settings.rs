//! Settings → Remote hosts: the hosts whose agents ask the person here through an SSH tunnel, each
//! with how its tunnel stands. Plain file work on hark-core's `remote-hosts.json` (the file `hark
//! remote` changes) and `remote-status.json` (written by the host that keeps the tunnels, this app
//! when it serves its socket, and followed by it within seconds of a change).

use std::path::Path;

use hark_core::remote_hosts::{self, HarkThere, RemoteHostsError, TunnelState};
use serde::Serialize;

/// One remote host and its tunnel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RemoteHostView {
    /// As the person's `ssh` names it (an alias of their ssh config, `user@host`, ...).
    pub host: String,
    /// How its tunnel stands; null while no running Hark keeps one (none yet, or none runs here).
    pub tunnel: Option<TunnelState>,
    /// Which `hark` it had when last looked at (by its tunnel, or `hark remote add`); null: not yet.
    pub hark: Option<HarkThere>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RemoteHostsView {
    /// In the order they were added.
    pub hosts: Vec<RemoteHostView>,
}

/// The hosts kept and their tunnels' states.
pub fn view(dir: &Path) -> Result<RemoteHostsView, RemoteHostsError> {
    Ok(with_states(dir, remote_hosts::load(dir)?))
}

/// Adds the host as typed in the window (spaces around it dropped); refused with BAD_HOST when ssh
/// would read it as anything but a host.
pub fn add(dir: &Path, host: &str) -> Result<RemoteHostsView, RemoteHostsError> {
    Ok(with_states(dir, remote_hosts::add(dir, host.trim())?))
}

/// Removes the host (its tunnel closes); NOT_FOUND when it was not kept.
pub fn remove(dir: &Path, host: &str) -> Result<RemoteHostsView, RemoteHostsError> {
    Ok(with_states(dir, remote_hosts::remove(dir, host)?))
}

fn with_states(dir: &Path, hosts: Vec<remote_hosts::RemoteHost>) -> RemoteHostsView {
    let (mut states, mut harks) = (remote_hosts::status(dir), remote_hosts::harks(dir));
    let hosts = hosts
        .into_iter()
        .map(|h| RemoteHostView { tunnel: states.remove(&h.host), hark: harks.remove(&h.host), host: h.host })
        .collect();
    RemoteHostsView { hosts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hark_core::error::CodedError;

    #[test]
    fn hosts_show_their_tunnels_state_and_bad_input_is_refused_keeping_the_list() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(view(dir.path()).unwrap().hosts, []);
        add(dir.path(), "  devbox ").unwrap();
        let listed = add(dir.path(), "ada@build").unwrap();
        assert_eq!(listed.hosts.iter().map(|h| h.host.as_str()).collect::<Vec<_>>(), ["devbox", "ada@build"]);
        assert!(listed.hosts.iter().all(|h| h.tunnel.is_none()), "no Hark keeps a tunnel yet");

        let e = add(dir.path(), "-oProxyCommand=touch /tmp/x").unwrap_err();
        assert_eq!(e.code(), "BAD_HOST");
        assert_eq!(view(dir.path()).unwrap(), listed, "nothing was lost or added");

        // As the host that keeps the tunnels writes them.
        let refused = TunnelState::Refused { reason: "ssh: Could not resolve hostname devbox".into() };
        let states = serde_json::json!({ "devbox": refused, "gone": TunnelState::Connected });
        std::fs::write(dir.path().join(remote_hosts::REMOTE_STATUS_FILE), states.to_string()).unwrap();
        let shown = view(dir.path()).unwrap();
        assert_eq!(shown.hosts[0], RemoteHostView { host: "devbox".into(), tunnel: Some(refused), hark: None });
        assert_eq!(shown.hosts[1].tunnel, None);
        assert_eq!(shown.hosts.len(), 2, "a state of a host no longer kept is not shown");

        // Which hark each host had, as its tunnel or `hark remote add` noted it.
        remote_hosts::note_hark(dir.path(), "ada@build", None);
        assert_eq!(view(dir.path()).unwrap().hosts[1].hark, Some(HarkThere::Missing));

        assert_eq!(remove(dir.path(), "devbox").unwrap().hosts.len(), 1);
        assert_eq!(remove(dir.path(), "devbox").unwrap_err().code(), "NOT_FOUND");
    }
}
