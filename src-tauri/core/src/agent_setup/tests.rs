use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;

const HARK: &str = "/opt/hark/bin/hark";

fn setup(kind: FileKind, old: Option<&str>) -> Edit {
    edit(kind, old, HARK, Action::Setup).unwrap()
}

fn undo(kind: FileKind, old: Option<&str>) -> Edit {
    edit(kind, old, HARK, Action::Undo).unwrap()
}

fn text(edit: &Edit) -> &str {
    edit.text.as_deref().unwrap_or_else(|| panic!("expected a change, got {:?}", edit.outcome))
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn claude_hook(program: &str) -> Value {
    json!({"type": "command", "command": format!("{program} hook claude-code"), "timeout": 3600})
}

/// Hark's hook on each prompt: no matcher, a short timeout.
fn claude_prompt_group(program: &str) -> Value {
    json!({"hooks": [{"type": "command", "command": format!("{program} hook claude-code"), "timeout": 10}]})
}

/// Settings with something of everything Hark must leave alone.
const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(git status)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "~/bin/check-bash" }]
      },
      {
        "matcher": "AskUserQuestion",
        "hooks": [{ "type": "command", "command": "notify-send asked" }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]
  },
  "zeta": 1,
  "alpha": 2
}
"#;

#[test]
fn claude_setup_adds_one_group_and_keeps_everything_else_in_order() {
    let edit = setup(FileKind::ClaudeSettings, Some(CLAUDE_SETTINGS));
    assert_eq!(edit.outcome, Outcome::Added);
    let new = text(&edit);
    let mut expected = parsed(CLAUDE_SETTINGS);
    expected["hooks"]["PreToolUse"]
        .as_array_mut()
        .unwrap()
        .push(json!({"matcher": "AskUserQuestion", "hooks": [claude_hook(HARK)]}));
    expected["hooks"]["UserPromptSubmit"] = json!([claude_prompt_group(HARK)]);
    // The person's rules stay, Hark's comes after them.
    expected["permissions"]["allow"].as_array_mut().unwrap().push(json!("mcp__hark"));
    assert_eq!(parsed(new), expected);
    // Key order is the file's, not sorted.
    let at = |key: &str| new.find(&format!("\"{key}\"")).unwrap();
    assert!(at("model") < at("permissions") && at("permissions") < at("hooks") && at("zeta") < at("alpha"), "{new}");
    assert!(new.ends_with("}\n"));
}

#[test]
fn claude_setup_twice_changes_nothing() {
    for old in [None, Some(CLAUDE_SETTINGS), Some("{}")] {
        let first = setup(FileKind::ClaudeSettings, old);
        let second = setup(FileKind::ClaudeSettings, Some(text(&first)));
        assert_eq!(second, Edit { outcome: Outcome::AlreadySetUp, text: None }, "{old:?}");
    }
    let first = setup(FileKind::ClaudeState, Some(r#"{"numStartups": 3}"#));
    assert_eq!(setup(FileKind::ClaudeState, Some(text(&first))).outcome, Outcome::AlreadySetUp);
}

#[test]
fn claude_undo_removes_only_harks_entries() {
    let set_up = setup(FileKind::ClaudeSettings, Some(CLAUDE_SETTINGS));
    let undone = undo(FileKind::ClaudeSettings, Some(text(&set_up)));
    assert_eq!(undone.outcome, Outcome::Removed);
    assert_eq!(parsed(text(&undone)), parsed(CLAUDE_SETTINGS));
    assert_eq!(
        undo(FileKind::ClaudeSettings, Some(text(&undone))),
        Edit { outcome: Outcome::NothingToRemove, text: None }
    );
    assert_eq!(undo(FileKind::ClaudeSettings, None), Edit { outcome: Outcome::NothingToRemove, text: None });
    assert_eq!(undo(FileKind::ClaudeSettings, Some(CLAUDE_SETTINGS)).outcome, Outcome::NothingToRemove);
}

#[test]
fn claude_undo_drops_the_containers_it_emptied_only() {
    let created = setup(FileKind::ClaudeSettings, None);
    assert_eq!(created.outcome, Outcome::Added);
    assert_eq!(
        parsed(text(&created)),
        json!({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [claude_hook(HARK)]}],
                         "UserPromptSubmit": [claude_prompt_group(HARK)]},
               "permissions": {"allow": ["mcp__hark"]}})
    );
    assert_eq!(parsed(text(&undo(FileKind::ClaudeSettings, Some(text(&created))))), json!({}));

    // Undo cannot tell a PreToolUse list that was empty before setup from one Hark made: both go
    // when Hark's group was their last entry. The other events stay.
    let had_empty = r#"{"hooks": {"PreToolUse": [], "Stop": []}}"#;
    assert_eq!(undo(FileKind::ClaudeSettings, Some(had_empty)).outcome, Outcome::NothingToRemove);
    let set_up = setup(FileKind::ClaudeSettings, Some(had_empty));
    let undone = undo(FileKind::ClaudeSettings, Some(text(&set_up)));
    assert_eq!(parsed(text(&undone)), json!({"hooks": {"Stop": []}}));

    // A group Hark shares with the person's handler keeps that handler.
    let shared = json!({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [
        {"type": "command", "command": "notify-send asked"}, claude_hook(HARK)
    ]}]}});
    let undone = undo(FileKind::ClaudeSettings, Some(&shared.to_string()));
    assert_eq!(
        parsed(text(&undone)),
        json!({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [
            {"type": "command", "command": "notify-send asked"}
        ]}]}})
    );
}

