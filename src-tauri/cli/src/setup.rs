//! `hark setup claude-code|codex [--approvals | --no-approvals] [--undo]`: registers this `hark` with the agent, in the
//! agent's own settings files: the hook that shows the agent's question tool in Hark (`hark hook
//! <agent>`) and Hark's MCP server (`hark mcp`); with `--approvals`, the hooks that send the agent's
//! permission requests to Hark too (`--undo` takes every entry out). The merge, the file locations and the safe write are the core's
//! ([`hark_core::agent_setup`]); this only reads the command line and says what changed.

use std::process::ExitCode;

use hark_core::agent_setup::{self, Action, Agent};

use crate::args::AgentName;
use crate::chat::{fail, fail_msg};

/// `hark setup`'s arguments.
#[derive(clap::Args)]
pub struct SetupArgs {
    /// The agent to set up.
    #[arg(value_parser = AgentName)]
    agent: Agent,
    /// Remove only Hark's entries instead (the approvals' hooks too).
    #[arg(long)]
    undo: bool,
    /// Also send the agent's permission requests to Hark as approvals (and, for Claude Code, its MCP
    /// servers' forms).
    #[arg(long, conflicts_with = "undo")]
    approvals: bool,
    /// Take the approvals' hooks out and keep the rest of Hark's entries: the agent asks its
    /// permission prompts in its own terminal again.
    #[arg(long, conflicts_with_all = ["undo", "approvals"])]
    no_approvals: bool,
}

pub fn run(args: SetupArgs) -> ExitCode {
    let agent = args.agent;
    let action = if args.undo { Action::Undo } else { Action::Setup };
    let (approvals, no_approvals) = (args.approvals, args.no_approvals);
    // The entries run this very binary, wherever it is installed: the agent's PATH may not have it.
    let program = match std::env::current_exe() {
        Ok(program) => program,
        Err(e) => return fail_msg("SETUP_PROGRAM_PATH", format!("cannot tell where this hark program is: {e}")),
    };
    // Setting up adds them only when asked (undoing takes them out with the rest, in the core).
    let approvals = if no_approvals { Some(false) } else { approvals.then_some(true) };
    let files = match agent_setup::run_with(agent, action, approvals, &program, agent_setup::home().as_deref()) {
        Ok(files) => files,
        Err(e) => return fail(&e, 1),
    };
    for file in &files {
        println!("{}: {} ({})", file.path.display(), file.outcome, file.entries());
    }
    if action == Action::Setup {
        if let Some(hint) = agent.next_step(files.iter().any(|f| f.outcome.changes())) {
            println!("{hint}");
        }
        if approvals == Some(true) {
            println!("{}", agent.approvals_note());
        }
        // Only Codex can tell whether it trusts the hook; when it is on the PATH, ask it.
        if agent == Agent::Codex {
            let cwd = std::env::current_dir().unwrap_or_else(|_| program.clone());
            if let Some(trust) = agent_setup::codex_trust::hark_hook_trust(&cwd) {
                println!("{}", trust.for_person());
            }
        }
    }
    ExitCode::SUCCESS
}
