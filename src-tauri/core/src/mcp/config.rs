//! `mcp.json`: `{"mcpServers": {"<name>": {"command", "args", "env", "cwd"} | {"url", "headers"}}}`,
//! the format Claude Code, Cursor and others read, so a person can copy their file. Two optional
//! fields per server: `startup_timeout_sec` and `tool_timeout_sec`; `"disabled": true` leaves a
//! server out; `"trusted": true` lets its read-only tools run before a plan is approved;
//! `"disabled_tools": ["<tool>", ...]` names tools of the server never offered to the model (see
//! `offer`). `${NAME}` in a command, argument, environment value, URL or header is the variable
//! from Hark's own environment, so a token need not be written in the file. `${keyring:<name>}` is a
//! secret Hark's Settings keep in the OS keyring; a front door without the keyring leaves a server
//! that needs one out, with the reason, instead of failing the whole file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::McpError;

/// The file's name in the data directory.
pub const CONFIG_FILE: &str = "mcp.json";

const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    /// By name, in a stable order.
    pub servers: BTreeMap<String, ServerSpec>,
    /// Servers the file names that cannot be used here, with why (a secret this front door cannot
    /// read); each agent reports them as it would a server that failed to start.
    pub unavailable: BTreeMap<String, String>,
    /// How each server's last start went, for Settings.
    pub status: std::sync::Arc<super::StatusBoard>,
}

/// The prefix of a `${...}` name that is a secret in the OS keyring, not an environment variable.
pub const KEYRING_PREFIX: &str = "keyring:";
/// How a keyring secret begins in the file.
const KEYRING_MARK: &str = "${keyring:";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    pub transport: ServerTransport,
    /// How long connecting and listing its tools may take.
    pub startup_timeout: Duration,
    /// How long one call may take.
    pub tool_timeout: Duration,
    /// The person trusts what the server says of its tools: a tool it marks read-only may run before
    /// a plan is approved. Otherwise every tool of it waits for the approval.
    pub trusted: bool,
    /// Its tools the person turned off, by the names the server lists them under.
    pub disabled_tools: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTransport {
    /// A child process speaking JSON-RPC on its stdin and stdout.
    Stdio { command: String, args: Vec<String>, env: BTreeMap<String, String>, cwd: Option<PathBuf> },
    /// Streamable HTTP.
    Http { url: String, headers: BTreeMap<String, String> },
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(rename = "mcpServers", default)]
    mcp_servers: BTreeMap<String, RawServer>,
}

#[derive(Deserialize)]
struct RawServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    disabled: bool,
    #[serde(default)]
    trusted: bool,
    /// Checked by [`disabled_tools`], which says what is wrong with a bad value.
    disabled_tools: Option<serde_json::Value>,
    startup_timeout_sec: Option<u64>,
    tool_timeout_sec: Option<u64>,
}

