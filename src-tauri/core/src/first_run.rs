//! The first run's "Connect what you use": which of the agents Hark can ask for (Claude Code, Codex)
//! this machine has, and what the person chose to leave out (`first-run.json` in the data
//! directory). Whether each step is done is read where it lives (the agents' files, the phone's
//! pairing, the login entry, the settings); only skips and "don't show this again" are kept here.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent_setup::{is_program, Agent, CLAUDE_CONFIG_DIR_ENV, CODEX_HOME_ENV};
use crate::error::CodedError;

pub const FIRST_RUN_FILE: &str = "first-run.json";

/// One thing the first run offers to connect, in the order it lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FirstRunStep {
    ClaudeCode,
    Codex,
    Phone,
    Startup,
    Model,
}

impl FirstRunStep {
    pub const ALL: [FirstRunStep; 5] = [
        FirstRunStep::ClaudeCode,
        FirstRunStep::Codex,
        FirstRunStep::Phone,
        FirstRunStep::Startup,
        FirstRunStep::Model,
    ];

    fn from_name(name: &str) -> Option<FirstRunStep> {
        FirstRunStep::ALL
            .into_iter()
            .find(|s| serde_json::to_value(s).ok().as_ref().and_then(|v| v.as_str()) == Some(name))
    }
}

/// What the person decided on the first run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FirstRunRecord {
    /// "Don't show this again": the first run is no longer offered, whatever is left.
    pub dismissed: bool,
    /// The steps the person chose to leave out, each once, in the first run's order.
    pub skipped: Vec<FirstRunStep>,
}

impl FirstRunRecord {
    /// The record as it is kept: each step once, in the first run's order.
    pub fn normalized(mut self) -> FirstRunRecord {
        self.skipped = FirstRunStep::ALL.into_iter().filter(|s| self.skipped.contains(s)).collect();
        self
    }
}

/// What the file may hold: a step a newer Hark added is passed over rather than refusing the file.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Stored {
    dismissed: bool,
    skipped: Vec<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FirstRunError {
    #[error("Could not read {path}: {detail}")]
    Read { path: PathBuf, detail: String },
    #[error("Could not save {path}: {detail}")]
    Write { path: PathBuf, detail: String },
}

impl CodedError for FirstRunError {
    fn name(&self) -> &str {
        "FirstRunError"
    }
    fn code(&self) -> &str {
        match self {
            FirstRunError::Read { .. } => "FIRST_RUN_READ",
            FirstRunError::Write { .. } => "FIRST_RUN_WRITE",
        }
    }
}

/// The record in `dir`; none kept yet is the empty record (nothing skipped, not dismissed).
pub fn load(dir: &Path) -> Result<FirstRunRecord, FirstRunError> {
    let path = dir.join(FIRST_RUN_FILE);
    let failed = |detail: String| FirstRunError::Read { path: path.clone(), detail };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FirstRunRecord::default()),
        Err(e) => return Err(failed(e.to_string())),
    };
    let stored: Stored = serde_json::from_str(&text).map_err(|e| failed(e.to_string()))?;
    let skipped = stored.skipped.iter().filter_map(|name| FirstRunStep::from_name(name)).collect();
    Ok(FirstRunRecord { dismissed: stored.dismissed, skipped }.normalized())
}

/// Keeps `record` in `dir` (replaced at once: a reader sees the old record or the new one).
pub fn save(dir: &Path, record: FirstRunRecord) -> Result<FirstRunRecord, FirstRunError> {
    let record = record.normalized();
    let path = dir.join(FIRST_RUN_FILE);
    let failed = |detail: String| FirstRunError::Write { path: path.clone(), detail };
    let text = serde_json::to_string_pretty(&record).map_err(|e| failed(e.to_string()))?;
    crate::data_dir::private::replace(&path, text.as_bytes()).map_err(|e| failed(e.to_string()))?;
    Ok(record)
}

/// An agent as this machine has it: its folder and its command, each when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FoundAgent {
    pub agent: Agent,
    pub label: String,
    /// The agent's own folder (`~/.claude`, `~/.codex`, or where its variable points), when it exists.
    pub folder: Option<String>,
    /// The agent's command on the `PATH` (`claude`, `codex`), by its absolute path.
    pub command: Option<String>,
}

impl FoundAgent {
    pub fn found(&self) -> bool {
        self.folder.is_some() || self.command.is_some()
    }
}

/// The agent's command, as a person types it.
fn command_name(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => "claude",
        Agent::Codex => "codex",
    }
}

