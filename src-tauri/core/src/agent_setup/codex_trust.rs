//! Whether Codex runs Hark's hook. Codex runs a new or changed hook only once the person has
//! trusted it (in its `/hooks` screen, or the review it shows at start); an untrusted hook never
//! runs and says nothing. Codex keeps that trust under a hash of its own reckoning, so only Codex
//! can tell whether it still holds: its app server lists every hook with its trust
//! (`codex app-server`, JSON-RPC over stdio: `initialize`, then `hooks/list`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{is_hark_hook, Agent};

/// How long Codex's app server may take to list its hooks.
const LIST_WITHIN: Duration = Duration::from_secs(20);

/// What Codex says of a hook's trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum HookTrust {
    /// Codex runs it.
    Trusted,
    /// New to Codex: it never runs until the person trusts it.
    Untrusted,
    /// Changed since the person trusted it: it does not run until trusted again.
    Modified,
    /// Set by the person's organisation: it runs.
    Managed,
}

impl HookTrust {
    fn parse(status: &str) -> Option<HookTrust> {
        match status {
            "trusted" => Some(HookTrust::Trusted),
            "untrusted" => Some(HookTrust::Untrusted),
            "modified" => Some(HookTrust::Modified),
            "managed" => Some(HookTrust::Managed),
            _ => None,
        }
    }

    /// Whether Codex runs the hook.
    pub fn runs(self) -> bool {
        matches!(self, HookTrust::Trusted | HookTrust::Managed)
    }
}

/// One hook as Codex lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedHook {
    /// Where Codex keeps its trust: `<config file>:<event>:<group>:<handler>`.
    pub key: String,
    pub command: Option<String>,
    pub trust: Option<HookTrust>,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("could not run {program}: {detail}")]
    Run { program: String, detail: String },
    #[error("Codex's app server did not list its hooks: {0}")]
    Protocol(String),
}

/// The `codex` command on `path` (the `PATH` variable's value).
pub fn find_codex(path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let name = format!("codex{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(path?).map(|dir| dir.join(&name)).find(|p| p.is_file())
}

/// Every hook Codex (`codex`, run with `env` besides this process's environment, in `cwd`) loads
/// for `cwd`, with its trust.
pub fn list_hooks(codex: &Path, env: &[(String, String)], cwd: &Path) -> Result<Vec<ListedHook>, TrustError> {
    let run_error = |detail: String| TrustError::Run { program: codex.display().to_string(), detail };
    let mut child = Command::new(codex)
        .arg("app-server")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| run_error(e.to_string()))?;
    let listed = talk(&mut child, cwd);
    // It serves until its stdin closes; it is ours to end either way.
    drop(child.stdin.take());
    let _ = child.kill();
    let _ = child.wait();
    listed
}

