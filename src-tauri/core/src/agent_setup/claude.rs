//! Claude Code's files. `settings.json` holds hooks as `hooks.<event>` lists of matcher groups, each
//! `{"matcher": ..., "hooks": [handlers]}`; `.claude.json` holds the user-scope MCP servers under
//! `mcpServers` (with much of Claude Code's own state, which is left as it is).

use super::json::{Json, Object, Style};
use super::{hook_command, is_hark_hook, Action, Agent, Edit, Outcome, Problem, HOOK_TIMEOUT_SECS, MCP_SERVER_NAME};

/// One of Hark's hooks in Claude Code: the event, the matcher of its group (`None`: the event takes
/// no matcher) and how long Claude Code lets the handler run.
struct HarkHook {
    event: &'static str,
    matcher: Option<&'static str>,
    timeout_secs: u64,
}

/// How long the prompt hook may take: it reads Hark once and answers at once, and Claude Code runs
/// it before every prompt, so it must never hold one up for long.
const PROMPT_HOOK_TIMEOUT_SECS: u64 = 10;

/// Hark's hooks: on the question tool, which asks the person in Hark; and on each prompt, where a
/// late answer that came back through an MCP task is confirmed as the person's own (`hark hook`
/// explains why that takes a hook).
const HOOKS: [HarkHook; 2] = [
    HarkHook { event: "PreToolUse", matcher: Some("AskUserQuestion"), timeout_secs: HOOK_TIMEOUT_SECS },
    HarkHook { event: "UserPromptSubmit", matcher: None, timeout_secs: PROMPT_HOOK_TIMEOUT_SECS },
];

/// Hark's hooks, and the permission rule that lets Claude Code call Hark's MCP tools without
/// asking first.
pub(super) fn settings(old: Option<&str>, program: &str, action: Action) -> Result<Edit, Problem> {
    let before = parse(old)?;
    let mut doc = before.clone();
    let root = root(&mut doc)?;
    // Every part is checked before any is changed, so a refused file is refused whole.
    let allowed = allow_list(root)?.is_some();
    check_hook_lists(root)?;
    let had_hark = match action {
        Action::Setup => {
            let hooks = match root.entry("hooks", Json::Object(Object::default())) {
                Json::Object(hooks) => hooks,
                other => return Err(wrong("hooks", "an object", other)),
            };
            let mut had_hook = false;
            for hook in &HOOKS {
                let groups = match hooks.entry(hook.event, Json::Array(Vec::new())) {
                    Json::Array(groups) => groups,
                    other => return Err(wrong(&format!("hooks.{}", hook.event), "an array", other)),
                };
                had_hook |= set_hook(groups, &hook_command(program, Agent::ClaudeCode), hook);
            }
            if !allowed {
                let permissions = match root.entry("permissions", Json::Object(Object::default())) {
                    Json::Object(permissions) => permissions,
                    other => return Err(wrong("permissions", "an object", other)),
                };
                match permissions.entry("allow", Json::Array(Vec::new())) {
                    Json::Array(rules) => rules.push(Json::str(MCP_RULE)),
                    other => return Err(wrong("permissions.allow", "an array", other)),
                }
            }
            had_hook || allowed
        }
        Action::Undo => {
            let had_hook = remove_hook(root)?;
            remove_rule(root);
            had_hook || allowed
        }
    };
    Ok(finish(action, had_hark, &before, &doc, old))
}

/// The permission rule for every tool of Hark's MCP server. Without it Claude Code asks the person
/// before each call (and in print mode, `claude -p`, refuses the call: "Claude requested permissions
/// to use mcp__hark__ask_user_question, but you haven't granted it yet").
const MCP_RULE: &str = "mcp__hark";

