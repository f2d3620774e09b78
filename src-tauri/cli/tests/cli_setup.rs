//! Runs the real `hark setup` against agents' settings files in a temporary home: what it adds, that a
//! second run changes nothing, that `--undo` gives back the person's own entries, and that a broken
//! file is refused untouched. The agents' folder variables are always set or removed explicitly, so
//! the real `~/.claude` and `~/.codex` of whoever runs the tests are never read or written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hark_core::agent_setup::{BACKUP_SUFFIX, CLAUDE_CONFIG_DIR_ENV, CODEX_HOME_ENV, HOOK_TIMEOUT_SECS};
use serde_json::{json, Value};

/// `hark setup ...` with `home` as the home folder and only the agents' folder variables in `vars`.
fn hark(home: &Path, vars: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hark"));
    // HOME is the home on Unix, USERPROFILE on Windows: each is set, so no run reaches the real one.
    command.args(args).env("HOME", home).env("USERPROFILE", home);
    command.env_remove(CLAUDE_CONFIG_DIR_ENV).env_remove(CODEX_HOME_ENV);
    for (name, value) in vars {
        command.env(name, value);
    }
    match command.output() {
        Ok(out) => out,
        Err(e) => panic!("could not run hark: {e}"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn stdout_ok(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}, stderr: {}", out.status, text(&out.stderr));
    text(&out.stdout)
}

/// The absolute path `hark setup` writes into the agents' files: this binary's, as the system names
/// it to itself (on Windows without the `\\?\` prefix canonical paths carry, which a shell would
/// not run).
fn program() -> String {
    let path = std::fs::canonicalize(env!("CARGO_BIN_EXE_hark")).unwrap().to_str().unwrap().to_string();
    path.strip_prefix(r"\\?\").map(str::to_string).unwrap_or(path)
}

fn hook_command(agent: &str) -> String {
    let program = program();
    let plain = program.chars().all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c));
    let word = if plain { program } else { format!("'{}'", program.replace('\'', r"'\''")) };
    format!("{word} hook {agent}")
}

fn backup(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}{BACKUP_SUFFIX}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn read_toml(path: &Path) -> Value {
    toml_data(&std::fs::read_to_string(path).unwrap())
}

/// TOML as plain data, to compare content whatever the layout.
fn toml_data(text: &str) -> Value {
    fn item(it: &toml_edit::Item) -> Value {
        match it {
            toml_edit::Item::None => Value::Null,
            toml_edit::Item::Value(v) => value(v),
            toml_edit::Item::Table(t) => t.iter().map(|(k, v)| (k.to_string(), item(v))).collect(),
            toml_edit::Item::ArrayOfTables(a) => {
                a.iter().map(|t| t.iter().map(|(k, v)| (k.to_string(), item(v))).collect::<Value>()).collect()
            }
        }
    }
    fn value(v: &toml_edit::Value) -> Value {
        match v {
            toml_edit::Value::String(s) => json!(s.value()),
            toml_edit::Value::Integer(i) => json!(i.value()),
            toml_edit::Value::Float(f) => json!(f.value()),
            toml_edit::Value::Boolean(b) => json!(b.value()),
            toml_edit::Value::Datetime(d) => json!(d.value().to_string()),
            toml_edit::Value::Array(a) => a.iter().map(value).collect(),
            toml_edit::Value::InlineTable(t) => t.iter().map(|(k, v)| (k.to_string(), value(v))).collect(),
        }
    }
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    item(doc.as_item())
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/check-bash" }] },
      { "matcher": "AskUserQuestion", "hooks": [{ "type": "command", "command": "notify-send asked" }] }
    ],
    "Notification": [{ "hooks": [{ "type": "command", "command": "say hello" }] }]
  },
  "statusLine": { "type": "command", "command": "~/bin/status" }
}
"#;

const CLAUDE_STATE: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "docs": { "type": "stdio", "command": "docs-mcp", "args": [], "env": { "TOKEN": "t" } }
  },
  "projects": { "/work/app": { "allowedTools": [], "mcpServers": {} } }
}
"#;

const CODEX_CONFIG: &str = r#"# My Codex settings
model = "o3"  # the big one

