//! Registers Hark with another agent (Claude Code, Codex) in that agent's own settings files: the
//! hook that sends the agent's built-in question tool to Hark (`hark hook <agent>`), and Hark's MCP
//! server (`hark mcp`). `hark setup` uses it, and the desktop window's Settings can offer the same.
//!
//! These files belong to the person and to the agent, which writes them too, so the edit is careful:
//!
//! - Only Hark's own entries are touched: a hook whose command runs a program named `hark` with
//!   `hook <agent>`, and the MCP server named `hark`. Everything else (other hooks and matchers, other
//!   servers, keys Hark does not know, TOML comments and layout, JSON key order) stays as it was.
//! - Setting up twice changes nothing; a Hark entry that differs (the binary moved) is updated in its
//!   place, keeping what the person added to it (its `env`, arguments after Hark's own, any key Hark
//!   does not write). Undoing removes Hark's entries and only the containers that removal left empty.
//! - Every file is read and merged before any is written, so a file Hark cannot read as JSON or TOML,
//!   or whose `hooks` or servers are not what the agent expects, stops the whole run with nothing
//!   written. A changed file is replaced atomically, and its previous text kept beside it in
//!   `<file>.hark-backup`; when the agent wrote it after Hark read it, Hark merges again into what
//!   the agent wrote. A JSON file keeps its indentation and line ends.
//!
//! The merges are pure functions of a file's old text ([`edit`]); [`plan`] and [`apply`] add the
//! file system.

mod claude;
mod codex;
pub mod codex_trust;
mod json;
#[cfg(test)]
mod tests;

use std::ffi::{OsStr, OsString};
use std::fs::Permissions;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::CodedError;
use crate::workspace::replace::{write_then_rename, write_then_rename_if};

/// How long the agent lets `hark hook` run before giving up on it. The hook waits for the person's
/// answer, which may take a while, so the agent must not cut it short after its default minute.
pub const HOOK_TIMEOUT_SECS: u64 = 3600;

/// How long Codex lets one call of an MCP tool run (its default is 60 s): `ask_user_question` also
/// waits for the person.
pub const CODEX_TOOL_TIMEOUT_SECS: u64 = 3600;

/// Claude Code keeps its settings and state in this folder instead of the home folder when it is set.
pub const CLAUDE_CONFIG_DIR_ENV: &str = "CLAUDE_CONFIG_DIR";

/// Codex keeps its configuration in this folder instead of `~/.codex` when it is set.
pub const CODEX_HOME_ENV: &str = "CODEX_HOME";

/// Appended to a file's name for the copy of its previous content.
pub const BACKUP_SUFFIX: &str = ".hark-backup";

/// The name Hark's MCP server is registered under, in both agents.
pub const MCP_SERVER_NAME: &str = "hark";

/// The agents Hark can register with. Across IPC by their command-line names (`claude-code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
#[ts(rename = "SetupAgent")]
pub enum Agent {
    ClaudeCode,
    Codex,
}

impl Agent {
    /// The agent's name on Hark's command line: `hark setup <name>`, `hark hook <name>`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Every agent, in the order Settings lists them.
    pub const ALL: [Agent; 2] = [Agent::ClaudeCode, Agent::Codex];

