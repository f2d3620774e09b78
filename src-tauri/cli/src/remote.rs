//! `hark remote add|list|remove HOST`: the remote hosts whose agents ask the person through this
//! Hark, over an SSH tunnel the running Hark (the app, `hark chat`, `hark tui`) keeps open with the
//! person's own `ssh`. On the remote host, the same `hark` finds the forwarded socket by itself.

use std::process::ExitCode;

use hark_core::remote_hosts;

use crate::chat::{chosen_dir, fail};

/// `hark remote`'s subcommands.
#[derive(clap::Subcommand)]
pub enum RemoteCommand {
    /// Add a host: the running Hark keeps a tunnel to it.
    Add {
        /// The host as ssh reaches it (a name from ~/.ssh/config, or user@host).
        // Taken whatever it looks like, so the core's check refuses a host that would be read as an
        // ssh option with its own error rather than clap's.
        #[arg(allow_hyphen_values = true)]
        host: String,
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
        RemoteCommand::Add { host } => match remote_hosts::add(&dir, &host) {
            Ok(_) => {
                println!("added {host}: the running Hark keeps a tunnel to it (see `hark remote list`)");
                println!(
                    "on {host}, run the same `hark` (hark setup claude-code|codex there): its questions come here"
                );
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e, 1),
        },
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
    for host in hosts {
        let state = match states.get(&host.host) {
            None => "not connected (no Hark runs here to keep the tunnel)".to_string(),
            Some(remote_hosts::TunnelState::Connecting) => "connecting".to_string(),
            Some(remote_hosts::TunnelState::Connected) => "connected".to_string(),
            Some(remote_hosts::TunnelState::Reconnecting { reason }) => format!("reconnecting ({reason})"),
            Some(remote_hosts::TunnelState::Refused { reason }) => format!("refused ({reason})"),
        };
        println!("{}\t{state}", host.host);
    }
    ExitCode::SUCCESS
}
