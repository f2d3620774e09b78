//! The tunnels: one `ssh -N -R` per remote host, run with the person's own `ssh` and kept open with a
//! growing pause between attempts. Each forwards the remote user's `~/.hark/agents.sock` to an
//! agents' door of this host. Their states are written to `remote-status.json` for `hark remote
//! list` and Settings.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::state::{note_hark, write_status, TunnelState, REMOTE_STATUS_FILE};
use super::{config, REMOTE_FOLDER, REMOTE_SOCKET};
use crate::control::ControlServer;
use crate::sync::lock;

/// Opens the agents' door a tunnel to the named host forwards to; `None` once the host is gone.
pub type DoorOpener = Arc<dyn Fn(&str) -> Option<std::io::Result<ControlServer>> + Send + Sync>;

/// How often the host looks whether the person added or removed a remote host.
const FOLLOW: Duration = Duration::from_secs(2);
/// The longest pause between two attempts.
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// The running tunnels of one host. Dropping it closes them.
pub struct Tunnels {
    stop: CancellationToken,
}

impl Drop for Tunnels {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Keeps a tunnel to every remote host kept in the data directory `dir`, following changes of the
/// list; each forwards to the door `open_door` opens for it. The host that serves its socket calls
/// this; call inside a tokio runtime.
pub fn start(dir: &Path, open_door: DoorOpener) -> Tunnels {
    let stop = CancellationToken::new();
    let (dir, stopped) = (dir.to_path_buf(), stop.clone());
    tokio::spawn(async move {
        let states = Arc::new(Mutex::new(BTreeMap::new()));
        let mut running: HashMap<String, CancellationToken> = HashMap::new();
        loop {
            let wanted: Vec<String> = config::load(&dir).unwrap_or_default().into_iter().map(|h| h.host).collect();
            running.retain(|name, token| {
                let keep = wanted.contains(name);
                if !keep {
                    token.cancel();
                    lock(&states).remove(name);
                }
                keep
            });
            for name in wanted {
                if let std::collections::hash_map::Entry::Vacant(slot) = running.entry(name.clone()) {
                    let token = stopped.child_token();
                    let tunnel =
                        Tunnel { open_door: open_door.clone(), name, dir: dir.clone(), states: states.clone() };
                    tokio::spawn(tunnel.run(token.clone()));
                    slot.insert(token);
                }
            }
            write_status(&dir, &lock(&states));
            tokio::select! {
                _ = stopped.cancelled() => break,
                _ = tokio::time::sleep(FOLLOW) => {}
            }
        }
        let _ = std::fs::remove_file(dir.join(REMOTE_STATUS_FILE));
    });
    Tunnels { stop }
}

struct Tunnel {
    open_door: DoorOpener,
    name: String,
    dir: PathBuf,
    states: Arc<Mutex<BTreeMap<String, TunnelState>>>,
}

/// How an attempt ended.
struct Ended {
    reason: String,
    refused: bool,
    /// It was connected for a while: the next attempt comes at once.
    was_up: bool,
}

impl Tunnel {
    fn set(&self, state: TunnelState) {
        let mut states = lock(&self.states);
        if states.get(&self.name) != Some(&state) {
            states.insert(self.name.clone(), state);
            write_status(&self.dir, &states);
        }
    }

    async fn run(self, stop: CancellationToken) {
        self.set(TunnelState::Connecting);
        let mut pause = Duration::from_secs(1);
        loop {
            let ended = self.attempt(&stop).await;
            let Some(ended) = ended else { return };
            if ended.was_up {
                pause = Duration::from_secs(1);
            }
            self.set(if ended.refused {
                TunnelState::Refused { reason: ended.reason }
            } else {
                TunnelState::Reconnecting { reason: ended.reason }
            });
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(pause) => {}
            }
            pause = (pause * 2).min(MAX_PAUSE);
        }
    }

