//! Which remote hosts the desk keeps a tunnel to: `remote-hosts.json` in the data directory, changed
//! by `hark remote add|remove` (and read by the running host, which follows it).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::CodedError;

pub const REMOTE_HOSTS_FILE: &str = "remote-hosts.json";
/// The longest host name taken.
const MAX_HOST_CHARS: usize = 255;

/// A remote host, as the person's `ssh` names it (an alias of their ssh config, `user@host`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RemoteHost {
    pub host: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
struct RemoteHosts {
    hosts: Vec<RemoteHost>,
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum RemoteHostsError {
    #[error("{host:?} is not a host name ssh can be given: {problem}")]
    BadHost { host: String, problem: &'static str },
    #[error("{host} is not among the remote hosts")]
    Unknown { host: String },
    #[error("The remote hosts file {path} could not be read ({reason}); fix or remove it")]
    Read { path: String, reason: String },
    #[error("Could not save the remote hosts to {path}: {reason}")]
    Write { path: String, reason: String },
}

impl CodedError for RemoteHostsError {
    fn name(&self) -> &str {
        "RemoteHostsError"
    }
    fn code(&self) -> &str {
        match self {
            RemoteHostsError::BadHost { .. } => "BAD_HOST",
            RemoteHostsError::Unknown { .. } => "NOT_FOUND",
            RemoteHostsError::Read { .. } => "REMOTE_HOSTS_READ",
            RemoteHostsError::Write { .. } => "REMOTE_HOSTS_WRITE",
        }
    }
}

/// A host name goes on ssh's command line, so one that ssh would read as an option (a leading `-`)
/// or that holds spaces, quotes or control characters is refused.
pub fn check_host(host: &str) -> Result<(), RemoteHostsError> {
    let bad = |problem| Err(RemoteHostsError::BadHost { host: host.to_string(), problem });
    if host.is_empty() {
        return bad("it is empty");
    }
    if host.starts_with('-') {
        return bad("it starts with '-', which ssh would read as an option");
    }
    if host.chars().count() > MAX_HOST_CHARS {
        return bad("it is too long");
    }
    if host.chars().any(|c| c.is_whitespace() || c.is_control() || "'\"`$\\;&|<>()".contains(c)) {
        return bad("it holds a space, a quote or a shell character");
    }
    Ok(())
}

/// The hosts kept, in the order they were added; none when there is no file.
pub fn load(dir: &Path) -> Result<Vec<RemoteHost>, RemoteHostsError> {
    let path = dir.join(REMOTE_HOSTS_FILE);
    let read = |reason: String| RemoteHostsError::Read { path: path.display().to_string(), reason };
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<RemoteHosts>(&text).map(|h| h.hosts).map_err(|e| read(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(read(e.to_string())),
    }
}

/// Adds `host` (once); the hosts now kept.
pub fn add(dir: &Path, host: &str) -> Result<Vec<RemoteHost>, RemoteHostsError> {
    check_host(host)?;
    change(dir, |hosts| {
        if !hosts.iter().any(|h| h.host == host) {
            hosts.push(RemoteHost { host: host.to_string() });
        }
        Ok(())
    })
}

/// Removes `host`; NOT_FOUND when it was not kept.
pub fn remove(dir: &Path, host: &str) -> Result<Vec<RemoteHost>, RemoteHostsError> {
    change(dir, |hosts| {
        let before = hosts.len();
        hosts.retain(|h| h.host != host);
        if hosts.len() == before {
            return Err(RemoteHostsError::Unknown { host: host.to_string() });
        }
        Ok(())
    })
}

fn change(
    dir: &Path,
    edit: impl FnOnce(&mut Vec<RemoteHost>) -> Result<(), RemoteHostsError>,
) -> Result<Vec<RemoteHost>, RemoteHostsError> {
    let path = dir.join(REMOTE_HOSTS_FILE);
    let write = |e: std::io::Error| RemoteHostsError::Write { path: path.display().to_string(), reason: e.to_string() };
    crate::data_dir::private::with_lock(&path, || {
        let mut hosts = load(dir)?;
        edit(&mut hosts)?;
        let text = serde_json::to_vec_pretty(&RemoteHosts { hosts: hosts.clone() })
            .map_err(std::io::Error::other)
            .map_err(write)?;
        crate::data_dir::private::replace(&path, &text).map_err(write)?;
        Ok(hosts)
    })
    .map_err(write)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_that_ssh_would_read_otherwise_is_refused() {
        for ok in ["devbox", "ada@build.example.org", "10.0.0.7", "box-2.local", "[::1]"] {
            assert!(check_host(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-oProxyCommand=touch /tmp/x", "dev box", "a;b", "a$(x)", "a\nb", "x'y"] {
            assert!(check_host(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn hosts_are_added_once_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_empty());
        add(dir.path(), "devbox").unwrap();
        add(dir.path(), "build").unwrap();
        let hosts = add(dir.path(), "devbox").unwrap();
        assert_eq!(hosts.iter().map(|h| h.host.as_str()).collect::<Vec<_>>(), ["devbox", "build"]);
        assert_eq!(load(dir.path()).unwrap(), hosts);
        assert_eq!(remove(dir.path(), "devbox").unwrap(), [RemoteHost { host: "build".into() }]);
        assert_eq!(remove(dir.path(), "devbox").unwrap_err().code(), "NOT_FOUND");
        std::fs::write(dir.path().join(REMOTE_HOSTS_FILE), "{oops").unwrap();
        assert_eq!(add(dir.path(), "x").unwrap_err().code(), "REMOTE_HOSTS_READ", "an unreadable file is not replaced");
    }
}