    /// The agent's own name, for a person.
    pub fn label(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
        }
    }

    /// What the person does next for the agent to use the entries, after a setup that `changed` a
    /// file or not. Codex's trust is asked for in Codex, so its hint stays also when the file was
    /// already set up (the hook may not be trusted yet). The CLI prints it; the window shows it.
    pub fn next_step(self, changed: bool) -> Option<&'static str> {
        match (self, changed) {
            (Agent::ClaudeCode, true) => {
                Some("Claude Code reads hooks and MCP servers when a session starts: start a new session to use Hark.")
            }
            (Agent::ClaudeCode, false) => None,
            (Agent::Codex, _) => Some(
                "Codex runs a new or changed hook only after you review and trust it: type /hooks in Codex and \
                 trust Hark's hook.",
            ),
        }
    }

    /// How long the agent's permission request waits in Hark before the hook gives no decision and
    /// the agent asks in its own terminal. Claude Code's own prompt stays live meanwhile (the person
    /// may answer at either), so it can wait a while; Codex runs the hook before it shows its prompt,
    /// so the person at its terminal is locked out while Hark waits, and a minute is the most that
    /// is fair to them.
    pub fn approval_budget_secs(self) -> u64 {
        match self {
            Agent::ClaudeCode => 300,
            Agent::Codex => 60,
        }
    }

    /// What sending the agent's permission requests to Hark changes, for a person: Settings shows it
    /// beside the switch, `hark setup --approvals` prints it.
    pub fn approvals_note(self) -> String {
        let budget = self.approval_budget_secs();
        let wait = if budget % 60 == 0 {
            match budget / 60 {
                1 => "a minute".to_string(),
                n => format!("{n} minutes"),
            }
        } else {
            format!("{budget} seconds")
        };
        match self {
            Agent::ClaudeCode => format!(
                "Claude Code's permission prompts also wait in Hark (Allow once, Always allow, Deny), for up to \
                 {wait}; its own prompt in the terminal stays live, and whichever you answer first counts. \
                 Unanswered, the prompt stays only in Claude Code. Its MCP servers' forms are asked in Hark \
                 first, for up to {wait}, then in Claude Code."
            ),
            Agent::Codex => format!(
                "Codex's permission prompts wait in Hark first, for up to {wait}: meanwhile Codex's own prompt is \
                 locked, so the wait is kept short. Unanswered, Codex then asks in its terminal."
            ),
        }
    }

    /// The agent's own question tool, which the hook matches.
    pub fn question_tool(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "AskUserQuestion",
            Agent::Codex => "request_user_input",
        }
    }
}

/// Add Hark's entries, or take them away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "SetupAction")]
pub enum Action {
    Setup,
    Undo,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "SetupOutcome")]
pub enum Outcome {
    /// Hark's entries were not there and now are.
    Added,
    /// Hark's entries were there but different (another binary path, a stale field) and now match.
    Updated,
    /// Hark's entries were there exactly as they should be; the file was not written.
    AlreadySetUp,
    /// Hark's entries were taken out.
    Removed,
    /// There was none of Hark's entries to take out; the file was not written.
    NothingToRemove,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Added => "added",
            Outcome::Updated => "updated",
            Outcome::AlreadySetUp => "already set up",
            Outcome::Removed => "removed",
            Outcome::NothingToRemove => "nothing to remove",
        }
    }

    /// Whether the file's content changes.
    pub fn changes(self) -> bool {
        matches!(self, Outcome::Added | Outcome::Updated | Outcome::Removed)
    }

    /// The outcome of a merge from whether Hark's entries were in the file and whether it changed.
    fn of(action: Action, had_hark: bool, changed: bool) -> Outcome {
        match (action, changed) {
            (Action::Setup, false) => Outcome::AlreadySetUp,
            (Action::Setup, true) if had_hark => Outcome::Updated,
            (Action::Setup, true) => Outcome::Added,
            (Action::Undo, true) => Outcome::Removed,
            (Action::Undo, false) => Outcome::NothingToRemove,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The files Hark edits, each with its own format and entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Claude Code's `settings.json`: the PreToolUse hook.
    ClaudeSettings,
    /// Claude Code's `.claude.json`: the user-scope MCP server.
    ClaudeState,
    /// Codex's `config.toml`: the MCP server and the PreToolUse hook.
    CodexConfig,
}

impl FileKind {
    /// Hark's entries in this file, for a person.
    pub fn entries(self) -> &'static str {
        match self {
            FileKind::ClaudeSettings => {
                "PreToolUse hook on AskUserQuestion, UserPromptSubmit hook, permission for Hark's MCP tools"
            }
            FileKind::ClaudeState => "MCP server hark",
            FileKind::CodexConfig => "MCP server hark, PreToolUse hook on request_user_input",
        }
    }
}

/// Why a file's content was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("it is not UTF-8 text")]
    NotText,
    #[error("it is not valid JSON: {0}")]
    NotJson(String),
    #[error("it is not valid TOML: {0}")]
    NotToml(String),
    /// `key` is a dotted path from the top (`hooks.PreToolUse`), empty for the top level itself.
    #[error("{}", wrong_type(key, expected, found))]
    WrongType { key: String, expected: &'static str, found: &'static str },
}

