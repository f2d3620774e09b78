//! `mcp.json` as Settings edits it: each server as a form (stdio command or HTTP URL), read from and
//! written back to the file so that what the person did not touch stays as it was — other hosts'
//! top-level keys, a server's fields Settings does not show, `${VAR}` references. A header marked
//! secret is written as `${keyring:<server>/<header>}`; its value lives in the OS keyring, which the
//! front door that saves (the desktop app) writes before the file.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::config::{check_name, disabled_tools, McpConfig, KEYRING_PREFIX};

/// One header of an HTTP server. For a secret, `value` is what to store (empty: keep the stored
/// one) and reads back empty: a secret never leaves the keyring for the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct HeaderEntry {
    pub name: String,
    pub value: String,
    pub secret: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EntryTransport {
    Stdio { command: String, args: Vec<String>, env: Vec<(String, String)> },
    Http { url: String, headers: Vec<HeaderEntry> },
}

/// One server as Settings shows and edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct McpEntry {
    pub name: String,
    pub disabled: bool,
    /// Its read-only tools may run before a plan is approved (see `ServerSpec::trusted`).
    #[serde(default)]
    pub trusted: bool,
    /// Its tools the person turned off (the server's names), sorted; see `ServerSpec::disabled_tools`.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    pub transport: EntryTransport,
}

/// A secret to store before the file is written: the keyring name and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretWrite {
    pub name: String,
    pub value: String,
}

/// The keyring name of a server's secret header (the part after `keyring:`).
pub fn secret_name(server: &str, header: &str) -> String {
    format!("{server}/{header}")
}

fn secret_ref(server: &str, header: &str) -> String {
    format!("${{{KEYRING_PREFIX}{}}}", secret_name(server, header))
}

fn not_valid(e: impl std::fmt::Display) -> String {
    format!("not a valid mcp.json: {e}")
}

