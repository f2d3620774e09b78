//! `hark remote add|list|remove HOST`: the remote hosts whose agents ask the person through this
//! Hark, over an SSH tunnel the running Hark (the app, `hark chat`, `hark tui`) keeps open with the
//! person's own `ssh`. On the remote host, the same `hark` finds the forwarded socket by itself.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use hark_core::remote_hosts::{self, HarkThere, RemoteHark, REMOTE_BINARY};

use crate::chat::{chosen_dir, fail};

/// Whether `hark remote add` copies this hark to the host when it has none or another version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CopyChoice {
    /// Ask on the terminal; without one, do not copy and say how.
    Ask,
    Copy,
    NoCopy,
}

/// `hark remote`'s subcommands.
#[derive(clap::Subcommand)]
pub enum RemoteCommand {
    /// Add a host: the running Hark keeps a tunnel to it. When the host has no hark or another
    /// version, this one is copied to HOST:~/.local/bin/hark after asking.
    Add {
        /// The host as ssh reaches it (a name from ~/.ssh/config, or user@host).
        // Taken whatever it looks like, so the core's check refuses a host that would be read as an
        // ssh option with its own error rather than clap's.
        #[arg(allow_hyphen_values = true)]
        host: String,
        /// Copy this hark there when it has none or another version, without asking.
        #[arg(long, conflicts_with = "no_copy")]
        copy: bool,
        /// Never copy this hark there (and do not ask).
        #[arg(long)]
        no_copy: bool,
    },
    /// List the hosts and each tunnel's state.
    List,
    /// Remove a host: its tunnel closes.
    Remove {
        /// The host as it was added.
        #[arg(allow_hyphen_values = true)]
        host: String,
    },
}

pub fn run(command: RemoteCommand) -> ExitCode {
    let dir = match chosen_dir() {
        Ok(d) => d,
        Err(code) => return code,
    };
    match command {
        RemoteCommand::Add { host, copy, no_copy } => {
            let choice = match (copy, no_copy) {
                (true, _) => CopyChoice::Copy,
                (_, true) => CopyChoice::NoCopy,
                _ => CopyChoice::Ask,
            };
            match remote_hosts::add(&dir, &host) {
                Ok(_) => {
                    println!("added {host}: the running Hark keeps a tunnel to it (see `hark remote list`)");
                    remote_hark(&dir, &host, choice)
                }
                Err(e) => fail(&e, 1),
            }
        }
        RemoteCommand::Remove { host } => match remote_hosts::remove(&dir, &host) {
            Ok(_) => {
                println!("removed {host}: its tunnel closes");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e, 1),
        },
        RemoteCommand::List => list(&dir),
    }
}

/// Looks at the `hark` on `host` and, when it has none or another version, copies this one there
/// as `choice` says. The host stays added whatever happens here.
fn remote_hark(dir: &std::path::Path, host: &str, choice: CopyChoice) -> ExitCode {
    let this = hark_core::control::this_build();
    let use_it = format!("on {host}, run `~/{REMOTE_BINARY} setup claude-code|codex`: its questions come here");
    let remote = match remote_hosts::probe(host) {
        Ok(remote) => remote,
        // The host may be off now; its tunnel says how it stands when it is on.
        Err(e) if choice != CopyChoice::Copy => {
            eprintln!("hark: {e}; could not check its hark (add again with --copy to copy this one there)");
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(&e, 1),
    };
    remote_hosts::note_hark(dir, host, remote.version.as_deref());
    if remote.is_this_build() {
        println!("{host} has this hark ({this}): run `hark setup claude-code|codex` there and its questions come here");
        return ExitCode::SUCCESS;
    }
    let has = match &remote.version {
        None => format!("{host} has no hark"),
        Some(other) => format!("{host} has another hark ({other}; this is {this})"),
    };
    let binary = match std::env::current_exe() {
        Ok(binary) => binary,
        Err(e) => return crate::chat::fail_msg("REMOTE_COPY_FAILED", format!("this hark's path is unknown: {e}")),
    };
    let copy = match choice {
        CopyChoice::Copy => true,
        CopyChoice::NoCopy => {
            println!("{has}; not copied (--no-copy): copy it with `hark remote add {host} --copy`");
            false
        }
        // Not asked: the copy is refused, saying why.
        CopyChoice::Ask if !remote.runs_this_binary() => true,
        CopyChoice::Ask if std::io::stdin().is_terminal() => ask(&remote, host, &binary),
        CopyChoice::Ask => {
            println!(
                "{has}; not copied (no terminal to ask on): run `hark remote add {host} --copy` to copy this one to {host}:~/{REMOTE_BINARY}"
            );
            false
        }
    };
    if !copy {
        return ExitCode::SUCCESS;
    }
    match remote_hosts::copy(host, &remote, &binary) {
        Ok(()) => {
            remote_hosts::note_hark(dir, host, Some(&this));
            println!("copied {this} to {host}:~/{REMOTE_BINARY}");
            println!("{use_it}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, 1),
    }
}

/// "Copy this hark (version X, N MB) to HOST:~/.local/bin/hark? [y/N]" on the terminal; only a yes
/// copies.
fn ask(remote: &RemoteHark, host: &str, binary: &std::path::Path) -> bool {
    let size = std::fs::metadata(binary).map(|m| m.len()).unwrap_or(0) as f64 / 1_000_000.0;
    let has = match &remote.version {
        None => "no hark".to_string(),
        Some(other) => other.clone(),
    };
    eprint!(
        "{host} has {has}. Copy this hark (version {}, {size:.1} MB) to {host}:~/{REMOTE_BINARY}? [y/N] ",
        env!("CARGO_PKG_VERSION")
    );
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn list(dir: &std::path::Path) -> ExitCode {
    let hosts = match remote_hosts::load(dir) {
        Ok(hosts) => hosts,
        Err(e) => return fail(&e, 1),
    };
    if hosts.is_empty() {
        println!("no remote hosts (add one with `hark remote add HOST`)");
        return ExitCode::SUCCESS;
    }
    let states = remote_hosts::status(dir);
    let harks = remote_hosts::harks(dir);
    for host in hosts {
        let state = match states.get(&host.host) {
            None => "not connected (no Hark runs here to keep the tunnel)".to_string(),
            Some(remote_hosts::TunnelState::Connecting) => "connecting".to_string(),
            Some(remote_hosts::TunnelState::Connected) => "connected".to_string(),
            Some(remote_hosts::TunnelState::Reconnecting { reason }) => format!("reconnecting ({reason})"),
            Some(remote_hosts::TunnelState::Refused { reason }) => format!("refused ({reason})"),
        };
        let hark = match harks.get(&host.host) {
            Some(HarkThere::Missing) => format!(" (no hark there: `hark remote add {} --copy`)", host.host),
            Some(HarkThere::Other { version }) => {
                format!(" ({version} there: `hark remote add {} --copy` puts this one there)", host.host)
            }
            Some(HarkThere::This) | None => String::new(),
        };
        println!("{}\t{state}{hark}", host.host);
    }
    ExitCode::SUCCESS
}
