//! Agents in Settings: `hark setup claude-code|codex [--undo]` from the window. Each agent's files,
//! whether they already hold Hark's entries as a setup from here would write them, and the setup and
//! its undo themselves, all by hark-core's [`agent_setup`] (the same merge, files and safe write as
//! the CLI's).
//!
//! The entries run the `hark` command, not this app: the one installed beside `hark-desktop`, else
//! the one on the `PATH`. Without one there is nothing to register, and nothing is written.

use std::path::{Path, PathBuf};

use hark_core::agent_setup::{self, Action, Agent, Outcome, Planned, SetupError};
use hark_core::error::{BoundaryError, CodedError};
use serde::Serialize;

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AgentsView {
    /// The `hark` command the entries run, by its absolute path; null when there is none.
    pub program: Option<String>,
    /// Why there is no `hark` command to register (`SETUP_NO_HARK`): Set up and Remove would fail.
    pub program_error: Option<BoundaryError>,
    pub agents: Vec<AgentView>,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AgentView {
    pub agent: Agent,
    /// The agent's name for a person ("Claude Code").
    pub label: String,
    /// The agent's files Hark edits, where the agent reads them; empty when they cannot be located.
    pub files: Vec<AgentFile>,
    /// Every file holds Hark's entries as Set up would write them; null when that could not be told
    /// (no `hark` command, or `error`).
    pub set_up: Option<bool>,
    /// Why the files could not be located or read (a file that is not valid JSON or TOML, no home).
    pub error: Option<BoundaryError>,
    /// Codex only, once set up: whether Codex runs Hark's hook, as Codex says (it runs a new or
    /// changed hook only once the person trusts it); null when that could not be told (no `codex` on
    /// the PATH).
    pub hook_trust: Option<hark_core::agent_setup::codex_trust::HookTrust>,
    /// What the person reads of `hook_trust`.
    pub hook_trust_text: Option<String>,
    /// Whether the agent's permission requests come to Hark as approvals (`hark setup --approvals`):
    /// every file holds those hooks too; null when that could not be told.
    pub approvals: Option<bool>,
    /// What sending them to Hark changes (how long the agent's request waits here, and what its own
    /// prompt does meanwhile), for the switch that turns them on.
    pub approvals_note: String,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AgentFile {
    pub path: String,
    /// Hark's entries in this file, for a person.
    pub entries: String,
    /// What Set up would do to it: `already_set_up`, `added` (Hark's entries are not there) or
    /// `updated` (they are, but differ: another `hark`, an older entry); null when it could not be told.
    pub setup: Option<Outcome>,
}

/// One file after Set up or Remove, as `hark setup` prints it.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AgentFileOutcome {
    pub path: String,
    pub entries: String,
    pub outcome: Outcome,
}

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AgentSetupDone {
    pub agent: Agent,
    pub action: Action,
    pub files: Vec<AgentFileOutcome>,
    /// What the person does next for the agent to use the entries (Codex: trust the hook in `/hooks`).
    pub hint: Option<String>,
    /// The section as it is now.
    pub view: AgentsView,
}

/// What Settings shows. Reads the agents' files, writes nothing.
pub fn view() -> AgentsView {
    view_with(agent_setup::program_beside_this_one(), agent_setup::home().as_deref())
}

fn view_with(program: Result<PathBuf, SetupError>, home: Option<&Path>) -> AgentsView {
    let agents = Agent::ALL.into_iter().map(|agent| agent_view(agent, program.as_ref().ok(), home)).collect();
    match program {
        Ok(path) => AgentsView { program: Some(path.display().to_string()), program_error: None, agents },
        Err(e) => AgentsView { program: None, program_error: Some(e.boundary()), agents },
    }
}

fn agent_view(agent: Agent, program: Option<&PathBuf>, home: Option<&Path>) -> AgentView {
    let view = |files, set_up: Option<bool>, approvals: Option<bool>, error| {
        let hook_trust = match (agent, set_up, home) {
            (Agent::Codex, Some(true), Some(home)) => hark_core::agent_setup::codex_trust::hark_hook_trust(home),
            _ => None,
        };
        let hook_trust_text = hook_trust.map(|t| t.for_person().to_string());
        AgentView {
            agent,
            label: agent.label().to_string(),
            files,
            set_up,
            error,
            hook_trust,
            hook_trust_text,
            approvals,
            approvals_note: agent.approvals_note(),
        }
    };
    let located = match agent_setup::locate(agent, home) {
        Ok(located) => located,
        Err(e) => return view(Vec::new(), None, None, Some(e.boundary())),
    };
    let unknown = || {
        located
            .iter()
            .map(|(kind, path)| AgentFile {
                path: path.display().to_string(),
                entries: kind.entries().to_string(),
                setup: None,
            })
            .collect()
    };
    let Some(program) = program else {
        return view(unknown(), None, None, None);
    };
    // Set up with the approvals' hooks would change nothing: they are on.
    let with_approvals = agent_setup::plan_with(Action::Setup, Some(true), program, &located);
    match agent_setup::plan(Action::Setup, program, &located).and_then(|plan| Ok((plan, with_approvals?))) {
        Ok((plan, with_approvals)) => {
            let set_up = agent_setup::is_set_up(&plan);
            let files = plan
                .iter()
                .map(|file| AgentFile {
                    path: file.path.display().to_string(),
                    entries: file.kind.entries().to_string(),
                    setup: Some(file.outcome),
                })
                .collect();
            view(files, Some(set_up), Some(agent_setup::is_set_up(&with_approvals)), None)
        }
        Err(e) => view(unknown(), None, None, Some(e.boundary())),
    }
}

/// Sets Hark up with `agent`, or undoes it, with the `hark` command beside this app: every file is
/// read and merged before any is written, so a refusal leaves all of them as they were. `approvals`
/// adds (`Some(true)`) or takes out (`Some(false)`) the hooks that send the agent's permission
/// requests to Hark, as `--approvals` / `--no-approvals` do; undoing takes them out whatever it says.
pub fn run(agent: Agent, action: Action, approvals: Option<bool>) -> Result<AgentSetupDone, SetupError> {
    let program = agent_setup::program_beside_this_one()?;
    let home = agent_setup::home();
    let done = agent_setup::run_with(agent, action, approvals, &program, home.as_deref())?;
    Ok(finish(agent, action, &done, view_with(Ok(program), home.as_deref())))
}

fn finish(agent: Agent, action: Action, done: &[Planned], view: AgentsView) -> AgentSetupDone {
    let changed = done.iter().any(|file| file.outcome.changes());
    let hint = match action {
        Action::Setup => agent.next_step(changed).map(str::to_string),
        Action::Undo => None,
    };
    let files = done
        .iter()
        .map(|file| AgentFileOutcome {
            path: file.path.display().to_string(),
            entries: file.entries(),
            outcome: file.outcome,
        })
        .collect();
    AgentSetupDone { agent, action, files, hint, view }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The agents find their files by `CLAUDE_CONFIG_DIR` / `CODEX_HOME` before the home given here.
    fn env_chooses_the_files() -> bool {
        [agent_setup::CLAUDE_CONFIG_DIR_ENV, agent_setup::CODEX_HOME_ENV]
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
    }

    #[test]
    fn the_view_says_per_file_whether_a_setup_would_change_it() {
        if env_chooses_the_files() {
            eprintln!("skipped: CLAUDE_CONFIG_DIR or CODEX_HOME is set");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let program = PathBuf::from("/opt/hark/hark");
        let files = agent_setup::locate(Agent::ClaudeCode, Some(tmp.path())).unwrap();
        agent_setup::apply(&agent_setup::plan(Action::Setup, &program, &files[..1]).unwrap()).unwrap();
        std::fs::create_dir_all(tmp.path().join(".codex")).unwrap();
        std::fs::write(tmp.path().join(".codex/config.toml"), "mcp_servers = 3\n").unwrap();

        let view = view_with(Ok(program.clone()), Some(tmp.path()));
        assert_eq!(view.program.as_deref(), Some("/opt/hark/hark"));
        let [claude, codex] = &view.agents[..] else { panic!("two agents: {view:?}") };
        assert_eq!(
            (claude.agent, claude.label.as_str(), claude.set_up),
            (Agent::ClaudeCode, "Claude Code", Some(false))
        );
        let setups: Vec<_> = claude.files.iter().map(|f| f.setup).collect();
        assert_eq!(setups, [Some(Outcome::AlreadySetUp), Some(Outcome::Added)]);
        assert_eq!(claude.files[0].path, tmp.path().join(".claude/settings.json").display().to_string());
        let error = codex.error.as_ref().expect("a broken config.toml is reported");
        assert_eq!(error.code, "SETUP_WRONG_TYPE");
        assert_eq!(codex.set_up, None);
        assert_eq!(codex.files.len(), 1, "its file is still named");

        assert_eq!(claude.approvals, Some(false));
        assert!(claude.approvals_note.contains("5 minutes"), "{}", claude.approvals_note);
        assert!(codex.approvals_note.contains("a minute") && codex.approvals_note.contains("locked"));

        // Set up with approvals: the view says they are on; without, off again, the rest set up.
        let with = agent_setup::plan_with(Action::Setup, Some(true), &program, &files).unwrap();
        agent_setup::apply(&with).unwrap();
        let claude = agent_view(Agent::ClaudeCode, Some(&program), Some(tmp.path()));
        assert_eq!((claude.set_up, claude.approvals), (Some(true), Some(true)));
        let without = agent_setup::plan_with(Action::Setup, Some(false), &program, &files).unwrap();
        agent_setup::apply(&without).unwrap();
        let claude = agent_view(Agent::ClaudeCode, Some(&program), Some(tmp.path()));
        assert_eq!((claude.set_up, claude.approvals), (Some(true), Some(false)));

        let missing = SetupError::NoProgram { beside: Some("/opt/hark".into()) };
        let view = view_with(Err(missing), Some(tmp.path()));
        assert_eq!(view.program, None);
        assert_eq!(view.program_error.map(|e| e.code).as_deref(), Some("SETUP_NO_HARK"));
        assert!(view.agents.iter().all(|a| a.set_up.is_none() && !a.files.is_empty()));
    }

    #[test]
    fn after_a_setup_the_hint_says_what_comes_next() {
        let view = || AgentsView { program: None, program_error: None, agents: Vec::new() };
        let done = finish(Agent::Codex, Action::Setup, &[], view());
        assert!(done.hint.is_some_and(|h| h.contains("/hooks")), "Codex asks to trust the hook even unchanged");
        assert_eq!(finish(Agent::Codex, Action::Undo, &[], view()).hint, None);
        assert_eq!(finish(Agent::ClaudeCode, Action::Setup, &[], view()).hint, None, "nothing changed");
    }
}