#[test]
fn claude_a_moved_binary_is_replaced_where_it_was() {
    let old = json!({"hooks": {"PreToolUse": [
        {"matcher": "AskUserQuestion", "hooks": [claude_hook("/old/place/hark"), {"type": "command", "command": "mine"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "b"}]},
    ]}});
    let edit = setup(FileKind::ClaudeSettings, Some(&old.to_string()));
    assert_eq!(edit.outcome, Outcome::Updated);
    let mut expected = old.clone();
    expected["hooks"]["PreToolUse"][0]["hooks"][0] = claude_hook(HARK);
    expected["hooks"]["UserPromptSubmit"] = json!([claude_prompt_group(HARK)]);
    expected["permissions"] = json!({"allow": ["mcp__hark"]});
    assert_eq!(parsed(text(&edit)), expected);

    let server = r#"{"mcpServers": {
        "other": {"type": "stdio", "command": "other-mcp", "args": [], "env": {"K": "v"}},
        "hark": {"type": "stdio", "command": "/old/place/hark", "args": ["mcp"], "env": {}},
        "last": {"type": "http", "url": "https://example.com/mcp"}
    }, "projects": {"/p": {"mcpServers": {"hark": {"command": "hark"}}}}}"#;
    let edit = setup(FileKind::ClaudeState, Some(server));
    assert_eq!(edit.outcome, Outcome::Updated);
    let mut expected = parsed(server);
    expected["mcpServers"]["hark"]["command"] = json!(HARK);
    let new = text(&edit);
    assert_eq!(parsed(new), expected);
    assert!(new.find("\"other\"") < new.find("\"hark\"") && new.find("\"hark\"") < new.find("\"last\""), "{new}");
}

#[test]
fn claude_harks_hook_under_another_matcher_moves_to_its_own_group() {
    let old = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [claude_hook("hark"), {"type": "command", "command": "b"}]},
        {"matcher": "*", "hooks": [claude_hook("/usr/local/bin/hark")]},
    ]}});
    let edit = setup(FileKind::ClaudeSettings, Some(&old.to_string()));
    assert_eq!(edit.outcome, Outcome::Updated);
    assert_eq!(
        parsed(text(&edit)),
        json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "b"}]},
            {"matcher": "AskUserQuestion", "hooks": [claude_hook(HARK)]},
        ], "UserPromptSubmit": [claude_prompt_group(HARK)]}, "permissions": {"allow": ["mcp__hark"]}})
    );
}