fn talk(child: &mut std::process::Child, cwd: &Path) -> Result<Vec<ListedHook>, TrustError> {
    let protocol = |detail: &str| TrustError::Protocol(detail.to_string());
    let mut stdin = child.stdin.take().ok_or_else(|| protocol("no stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| protocol("no stdout"))?;
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let version = env!("CARGO_PKG_VERSION");
    let requests = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": { "clientInfo": { "name": "hark", "title": "Hark", "version": version }, "capabilities": null } }),
        json!({ "jsonrpc": "2.0", "method": "initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": { "cwds": [cwd] } }),
    ];
    for request in requests {
        writeln!(stdin, "{request}").map_err(|e| protocol(&e.to_string()))?;
    }
    stdin.flush().map_err(|e| protocol(&e.to_string()))?;
    let started = Instant::now();
    loop {
        let left = LIST_WITHIN.checked_sub(started.elapsed()).ok_or_else(|| protocol("no answer in time"))?;
        let line = lines.recv_timeout(left).map_err(|_| protocol("no answer in time"))?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        if message["id"] != 2 {
            continue;
        }
        if let Some(error) = message.get("error") {
            return Err(protocol(&error.to_string()));
        }
        return Ok(parse_listing(&message["result"]));
    }
}

/// The hooks of a `hooks/list` result (`{"data": [{"cwd", "hooks": [...]}]}`).
fn parse_listing(result: &Value) -> Vec<ListedHook> {
    let entries = result["data"].as_array().into_iter().flatten();
    entries
        .flat_map(|entry| entry["hooks"].as_array().into_iter().flatten())
        .map(|hook| ListedHook {
            key: hook["key"].as_str().unwrap_or_default().to_string(),
            command: hook["command"].as_str().map(str::to_string),
            trust: hook["trustStatus"].as_str().and_then(HookTrust::parse),
        })
        .collect()
}

/// What the Codex on this machine (on the `PATH`) says of Hark's hook for `cwd`; `None` when Codex
/// is not found, cannot list its hooks, or loads no hook of Hark's.
pub fn hark_hook_trust(cwd: &Path) -> Option<HookTrust> {
    let codex = find_codex(std::env::var_os("PATH").as_deref())?;
    let hooks = list_hooks(&codex, &[], cwd).ok()?;
    hark_hooks_trust(&hooks)
}

/// What Codex says of Hark's hooks taken together (the question hook, and the approvals' when set
/// up): the trust of one that does not run, if any, else of the first; `None` when there is none.
pub fn hark_hooks_trust(hooks: &[ListedHook]) -> Option<HookTrust> {
    let ours: Vec<&ListedHook> =
        hooks.iter().filter(|h| h.command.as_deref().is_some_and(|c| is_hark_hook(c, Agent::Codex))).collect();
    let stopped = ours.iter().find(|h| !h.trust.is_some_and(HookTrust::runs));
    stopped.or(ours.first()).and_then(|h| h.trust)
}

impl HookTrust {
    /// What the person reads of it.
    pub fn for_person(self) -> &'static str {
        match self {
            HookTrust::Trusted => "Codex trusts Hark's hook: it runs.",
            HookTrust::Managed => "Hark's hook is set by your organisation's Codex policy: it runs.",
            HookTrust::Untrusted => {
                "Codex does not run Hark's hook yet: type /hooks in Codex (or answer the review it shows at start) \
                 and trust it."
            }
            HookTrust::Modified => {
                "Hark's hook changed since you trusted it, so Codex does not run it: type /hooks in Codex and trust \
                 it again."
            }
        }
    }
}

/// Hark's hook among `hooks`, by its command; `None` when Codex loads none of Hark's.
pub fn hark_hook(hooks: &[ListedHook]) -> Option<&ListedHook> {
    hooks.iter().find(|h| h.command.as_deref().is_some_and(|c| is_hark_hook(c, Agent::Codex)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_gives_each_hooks_key_command_and_trust() {
        let result = json!({ "data": [{ "cwd": "/p", "warnings": [], "errors": [], "hooks": [
            { "key": "/h/.codex/config.toml:pre_tool_use:0:0", "handlerType": "command",
              "command": "/opt/hark hook codex", "trustStatus": "modified" },
            { "key": "/h/.codex/config.toml:pre_tool_use:1:0", "handlerType": "command",
              "command": "check", "trustStatus": "trusted" },
            { "key": "plugin:x", "handlerType": "prompt", "trustStatus": "something new" },
        ]}]});
        let hooks = parse_listing(&result);
        assert_eq!(hooks.len(), 3);
        let hark = hark_hook(&hooks).expect("Hark's hook");
        assert_eq!(
            (hark.key.as_str(), hark.trust),
            ("/h/.codex/config.toml:pre_tool_use:0:0", Some(HookTrust::Modified))
        );
        assert!(!HookTrust::Modified.runs() && HookTrust::Trusted.runs());
        assert_eq!(hooks[2].trust, None, "a status this Hark does not know is not read as trusted");
        assert_eq!(hark_hook(&hooks[1..]), None);
        // With a second hook of Hark's (the approvals'), one that does not run is what counts.
        let mut both = hooks.clone();
        both[1].command = Some("/opt/hark hook codex".into());
        both[0].trust = Some(HookTrust::Trusted);
        both[1].trust = Some(HookTrust::Untrusted);
        assert_eq!(hark_hooks_trust(&both), Some(HookTrust::Untrusted));
        both[1].trust = Some(HookTrust::Trusted);
        assert_eq!(hark_hooks_trust(&both), Some(HookTrust::Trusted));
    }
}