fn wrong_type(key: &str, expected: &str, found: &str) -> String {
    match key {
        "" => format!("the file holds {found}, where {expected} belongs"),
        key => format!("`{key}` is {found}, where {expected} belongs"),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{path}: {problem}. Nothing was changed; fix the file (or move it away) and run this again.")]
    Refused { path: PathBuf, problem: Problem },
    #[error("could not read {path}: {detail}. Nothing was changed.")]
    Read { path: PathBuf, detail: String },
    #[error("could not write {path}: {detail}")]
    Write { path: PathBuf, detail: String },
    /// The agent rewrote the file each time Hark merged its entries in, and Hark gave up rather
    /// than undo the agent's write.
    #[error(
        "{path} kept changing while Hark added its entries (the agent rewrites it often); it was left as the agent \
         wrote it. Run this again, or again once the agent is idle."
    )]
    Busy { path: PathBuf },
    #[error("no home folder to find the agent's settings in: set HOME, or {variable} to the agent's folder")]
    NoHome { variable: &'static str },
    #[error("this program's path ({path}) is not UTF-8 text, which the agent's settings cannot hold")]
    ProgramPath { path: PathBuf },
    /// The desktop app registers the `hark` command, and found none to register.
    #[error("{}", no_program(beside.as_deref()))]
    NoProgram { beside: Option<PathBuf> },
}

fn no_program(beside: Option<&Path>) -> String {
    let beside = match beside {
        Some(dir) => format!("beside Hark (in {})", dir.display()),
        None => "beside Hark".to_string(),
    };
    format!(
        "the hark command is not installed {beside} nor on the PATH, and the agent's entries would run it: \
         install it with Hark, then try again. Nothing was changed."
    )
}

impl CodedError for SetupError {
    fn name(&self) -> &str {
        "SetupError"
    }
    fn code(&self) -> &str {
        match self {
            SetupError::Refused { problem: Problem::NotText, .. } => "SETUP_NOT_TEXT",
            SetupError::Refused { problem: Problem::NotJson(_), .. } => "SETUP_INVALID_JSON",
            SetupError::Refused { problem: Problem::NotToml(_), .. } => "SETUP_INVALID_TOML",
            SetupError::Refused { problem: Problem::WrongType { .. }, .. } => "SETUP_WRONG_TYPE",
            SetupError::Read { .. } | SetupError::Write { .. } => "SETUP_IO",
            SetupError::Busy { .. } => "SETUP_FILE_BUSY",
            SetupError::NoHome { .. } => "SETUP_NO_HOME",
            SetupError::ProgramPath { .. } => "SETUP_PROGRAM_PATH",
            SetupError::NoProgram { .. } => "SETUP_NO_HARK",
        }
    }
}

/// A merge's result: what happened, and the file's new text when it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub outcome: Outcome,
    pub text: Option<String>,
}

/// The hook's shell command: `<program> hook <agent>`. The agents run it through a shell, so a path
/// with anything beyond plain path characters (a space in `Application Support`) is single-quoted.
pub fn hook_command(program: &str, agent: Agent) -> String {
    format!("{} hook {}", shell_word(program), agent.name())
}

fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Whether a hook's command is Hark's hook for `agent`, wherever its binary is: `hook <agent>` run by
/// a program named `hark` (or `hark.exe`), bare or quoted. Another program's hook that happens to take
/// the same arguments is not Hark's.
pub fn is_hark_hook(command: &str, agent: Agent) -> bool {
    let suffix = format!(" hook {}", agent.name());
    let Some(program) = command.trim().strip_suffix(&suffix) else {
        return false;
    };
    let Some(program) = shell_unword(program.trim()) else {
        return false;
    };
    let file = program.rsplit(['/', '\\']).next().unwrap_or_default();
    file == "hark" || file.eq_ignore_ascii_case("hark.exe")
}

/// The one word a POSIX shell reads from `text` (quotes and backslashes undone); `None` when it is
/// more than one word or an unclosed quote.
fn shell_unword(text: &str) -> Option<String> {
    let mut word = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    inner => word.push(inner),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        escaped @ ('"' | '\\' | '$' | '`') => word.push(escaped),
                        '\n' => {}
                        other => {
                            word.push('\\');
                            word.push(other);
                        }
                    },
                    inner => word.push(inner),
                }
            },
            '\\' => word.push(chars.next()?),
            c if c.is_whitespace() => return None,
            c => word.push(c),
        }
    }
    (!word.is_empty()).then_some(word)
}

/// Merges Hark's entries into (or out of) one file's text: `old` is `None` when the file does not
/// exist. `program` is the absolute path of the `hark` binary the entries run.
pub fn edit(kind: FileKind, old: Option<&str>, program: &str, action: Action) -> Result<Edit, Problem> {
    match kind {
        FileKind::ClaudeSettings => claude::settings(old, program, action),
        FileKind::ClaudeState => claude::state(old, program, action),
        FileKind::CodexConfig => codex::config(old, program, action),
    }
}