#[test]
fn claude_prompt_hook_has_a_group_after_the_persons_and_undo_leaves_theirs() {
    let old = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "log-prompt"}]}]}});
    let set_up = parsed(text(&setup(FileKind::ClaudeSettings, Some(&old.to_string()))));
    assert_eq!(
        set_up["hooks"]["UserPromptSubmit"],
        json!([{"hooks": [{"type": "command", "command": "log-prompt"}]}, claude_prompt_group(HARK)])
    );
    // Hark's handler already in a matcherless group of the person's stays where it is.
    let mut shared = old.clone();
    shared["hooks"]["UserPromptSubmit"][0]["hooks"]
        .as_array_mut()
        .unwrap()
        .push(claude_prompt_group("hark")["hooks"][0].clone());
    let again = parsed(text(&setup(FileKind::ClaudeSettings, Some(&shared.to_string()))));
    assert_eq!(again["hooks"]["UserPromptSubmit"].as_array().map(Vec::len), Some(1), "{again}");
    assert_eq!(again["hooks"]["UserPromptSubmit"][0]["hooks"][1], claude_prompt_group(HARK)["hooks"][0]);
    let undone = parsed(text(&undo(FileKind::ClaudeSettings, Some(&set_up.to_string()))));
    assert_eq!(undone, old);
    // A prompt-hook list of another type is refused whole, before anything is written.
    let refused = edit(FileKind::ClaudeSettings, Some(r#"{"hooks": {"UserPromptSubmit": {}}}"#), HARK, Action::Setup);
    assert_eq!(refused.unwrap_err().to_string(), "`hooks.UserPromptSubmit` is an object, where an array belongs");
}

#[test]
fn claude_setup_allows_harks_mcp_tools_once_and_undo_takes_only_that_rule() {
    // The rule already there (the person allowed Hark's tools in Claude Code) is not added twice.
    let allowed = r#"{"permissions": {"allow": ["mcp__hark", "Read"], "deny": ["Bash(rm:*)"]}}"#;
    let set_up = setup(FileKind::ClaudeSettings, Some(allowed));
    assert_eq!(set_up.outcome, Outcome::Updated, "the hook was missing");
    let data = parsed(text(&set_up));
    assert_eq!(data["permissions"], parsed(allowed)["permissions"]);
    // Undo takes Hark's rule and leaves the person's, and `deny` beside them.
    let undone = parsed(text(&undo(FileKind::ClaudeSettings, Some(text(&set_up)))));
    assert_eq!(undone, json!({"permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}}));
    // A `permissions` or `allow` of another type is refused whole: nothing of Hark's is written.
    for (old, problem) in [
        (r#"{"permissions": []}"#, "`permissions` is an array, where an object belongs"),
        (r#"{"permissions": {"allow": "mcp__hark"}}"#, "`permissions.allow` is a string, where an array belongs"),
    ] {
        for action in [Action::Setup, Action::Undo] {
            let refused = edit(FileKind::ClaudeSettings, Some(old), HARK, action).unwrap_err();
            assert_eq!(refused.to_string(), problem, "{old}");
        }
    }
}

#[test]
fn claude_state_keeps_claude_codes_own_data() {
    let old = r#"{"numStartups": 34, "mcpServers": {"x": {"command": "x"}}, "projects": {"/a": {"history": []}}}"#;
    let edit = setup(FileKind::ClaudeState, Some(old));
    assert_eq!(edit.outcome, Outcome::Added);
    let mut expected = parsed(old);
    expected["mcpServers"]["hark"] = json!({"type": "stdio", "command": HARK, "args": ["mcp"], "env": {}});
    assert_eq!(parsed(text(&edit)), expected);
    // A file without a trailing newline gets none.
    assert!(text(&edit).ends_with('}'));
    let undone = undo(FileKind::ClaudeState, Some(text(&edit)));
    assert_eq!(undone.outcome, Outcome::Removed);
    assert_eq!(parsed(text(&undone)), parsed(old));
}

#[test]
fn claude_setup_again_keeps_what_the_person_added_to_harks_entries() {
    let state = json!({"mcpServers": {"hark": {
        "type": "stdio",
        "command": "/old/place/hark",
        "args": ["mcp", "--timed", "--timeout", "600"],
        "env": {"HARK_DATA_DIR": "/srv/hark"},
        "alwaysAllow": ["ask_user_question"],
    }}});
    let edit = setup(FileKind::ClaudeState, Some(&state.to_string()));
    assert_eq!(edit.outcome, Outcome::Updated);
    let mut expected = state.clone();
    expected["mcpServers"]["hark"]["command"] = json!(HARK);
    assert_eq!(parsed(text(&edit)), expected, "only the program moved");
    assert_eq!(setup(FileKind::ClaudeState, Some(text(&edit))).outcome, Outcome::AlreadySetUp);

    // Arguments that do not start with Hark's own would not run its server: they become Hark's.
    let other = json!({"mcpServers": {"hark": {"type": "stdio", "command": HARK, "args": ["serve"], "env": {}}}});
    let edit = setup(FileKind::ClaudeState, Some(&other.to_string()));
    assert_eq!(parsed(text(&edit))["mcpServers"]["hark"]["args"], json!(["mcp"]));

    let mut handler = claude_hook("/old/place/hark");
    handler["statusMessage"] = json!("Asking in Hark");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [handler]}]}});
    let edit = setup(FileKind::ClaudeSettings, Some(&settings.to_string()));
    let mut expected = settings.clone();
    expected["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = json!(format!("{HARK} hook claude-code"));
    expected["hooks"]["UserPromptSubmit"] = json!([claude_prompt_group(HARK)]);
    // Setup also lets Claude Code call Hark's MCP tools, which it refuses without a rule.
    expected["permissions"] = json!({"allow": ["mcp__hark"]});
    assert_eq!(parsed(text(&edit)), expected);
}

#[test]
fn claude_files_keep_their_indentation_line_ends_and_final_newline() {
    let tabs_crlf = "{\r\n\t\"model\": \"opus\",\r\n\t\"permissions\": {\r\n\t\t\"allow\": []\r\n\t}\r\n}";
    let new = setup(FileKind::ClaudeSettings, Some(tabs_crlf)).text.unwrap();
    assert!(
        new.starts_with(
            "{\r\n\t\"model\": \"opus\",\r\n\t\"permissions\": {\r\n\t\t\"allow\": [\r\n\t\t\t\"mcp__hark\"\r\n\t\t]\r\n\t},"
        ),
        "{new:?}"
    );
    assert_eq!(new.matches('\n').count(), new.matches("\r\n").count(), "every line ends in CRLF: {new:?}");
    assert!(new.ends_with("\t\t]\r\n\t}\r\n}"), "no final newline, as before: {new:?}");

    let four = "{\n    \"numStartups\": 3\n}\n";
    let new = setup(FileKind::ClaudeState, Some(four)).text.unwrap();
    assert!(new.starts_with("{\n    \"numStartups\": 3,\n    \"mcpServers\": {\n        \"hark\": {"), "{new:?}");
    assert!(new.ends_with("\n    }\n}\n") && !new.contains('\r'), "{new:?}");

    let one_line = "{\"numStartups\": 3}";
    let new = setup(FileKind::ClaudeState, Some(one_line)).text.unwrap();
    assert!(!new.contains('\n'), "a file on one line stays on one line: {new:?}");

    // A new file is written as Claude Code writes its own.
    let new = setup(FileKind::ClaudeState, None).text.unwrap();
    assert!(new.starts_with("{\n  \"mcpServers\": {\n    \"hark\": {") && new.ends_with("}\n"), "{new:?}");
}

#[test]
fn bad_json_files_are_refused() {
    let cases: &[(FileKind, &str, &str)] = &[
        (FileKind::ClaudeSettings, "{\"hooks\": {", "not valid JSON"),
        (FileKind::ClaudeSettings, "// comment\n{}", "not valid JSON"),
        (FileKind::ClaudeSettings, "[]", "the file holds an array, where an object belongs"),
        (FileKind::ClaudeSettings, r#"{"hooks": []}"#, "`hooks` is an array, where an object belongs"),
        (
            FileKind::ClaudeSettings,
            r#"{"hooks": {"PreToolUse": {"matcher": "x"}}}"#,
            "`hooks.PreToolUse` is an object, where an array belongs",
        ),
        (FileKind::ClaudeState, r#"{"mcpServers": "hark"}"#, "`mcpServers` is a string, where an object belongs"),
        (FileKind::ClaudeState, "null", "the file holds null"),
    ];
    for (kind, old, says) in cases {
        for action in [Action::Setup, Action::Undo] {
            let problem = edit(*kind, Some(old), HARK, action).unwrap_err();
            assert!(problem.to_string().contains(says), "{old}: {problem}");
        }
    }
}

#[test]
fn the_hook_command_quotes_a_path_for_the_shell_and_is_recognised_back() {
    assert_eq!(hook_command("/usr/bin/hark", Agent::Codex), "/usr/bin/hark hook codex");
    let spaced = "/Users/me/Application Support/Hark's/hark";
    let command = hook_command(spaced, Agent::ClaudeCode);
    assert_eq!(command, r"'/Users/me/Application Support/Hark'\''s/hark' hook claude-code");
    assert!(is_hark_hook(&command, Agent::ClaudeCode));
    assert!(!is_hark_hook(&command, Agent::Codex));
    let first = edit(FileKind::ClaudeSettings, None, spaced, Action::Setup).unwrap();
    let again = edit(FileKind::ClaudeSettings, Some(text(&first)), spaced, Action::Setup).unwrap();
    assert_eq!(again.outcome, Outcome::AlreadySetUp);

    for ours in [
        "hark hook codex",
        "/x/hark hook codex  ",
        r#""C:\Program Files\Hark\hark.exe" hook codex"#,
        r"C:\\Hark\\HARK.EXE hook codex",
        r"/a\ b/hark hook codex",
    ] {
        assert!(is_hark_hook(ours, Agent::Codex), "{ours}");
    }
    for theirs in [
        "/x/harkness hook codex",
        "echo hark hook codex",
        "/x/hark hook codex --verbose",
        "/x/hark hook claude-code",
        "'/x/hark hook codex",
        " hook codex",
        "/x/hark/ hook codex",
    ] {
        assert!(!is_hark_hook(theirs, Agent::Codex), "{theirs}");
    }
}

/// A Codex configuration with comments, other servers, other hooks and inline values.
const CODEX_CONFIG: &str = r#"# My Codex settings
model = "o3"  # the big one
approval_policy = "on-request"

[features]
web_search = true

# Servers I use
[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]   # keep stdio

[mcp_servers.docs.env]
TOKEN = "x"

# Check shell commands
[[hooks.PreToolUse]]
matcher = "shell"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "~/bin/check"

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "say done"

[profiles.fast]
model = "o4-mini"
"#;

/// The TOML as plain data, to compare two files' content whatever their layout.
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
    item(text.parse::<toml_edit::DocumentMut>().unwrap().as_item())
}

fn codex_hook(program: &str) -> Value {
    json!({"matcher": "request_user_input", "hooks": [
        {"type": "command", "command": format!("{program} hook codex"), "timeout": 3600}
    ]})
}

fn codex_server(program: &str) -> Value {
    json!({"command": program, "args": ["mcp"], "tool_timeout_sec": 3600, "default_tools_approval_mode": "approve",
           "env_vars": ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
                        "HARK_DATA_DIR"]})
}

/// Hark's `[mcp_servers.hark]` lines as setup writes them, after `command`.
const CODEX_SERVER_REST: &str = r#"args = ["mcp"]
tool_timeout_sec = 3600
default_tools_approval_mode = "approve"
env_vars = ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HARK_DATA_DIR"]
"#;

#[test]
fn codex_setup_keeps_comments_layout_and_other_entries() {
    let edit = setup(FileKind::CodexConfig, Some(CODEX_CONFIG));
    assert_eq!(edit.outcome, Outcome::Added);
    let new = text(&edit);
    let mut expected = toml_data(CODEX_CONFIG);
    expected["mcp_servers"]["hark"] = codex_server(HARK);
    expected["hooks"]["PreToolUse"].as_array_mut().unwrap().push(codex_hook(HARK));
    assert_eq!(toml_data(new), expected);
    // Every line of the original is still there, in its order.
    let mut lines = new.lines();
    for line in CODEX_CONFIG.lines() {
        assert!(lines.any(|l| l == line), "{line:?} is missing or out of order in:\n{new}");
    }
    // Hark's server sits with the other servers; its hook group follows the other PreToolUse group.
    let at = |s: &str| new.find(s).unwrap_or_else(|| panic!("{s} missing in\n{new}"));
    assert!(at("[mcp_servers.docs.env]") < at("[mcp_servers.hark]"), "{new}");
    assert!(at("[mcp_servers.hark]") < at("# Check shell commands"), "{new}");
    assert!(at("matcher = \"shell\"") < at("matcher = \"request_user_input\""), "{new}");
}

#[test]
fn codex_setup_twice_changes_nothing_and_undo_gives_back_the_file() {
    let dotted = "mcp_servers.docs.command = \"x\"\nhooks.Stop = [{ hooks = [{ type = \"command\", command = \"say\" }] }]\n\n[profiles.fast]\nmodel = \"m\"\n";
    for old in [CODEX_CONFIG, "", "model = \"o3\"\n", dotted] {
        let first = setup(FileKind::CodexConfig, Some(old));
        assert_eq!(first.outcome, Outcome::Added);
        let second = setup(FileKind::CodexConfig, Some(text(&first)));
        assert_eq!(second, Edit { outcome: Outcome::AlreadySetUp, text: None }, "{old}");
        let undone = undo(FileKind::CodexConfig, Some(text(&first)));
        assert_eq!(undone.outcome, Outcome::Removed);
        assert_eq!(toml_data(text(&undone)), toml_data(old));
        assert_eq!(text(&undone), old, "undo gives back the very text");
        assert_eq!(undo(FileKind::CodexConfig, Some(old)), Edit { outcome: Outcome::NothingToRemove, text: None });
    }
}

#[test]
fn codex_new_file_holds_just_harks_entries() {
    let edit = setup(FileKind::CodexConfig, None);
    assert_eq!(
        text(&edit),
        format!(
            r#"[mcp_servers.hark]
command = "/opt/hark/bin/hark"
{CODEX_SERVER_REST}
[[hooks.PreToolUse]]
matcher = "request_user_input"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/hark/bin/hark hook codex"
timeout = 3600
"#
        )
    );
    assert_eq!(undo(FileKind::CodexConfig, Some(text(&edit))).text.as_deref(), Some(""));
}

#[test]
fn codex_a_moved_binary_is_replaced_where_it_was_with_its_comments() {
    let old = r#"# Hark answers Codex's questions
[mcp_servers.hark]
command = "/old/place/hark"
args = ["mcp"]
tool_timeout_sec = 3600
default_tools_approval_mode = "approve"
env_vars = ["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HARK_DATA_DIR"]

[mcp_servers.other]
command = "other"

# Hark's hook
[[hooks.PreToolUse]]
matcher = "request_user_input"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/old/place/hark hook codex"
timeout = 3600

[[hooks.PreToolUse.hooks]]
type = "command"
command = "notify-send asked"
"#;
    let edit = setup(FileKind::CodexConfig, Some(old));
    assert_eq!(edit.outcome, Outcome::Updated);
    assert_eq!(text(&edit), old.replace("/old/place/hark", HARK));
}

#[test]
fn codex_inline_tables_get_inline_entries() {
    let old = r#"mcp_servers = { other = { command = "other" } }
hooks = { PreToolUse = [{ matcher = "shell", hooks = [{ type = "command", command = "check" }] }] }
"#;
    let edit = setup(FileKind::CodexConfig, Some(old));
    assert_eq!(edit.outcome, Outcome::Added);
    let mut expected = toml_data(old);
    expected["mcp_servers"]["hark"] = codex_server(HARK);
    expected["hooks"]["PreToolUse"].as_array_mut().unwrap().push(codex_hook(HARK));
    assert_eq!(toml_data(text(&edit)), expected);
    assert_eq!(setup(FileKind::CodexConfig, Some(text(&edit))).outcome, Outcome::AlreadySetUp);
    let undone = undo(FileKind::CodexConfig, Some(text(&edit)));
    assert_eq!(toml_data(text(&undone)), toml_data(old));
}

#[test]
fn codex_harks_hook_elsewhere_and_twice_is_gathered_into_one() {
    let old = r#"[[hooks.PreToolUse]]
matcher = "shell"
hooks = [{ type = "command", command = "hark hook codex" }, { type = "command", command = "check" }]

[[hooks.PreToolUse]]
matcher = "request_user_input"
hooks = [{ type = "command", command = "/a/hark hook codex" }, { type = "command", command = "/b/hark hook codex" }]
"#;
    let edit = setup(FileKind::CodexConfig, Some(old));
    assert_eq!(edit.outcome, Outcome::Updated);
    let data = toml_data(text(&edit));
    assert_eq!(
        data["hooks"]["PreToolUse"],
        json!([
            {"matcher": "shell", "hooks": [{"type": "command", "command": "check"}]},
            codex_hook(HARK),
        ])
    );
    assert_eq!(data["mcp_servers"]["hark"], codex_server(HARK));
}

#[test]
fn codex_setup_again_keeps_what_the_person_added_to_harks_entries() {
    let old = r#"[mcp_servers.hark]
command = "/old/place/hark"
args = ["mcp", "--blocking"]
tool_timeout_sec = 3600
enabled = false
startup_timeout_sec = 20
env = { HARK_DATA_DIR = "/srv/hark" }

[[hooks.PreToolUse]]
matcher = "request_user_input"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/old/place/hark hook codex"
timeout = 3600
status_message = "Asking in Hark"
"#;
    let edit = setup(FileKind::CodexConfig, Some(old));
    assert_eq!(edit.outcome, Outcome::Updated);
    // The program moved, and the keys Hark's entry gained since (Codex's approval of its tools and the
    // variables it passes on) are added after the person's own.
    let expected = old.replace("/old/place/hark", HARK).replace(
        "env = { HARK_DATA_DIR = \"/srv/hark\" }\n",
        "env = { HARK_DATA_DIR = \"/srv/hark\" }\ndefault_tools_approval_mode = \"approve\"\n\
         env_vars = [\"DISPLAY\", \"WAYLAND_DISPLAY\", \"XAUTHORITY\", \"DBUS_SESSION_BUS_ADDRESS\", \"XDG_RUNTIME_DIR\", \"HARK_DATA_DIR\"]\n",
    );
    assert_eq!(text(&edit), expected, "only the program moved; Hark's new keys added");
    assert_eq!(setup(FileKind::CodexConfig, Some(text(&edit))).outcome, Outcome::AlreadySetUp);

    let other = format!("[mcp_servers.hark]\ncommand = \"{HARK}\"\nargs = [\"serve\"]\ntool_timeout_sec = 3600\n");
    let edit = setup(FileKind::CodexConfig, Some(&other));
    assert_eq!(toml_data(text(&edit))["mcp_servers"]["hark"]["args"], json!(["mcp"]));
}

#[test]
fn bad_toml_files_are_refused() {
    let cases = [
        ("model = \"o3\"\n[mcp_servers.hark\n", "not valid TOML", "line 2"),
        ("mcp_servers = 3\n", "`mcp_servers` is an integer, where a table belongs", ""),
        ("hooks = \"none\"\n", "`hooks` is a string, where a table belongs", ""),
        ("[hooks]\nPreToolUse = 1\n", "`hooks.PreToolUse` is an integer, where an array of tables belongs", ""),
        ("[hooks.PreToolUse]\nmatcher = \"x\"\n", "`hooks.PreToolUse` is a table", ""),
        ("[hooks]\nPreToolUse = [\"x\"]\n", "`hooks.PreToolUse` is an array of values", ""),
    ];
    for (old, says, also) in cases {
        for action in [Action::Setup, Action::Undo] {
            let problem = edit(FileKind::CodexConfig, Some(old), HARK, action).unwrap_err();
            let message = problem.to_string();
            assert!(message.contains(says) && message.contains(also), "{old}: {message}");
            assert!(!message.contains('\n'), "one line: {message}");
        }
    }
}

// The files themselves.

fn claude_files(dir: &Path) -> Vec<(FileKind, PathBuf)> {
    locate_with(Agent::ClaudeCode, Some(dir), |_| None).unwrap()
}

fn backup(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}{BACKUP_SUFFIX}", path.display()))
}

#[test]
fn the_agents_files_are_found_where_they_look() {
    let home = Path::new("/home/me");
    let none = |_: &str| None;
    assert_eq!(
        locate_with(Agent::ClaudeCode, Some(home), none).unwrap(),
        [
            (FileKind::ClaudeSettings, home.join(".claude/settings.json")),
            (FileKind::ClaudeState, home.join(".claude.json"))
        ]
    );
    assert_eq!(
        locate_with(Agent::Codex, Some(home), none).unwrap(),
        [(FileKind::CodexConfig, home.join(".codex/config.toml"))]
    );
    let set = |name: &str| match name {
        CLAUDE_CONFIG_DIR_ENV => Some("/cfg/claude".into()),
        CODEX_HOME_ENV => Some("/cfg/codex".into()),
        _ => None,
    };
    assert_eq!(
        locate_with(Agent::ClaudeCode, None, set).unwrap(),
        [
            (FileKind::ClaudeSettings, PathBuf::from("/cfg/claude/settings.json")),
            (FileKind::ClaudeState, PathBuf::from("/cfg/claude/.claude.json"))
        ]
    );
    assert_eq!(
        locate_with(Agent::Codex, None, set).unwrap(),
        [(FileKind::CodexConfig, PathBuf::from("/cfg/codex/config.toml"))]
    );
    let empty = |_: &str| Some("".into());
    assert_eq!(locate_with(Agent::Codex, None, empty).unwrap_err().code(), "SETUP_NO_HOME");
}

#[test]
fn files_are_created_written_once_and_backed_up_when_they_change() {
    let tmp = tempfile::tempdir().unwrap();
    let files = claude_files(tmp.path());
    let (settings, state) = (&files[0].1, &files[1].1);
    std::fs::write(state, "{\"numStartups\": 1}\n").unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(state, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();

    let program = Path::new(HARK);
    let done = plan(Action::Setup, program, &files).unwrap();
    assert_eq!(done.iter().map(|p| p.outcome).collect::<Vec<_>>(), [Outcome::Added, Outcome::Added]);
    assert!(!settings.exists(), "planning writes nothing");
    apply(&done).unwrap();
    let (settings_text, state_text) = (std::fs::read(settings).unwrap(), std::fs::read(state).unwrap());
    assert!(!backup(settings).exists(), "a new file has nothing to back up");
    assert_eq!(std::fs::read(backup(state)).unwrap(), b"{\"numStartups\": 1}\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(settings), 0o600);
        assert_eq!(mode(&tmp.path().join(".claude")), 0o700);
        assert_eq!(mode(state), 0o640, "a replaced file keeps its permissions");
        assert_eq!(mode(&backup(state)), 0o640);
    }

    // Again: nothing is written, the backup stays the original.
    std::fs::write(backup(state), "marker").unwrap();
    let again = plan(Action::Setup, program, &files).unwrap();
    assert_eq!(again.iter().map(|p| p.outcome).collect::<Vec<_>>(), [Outcome::AlreadySetUp, Outcome::AlreadySetUp]);
    apply(&again).unwrap();
    assert_eq!(std::fs::read(settings).unwrap(), settings_text);
    assert_eq!(std::fs::read(state).unwrap(), state_text);
    assert_eq!(std::fs::read(backup(state)).unwrap(), b"marker");
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".hark-write-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Claude Code rewrites `.claude.json` often, also while setup runs: here another process replaces
/// it (as Claude Code does, through a rename) after setup read it and before setup renames its own.
#[cfg(unix)]
#[test]
fn an_agents_write_between_setups_read_and_its_rename_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let files = claude_files(tmp.path());
    let state = &files[1].1;
    std::fs::write(state, "{\n  \"numStartups\": 1\n}\n").unwrap();
    let planned = plan(Action::Setup, Path::new(HARK), &files).unwrap();

    let agents = "{\n  \"numStartups\": 2,\n  \"projects\": {\"/p\": {}}\n}\n";
    let wrote = std::process::Command::new("sh")
        .args(["-c", r#"printf %s "$1" > "$2.new" && mv "$2.new" "$2""#, "agent", agents])
        .arg(state)
        .status()
        .unwrap();
    assert!(wrote.success());

    apply(&planned).unwrap();
    let now = parsed(&std::fs::read_to_string(state).unwrap());
    assert_eq!(now["numStartups"], 2, "the agent's write stays: {now}");
    assert_eq!(now["projects"], json!({"/p": {}}));
    assert_eq!(now["mcpServers"]["hark"]["command"], HARK, "and Hark's entry is in it");
    assert_eq!(std::fs::read_to_string(backup(state)).unwrap(), agents, "the backup holds what was replaced");
}

/// A file the agent created after setup found none keeps what the agent wrote in it.
#[test]
fn a_file_the_agent_created_after_setups_read_is_merged_into() {
    let tmp = tempfile::tempdir().unwrap();
    let files = claude_files(tmp.path());
    let planned = plan(Action::Setup, Path::new(HARK), &files).unwrap();
    std::fs::write(&files[1].1, "{\"numStartups\": 1}").unwrap();
    apply(&planned).unwrap();
    let now = parsed(&std::fs::read_to_string(&files[1].1).unwrap());
    assert_eq!(now["numStartups"], 1);
    assert_eq!(now["mcpServers"]["hark"]["command"], HARK);
}

#[test]
fn one_bad_file_stops_the_run_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let files = claude_files(tmp.path());
    std::fs::create_dir(tmp.path().join(".claude")).unwrap();
    std::fs::write(&files[0].1, CLAUDE_SETTINGS).unwrap();
    std::fs::write(&files[1].1, "{\"mcpServers\": [] }").unwrap();
    let err = plan(Action::Setup, Path::new(HARK), &files).unwrap_err();
    assert_eq!(err.code(), "SETUP_WRONG_TYPE");
    assert!(err.to_string().contains(&files[1].1.display().to_string()), "{err}");
    assert_eq!(std::fs::read_to_string(&files[0].1).unwrap(), CLAUDE_SETTINGS);

    std::fs::write(&files[1].1, b"\xff\xfe{}").unwrap();
    assert_eq!(plan(Action::Setup, Path::new(HARK), &files).unwrap_err().code(), "SETUP_NOT_TEXT");
}

#[cfg(unix)]
#[test]
fn a_linked_settings_file_stays_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let dotfiles = tmp.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("claude.json"), "{}\n").unwrap();
    let files = claude_files(tmp.path());
    std::os::unix::fs::symlink(dotfiles.join("claude.json"), &files[1].1).unwrap();
    apply(&plan(Action::Setup, Path::new(HARK), &files).unwrap()).unwrap();
    assert!(std::fs::symlink_metadata(&files[1].1).unwrap().file_type().is_symlink());
    let linked = parsed(&std::fs::read_to_string(dotfiles.join("claude.json")).unwrap());
    assert_eq!(linked["mcpServers"]["hark"]["command"], HARK);
}

#[test]
fn errors_cross_as_setup_errors() {
    let err = SetupError::Refused { path: "/x/settings.json".into(), problem: Problem::NotJson("eof".into()) };
    assert_eq!(
        serde_json::to_value(err.boundary()).unwrap(),
        json!({"name": "SetupError", "code": "SETUP_INVALID_JSON", "message":
            "/x/settings.json: it is not valid JSON: eof. Nothing was changed; fix the file (or move it away) and run this again."})
    );
}

// What the desktop app registers, and how it tells whether that is done.

/// An executable file at `path` (a stand-in for a `hark` binary).
fn program_at(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "#!/bin/sh\n").unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

#[test]
fn the_desktop_registers_the_hark_beside_it_else_the_one_on_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let name = format!("hark{}", std::env::consts::EXE_SUFFIX);
    let app = tmp.path().join("app");
    let desktop = app.join(format!("hark-desktop{}", std::env::consts::EXE_SUFFIX));
    program_at(&desktop);
    let (first, second) = (tmp.path().join("first"), tmp.path().join("second"));
    program_at(&second.join(&name));
    let path = std::env::join_paths([Path::new("relative"), &first, &second]).unwrap();

    // None beside the app: the first on the PATH that is there, skipping a missing folder.
    assert_eq!(find_program(Some(&desktop), Some(&path)).unwrap(), second.join(&name));

    // One beside the app wins over the PATH's.
    program_at(&app.join(&name));
    assert_eq!(find_program(Some(&desktop), Some(&path)).unwrap(), app.join(&name));

    // A relative PATH entry is never taken: the agent would run it from its own folder.
    let relative = tempfile::Builder::new().prefix(".hark-test-").tempdir_in(std::env::current_dir().unwrap()).unwrap();
    program_at(&relative.path().join(&name));
    let relative_name = relative.path().file_name().unwrap();
    assert!(find_program(None, Some(relative_name)).is_err());

    // A file that cannot run is passed over, as a shell would.
    #[cfg(unix)]
    {
        program_at(&first.join(&name));
        std::fs::set_permissions(first.join(&name), std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        assert_eq!(find_program(None, Some(&path)).unwrap(), second.join(&name));
    }

    // None anywhere: a coded error that says where it looked, and that nothing changed.
    let err = find_program(Some(&tmp.path().join("elsewhere/hark-desktop")), Some(OsStr::new(""))).unwrap_err();
    assert_eq!(err.code(), "SETUP_NO_HARK");
    let message = err.to_string();
    assert!(message.contains("not installed beside Hark"), "{message}");
    assert!(message.contains(&tmp.path().join("elsewhere").display().to_string()), "{message}");
    assert!(message.contains("Nothing was changed"), "{message}");
}

#[test]
fn a_setup_plan_tells_whether_each_file_is_set_up_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let files = claude_files(tmp.path());
    let program = Path::new(HARK);
    let check = |program: &Path| plan(Action::Setup, program, &files).unwrap();
    let outcomes = |plan: &[Planned]| plan.iter().map(|p| p.outcome).collect::<Vec<_>>();

    let fresh = check(program);
    assert_eq!(outcomes(&fresh), [Outcome::Added, Outcome::Added]);
    assert!(!is_set_up(&fresh));
    assert!(!files[0].1.exists() && !files[1].1.exists(), "checking writes nothing");

    // Half set up: the hook is there, the server is not.
    apply(&plan(Action::Setup, program, &files[..1]).unwrap()).unwrap();
    let half = check(program);
    assert_eq!(outcomes(&half), [Outcome::AlreadySetUp, Outcome::Added]);
    assert!(!is_set_up(&half));

    apply(&check(program)).unwrap();
    let done = check(program);
    assert_eq!(outcomes(&done), [Outcome::AlreadySetUp, Outcome::AlreadySetUp]);
    assert!(is_set_up(&done));

    // Another hark (the app moved): there, but not as a setup from here would write it.
    let moved = check(Path::new("/elsewhere/hark"));
    assert_eq!(outcomes(&moved), [Outcome::Updated, Outcome::Updated]);
    assert!(!is_set_up(&moved));
}