[mcp_servers.docs]
command = "docs-mcp"   # keep
args = ["--stdio"]

# Check shell commands
[[hooks.PreToolUse]]
matcher = "shell"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "~/bin/check"
"#;

/// Sets Claude Code up twice and undoes it, in `settings` and `state` (already holding the person's
/// entries); `vars` points Claude Code's folder variable where the test wants it.
fn claude_code_round_trip(home: &Path, vars: &[(&str, &Path)], settings: &Path, state: &Path) {
    let said = stdout_ok(&hark(home, vars, &["setup", "claude-code"]));
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 3, "{said}");
    assert!(lines[0].starts_with(&format!("{}: added", settings.display())), "{said}");
    assert!(lines[1].starts_with(&format!("{}: added", state.display())), "{said}");
    assert!(lines[2].contains("new session"), "{said}");

    let mut expected = serde_json::from_str::<Value>(CLAUDE_SETTINGS).unwrap();
    expected["hooks"]["PreToolUse"].as_array_mut().unwrap().push(json!({
        "matcher": "AskUserQuestion",
        "hooks": [{"type": "command", "command": hook_command("claude-code"), "timeout": HOOK_TIMEOUT_SECS}],
    }));
    expected["hooks"]["UserPromptSubmit"] =
        json!([{"hooks": [{"type": "command", "command": hook_command("claude-code"), "timeout": 10}]}]);
    expected["permissions"] = json!({"allow": ["mcp__hark"]});
    assert_eq!(read_json(settings), expected);
    let mut expected = serde_json::from_str::<Value>(CLAUDE_STATE).unwrap();
    expected["mcpServers"]["hark"] = json!({"type": "stdio", "command": program(), "args": ["mcp"], "env": {}});
    assert_eq!(read_json(state), expected);
    assert_eq!(std::fs::read_to_string(backup(settings)).unwrap(), CLAUDE_SETTINGS);
    assert_eq!(std::fs::read_to_string(backup(state)).unwrap(), CLAUDE_STATE);

    // A second run changes nothing, not even the backups.
    let set_up = (std::fs::read(settings).unwrap(), std::fs::read(state).unwrap());
    let said = stdout_ok(&hark(home, vars, &["setup", "claude-code"]));
    assert_eq!(said.lines().filter(|l| l.contains(": already set up (")).count(), 2, "{said}");
    assert_eq!((std::fs::read(settings).unwrap(), std::fs::read(state).unwrap()), set_up);
    assert_eq!(std::fs::read_to_string(backup(settings)).unwrap(), CLAUDE_SETTINGS);

    let said = stdout_ok(&hark(home, vars, &["setup", "claude-code", "--undo"]));
    assert_eq!(said.lines().filter(|l| l.contains(": removed (")).count(), 2, "{said}");
    assert_eq!(read_json(settings), serde_json::from_str::<Value>(CLAUDE_SETTINGS).unwrap());
    assert_eq!(read_json(state), serde_json::from_str::<Value>(CLAUDE_STATE).unwrap());
    assert_eq!(std::fs::read(backup(settings)).unwrap(), set_up.0, "the backup is the content before the undo");

    let said = stdout_ok(&hark(home, vars, &["setup", "--undo", "claude-code"]));
    assert_eq!(said.lines().filter(|l| l.contains(": nothing to remove (")).count(), 2, "{said}");
}

/// On Windows the home folder is `%USERPROFILE%`: `.claude` and `.claude.json` go there.
#[test]
fn claude_code_in_the_home_folder() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude").join("settings.json");
    let state = home.path().join(".claude.json");
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();
    std::fs::write(&state, CLAUDE_STATE).unwrap();
    claude_code_round_trip(home.path(), &[], &settings, &state);
}

#[test]
fn claude_code_in_its_config_dir() {
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let settings = config.path().join("settings.json");
    let state = config.path().join(".claude.json");
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();
    std::fs::write(&state, CLAUDE_STATE).unwrap();
    claude_code_round_trip(home.path(), &[(CLAUDE_CONFIG_DIR_ENV, config.path())], &settings, &state);
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0, "nothing goes to the home folder");
}