/// The home folder the agents look in for their files unless `CLAUDE_CONFIG_DIR` / `CODEX_HOME` say
/// otherwise: `HOME` on Unix and `USERPROFILE` on Windows, else the account's own profile folder. That
/// is where Claude Code (Node's `os.homedir()`) looks; a home that asks the system for the profile
/// folder alone would miss a `USERPROFILE` the person set.
pub fn home() -> Option<PathBuf> {
    std::env::home_dir().filter(|home| home.is_absolute())
}

/// The files `agent` reads Hark's entries from: under `CLAUDE_CONFIG_DIR` or `CODEX_HOME` when set,
/// else in `home` (where each agent looks by default).
pub fn locate(agent: Agent, home: Option<&Path>) -> Result<Vec<(FileKind, PathBuf)>, SetupError> {
    locate_with(agent, home, |name| std::env::var_os(name))
}

fn locate_with(
    agent: Agent,
    home: Option<&Path>,
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<Vec<(FileKind, PathBuf)>, SetupError> {
    let variable = match agent {
        Agent::ClaudeCode => CLAUDE_CONFIG_DIR_ENV,
        Agent::Codex => CODEX_HOME_ENV,
    };
    let chosen = var(variable).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = || home.map(Path::to_path_buf).ok_or(SetupError::NoHome { variable });
    Ok(match (agent, chosen) {
        (Agent::ClaudeCode, Some(dir)) => {
            vec![
                (FileKind::ClaudeSettings, dir.join("settings.json")),
                (FileKind::ClaudeState, dir.join(".claude.json")),
            ]
        }
        (Agent::ClaudeCode, None) => {
            let home = home()?;
            vec![
                (FileKind::ClaudeSettings, home.join(".claude").join("settings.json")),
                (FileKind::ClaudeState, home.join(".claude.json")),
            ]
        }
        (Agent::Codex, Some(dir)) => vec![(FileKind::CodexConfig, dir.join("config.toml"))],
        (Agent::Codex, None) => vec![(FileKind::CodexConfig, home()?.join(".codex").join("config.toml"))],
    })
}

/// One file's planned change, computed before anything is written.
#[derive(Debug, Clone)]
pub struct Planned {
    pub kind: FileKind,
    pub path: PathBuf,
    pub outcome: Outcome,
    /// The file's content and permissions before, when it exists.
    old: Option<(Vec<u8>, Permissions)>,
    new: Option<String>,
    /// What the merge was asked for, to do it again when the agent wrote the file in the meantime.
    action: Action,
    approvals: Option<bool>,
    program: String,
}

impl Planned {
    /// Hark's entries this change is about, for a person: the file's own, and the permission
    /// requests' hooks when a setup added or took out only them too. Undoing names the file's
    /// entries alone: it takes every one of Hark's out.
    pub fn entries(&self) -> String {
        let base = self.kind.entries();
        match (self.kind, self.action, self.approvals) {
            (FileKind::ClaudeState, _, _) | (_, Action::Undo, _) | (_, _, None) => base.to_string(),
            (_, Action::Setup, Some(true)) => format!("{base}, permission request hooks"),
            (_, Action::Setup, Some(false)) => format!("{base}, without permission request hooks"),
        }
    }
}

/// Reads `files` (from [`locate`]) and merges Hark's entries into each, writing nothing: a file that
/// cannot be read or merged fails the whole plan.
pub fn plan(action: Action, program: &Path, files: &[(FileKind, PathBuf)]) -> Result<Vec<Planned>, SetupError> {
    plan_with(action, None, program, files)
}

/// [`plan`], also adding (`Some(true)`) or taking out (`Some(false)`) the hooks that send the agent's
/// permission requests to Hark as approvals; `None` leaves them as they are. They change where the
/// person approves the agent's tool calls, so they are added only when asked for. Undoing takes
/// them out whatever `approvals` says.
pub fn plan_with(
    action: Action,
    approvals: Option<bool>,
    program: &Path,
    files: &[(FileKind, PathBuf)],
) -> Result<Vec<Planned>, SetupError> {
    // Undoing takes every entry of Hark's out, the approvals' hooks too.
    let approvals = if action == Action::Undo { Some(false) } else { approvals };
    let program_text = program.to_str().ok_or_else(|| SetupError::ProgramPath { path: program.to_path_buf() })?;
    files
        .iter()
        .map(|(kind, path)| {
            let old = read(path)?;
            let edit = merge(*kind, path, old.as_ref(), program_text, action, approvals)?;
            let program = program_text.to_string();
            Ok(Planned {
                kind: *kind,
                path: path.clone(),
                outcome: edit.outcome,
                new: edit.text,
                old,
                action,
                approvals,
                program,
            })
        })
        .collect()
}

/// [`edit`] (and [`edit_approvals`]) on a file's content as read from `path`.
fn merge(
    kind: FileKind,
    path: &Path,
    old: Option<&(Vec<u8>, Permissions)>,
    program: &str,
    action: Action,
    approvals: Option<bool>,
) -> Result<Edit, SetupError> {
    let refused = |problem| SetupError::Refused { path: path.to_path_buf(), problem };
    let text = match old {
        Some((bytes, _)) => Some(std::str::from_utf8(bytes).map_err(|_| refused(Problem::NotText))?),
        None => None,
    };
    let base = edit(kind, text, program, action).map_err(refused)?;
    let Some(on) = approvals else { return Ok(base) };
    let after = base.text.as_deref().or(text);
    let extra = edit_approvals(kind, after, program, on).map_err(refused)?;
    let outcome = match (base.outcome.changes(), extra.outcome) {
        (true, _) => base.outcome,
        // Only the approvals' hooks went, the rest of Hark's entries stay: the setup was updated.
        (false, Outcome::Removed) if action == Action::Setup => Outcome::Updated,
        (false, extra) if extra.changes() => extra,
        (false, _) => base.outcome,
    };
    Ok(Edit { outcome, text: extra.text.or(base.text) })
}

/// Merges Hark's approvals hooks into (`on`) or out of one file's text; a file that holds none of
/// the agent's hooks is left as it is.
pub fn edit_approvals(kind: FileKind, old: Option<&str>, program: &str, on: bool) -> Result<Edit, Problem> {
    match kind {
        FileKind::ClaudeSettings => claude::approvals(old, program, on),
        FileKind::CodexConfig => codex::approvals(old, program, on),
        FileKind::ClaudeState => {
            Ok(Edit { outcome: Outcome::of(if on { Action::Setup } else { Action::Undo }, false, false), text: None })
        }
    }
}

/// How many times a file is merged again because the agent wrote it meanwhile, before Hark gives up.
const MERGE_ATTEMPTS: usize = 5;

/// Writes the files of a plan that change: each atomically, after a copy of its previous content.
///
/// The agent may write a file at any time (Claude Code rewrites `.claude.json` often), also after
/// the plan read it. So right before each rename the file is read again: when it is no longer what
/// the merge started from, the new content is dropped and Hark's entries are merged into what the
/// agent wrote instead. Only a write landing in the instant between that read and the rename could
/// still be undone: no rename can be made conditional on the file it replaces.
pub fn apply(plan: &[Planned]) -> Result<(), SetupError> {
    for file in plan {
        let Some(mut new) = file.new.clone() else {
            continue;
        };
        let mut base = file.old.clone();
        let mut attempts = 0;
        while !write(&file.path, base.as_ref(), new.as_bytes())? {
            attempts += 1;
            if attempts == MERGE_ATTEMPTS {
                return Err(SetupError::Busy { path: file.path.clone() });
            }
            base = read(&file.path)?;
            match merge(file.kind, &file.path, base.as_ref(), &file.program, file.action, file.approvals)?.text {
                Some(text) => new = text,
                // What the agent wrote needs nothing from Hark.
                None => break,
            }
        }
    }
    Ok(())
}

/// Whether a setup's plan ([`plan`] with [`Action::Setup`], which writes nothing) would leave every
/// file as it is: Hark is set up already, with this program. Per file, one that would be `Added`
/// lacks Hark's entries, one that would be `Updated` holds different ones (another `hark`).
pub fn is_set_up(plan: &[Planned]) -> bool {
    !plan.iter().any(|file| file.outcome.changes())
}

/// The `hark` program's file name here (`hark.exe` on Windows).
fn program_file() -> String {
    format!("hark{}", std::env::consts::EXE_SUFFIX)
}

/// The `hark` command the desktop app registers: the one installed beside `desktop` (the running
/// `hark-desktop`: an install ships both together, and that one matches the app's version), else the
/// first on `path` (a `PATH` value). The agents run it by this absolute path, so a relative `PATH`
/// entry, which would mean something else in the agent's folder, is passed over; so is a file that
/// is not executable, which a shell would pass over too.
pub fn find_program(desktop: Option<&Path>, path: Option<&OsStr>) -> Result<PathBuf, SetupError> {
    let name = program_file();
    let beside = desktop.and_then(Path::parent).filter(|dir| dir.is_absolute());
    if let Some(found) = beside.map(|dir| dir.join(&name)).filter(|p| is_program(p)) {
        return Ok(found);
    }
    path.into_iter()
        .flat_map(std::env::split_paths)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(&name))
        .find(|p| is_program(p))
        .ok_or_else(|| SetupError::NoProgram { beside: beside.map(Path::to_path_buf) })
}