/// Whether `permissions.allow` holds Hark's rule (`Some` at its index), checking the shapes on the way.
fn allow_list(root: &Object) -> Result<Option<usize>, Problem> {
    let permissions = match root.get("permissions") {
        None => return Ok(None),
        Some(Json::Object(permissions)) => permissions,
        Some(other) => return Err(wrong("permissions", "an object", other)),
    };
    match permissions.get("allow") {
        None => Ok(None),
        Some(Json::Array(rules)) => Ok(rules.iter().position(|rule| rule.as_str() == Some(MCP_RULE))),
        Some(other) => Err(wrong("permissions.allow", "an array", other)),
    }
}

/// Takes Hark's rule out of `permissions.allow`, then `allow` and `permissions` when that left them
/// empty. The shapes were checked by [`allow_list`].
fn remove_rule(root: &mut Object) {
    let Some(permissions) = root.get_mut("permissions").and_then(Json::as_object_mut) else { return };
    let Some(rules) = permissions.get_mut("allow").and_then(Json::as_array_mut) else { return };
    let before = rules.len();
    rules.retain(|rule| rule.as_str() != Some(MCP_RULE));
    if rules.len() == before || !rules.is_empty() {
        return;
    }
    permissions.remove("allow");
    if permissions.is_empty() {
        root.remove("permissions");
    }
}

/// Hark's MCP server, in user scope: every project sees it.
pub(super) fn state(old: Option<&str>, program: &str, action: Action) -> Result<Edit, Problem> {
    let before = parse(old)?;
    let mut doc = before.clone();
    let root = root(&mut doc)?;
    let had_hark = match action {
        Action::Setup => {
            let servers = match root.entry("mcpServers", Json::Object(Object::default())) {
                Json::Object(servers) => servers,
                other => return Err(wrong("mcpServers", "an object", other)),
            };
            match servers.get_mut(MCP_SERVER_NAME) {
                Some(entry) => {
                    keep_additions(entry, mcp_server(program));
                    true
                }
                None => {
                    servers.insert(MCP_SERVER_NAME, Json::Object(mcp_server(program)));
                    false
                }
            }
        }
        Action::Undo => match root.get_mut("mcpServers") {
            None => false,
            Some(Json::Object(servers)) => servers.remove(MCP_SERVER_NAME).is_some(),
            Some(other) => return Err(wrong("mcpServers", "an object", other)),
        },
    };
    Ok(finish(action, had_hark, &before, &doc, old))
}

fn mcp_server(program: &str) -> Object {
    Object::from_pairs(vec![
        ("type", Json::str("stdio")),
        ("command", Json::str(program)),
        ("args", Json::Array(vec![Json::str("mcp")])),
        ("env", Json::Object(Object::default())),
    ])
}

fn handler(command: &str, timeout_secs: u64) -> Object {
    Object::from_pairs(vec![
        ("type", Json::str("command")),
        ("command", Json::str(command)),
        ("timeout", Json::Number(timeout_secs.into())),
    ])
}

/// Brings an entry of Hark's that is already there up to `ours`, keeping what the person added to
/// it: Hark owns the values it writes, except that arguments after its own and the content of `env`
/// are the person's, as is every key it does not write. An entry that is not an object becomes ours.
fn keep_additions(entry: &mut Json, ours: Object) {
    let Json::Object(entry) = entry else {
        *entry = Json::Object(ours);
        return;
    };
    for (key, value) in ours.into_pairs() {
        let kept = match (key.as_str(), entry.get(&key), &value) {
            ("args", Some(Json::Array(have)), Json::Array(want)) => have.starts_with(want),
            ("env", Some(Json::Object(_)), _) => true,
            (_, have, _) => have == Some(&value),
        };
        if !kept {
            entry.insert(&key, value);
        }
    }
}

fn is_ours(handler: &Json) -> bool {
    let command = handler.as_object().and_then(|h| h.get("command")).and_then(Json::as_str);
    command.is_some_and(|c| is_hark_hook(c, Agent::ClaudeCode))
}

fn handlers_mut(group: &mut Json) -> Option<&mut Vec<Json>> {
    group.as_object_mut()?.get_mut("hooks")?.as_array_mut()
}

