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
fn tools_turned_off_are_read_and_a_bad_list_is_a_coded_error_that_loses_nothing() {
    let config = parse(
        r#"{"mcpServers": {"a": {"command": "x", "disabled_tools": ["rm", "mv", "rm"]}, "b": {"command": "y"}}}"#,
    );
    let config = config.unwrap();
    assert_eq!(config.servers["a"].disabled_tools.iter().collect::<Vec<_>>(), ["mv", "rm"]);
    assert!(config.servers["b"].disabled_tools.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CONFIG_FILE);
    let cases = [
        (r#""rm""#, "must be a list of the server's tool names"),
        (r#"{"rm": true}"#, "must be a list"),
        (r#"["rm", 3]"#, "must be a list"),
        (r#"["rm", " "]"#, "empty tool name"),
    ];
    for (value, expected) in cases {
        let text = format!(
            r#"{{"mcpServers": {{"a": {{"command": "x", "disabled_tools": {value}}}, "b": {{"command": "y"}}}}}}"#
        );
        std::fs::write(&path, &text).unwrap();
        // Refused, not read as "no tools off": that would offer what the person turned off.
        let e = McpConfig::load(&path, &|_| None).unwrap_err();
        assert_eq!(crate::error::CodedError::code(&e), "MCP_CONFIG_INVALID", "{value}");
        assert!(e.to_string().contains("server \"a\"") && e.to_string().contains(expected), "{value}: {e}");
        // Settings refuses it the same way instead of showing the server with the list dropped,
        // which its next save would write back.
        let e = read_entries(Some(&text)).unwrap_err();
        assert!(e.contains(expected), "{value}: {e}");
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

#[test]
fn tools_whose_names_collide_once_sanitised_get_distinct_names() {
    let names = tool::distinct_names(&[("s", "a.b"), ("s", "a_b"), ("s", "a_b_2"), ("s", "a/b"), ("t", "a.b")]);
    // The unchanged names keep theirs; the others take the next free suffix, in the order given.
    assert_eq!(names, ["mcp__s__a_b_3", "mcp__s__a_b", "mcp__s__a_b_2", "mcp__s__a_b_4", "mcp__t__a_b"]);
    let long = "x".repeat(70);
    let names = tool::distinct_names(&[("s", &format!("{long}.")), ("s", &format!("{long}/"))]);
    assert_eq!(names.len(), 2);
    assert_ne!(names[0], names[1]);
    assert!(names.iter().all(|n| n.len() <= 64), "{names:?}");
    // At the length limit, the suffix replaces the end.
    let at_limit = "y".repeat(55);
    let names = tool::distinct_names(&[("s", &format!("{at_limit}.")), ("s", &format!("{at_limit}_"))]);
    assert_eq!(names[1], format!("mcp__s__{at_limit}_"));
    assert_eq!(names[0], format!("mcp__s__{}_2", &at_limit[..54]));
    assert_eq!(names[0].len(), 64);
    let colliding = tool::distinct_names(&[("s", "a.b"), ("s", "a/b")]);
    assert_eq!(colliding, ["mcp__s__a_b", "mcp__s__a_b_2"]);
}

#[test]
fn a_keyring_secret_goes_only_over_https_or_to_this_machine() {
    let with_key = |url: &str| {
        let text = format!(
            r#"{{"mcpServers": {{"remote": {{"url": "{url}", "headers": {{"Authorization": "Bearer ${{keyring:remote/Authorization}}"}}}}}}}}"#
        );
        McpConfig::parse(&text, &|name| (name == "keyring:remote/Authorization").then(|| "s3cret".to_string()))
    };
    let refused = with_key("http://mcp.example.com/mcp").unwrap_err();
    assert!(refused.contains("plain http") && refused.contains("remote"), "{refused}");
    assert!(!refused.contains("s3cret"), "the secret is never in a message: {refused}");
    for fine in ["https://mcp.example.com/mcp", "http://127.0.0.1:9000/mcp", "http://localhost/mcp"] {
        assert!(with_key(fine).is_ok(), "{fine}");
    }
    // A plain-http server with no secret from the keyring is the person's choice.
    assert!(parse(r#"{"mcpServers": {"open": {"url": "http://mcp.example.com/mcp"}}}"#).is_ok());
}