/// [`find_program`] for this process: beside the running program, else on its `PATH`.
pub fn program_beside_this_one() -> Result<PathBuf, SetupError> {
    let this = std::env::current_exe().ok();
    find_program(this.as_deref(), std::env::var_os("PATH").as_deref())
}

pub(crate) fn is_program(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    let runnable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
    #[cfg(not(unix))]
    let runnable = true;
    meta.is_file() && runnable
}

/// [`locate`], [`plan`] then [`apply`]: sets Hark up with `agent` (or undoes it) and says what each
/// file got.
pub fn run(agent: Agent, action: Action, program: &Path, home: Option<&Path>) -> Result<Vec<Planned>, SetupError> {
    run_with(agent, action, None, program, home)
}

/// [`run`] with the approvals' hooks added or taken out (see [`plan_with`]).
pub fn run_with(
    agent: Agent,
    action: Action,
    approvals: Option<bool>,
    program: &Path,
    home: Option<&Path>,
) -> Result<Vec<Planned>, SetupError> {
    let plan = plan_with(action, approvals, program, &locate(agent, home)?)?;
    apply(&plan)?;
    Ok(plan)
}

fn read(path: &Path) -> Result<Option<(Vec<u8>, Permissions)>, SetupError> {
    let failed = |e: std::io::Error| SetupError::Read { path: path.to_path_buf(), detail: e.to_string() };
    let Some(bytes) = read_bytes(path).map_err(failed)? else {
        return Ok(None);
    };
    let permissions = std::fs::metadata(path).map_err(failed)?.permissions();
    Ok(Some((bytes, permissions)))
}