/// Leaves exactly one Hark handler, `command`'s, in a group with `hook`'s matcher: the first Hark
/// handler already in such a group is replaced where it is, any other is removed (with a group that
/// removal empties), and without one a new group is added at the end. Returns whether any Hark
/// handler was there.
fn set_hook(groups: &mut Vec<Json>, command: &str, hook: &HarkHook) -> bool {
    let matches_tool = |group: &Json| {
        let matcher = group.as_object().and_then(|g| g.get("matcher")).and_then(Json::as_str);
        match hook.matcher {
            Some(tool) => matcher == Some(tool),
            // Claude Code reads a missing, empty or "*" matcher as "every time".
            None => matches!(matcher, None | Some("") | Some("*")),
        }
    };
    let mut keep = None;
    for (g, group) in groups.iter_mut().enumerate() {
        let right = matches_tool(group);
        if let (true, Some(handlers)) = (right, handlers_mut(group)) {
            if let Some(h) = handlers.iter().position(is_ours) {
                keep = Some((g, h));
                break;
            }
        }
    }
    let had_hark = remove_handlers(groups, keep);
    let ours = handler(command, hook.timeout_secs);
    match keep.and_then(|(g, h)| groups.get_mut(g).and_then(handlers_mut).and_then(|hs| hs.get_mut(h))) {
        Some(slot) => keep_additions(slot, ours),
        None => {
            let mut group = Vec::new();
            if let Some(tool) = hook.matcher {
                group.push(("matcher", Json::str(tool)));
            }
            group.push(("hooks", Json::Array(vec![Json::Object(ours)])));
            groups.push(Json::Object(Object::from_pairs(group)));
        }
    }
    had_hark
}

/// Removes every Hark handler but the one at `keep` (group, handler), and each group this leaves
/// without handlers. Returns whether there was any Hark handler, `keep`'s included.
fn remove_handlers(groups: &mut Vec<Json>, keep: Option<(usize, usize)>) -> bool {
    let mut found = false;
    let mut g = 0;
    groups.retain_mut(|group| {
        let this = g;
        g += 1;
        let Some(handlers) = handlers_mut(group) else {
            return true;
        };
        let before = handlers.len();
        let mut h = 0;
        handlers.retain(|handler| {
            let at = (this, h);
            h += 1;
            let ours = is_ours(handler);
            found |= ours;
            !ours || keep == Some(at)
        });
        !(handlers.is_empty() && before > 0)
    });
    found
}

/// Checks that `hooks` and the lists of Hark's events have the shapes Claude Code reads.
fn check_hook_lists(root: &Object) -> Result<(), Problem> {
    let hooks = match root.get("hooks") {
        None => return Ok(()),
        Some(Json::Object(hooks)) => hooks,
        Some(other) => return Err(wrong("hooks", "an object", other)),
    };
    for hook in &HOOKS {
        match hooks.get(hook.event) {
            None | Some(Json::Array(_)) => {}
            Some(other) => return Err(wrong(&format!("hooks.{}", hook.event), "an array", other)),
        }
    }
    Ok(())
}

/// Takes Hark's handlers out of each of its events, then an event and `hooks` when that left them
/// empty. The shapes were checked by [`check_hook_lists`].
fn remove_hook(root: &mut Object) -> Result<bool, Problem> {
    let Some(hooks) = root.get_mut("hooks").and_then(Json::as_object_mut) else {
        return Ok(false);
    };
    let mut found = false;
    for hook in &HOOKS {
        let Some(groups) = hooks.get_mut(hook.event).and_then(Json::as_array_mut) else { continue };
        if !remove_handlers(groups, None) {
            continue;
        }
        found = true;
        if groups.is_empty() {
            hooks.remove(hook.event);
        }
    }
    if found && hooks.is_empty() {
        root.remove("hooks");
    }
    Ok(found)
}

