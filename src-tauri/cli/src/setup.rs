//! `hark setup claude-code|codex [--approvals] [--undo]`: registers this `hark` with the agent, in the
//! agent's own settings files: the hook that shows the agent's question tool in Hark (`hark hook
//! <agent>`) and Hark's MCP server (`hark mcp`); with `--approvals`, the hooks that send the agent's
//! permission requests to Hark too (`--undo` takes every entry out). The merge, the file locations and the safe write are the core's
//! ([`hark_core::agent_setup`]); this only reads the command line and says what changed.

use std::process::ExitCode;

use hark_core::agent_setup::{self, Action, Agent};

use crate::chat::{fail, fail_msg};

pub fn run(args: &[String]) -> ExitCode {
    let (agent, action, approvals) = match parse(args) {
        Ok(parsed) => parsed,
        Err(problem) => return crate::usage_error(&problem),
    };
    // The entries run this very binary, wherever it is installed: the agent's PATH may not have it.
    let program = match std::env::current_exe() {
        Ok(program) => program,
        Err(e) => return fail_msg("SETUP_PROGRAM_PATH", format!("cannot tell where this hark program is: {e}")),
    };
    // Undoing takes the approvals' hooks out too; setting up adds them only when asked.
    let approvals = match action {
        Action::Undo => Some(false),
        Action::Setup => approvals.then_some(true),
    };
    let files = match agent_setup::run_with(agent, action, approvals, &program, dirs::home_dir().as_deref()) {
        Ok(files) => files,
        Err(e) => return fail(&e, 1),
    };
    for file in &files {
        println!("{}: {} ({})", file.path.display(), file.outcome, file.kind.entries());
    }
    if action == Action::Setup {
        if let Some(hint) = agent.next_step(files.iter().any(|f| f.outcome.changes())) {
            println!("{hint}");
        }
    }
    ExitCode::SUCCESS
}

/// The agent, what to do, and whether the approvals' hooks were asked for.
fn parse(args: &[String]) -> Result<(Agent, Action, bool), String> {
    let mut agent = None;
    let mut action = Action::Setup;
    let mut approvals = false;
    for arg in args {
        match arg.as_str() {
            "--undo" => action = Action::Undo,
            "--approvals" => approvals = true,
            flag if flag.starts_with('-') => return Err(format!("setup does not take {flag:?}")),
            name if agent.is_some() => return Err(format!("setup takes one agent, not also {name:?}")),
            name => {
                agent = Some(Agent::from_name(name).ok_or_else(|| {
                    format!("setup does not know the agent {name:?}: it sets up claude-code or codex")
                })?)
            }
        }
    }
    let agent = agent.ok_or("setup needs an agent: hark setup claude-code, or hark setup codex")?;
    Ok((agent, action, approvals))
}