/// The file's content, `None` when there is no file.
fn read_bytes(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces `path` with `content` through a temporary file beside it, so the agent (which may read
/// it at any moment) sees the old file or the new one, never half of one. The previous content goes
/// to `<path>.hark-backup` first. A symbolic link (a dotfiles manager's) stays a link: the file it
/// points to is replaced. A new file is the person's alone (0600), as the agents make theirs; a
/// replaced one keeps its permissions. Returns `false`, writing nothing but the backup, when the file
/// no longer holds `old` (`None`: no file) right before the rename.
fn write(path: &Path, old: Option<&(Vec<u8>, Permissions)>, content: &[u8]) -> Result<bool, SetupError> {
    let failed = |at: &Path, e: std::io::Error| SetupError::Write { path: at.to_path_buf(), detail: e.to_string() };
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| failed(path, e))?,
        _ => path.to_path_buf(),
    };
    let permissions = match old {
        Some((bytes, permissions)) => {
            let mut backup = path.as_os_str().to_owned();
            backup.push(BACKUP_SUFFIX);
            let backup = PathBuf::from(backup);
            write_then_rename(&backup, bytes, Some(permissions.clone())).map_err(|e| failed(&backup, e))?;
            Some(permissions.clone())
        }
        None => {
            if let Some(dir) = target.parent() {
                create_dir(dir).map_err(|e| failed(dir, e))?;
            }
            new_file_permissions()
        }
    };
    let unchanged = || Ok(read_bytes(path)?.as_deref() == old.map(|(bytes, _)| bytes.as_slice()));
    write_then_rename_if(&target, content, permissions, unchanged).map_err(|e| failed(&target, e))
}

#[cfg(unix)]
fn new_file_permissions() -> Option<Permissions> {
    Some(std::os::unix::fs::PermissionsExt::from_mode(0o600))
}

#[cfg(not(unix))]
fn new_file_permissions() -> Option<Permissions> {
    None
}

/// Creates the agent's folder when it does not exist yet, the person's alone on Unix.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}
