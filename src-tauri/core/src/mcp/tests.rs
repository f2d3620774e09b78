use super::*;

fn parse(text: &str) -> Result<McpConfig, String> {
    McpConfig::parse(text, &|name| (name == "TOKEN").then(|| "s3cret".to_string()))
}

#[test]
fn reads_the_format_other_hosts_write() {
    let config = parse(
        r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"A": "1"}},
            "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "tool_timeout_sec": 5},
            "off": {"command": "x", "disabled": true}
        }, "otherHostSetting": true}"#,
    )
    .unwrap();
    assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["fs", "remote"]);
    let ServerTransport::Stdio { command, args, env, .. } = &config.servers["fs"].transport else { panic!() };
    assert_eq!((command.as_str(), args.len(), env["A"].as_str()), ("npx", 3, "1"));
    let remote = &config.servers["remote"];
    let ServerTransport::Http { url, headers } = &remote.transport else { panic!() };
    assert_eq!((url.as_str(), headers["Authorization"].as_str()), ("https://example.com/mcp", "Bearer s3cret"));
    assert_eq!(remote.tool_timeout.as_secs(), 5);
    assert_eq!(config.servers["fs"].startup_timeout.as_secs(), 30);
}

#[test]
fn bad_entries_are_refused_with_the_reason() {
    let cases = [
        ("{", "not a valid mcp.json"),
        (r#"{"mcpServers": {"a b": {"command": "x"}}}"#, "server name"),
        (r#"{"mcpServers": {"a__b": {"command": "x"}}}"#, "server name"),
        (r#"{"mcpServers": {"a": {}}}"#, "give a \"command\""),
        (r#"{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}"#, "not both"),
        (r#"{"mcpServers": {"a": {"url": "ftp://h"}}}"#, "not an http(s) URL"),
        (r#"{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}"#, "HTTP+SSE"),
        (r#"{"mcpServers": {"a": {"type": "ws", "command": "x"}}}"#, "unknown \"type\""),
        (r#"{"mcpServers": {"a": {"type": "http", "command": "x"}}}"#, "does not match"),
        (r#"{"mcpServers": {"a": {"command": "x", "tool_timeout_sec": 0}}}"#, "at least 1 second"),
        (r#"{"mcpServers": {"a": {"url": "http://h", "headers": {"X": "${MISSING}"}}}}"#, "MISSING is not set"),
        (r#"{"mcpServers": {"a": {"command": "${TOKEN"}}}"#, "unclosed"),
    ];
    for (text, expected) in cases {
        let e = parse(text).unwrap_err();
        assert!(e.contains(expected), "{text}: {e}");
        assert!(!e.contains("s3cret"), "{e}");
    }
}

#[test]
fn a_missing_file_is_no_servers_and_a_broken_one_a_coded_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(McpConfig::load(&dir.path().join(CONFIG_FILE), &|_| None).unwrap().is_empty());
    std::fs::write(dir.path().join(CONFIG_FILE), "[]").unwrap();
    let e = McpConfig::load(&dir.path().join(CONFIG_FILE), &|_| None).unwrap_err();
    assert_eq!(crate::error::CodedError::code(&e), "MCP_CONFIG_INVALID");
}

#[test]
fn tool_names_are_what_models_accept() {
    assert_eq!(tool_name("filesystem", "read_file"), "mcp__filesystem__read_file");
    assert_eq!(tool_name("fs", "a.b/c d"), "mcp__fs__a_b_c_d");
    let long = tool_name("server", &"x".repeat(100));
    let other = tool_name("server", &format!("{}y", "x".repeat(99)));
    assert_eq!(long.len(), 64);
    assert_ne!(long, other);
    assert!(long.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
}