#[test]
fn the_window_names_agents_actions_and_outcomes_as_the_command_line_does() {
    for agent in Agent::ALL {
        assert_eq!(serde_json::to_value(agent).unwrap(), json!(agent.name()));
        assert_eq!(serde_json::from_value::<Agent>(json!(agent.name())).unwrap(), agent);
    }
    assert_eq!(serde_json::from_value::<Action>(json!("undo")).unwrap(), Action::Undo);
    assert_eq!(serde_json::to_value(Outcome::AlreadySetUp).unwrap(), json!("already_set_up"));
    assert_eq!(serde_json::to_value(Outcome::NothingToRemove).unwrap(), json!("nothing_to_remove"));
    assert!(Agent::Codex.next_step(false).is_some_and(|hint| hint.contains("/hooks")));
    assert_eq!(Agent::ClaudeCode.next_step(false), None);
}

#[test]
fn claude_approvals_are_added_only_when_asked_and_undo_takes_them_out_with_the_rest() {
    let set_up = text(&setup(FileKind::ClaudeSettings, Some(CLAUDE_SETTINGS))).to_string();
    assert!(parsed(&set_up)["hooks"].get("PermissionRequest").is_none(), "not without --approvals: {set_up}");
    let on = edit_approvals(FileKind::ClaudeSettings, Some(&set_up), HARK, true).unwrap();
    assert_eq!(on.outcome, Outcome::Added);
    let with = parsed(text(&on));
    assert!(claude::APPROVAL_EVENTS.contains(&"Elicitation"), "MCP forms come to Hark with the approvals");
    for event in claude::APPROVAL_EVENTS {
        let timeout = if matches!(event, "PermissionRequest" | "Elicitation") { 3600 } else { 10 };
        let handler = json!({ "type": "command", "command": format!("{HARK} hook claude-code"), "timeout": timeout });
        assert_eq!(with["hooks"][event], json!([{ "hooks": [handler] }]), "{event}: {with:#}");
    }
    // The person's hooks and the question hook stay where they were.
    assert_eq!(with["hooks"]["PreToolUse"], parsed(&set_up)["hooks"]["PreToolUse"]);
    assert_eq!(with["hooks"]["Stop"], parsed(CLAUDE_SETTINGS)["hooks"]["Stop"]);
    let again = edit_approvals(FileKind::ClaudeSettings, Some(text(&on)), HARK, true).unwrap();
    assert_eq!((again.outcome, again.text), (Outcome::AlreadySetUp, None));
    let off = edit_approvals(FileKind::ClaudeSettings, Some(text(&on)), HARK, false).unwrap();
    assert_eq!(parsed(text(&off)), parsed(&set_up), "only the approvals' hooks go");
    // Undo takes every entry of Hark's out, the approvals' too, back to the person's file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, text(&on)).unwrap();
    let undone = plan(Action::Undo, Path::new(HARK), &[(FileKind::ClaudeSettings, path)]).unwrap();
    assert_eq!(undone[0].outcome, Outcome::Removed);
    assert_eq!(parsed(undone[0].new.as_deref().unwrap()), parsed(CLAUDE_SETTINGS));
}