#[test]
fn claude_code_files_are_created_and_a_moved_binary_is_fixed() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("new").join("claude");
    let vars = [(CLAUDE_CONFIG_DIR_ENV, config.as_path())];
    stdout_ok(&hark(home.path(), &vars, &["setup", "claude-code"]));
    let settings = config.join("settings.json");
    assert_eq!(
        read_json(&settings),
        json!({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [
            {"type": "command", "command": hook_command("claude-code"), "timeout": 3600}
        ]}], "UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": hook_command("claude-code"), "timeout": 10}
        ]}]}, "permissions": {"allow": ["mcp__hark"]}})
    );
    assert_eq!(read_json(&config.join(".claude.json"))["mcpServers"]["hark"]["command"], program());
    assert!(!backup(&settings).exists());

    // The program as the file spells it: JSON escapes a Windows path's backslashes.
    let spelled = serde_json::to_string(&program()).unwrap();
    let moved = std::fs::read_to_string(&settings).unwrap().replace(spelled.trim_matches('"'), "/old/place/hark");
    std::fs::write(&settings, &moved).unwrap();
    let said = stdout_ok(&hark(home.path(), &vars, &["setup", "claude-code"]));
    assert!(said.starts_with(&format!("{}: updated", settings.display())), "{said}");
    assert!(said.contains(": already set up ("), "{said}");
    assert_eq!(read_json(&settings)["hooks"]["PreToolUse"][0]["hooks"][0]["command"], hook_command("claude-code"));
    assert_eq!(read_json(&settings)["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
    assert_eq!(std::fs::read_to_string(backup(&settings)).unwrap(), moved);
}

/// Claude Code's state written on Windows (CRLF, tabs), owner-only, with Hark's server entry from an
/// earlier install that the person extended: setting up again moves only the program, in the file's
/// own layout, and neither the file nor its backup is readable by others.
#[test]
fn setting_up_again_keeps_the_files_layout_mode_and_what_the_person_added() {
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join(".claude.json");
    let old = "{\r\n\t\"numStartups\": 7,\r\n\t\"mcpServers\": {\r\n\t\t\"hark\": {\r\n\t\t\t\"type\": \"stdio\",\r\n\
               \t\t\t\"command\": \"/old/place/hark\",\r\n\t\t\t\"args\": [\"mcp\", \"--blocking\"],\r\n\
               \t\t\t\"env\": {\"HARK_TOKEN\": \"secret\"}\r\n\t\t}\r\n\t}\r\n}\r\n";
    std::fs::write(&state, old).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&state, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();

    let said = stdout_ok(&hark(home.path(), &[], &["setup", "claude-code"]));
    assert!(said.contains(&format!("{}: updated", state.display())), "{said}");
    let new = std::fs::read_to_string(&state).unwrap();
    let mut expected: Value = serde_json::from_str(old).unwrap();
    expected["mcpServers"]["hark"]["command"] = json!(program());
    assert_eq!(read_json(&state), expected, "only the program moved");
    assert_eq!(new.matches('\n').count(), new.matches("\r\n").count(), "CRLF throughout: {new:?}");
    assert!(new.starts_with("{\r\n\t\"numStartups\": 7,\r\n\t\"mcpServers\": {\r\n\t\t\"hark\": {"), "{new:?}");
    assert!(new.ends_with("\r\n}\r\n"), "{new:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&state), mode(&backup(&state))), (0o600, 0o600));
    }
    assert_eq!(std::fs::read_to_string(backup(&state)).unwrap(), old);
    let again = stdout_ok(&hark(home.path(), &[], &["setup", "claude-code"]));
    assert!(again.contains(&format!("{}: already set up", state.display())), "{again}");
}

/// Sets Codex up twice and undoes it in `config` (already holding the person's entries).
fn codex_round_trip(home: &Path, vars: &[(&str, &Path)], config: &Path) {
    let said = stdout_ok(&hark(home, vars, &["setup", "codex"]));
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 2, "{said}");
    assert!(lines[0].starts_with(&format!("{}: added", config.display())), "{said}");
    assert!(lines[1].contains("/hooks") && lines[1].contains("trust"), "{said}");

    let new = std::fs::read_to_string(config).unwrap();
    for line in CODEX_CONFIG.lines() {
        assert!(new.lines().any(|l| l == line), "{line:?} is gone from\n{new}");
    }
    let mut expected = toml_data(CODEX_CONFIG);
    expected["mcp_servers"]["hark"] = json!({"command": program(), "args": ["mcp"], "tool_timeout_sec": 3600,
        "default_tools_approval_mode": "approve", "env_vars": ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HARK_DATA_DIR"]});
    expected["hooks"]["PreToolUse"].as_array_mut().unwrap().push(json!({
        "matcher": "request_user_input",
        "hooks": [{"type": "command", "command": hook_command("codex"), "timeout": HOOK_TIMEOUT_SECS}],
    }));
    assert_eq!(read_toml(config), expected);
    assert_eq!(std::fs::read_to_string(backup(config)).unwrap(), CODEX_CONFIG);

    let said = stdout_ok(&hark(home, vars, &["setup", "codex"]));
    assert!(said.starts_with(&format!("{}: already set up (", config.display())), "{said}");
    assert!(said.contains("/hooks"), "the trust hint stays: the hook may not be trusted yet");
    assert_eq!(std::fs::read_to_string(config).unwrap(), new);
    assert_eq!(std::fs::read_to_string(backup(config)).unwrap(), CODEX_CONFIG);

    let said = stdout_ok(&hark(home, vars, &["setup", "codex", "--undo"]));
    assert_eq!(
        said,
        format!("{}: removed (MCP server hark, PreToolUse hook on request_user_input)\n", config.display())
    );
    assert_eq!(read_toml(config), toml_data(CODEX_CONFIG));
    assert_eq!(std::fs::read_to_string(config).unwrap(), CODEX_CONFIG, "comments and layout come back too");
}

#[test]
fn codex_in_the_home_folder() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".codex").join("config.toml");
    std::fs::create_dir(home.path().join(".codex")).unwrap();
    std::fs::write(&config, CODEX_CONFIG).unwrap();
    codex_round_trip(home.path(), &[], &config);
}