/// Which agents a machine has, from its home, `PATH` and environment (`var`). An agent's folder is
/// where the agent itself keeps its settings (its variable when set, else the home's `.claude` /
/// `.codex`); its command is an executable file on an absolute `PATH` entry, as a shell finds it.
pub fn find_agents(
    home: Option<&Path>,
    path: Option<&OsStr>,
    var: impl Fn(&str) -> Option<OsString>,
) -> Vec<FoundAgent> {
    Agent::ALL
        .into_iter()
        .map(|agent| {
            let (variable, folder_name) = match agent {
                Agent::ClaudeCode => (CLAUDE_CONFIG_DIR_ENV, ".claude"),
                Agent::Codex => (CODEX_HOME_ENV, ".codex"),
            };
            let folder = var(variable)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(folder_name)))
                .filter(|dir| dir.is_dir());
            let file = format!("{}{}", command_name(agent), std::env::consts::EXE_SUFFIX);
            let command = path
                .into_iter()
                .flat_map(std::env::split_paths)
                .filter(|dir| dir.is_absolute())
                .map(|dir| dir.join(&file))
                .find(|p| is_program(p));
            FoundAgent {
                agent,
                label: agent.label().to_string(),
                folder: folder.map(|d| d.display().to_string()),
                command: command.map(|c| c.display().to_string()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_vars(_: &str) -> Option<OsString> {
        None
    }

    #[cfg(unix)]
    fn executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn nothing_on_an_empty_home_and_path() {
        let home = tempfile::tempdir().unwrap();
        let found = find_agents(Some(home.path()), Some(OsStr::new("")), no_vars);
        assert_eq!(
            found.iter().map(|f| (f.agent, f.found())).collect::<Vec<_>>(),
            [(Agent::ClaudeCode, false), (Agent::Codex, false)]
        );
        assert_eq!(found[0].label, "Claude Code");
    }

    #[test]
    fn an_agent_is_found_by_its_folder_in_the_home() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".claude")).unwrap();
        std::fs::create_dir(home.path().join(".codex")).unwrap();
        let found = find_agents(Some(home.path()), None, no_vars);
        assert_eq!(found[0].folder.as_deref(), Some(home.path().join(".claude").display().to_string().as_str()));
        assert_eq!(found[1].folder.as_deref(), Some(home.path().join(".codex").display().to_string().as_str()));
        assert!(found.iter().all(|f| f.command.is_none() && f.found()));
        // A file where the folder would be is not the agent's folder.
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join(".claude"), "").unwrap();
        assert!(!find_agents(Some(other.path()), None, no_vars)[0].found());
    }

    #[test]
    fn the_agents_variables_choose_their_folders_over_the_home() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".claude")).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let var = |name: &str| match name {
            CLAUDE_CONFIG_DIR_ENV => Some(home.path().join("missing").into_os_string()),
            CODEX_HOME_ENV => Some(elsewhere.path().as_os_str().to_owned()),
            _ => None,
        };
        let found = find_agents(Some(home.path()), None, var);
        assert_eq!(found[0].folder, None, "Claude Code keeps its settings where its variable says, not in ~/.claude");
        assert_eq!(found[1].folder.as_deref(), Some(elsewhere.path().display().to_string().as_str()));
    }

    #[cfg(unix)]
    #[test]
    fn an_agent_is_found_by_its_command_on_an_absolute_path_entry() {
        let home = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        executable(&bin.path().join("codex"));
        // Not executable: a shell would not run it.
        std::fs::write(bin.path().join("claude"), "").unwrap();
        let path = std::env::join_paths([Path::new("relative"), bin.path()]).unwrap();
        let found = find_agents(Some(home.path()), Some(&path), no_vars);
        assert_eq!(found[0].command, None);
        assert_eq!(found[1].command.as_deref(), Some(bin.path().join("codex").display().to_string().as_str()));
        assert!(found[1].found() && !found[0].found());
    }

    #[test]
    fn the_record_is_kept_and_read_back_each_step_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), FirstRunRecord::default());
        let record = FirstRunRecord {
            dismissed: false,
            skipped: vec![FirstRunStep::Model, FirstRunStep::Phone, FirstRunStep::Model],
        };
        let saved = save(dir.path(), record).unwrap();
        assert_eq!(saved.skipped, [FirstRunStep::Phone, FirstRunStep::Model]);
        assert_eq!(load(dir.path()).unwrap(), saved);
        let text = std::fs::read_to_string(dir.path().join(FIRST_RUN_FILE)).unwrap();
        assert!(text.contains("\"phone\"") && text.contains("\"dismissed\": false"), "{text}");
    }

    #[test]
    fn a_newer_step_is_passed_over_and_a_broken_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FIRST_RUN_FILE);
        std::fs::write(&path, r#"{"dismissed": true, "skipped": ["startup", "watch"], "later": 1}"#).unwrap();
        assert_eq!(load(dir.path()).unwrap(), FirstRunRecord { dismissed: true, skipped: vec![FirstRunStep::Startup] });
        std::fs::write(&path, "{ half").unwrap();
        let error = load(dir.path()).unwrap_err();
        assert_eq!(error.code(), "FIRST_RUN_READ");
        assert!(error.to_string().contains(&path.display().to_string()), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ half", "reading never rewrites it");
    }
}