impl McpConfig {
    /// Reads `path`, taking `${NAME}` values from `env`; a missing file is no servers.
    pub fn load(path: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<McpConfig, McpError> {
        match read_text(path)? {
            Some(text) => McpConfig::parse(&text, env).map_err(|message| invalid(path, message)),
            None => Ok(McpConfig::default()),
        }
    }

    /// Parses the file's text, taking `${NAME}` values from `env`.
    pub fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<McpConfig, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not a valid mcp.json: {e}"))?;
        if !value.is_object() {
            return Err("not a valid mcp.json: it must be a JSON object with \"mcpServers\"".into());
        }
        let raw: RawFile = serde_json::from_value(value).map_err(|e| format!("not a valid mcp.json: {e}"))?;
        let mut servers = BTreeMap::new();
        let mut unavailable = BTreeMap::new();
        for (name, server) in raw.mcp_servers {
            check_name(&name)?;
            if server.disabled {
                continue;
            }
            if let Some(secret) = missing_secret(&server, env) {
                let why = format!(
                    "it needs the secret {secret:?} from the OS keyring, which only the Hark app reads; \
                     start it from the app, or give the value through an environment variable"
                );
                unavailable.insert(name, why);
                continue;
            }
            let spec = spec(&name, server, env).map_err(|e| format!("server {name:?}: {e}"))?;
            servers.insert(name, spec);
        }
        Ok(McpConfig { servers, unavailable, status: Default::default() })
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

/// Names become part of tool names (`mcp__<server>__<tool>`), which models accept only as
/// `[A-Za-z0-9_-]`; a `__` inside would make the split ambiguous.
pub(super) fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 32
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.contains("__");
    if valid {
        Ok(())
    } else {
        Err(format!(
            "the server name {name:?} must be 1 to 32 letters, digits, '-' or '_' (no \"__\"), as it becomes part \
             of its tools' names"
        ))
    }
}

fn spec(name: &str, raw: RawServer, env: &dyn Fn(&str) -> Option<String>) -> Result<ServerSpec, String> {
    let expand = |s: &str| expand(s, env);
    let transport = match (raw.command, raw.url, raw.kind.as_deref()) {
        (Some(_), Some(_), _) => return Err("give either \"command\" or \"url\", not both".into()),
        (Some(command), None, None | Some("stdio")) => ServerTransport::Stdio {
            command: expand(&command)?,
            args: raw.args.iter().map(|a| expand(a)).collect::<Result<_, _>>()?,
            env: raw.env.iter().map(|(k, v)| Ok((k.clone(), expand(v)?))).collect::<Result<_, String>>()?,
            cwd: raw.cwd,
        },
        (None, Some(url), None | Some("http" | "streamable-http" | "streamableHttp")) => {
            let secret = std::iter::once(&url).chain(raw.headers.values()).any(|v| v.contains(KEYRING_MARK));
            let url = expand(&url)?;
            match url::Url::parse(&url) {
                // A secret from the keyring crosses the network only encrypted, as model keys do.
                Ok(u) if secret && u.scheme() == "http" && !crate::model::is_loopback(&u) => {
                    return Err(format!(
                        "{url:?} is plain http to another machine: a secret from the OS keyring goes only over \
                         https, or to a server on this machine"
                    ))
                }
                Ok(u) if matches!(u.scheme(), "http" | "https") => {}
                _ => return Err(format!("{url:?} is not an http(s) URL")),
            }
            let headers =
                raw.headers.iter().map(|(k, v)| Ok((k.clone(), expand(v)?))).collect::<Result<_, String>>()?;
            ServerTransport::Http { url, headers }
        }
        (_, _, Some("sse")) => {
            return Err("the old HTTP+SSE transport is not supported; use the server's streamable HTTP URL".into())
        }
        (_, _, Some(kind)) if !matches!(kind, "stdio" | "http" | "streamable-http" | "streamableHttp") => {
            return Err(format!("unknown \"type\" {kind:?} (stdio or http)"))
        }
        (None, None, _) => return Err("give a \"command\" (stdio) or a \"url\" (streamable HTTP)".into()),
        _ => return Err(format!("\"type\" does not match the server {name:?}'s \"command\" or \"url\"")),
    };
    let secs = |v: Option<u64>, default: Duration| match v {
        Some(0) => Err("a timeout must be at least 1 second".to_string()),
        Some(s) => Ok(Duration::from_secs(s)),
        None => Ok(default),
    };
    Ok(ServerSpec {
        trusted: raw.trusted,
        disabled_tools: disabled_tools(raw.disabled_tools.as_ref())?,
        transport,
        startup_timeout: secs(raw.startup_timeout_sec, DEFAULT_STARTUP_TIMEOUT)?,
        tool_timeout: secs(raw.tool_timeout_sec, DEFAULT_TOOL_TIMEOUT)?,
    })
}

/// A server's `disabled_tools`: a list of tool names (absent: none). Anything else is refused with
/// the reason rather than read as no list, which would offer the tools the person meant to turn off.
pub(super) fn disabled_tools(value: Option<&serde_json::Value>) -> Result<BTreeSet<String>, String> {
    let shape = || "\"disabled_tools\" must be a list of the server's tool names, like [\"delete_file\"]".to_string();
    let items = match value {
        None | Some(serde_json::Value::Null) => return Ok(BTreeSet::new()),
        Some(serde_json::Value::Array(items)) => items,
        Some(_) => return Err(shape()),
    };
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(name) if !name.trim().is_empty() => Ok(name.to_string()),
            Some(_) => Err("\"disabled_tools\" holds an empty tool name".to_string()),
            None => Err(shape()),
        })
        .collect()
}

/// The text of the file at `path`; `None` when there is none.
pub fn read_text(path: &Path) -> Result<Option<String>, McpError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(invalid(path, e.to_string())),
    }
}

/// `MCP_CONFIG_INVALID` for the file at `path`.
pub fn invalid(path: &Path, message: String) -> McpError {
    McpError::ConfigInvalid { path: path.display().to_string(), message }
}

/// The first `${keyring:...}` secret of `server` that `env` cannot give, if any.
fn missing_secret(server: &RawServer, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let texts = server.args.iter().chain(server.env.values()).chain(server.headers.values());
    texts.chain(server.url.iter()).chain(server.command.iter()).find_map(|text| {
        let mut rest = text.as_str();
        while let Some(start) = rest.find("${") {
            let after = &rest[start + 2..];
            let end = after.find('}')?;
            let name = &after[..end];
            if name.starts_with(KEYRING_PREFIX) && env(name).is_none() {
                return Some(name[KEYRING_PREFIX.len()..].to_string());
            }
            rest = &after[end + 1..];
        }
        None
    })
}

/// `${NAME}` → the variable's value; a variable that is not set is an error, not an empty string
/// (an empty token would fail later with a less helpful message).
fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| format!("unclosed \"${{\" in {text:?}"))?;
        let name = &after[..end];
        out.push_str(&env(name).ok_or_else(|| format!("the environment variable {name} is not set"))?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