    /// One attempt: the agents' door, the remote folder made ready, the forward held until ssh
    /// ends. `None` when the tunnel was stopped.
    async fn attempt(&self, stop: &CancellationToken) -> Option<Ended> {
        // The door lives as long as this attempt: while it is closed nobody on the host can ask.
        let door = match (self.open_door)(&self.name)? {
            Ok(door) => door,
            Err(e) => {
                return Some(Ended {
                    reason: format!("the agents' door could not open: {e}"),
                    refused: true,
                    was_up: false,
                })
            }
        };
        let remote = tokio::select! {
            _ = stop.cancelled() => return None,
            prepared = self.prepare() => match prepared {
                Ok(path) => path,
                Err(ended) => return Some(ended),
            },
        };
        let forward = format!("{remote}:{}", door.path().display());
        let mut child = match ssh(&[
            "-v",
            "-N",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=2",
            "-o",
            "StreamLocalBindMask=0177",
            "-R",
            &forward,
            &self.name,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        {
            Ok(child) => child,
            Err(e) => return Some(Ended { reason: format!("ssh could not start: {e}"), refused: true, was_up: false }),
        };
        let mut lines = child.stderr.take().map(|e| BufReader::new(e).lines());
        let (mut said, mut up) = (String::new(), false);
        loop {
            tokio::select! {
                _ = stop.cancelled() => {
                    let _ = child.kill().await;
                    return None;
                }
                line = async { match lines.as_mut() { Some(l) => l.next_line().await, None => Ok(None) } } => match line {
                    Ok(Some(line)) => {
                        if line.contains("remote forward success") {
                            up = true;
                            self.set(TunnelState::Connected);
                        } else if !line.starts_with("debug") && !line.trim().is_empty() {
                            said = line;
                        }
                    }
                    _ => break,
                },
            }
        }
        let status = child.wait().await;
        drop(door);
        let reason = if said.is_empty() {
            status.map_or_else(|e| format!("ssh failed: {e}"), |s| format!("ssh ended ({s})"))
        } else {
            said
        };
        let refused = refused(&reason);
        Some(Ended { reason, refused, was_up: up })
    }

    /// Makes the remote folder owner-only, removes a socket a dead forward left (sshd replaces it
    /// only when its config says so), notes which `hark` the host has (for Settings and `hark remote
    /// list`), and returns the remote socket's absolute path.
    async fn prepare(&self) -> Result<String, Ended> {
        let script = format!(
            "umask 077 && mkdir -p \"$HOME/{REMOTE_FOLDER}\" && chmod 700 \"$HOME/{REMOTE_FOLDER}\" && rm -f \"$HOME/{REMOTE_FOLDER}/{REMOTE_SOCKET}\" && printf '%s\\n' \"$HOME/{REMOTE_FOLDER}/{REMOTE_SOCKET}\" && {{ {}; }}",
            super::install::version_script()
        );
        let output = ssh(&[&self.name, &script]).stdin(Stdio::null()).output().await;
        let output = match output {
            Ok(output) => output,
            Err(e) => return Err(Ended { reason: format!("ssh could not start: {e}"), refused: true, was_up: false }),
        };
        let said = String::from_utf8_lossy(&output.stdout);
        let mut lines = said.lines();
        let path = lines.next().unwrap_or_default().trim().to_string();
        if output.status.success() && path.starts_with('/') {
            if let Some(version) = lines.next() {
                note_hark(&self.dir, &self.name, super::install::version_said(version).as_deref());
            }
            return Ok(path);
        }
        let reason = super::ssh::last_words(&output.stderr, "the remote host could not be prepared");
        let refused = refused(&reason);
        Err(Ended { reason, refused, was_up: false })
    }
}

/// What ssh says when a person has to act (a key, a host key, a setting), not just wait.
fn refused(reason: &str) -> bool {
    ["Permission denied", "Host key verification failed", "forwarding failed", "Could not resolve hostname"]
        .iter()
        .any(|s| reason.contains(s))
}

/// [`super::ssh::ssh`] for a tunnel: killed with this process's handle on drop.
fn ssh(args: &[&str]) -> Command {
    let mut command = Command::from(super::ssh::ssh(args));
    command.kill_on_drop(true);
    command
}