#[test]
fn codex_in_codex_home() {
    let home = tempfile::tempdir().unwrap();
    let codex_home = tempfile::tempdir().unwrap();
    let config = codex_home.path().join("config.toml");
    std::fs::write(&config, CODEX_CONFIG).unwrap();
    codex_round_trip(home.path(), &[(CODEX_HOME_ENV, codex_home.path())], &config);
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0, "nothing goes to the home folder");
}

#[test]
fn a_malformed_file_is_refused_and_nothing_is_written() {
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let settings = config.path().join("settings.json");
    let state = config.path().join(".claude.json");
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();
    let broken = "{\"numStartups\": 12,\n  \"mcpServers\": {\n";
    std::fs::write(&state, broken).unwrap();
    let vars = [(CLAUDE_CONFIG_DIR_ENV, config.path())];
    for args in [&["setup", "claude-code"][..], &["setup", "claude-code", "--undo"]] {
        let out = hark(home.path(), &vars, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
        let error: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(error["code"], "SETUP_INVALID_JSON");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(&state.display().to_string()) && message.contains("line 3"), "{message}");
    }
    // Neither file changed, the valid one included, and there are no backups.
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);
    assert_eq!(std::fs::read_to_string(&state).unwrap(), broken);
    assert_eq!(std::fs::read_dir(config.path()).unwrap().count(), 2);

    let codex_home = tempfile::tempdir().unwrap();
    let codex = codex_home.path().join("config.toml");
    let wrong = "[hooks]\nPreToolUse = \"ask\"\n";
    std::fs::write(&codex, wrong).unwrap();
    let out = hark(home.path(), &[(CODEX_HOME_ENV, codex_home.path())], &["setup", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    let error: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(error["code"], "SETUP_WRONG_TYPE", "{error}");
    assert!(error["message"].as_str().unwrap().contains("`hooks.PreToolUse` is a string"), "{error}");
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), wrong);
    assert!(!backup(&codex).exists());
}