fn servers_of(root: &Value) -> Result<Map<String, Value>, String> {
    match root.get("mcpServers") {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(not_valid("\"mcpServers\" must be an object")),
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn pairs(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
        .unwrap_or_default()
}

/// The servers of a file's text (`None`: no file yet), by name.
pub fn read_entries(text: Option<&str>) -> Result<Vec<McpEntry>, String> {
    let Some(text) = text else { return Ok(Vec::new()) };
    let root: Value = serde_json::from_str(text).map_err(not_valid)?;
    let mut entries = Vec::new();
    for (name, server) in servers_of(&root)? {
        let disabled = server.get("disabled").and_then(Value::as_bool).unwrap_or(false);
        let trusted = server.get("trusted").and_then(Value::as_bool).unwrap_or(false);
        // Refused like the agent refuses it: a list read as empty would be saved back empty, and
        // the tools it turned off would be offered again.
        let off = disabled_tools(server.get("disabled_tools")).map_err(|e| format!("server {name:?}: {e}"))?;
        let transport = match server.get("url").and_then(Value::as_str) {
            Some(url) => EntryTransport::Http {
                url: url.to_string(),
                headers: pairs(server.get("headers"))
                    .into_iter()
                    .map(|(header, value)| {
                        let secret = value == secret_ref(&name, &header);
                        HeaderEntry { value: if secret { String::new() } else { value }, name: header, secret }
                    })
                    .collect(),
            },
            None => EntryTransport::Stdio {
                command: server.get("command").and_then(Value::as_str).unwrap_or("").to_string(),
                args: strings(server.get("args")),
                env: pairs(server.get("env")),
            },
        };
        entries.push(McpEntry { name, disabled, trusted, disabled_tools: off.into_iter().collect(), transport });
    }
    Ok(entries)
}

/// The file's new text with `entries` as its servers, and the secrets to store first. Fields of a
/// kept server that Settings does not show (timeouts, `cwd`, another host's keys) stay; a server
/// left out is removed. Refused, with the reason, when an entry would make the file unreadable.
pub fn write_entries(old: Option<&str>, entries: &[McpEntry]) -> Result<(String, Vec<SecretWrite>), String> {
    let mut root = match old {
        Some(text) => serde_json::from_str::<Value>(text).map_err(not_valid)?,
        None => Value::Object(Map::new()),
    };
    let old_servers = servers_of(&root)?;
    let mut servers = Map::new();
    let mut secrets = Vec::new();
    for entry in entries {
        let name = entry.name.trim();
        check_name(name)?;
        if servers.contains_key(name) {
            return Err(format!("two servers are named {name:?}; give each its own name"));
        }
        let mut server = match old_servers.get(name) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        for key in ["command", "args", "env", "url", "headers", "type", "disabled", "trusted", "disabled_tools"] {
            server.remove(key);
        }
        match &entry.transport {
            EntryTransport::Stdio { command, args, env } => {
                if command.trim().is_empty() {
                    return Err(format!("the server {name:?} needs a command to run"));
                }
                server.insert("command".into(), command.trim().into());
                server.insert("args".into(), args.clone().into());
                if !env.is_empty() {
                    let env: Map<String, Value> = env.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect();
                    server.insert("env".into(), env.into());
                }
            }
            EntryTransport::Http { url, headers } => {
                server.insert("type".into(), "http".into());
                server.insert("url".into(), url.trim().into());
                let mut map = Map::new();
                for h in headers {
                    let header = h.name.trim();
                    if header.is_empty() || !header.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                        return Err(format!(
                            "the server {name:?} has a header named {header:?}, which is not a header name"
                        ));
                    }
                    let value = if h.secret {
                        let kept = old_servers
                            .get(name)
                            .and_then(|s| s.get("headers"))
                            .and_then(|hs| hs.get(header))
                            .and_then(Value::as_str)
                            == Some(secret_ref(name, header).as_str());
                        match (h.value.trim().is_empty(), kept) {
                            (false, _) => {
                                secrets.push(SecretWrite { name: secret_name(name, header), value: h.value.clone() })
                            }
                            (true, true) => {}
                            (true, false) => {
                                return Err(format!("the secret header {header} of {name:?} needs a value"));
                            }
                        }
                        secret_ref(name, header)
                    } else {
                        h.value.clone()
                    };
                    map.insert(header.to_string(), value.into());
                }
                if !map.is_empty() {
                    server.insert("headers".into(), map.into());
                }
            }
        }
        if entry.disabled {
            server.insert("disabled".into(), true.into());
        }
        if entry.trusted {
            server.insert("trusted".into(), true.into());
        }
        let off: std::collections::BTreeSet<&str> = entry.disabled_tools.iter().map(String::as_str).collect();
        if !off.is_empty() {
            server.insert("disabled_tools".into(), off.into_iter().collect::<Vec<_>>().into());
        }
        servers.insert(name.to_string(), Value::Object(server));
    }
    let Value::Object(top) = &mut root else { return Err(not_valid("it must be a JSON object")) };
    top.insert("mcpServers".into(), Value::Object(servers));
    let text = serde_json::to_string_pretty(&root).map_err(not_valid)?;
    // What is written must read back: every `${...}` is taken as set, so only the shape is checked.
    McpConfig::parse(&text, &|_| Some("x".into()))?;
    Ok((text + "\n", secrets))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(name: &str, command: &str) -> McpEntry {
        McpEntry {
            name: name.into(),
            disabled: false,
            trusted: false,
            disabled_tools: vec![],
            transport: EntryTransport::Stdio { command: command.into(), args: vec!["-y".into()], env: vec![] },
        }
    }

    #[test]
    fn what_settings_does_not_show_survives_an_edit() {
        let old = r#"{"otherHost": {"x": 1}, "mcpServers": {
            "fs": {"command": "npx", "args": ["a"], "tool_timeout_sec": 5, "cwd": "/w"},
            "gone": {"command": "rm-me"}
        }}"#;
        let mut entries = read_entries(Some(old)).unwrap();
        assert_eq!(entries.len(), 2);
        entries.retain(|e| e.name == "fs");
        entries[0].transport = EntryTransport::Stdio {
            command: "node".into(),
            args: vec!["s.js".into()],
            env: vec![("TOKEN".into(), "${TOKEN}".into())],
        };
        let (text, secrets) = write_entries(Some(old), &entries).unwrap();
        assert!(secrets.is_empty());
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["otherHost"]["x"], 1);
        assert_eq!(v["mcpServers"]["fs"]["tool_timeout_sec"], 5);
        assert_eq!(v["mcpServers"]["fs"]["cwd"], "/w");
        assert_eq!(v["mcpServers"]["fs"]["command"], "node");
        assert_eq!(v["mcpServers"]["fs"]["env"]["TOKEN"], "${TOKEN}");
        assert!(v["mcpServers"].get("gone").is_none());
        assert_eq!(read_entries(Some(&text)).unwrap(), entries);
    }

    #[test]
    fn trust_is_saved_only_when_given_and_reads_back() {
        let trusted = McpEntry { trusted: true, ..stdio("docs", "npx") };
        let (text, _) = write_entries(None, &[trusted.clone(), stdio("fs", "npx")]).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"]["docs"]["trusted"], true);
        assert!(v["mcpServers"]["fs"].get("trusted").is_none(), "{text}");
        assert_eq!(read_entries(Some(&text)).unwrap()[0], trusted);
        let config = McpConfig::parse(&text, &|_| None).unwrap();
        assert!(config.servers["docs"].trusted && !config.servers["fs"].trusted);
        // Taken back: the key goes.
        let (again, _) = write_entries(Some(&text), &[stdio("docs", "npx")]).unwrap();
        assert!(!again.contains("trusted"), "{again}");
    }

    #[test]
    fn tools_turned_off_are_saved_sorted_only_when_given_and_read_back_whole() {
        // A name the server does not list now stays: it may list it again.
        let off = McpEntry { disabled_tools: vec!["t2".into(), "gone".into(), "t2".into()], ..stdio("many", "py") };
        let (text, _) = write_entries(None, &[off, stdio("fs", "npx")]).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"]["many"]["disabled_tools"], serde_json::json!(["gone", "t2"]));
        assert!(v["mcpServers"]["fs"].get("disabled_tools").is_none(), "{text}");
        let back = read_entries(Some(&text)).unwrap();
        assert_eq!(back[1].disabled_tools, ["gone", "t2"]);
        let config = McpConfig::parse(&text, &|_| None).unwrap();
        assert_eq!(config.servers["many"].disabled_tools.iter().collect::<Vec<_>>(), ["gone", "t2"]);
        // All turned back on: the key goes.
        let (again, _) = write_entries(Some(&text), &[stdio("many", "py")]).unwrap();
        assert!(!again.contains("disabled_tools"), "{again}");
    }

    #[test]
    fn a_secret_header_goes_to_the_keyring_and_reads_back_empty() {
        let entry = McpEntry {
            name: "notion".into(),
            disabled: false,
            trusted: false,
            disabled_tools: vec![],
            transport: EntryTransport::Http {
                url: "https://mcp.notion.com/mcp".into(),
                headers: vec![
                    HeaderEntry { name: "Authorization".into(), value: "Bearer s3cret".into(), secret: true },
                    HeaderEntry { name: "X-Team".into(), value: "docs".into(), secret: false },
                ],
            },
        };
        let (text, secrets) = write_entries(None, std::slice::from_ref(&entry)).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        assert_eq!(secrets, [SecretWrite { name: "notion/Authorization".into(), value: "Bearer s3cret".into() }]);
        let back = read_entries(Some(&text)).unwrap();
        let EntryTransport::Http { headers, .. } = &back[0].transport else { panic!() };
        assert_eq!(headers[0], HeaderEntry { name: "Authorization".into(), value: String::new(), secret: true });
        // Saved again without a new value: the stored secret is kept, nothing is written.
        let (again, secrets) = write_entries(Some(&text), &back).unwrap();
        assert!(secrets.is_empty());
        assert_eq!(again, text);
        // The config reads it from wherever the keyring answers; without one, the server is left out.
        let with = McpConfig::parse(&text, &|n| (n == "keyring:notion/Authorization").then(|| "Bearer s3cret".into()));
        let with = with.unwrap();
        let super::super::ServerTransport::Http { headers, .. } = &with.servers["notion"].transport else { panic!() };
        assert_eq!(headers["Authorization"], "Bearer s3cret");
        let without = McpConfig::parse(&text, &|_| None).unwrap();
        assert!(without.servers.is_empty());
        assert!(without.unavailable["notion"].contains("notion/Authorization"), "{:?}", without.unavailable);
    }

    #[test]
    fn entries_that_would_break_the_file_are_refused_with_the_reason() {
        let cases: Vec<(Vec<McpEntry>, &str)> = vec![
            (vec![stdio("a b", "x")], "must be 1 to 32"),
            (vec![stdio("a", "x"), stdio("a", "y")], "two servers are named"),
            (vec![stdio("a", " ")], "needs a command"),
            (
                vec![McpEntry {
                    name: "h".into(),
                    disabled: false,
                    trusted: false,
                    disabled_tools: vec![],
                    transport: EntryTransport::Http { url: "ftp://x".into(), headers: vec![] },
                }],
                "not an http(s) URL",
            ),
            (
                vec![McpEntry {
                    name: "h".into(),
                    disabled: false,
                    trusted: false,
                    disabled_tools: vec![],
                    transport: EntryTransport::Http {
                        url: "https://x".into(),
                        headers: vec![HeaderEntry { name: "Authorization".into(), value: "".into(), secret: true }],
                    },
                }],
                "needs a value",
            ),
        ];
        for (entries, want) in cases {
            let e = write_entries(None, &entries).unwrap_err();
            assert!(e.contains(want), "{want}: {e}");
        }
        assert!(write_entries(Some("[1]"), &[]).unwrap_err().contains("JSON object"));
    }
}
