//! Agents on other machines ask the Hark on the person's desk. The desk keeps, for each remote host
//! the person named, an `ssh -N -R` tunnel open with their own `ssh` (their config, keys and agent):
//! it forwards a Unix socket in the remote user's private folder to an agents' door of this host (a
//! socket that serves only what an outside agent needs: the front door's agents' handler).
//! On the remote host the same `hark` finds the forwarded socket by itself ([`forwarded_socket`]).
//! No relay server, no open port.

mod config;
#[cfg(unix)]
mod install;
#[cfg(unix)]
mod ssh;
mod state;
#[cfg(unix)]
mod tunnel;

use std::path::PathBuf;

pub use config::{add, check_host, load, remove, RemoteHost, RemoteHostsError, REMOTE_HOSTS_FILE};
#[cfg(unix)]
pub use install::{copy, probe, InstallError, RemoteHark, REMOTE_BINARY};
#[cfg(unix)]
pub use ssh::SSH_ENV;
pub use state::{harks, note_hark, status, HarkThere, TunnelState, REMOTE_HARKS_FILE, REMOTE_STATUS_FILE};
#[cfg(unix)]
pub use tunnel::{start, DoorOpener, Tunnels};

/// The folder in the remote user's home that holds the forwarded socket: owner-only, made by the
/// desk before each forward.
pub const REMOTE_FOLDER: &str = ".hark";
/// The forwarded socket's name in [`REMOTE_FOLDER`].
pub const REMOTE_SOCKET: &str = "agents.sock";

/// The socket a desk's tunnel forwards to this machine, when there is one: what `hark hook` and
/// `hark mcp` use when no Hark of this machine answers. It may be stale (the tunnel is down): then
/// connecting to it is refused, and the agent asks in its own terminal.
#[cfg(unix)]
pub fn forwarded_socket() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute())?;
    let path = home.join(REMOTE_FOLDER).join(REMOTE_SOCKET);
    std::fs::symlink_metadata(&path)
        .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
        .then_some(path)
}

/// Windows has no Unix socket for OpenSSH to forward to.
#[cfg(not(unix))]
pub fn forwarded_socket() -> Option<PathBuf> {
    None
}