#[test]
fn setup_needs_a_known_agent() {
    let home = tempfile::tempdir().unwrap();
    for (args, says) in [
        (&["setup"][..], "required arguments were not provided:\n  <AGENT>"),
        (&["setup", "cursor"], "invalid value 'cursor' for '<AGENT>'\n  [possible values: claude-code, codex]"),
        (&["setup", "codex", "--force"], "unexpected argument '--force'"),
        (&["setup", "codex", "claude-code"], "unexpected argument 'claude-code'"),
    ] {
        let out = hark(home.path(), &[(CODEX_HOME_ENV, home.path())], args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(says) && stderr.contains("try '--help'"), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

/// Every string in `value`, however deep.
fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// The hooks that send permission requests to Hark come only with `--approvals`, say what they
/// change (how long the agent's request waits in Hark), and `--no-approvals` takes only them out:
/// the question hook and the MCP server stay.
#[test]
fn approvals_are_added_only_when_asked_and_taken_out_alone() {
    for (agent, file, budget) in
        [("claude-code", ".claude/settings.json", "5 minutes"), ("codex", ".codex/config.toml", "a minute")]
    {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(file);
        let read = || std::fs::read_to_string(&path).unwrap();
        stdout_ok(&hark(home.path(), &[], &["setup", agent]));
        let plain = read();
        assert!(!plain.contains("PermissionRequest"), "{agent}: {plain}");

        let said = stdout_ok(&hark(home.path(), &[], &["setup", agent, "--approvals"]));
        assert!(said.contains(&format!("up to {budget}")), "{agent}: {said}");
        let with = read();
        assert!(with.contains("PermissionRequest"), "{agent}: {with}");
        let said = stdout_ok(&hark(home.path(), &[], &["setup", agent, "--approvals"]));
        assert!(said.lines().any(|l| l.contains(": already set up (")), "{agent}: {said}");
        assert!(!said.lines().any(|l| l.contains(": added (") || l.contains(": updated (")), "{agent}: {said}");

        assert!(said.contains(", permission request hooks)"), "{agent}: {said}");
        let said = stdout_ok(&hark(home.path(), &[], &["setup", agent, "--no-approvals"]));
        assert!(!said.contains("up to"), "{agent}: no note when they go: {said}");
        assert!(
            said.contains(": updated (") && said.contains(", without permission request hooks)"),
            "{agent}: {said}"
        );
        let without = read();
        assert!(!without.contains("PermissionRequest"), "{agent}: {without}");
        // Read as data: on Windows the program's path is escaped in the file's text.
        let data = if file.ends_with(".toml") { read_toml(&path) } else { read_json(&path) };
        assert!(strings(&data).contains(&hook_command(agent)), "{agent}: the question hook stays: {without}");
        let refused = hark(home.path(), &[], &["setup", agent, "--approvals", "--no-approvals"]);
        assert!(!refused.status.success(), "{agent}: both at once is refused");
    }
}

/// `--approvals` adds the hooks that bring the agent's permission requests and its MCP servers'
/// forms (`Elicitation`) to Hark, with the long timeout a person's answer needs; `--undo` takes them
/// out with the rest.
#[test]
fn claude_code_approvals_bring_permission_requests_and_mcp_forms_and_undo_takes_them_out() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    stdout_ok(&hark(home.path(), &[], &["setup", "claude-code", "--approvals"]));
    let written = read_json(&settings);
    for event in ["PermissionRequest", "Elicitation"] {
        let handler =
            json!({ "type": "command", "command": hook_command("claude-code"), "timeout": HOOK_TIMEOUT_SECS });
        assert_eq!(written["hooks"][event], json!([{ "hooks": [handler] }]), "{event}: {written:#}");
    }
    stdout_ok(&hark(home.path(), &[], &["setup", "claude-code", "--undo"]));
    let undone = std::fs::read_to_string(&settings).map(|t| serde_json::from_str::<Value>(&t).unwrap_or_default());
    let hooks = undone.as_ref().map(|v| v["hooks"].clone()).unwrap_or_default();
    assert!(hooks.get("Elicitation").is_none() && hooks.get("PermissionRequest").is_none(), "{hooks:#}");
}