#[test]
fn codex_approvals_add_one_permission_request_group_and_leave_the_others_in_place() {
    let set_up = text(&setup(FileKind::CodexConfig, None)).to_string();
    let on = edit_approvals(FileKind::CodexConfig, Some(&set_up), HARK, true).unwrap();
    assert_eq!(on.outcome, Outcome::Added);
    let new = text(&on);
    assert!(new.starts_with(&set_up), "appended after what was there:\n{new}");
    let doc: toml_edit::DocumentMut = new.parse().unwrap();
    let groups = doc["hooks"]["PermissionRequest"].as_array_of_tables().expect("[[hooks.PermissionRequest]]");
    assert_eq!(groups.len(), 1);
    let group = groups.get(0).unwrap();
    assert!(group.get("matcher").is_none(), "every tool: {new}");
    assert_eq!(group["hooks"][0]["command"].as_str(), Some(format!("{HARK} hook codex").as_str()));
    let again = edit_approvals(FileKind::CodexConfig, Some(new), HARK, true).unwrap();
    assert_eq!(again.outcome, Outcome::AlreadySetUp);
    let off = edit_approvals(FileKind::CodexConfig, Some(new), HARK, false).unwrap();
    assert_eq!(text(&off), set_up);
}

#[test]
fn codex_undo_keeps_the_persons_later_hook_groups_in_their_places() {
    // Codex keeps its trust in a hook by its place: Hark's group goes only from the end of the list;
    // before the person's groups it stays as an inert group without handlers.
    let old = format!(
        "[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\n\
         command = \"{HARK} hook codex\"\ntimeout = 3600\n\n[[hooks.PreToolUse]]\nmatcher = \"shell\"\n\n\
         [[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"check\"\n"
    );
    let undone = undo(FileKind::CodexConfig, Some(&old));
    assert_eq!(undone.outcome, Outcome::Removed);
    let data = toml_data(text(&undone));
    assert_eq!(
        data["hooks"]["PreToolUse"],
        json!([
            {"matcher": "request_user_input", "hooks": []},
            {"matcher": "shell", "hooks": [{"type": "command", "command": "check"}]},
        ]),
        "{}",
        text(&undone)
    );
    // Nothing of Hark's is left to remove; set up again, its handler goes back into its place.
    assert_eq!(undo(FileKind::CodexConfig, Some(text(&undone))).outcome, Outcome::NothingToRemove);
    let again = toml_data(text(&setup(FileKind::CodexConfig, Some(text(&undone)))));
    assert_eq!(again["hooks"]["PreToolUse"][1]["matcher"], "shell");
}