fn parse(old: Option<&str>) -> Result<Json, Problem> {
    Json::parse(old.unwrap_or_default()).map_err(|e| Problem::NotJson(e.to_string()))
}

fn root(doc: &mut Json) -> Result<&mut Object, Problem> {
    match doc {
        Json::Object(root) => Ok(root),
        other => Err(wrong("", "an object", other)),
    }
}

fn wrong(key: &str, expected: &'static str, found: &Json) -> Problem {
    Problem::WrongType { key: key.to_string(), expected, found: found.kind() }
}

/// The file's new text when the merge changed it, laid out as the file was.
fn finish(action: Action, had_hark: bool, before: &Json, after: &Json, old: Option<&str>) -> Edit {
    let changed = before != after;
    Edit { outcome: Outcome::of(action, had_hark, changed), text: changed.then(|| after.print(&Style::of(old))) }
}

/// The events Hark's approvals hook on: the permission request itself, the reports that a tool
/// call ran or was refused, which end the approval left waiting when the person answered in Claude
/// Code's own prompt, and an MCP server's form (`Elicitation`), which waits for the person too.
pub(super) const APPROVAL_EVENTS: [&str; 5] =
    ["PermissionRequest", "PostToolUse", "PostToolUseFailure", "PermissionDenied", "Elicitation"];

/// How long the reports may take: they only tell the running Hark, and Claude Code runs them after
/// every tool call.
const REPORT_HOOK_TIMEOUT_SECS: u64 = 10;

/// The approvals' hook on `event`, for every tool: the permission request and the form wait for the
/// person (their own budget ends them well before this timeout); the reports return at once.
fn approval_hook(event: &'static str) -> HarkHook {
    let waits = matches!(event, "PermissionRequest" | "Elicitation");
    let timeout_secs = if waits { HOOK_TIMEOUT_SECS } else { REPORT_HOOK_TIMEOUT_SECS };
    HarkHook { event, matcher: None, timeout_secs }
}

/// Hark's hooks on [`APPROVAL_EVENTS`], for every tool (no matcher), added (`on`) or taken out.
/// The question hook and the MCP rule are [`settings`]'s, and stay as they are.
pub(super) fn approvals(old: Option<&str>, program: &str, on: bool) -> Result<Edit, Problem> {
    let before = parse(old)?;
    let mut doc = before.clone();
    let root = root(&mut doc)?;
    let command = hook_command(program, Agent::ClaudeCode);
    let mut had_hark = false;
    if on {
        let hooks = match root.entry("hooks", Json::Object(Object::default())) {
            Json::Object(hooks) => hooks,
            other => return Err(wrong("hooks", "an object", other)),
        };
        for event in APPROVAL_EVENTS {
            match hooks.get(event) {
                None | Some(Json::Array(_)) => {}
                Some(other) => return Err(wrong(&format!("hooks.{event}"), "an array", other)),
            }
        }
        for event in APPROVAL_EVENTS {
            if let Json::Array(groups) = hooks.entry(event, Json::Array(Vec::new())) {
                had_hark |= set_hook(groups, &command, &approval_hook(event));
            }
        }
    } else {
        let hooks = match root.get_mut("hooks") {
            None => return Ok(finish(Action::Undo, false, &before, &doc, old)),
            Some(Json::Object(hooks)) => hooks,
            Some(other) => return Err(wrong("hooks", "an object", other)),
        };
        for event in APPROVAL_EVENTS {
            let groups = match hooks.get_mut(event) {
                None => continue,
                Some(Json::Array(groups)) => groups,
                Some(other) => return Err(wrong(&format!("hooks.{event}"), "an array", other)),
            };
            had_hark |= remove_handlers(groups, None);
            if groups.is_empty() {
                hooks.remove(event);
            }
        }
        if hooks.is_empty() {
            root.remove("hooks");
        }
    }
    let action = if on { Action::Setup } else { Action::Undo };
    Ok(finish(action, had_hark, &before, &doc, old))
}
