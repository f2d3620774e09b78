//! An outside agent's permission request ("may I run `npm publish`?") as a Hark question: what the
//! agent will do, rendered for a person from the tool's input; the fixed answers (Allow once, Always
//! allow where the agent offered a rule, Deny with an optional reason); and the one function that
//! says whether an answer allows. Everything else that ends an approval (its time running out, the
//! agent going away, a malformed or mismatched answer) allows nothing.
//!
//! The tool's input is the model's text and the suggestion the agent's: both are made plain text
//! here (no control or reordering characters) and bounded, and never passed on as markup.

use serde_json::Value;

use super::types::{Answer, AnswerBatch, Question, QuestionOption};

/// The id of an approval's one question, echoed in its answer.
pub const APPROVAL_QUESTION_ID: &str = "approval";
pub const ALLOW_ONCE_LABEL: &str = "Allow once";
pub const ALWAYS_ALLOW_LABEL: &str = "Always allow";
pub const DENY_LABEL: &str = "Deny";
/// The name an approval is recorded under in its session's log, as a call with its result.
pub const APPROVAL_TOOL_NAME: &str = "permission_request";
/// How every approval's call id begins. Approvals get their ids from the host alone (a client
/// choosing its own call id cannot take this prefix), so the id says the call was an approval.
pub const APPROVAL_CALL_PREFIX: &str = "approval-";

/// The longest detail (command, diff, field list) shown, in characters.
pub const MAX_DETAIL_CHARS: usize = 4000;
/// The longest one-line summary in the question, in characters.
const MAX_SUMMARY_CHARS: usize = 200;

/// What the person decided about an approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalVerdict {
    AllowOnce,
    /// Allow, and keep the rule the agent offered so it does not ask again.
    AlwaysAllow,
    /// Not allowed, with what the person typed, if anything: the model reads it.
    Deny {
        reason: Option<String>,
    },
}

impl ApprovalVerdict {
    /// The verdict an answer batch gives. The only way to an allow: exactly one of the allow labels
    /// chosen and nothing typed, and "Always allow" only when the approval offered it. Anything
    /// else (a skip, typed text, several labels, an unknown label, no answer) denies.
    pub fn of(batch: &AnswerBatch, always_offered: bool) -> ApprovalVerdict {
        match batch.get(APPROVAL_QUESTION_ID) {
            Some(Answer { selected, custom: None, .. }) if selected.len() == 1 => match selected[0].as_str() {
                ALLOW_ONCE_LABEL => ApprovalVerdict::AllowOnce,
                ALWAYS_ALLOW_LABEL if always_offered => ApprovalVerdict::AlwaysAllow,
                _ => ApprovalVerdict::Deny { reason: None },
            },
            Some(Answer { custom, .. }) => ApprovalVerdict::Deny {
                reason: custom.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(Into::into),
            },
            None => ApprovalVerdict::Deny { reason: None },
        }
    }

    pub fn allows(&self) -> bool {
        matches!(self, ApprovalVerdict::AllowOnce | ApprovalVerdict::AlwaysAllow)
    }

    /// The batch that gives this verdict, as a surface sends it.
    pub fn batch(&self) -> AnswerBatch {
        let (selected, custom) = match self {
            ApprovalVerdict::AllowOnce => (vec![ALLOW_ONCE_LABEL.to_string()], None),
            ApprovalVerdict::AlwaysAllow => (vec![ALWAYS_ALLOW_LABEL.to_string()], None),
            ApprovalVerdict::Deny { reason: None } => (vec![DENY_LABEL.to_string()], None),
            ApprovalVerdict::Deny { reason: Some(reason) } => (Vec::new(), Some(reason.clone())),
        };
        AnswerBatch { answers: vec![Answer { id: APPROVAL_QUESTION_ID.into(), selected, custom }] }
    }

    /// How the approval's log entry records it.
    pub fn text(&self) -> String {
        match self {
            ApprovalVerdict::AllowOnce => "allowed once".into(),
            ApprovalVerdict::AlwaysAllow => "always allowed".into(),
            ApprovalVerdict::Deny { reason: None } => "denied".into(),
            ApprovalVerdict::Deny { reason: Some(reason) } => format!("denied: {reason}"),
        }
    }
}

/// A permission request as a person reads it: which tool, a one-line summary of what it will do,
/// and the detail (the command; the file and the diff; the URL; other tools' fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub tool: String,
    pub summary: String,
    pub detail: String,
}

/// Renders a tool call's input for a person. Known tools (Claude Code's and Codex's shell, file
/// edits and fetches) get their own shape; any other shows its name and its fields as `key: value`
/// lines, never as JSON.
pub fn render_tool_call(tool: &str, input: &Value) -> Rendered {
    let tool_name = one_line(tool, 80);
    let tool_name = if tool_name.is_empty() { "a tool".to_string() } else { tool_name };
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(plain_lines);
    let (summary, detail) = match tool {
        "Bash" | "shell" | "local_shell" | "exec_command" | "container.exec" => {
            let command = match input.get("command").or_else(|| input.get("cmd")) {
                Some(Value::String(c)) => plain_lines(c),
                Some(Value::Array(words)) => plain_lines(
                    &words
                        .iter()
                        .map(|w| w.as_str().map_or_else(|| w.to_string(), shell_word))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => String::new(),
            };
            let mut detail = format!("$ {command}");
            if let Some(why) = text("description").filter(|d| !d.trim().is_empty()) {
                detail = format!("{why}\n{detail}");
            }
            (format!("run `{}`", one_line(&command, MAX_SUMMARY_CHARS - 10)), detail)
        }
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            let file = text("file_path").or_else(|| text("notebook_path")).unwrap_or_default();
            let mut diff = String::new();
            match tool {
                "Write" => diff.push_str(&prefixed("+", &text("content").unwrap_or_default())),
                "MultiEdit" => {
                    for edit in input.get("edits").and_then(Value::as_array).into_iter().flatten() {
                        let side = |k: &str| edit.get(k).and_then(Value::as_str).map(plain_lines).unwrap_or_default();
                        push_hunk(&mut diff, &side("old_string"), &side("new_string"));
                    }
                }
                "NotebookEdit" => diff.push_str(&prefixed("+", &text("new_source").unwrap_or_default())),
                _ => push_hunk(
                    &mut diff,
                    &text("old_string").unwrap_or_default(),
                    &text("new_string").unwrap_or_default(),
                ),
            }
            let verb = if tool == "Write" { "write" } else { "edit" };
            (format!("{verb} {}", one_line(&file, MAX_SUMMARY_CHARS - 10)), format!("{file}\n{diff}"))
        }
        "WebFetch" => {
            let url = text("url").unwrap_or_default();
            let mut detail = url.clone();
            if let Some(prompt) = text("prompt").filter(|p| !p.trim().is_empty()) {
                detail.push_str(&format!("\n{prompt}"));
            }
            (format!("fetch {}", one_line(&url, MAX_SUMMARY_CHARS - 10)), detail)
        }
        _ => (format!("use {tool_name}"), fields(input)),
    };
    Rendered { tool: tool_name, summary, detail: bounded(detail.trim_end(), MAX_DETAIL_CHARS) }
}

/// A shell word as a person would type it: quoted when it holds spaces or quotes.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || "'\"\\$`".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn prefixed(mark: &str, text: &str) -> String {
    text.lines().map(|l| format!("{mark} {l}")).collect::<Vec<_>>().join("\n")
}

fn push_hunk(diff: &mut String, old: &str, new: &str) {
    if !diff.is_empty() {
        diff.push_str("\n…\n");
    }
    let old = prefixed("-", old);
    let new = prefixed("+", new);
    diff.push_str(&[old, new].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n"));
}

/// An unknown tool's input as `key: value` lines: strings as they are, nested values flattened with
/// dotted keys, lists joined with ", ".
fn fields(input: &Value) -> String {
    let mut lines = Vec::new();
    flatten("", input, &mut lines);
    lines.join("\n")
}

fn flatten(key: &str, value: &Value, lines: &mut Vec<String>) {
    let scalar = |v: &Value| match v {
        Value::String(s) => plain_lines(s),
        Value::Null => "none".into(),
        other => other.to_string(),
    };
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                let k = plain_lines(k);
                let full = if key.is_empty() { k } else { format!("{key}.{k}") };
                flatten(&full, v, lines);
            }
        }
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            let joined = items.iter().map(scalar).collect::<Vec<_>>().join(", ");
            lines.push(format!("{}: {joined}", if key.is_empty() { "input" } else { key }));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{key}[{i}]"), item, lines);
            }
        }
        Value::Object(_) if key.is_empty() => {}
        other => lines.push(format!("{}: {}", if key.is_empty() { "input" } else { key }, scalar(other))),
    }
}

/// A rule the agent offered to keep allowing (Claude Code's `permission_suggestions`), in words:
/// "always allow `Bash(npm run test:*)` in this project". `None` when none of them can be worded,
/// and then "Always allow" is not offered.
pub fn word_suggestions(suggestions: &Value) -> Option<String> {
    let worded: Vec<String> = suggestions.as_array()?.iter().filter_map(word_suggestion).collect();
    (!worded.is_empty()).then(|| bounded(&worded.join("; "), 400))
}

/// The suggestions [`word_suggestions`] put in words, as the agent sent them: what "Always allow"
/// gives back to the agent, so the person grants exactly what they read.
pub fn kept_suggestions(suggestions: &Value) -> Value {
    let kept = suggestions.as_array().into_iter().flatten().filter(|s| word_suggestion(s).is_some()).cloned();
    Value::Array(kept.collect())
}

fn word_suggestion(s: &Value) -> Option<String> {
    let place = match s.get("destination").and_then(Value::as_str) {
        Some("localSettings") | Some("projectSettings") => "in this project",
        Some("userSettings") => "in every project",
        Some("session") | Some("cliArg") => "for this session",
        _ => "from now on",
    };
    match s.get("type").and_then(Value::as_str)? {
        "addRules" if s.get("behavior").and_then(Value::as_str) == Some("allow") => {
            let rules: Vec<String> = s
                .get("rules")?
                .as_array()?
                .iter()
                .filter_map(|r| {
                    let tool = one_line(r.get("toolName")?.as_str()?, 80);
                    Some(match r.get("ruleContent").and_then(Value::as_str) {
                        Some(content) => format!("`{tool}({})`", one_line(content, 200)),
                        None => format!("`{tool}`"),
                    })
                })
                .collect();
            (!rules.is_empty()).then(|| format!("always allow {} {place}", rules.join(", ")))
        }
        "setMode" => {
            let mode = s.get("mode").and_then(Value::as_str)?;
            Some(match mode {
                "acceptEdits" => format!("accept every edit {place}"),
                other => format!("switch to {} mode {place}", one_line(other, 40)),
            })
        }
        "addDirectories" => {
            let dirs: Vec<String> =
                s.get("directories")?.as_array()?.iter().filter_map(|d| Some(one_line(d.as_str()?, 200))).collect();
            (!dirs.is_empty()).then(|| format!("always allow access to {} {place}", dirs.join(", ")))
        }
        _ => None,
    }
}

/// An approval's one question: what the agent wants to do, and the fixed answers. Typing a reason
/// instead of choosing denies with it.
pub fn approval_questions(agent: &str, summary: &str, always: Option<&str>) -> Vec<Question> {
    let mut options =
        vec![QuestionOption { label: ALLOW_ONCE_LABEL.into(), description: Some("Let it do this, this time".into()) }];
    if let Some(always) = always {
        options.push(QuestionOption { label: ALWAYS_ALLOW_LABEL.into(), description: Some(capitalised(always)) });
    }
    options.push(QuestionOption {
        label: DENY_LABEL.into(),
        description: Some("Or type a reason instead: the agent reads it".into()),
    });
    vec![Question {
        id: APPROVAL_QUESTION_ID.into(),
        question: format!("Allow {} to {}?", one_line(agent, 60), summary),
        header: Some("Approval".into()),
        options,
        multi_select: false,
    }]
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Whether `c` hides or reorders what a person reads: control characters (but line breaks and
/// tabs, which `plain_lines` keeps), bidirectional overrides and isolates, zero-width characters.
pub(crate) fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}' // zero-width space/joiners, left-to-right and right-to-left marks
            | '\u{202A}'..='\u{202E}' // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner and invisible operators
            | '\u{2066}'..='\u{2069}' // bidirectional isolates
            | '\u{061C}' | '\u{FEFF}' | '\u{00AD}' | '\u{180E}')
}

/// Untrusted text kept as lines: line breaks and tabs stay, every other invisible character goes.
fn plain_lines(text: &str) -> String {
    text.replace("\r\n", "\n").chars().filter(|&c| c == '\n' || c == '\t' || !invisible(c)).collect()
}

/// Untrusted text as one line of at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line: String =
        text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).filter(|&c| !invisible(c)).collect();
    bounded(&line.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// `text` cut to `max` characters, saying how much was left out.
fn bounded(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(24)).collect();
    format!("{kept}… ({} more characters)", total - kept.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(selected: &[&str], custom: Option<&str>) -> AnswerBatch {
        AnswerBatch {
            answers: vec![Answer {
                id: APPROVAL_QUESTION_ID.into(),
                selected: selected.iter().map(|s| s.to_string()).collect(),
                custom: custom.map(Into::into),
            }],
        }
    }

    #[test]
    fn only_an_explicit_allow_allows() {
        assert_eq!(ApprovalVerdict::of(&answer(&[ALLOW_ONCE_LABEL], None), false), ApprovalVerdict::AllowOnce);
        assert_eq!(ApprovalVerdict::of(&answer(&[ALWAYS_ALLOW_LABEL], None), true), ApprovalVerdict::AlwaysAllow);
        let denied = [
            (answer(&[ALWAYS_ALLOW_LABEL], None), false),
            (answer(&[DENY_LABEL], None), true),
            (answer(&[], None), true),
            (answer(&[ALLOW_ONCE_LABEL, ALWAYS_ALLOW_LABEL], None), true),
            (answer(&[ALLOW_ONCE_LABEL], Some("yes")), true),
            (answer(&["allow once"], None), true),
            (answer(&[], Some("sure, go ahead")), true),
            (AnswerBatch { answers: vec![] }, true),
            (
                AnswerBatch {
                    answers: vec![Answer { id: "q1".into(), selected: vec![ALLOW_ONCE_LABEL.into()], custom: None }],
                },
                true,
            ),
        ];
        for (batch, offered) in denied {
            let verdict = ApprovalVerdict::of(&batch, offered);
            assert!(!verdict.allows(), "{batch:?} → {verdict:?}");
        }
        assert_eq!(
            ApprovalVerdict::of(&answer(&[], Some("  use the staging key  ")), true),
            ApprovalVerdict::Deny { reason: Some("use the staging key".into()) }
        );
        for verdict in [
            ApprovalVerdict::AllowOnce,
            ApprovalVerdict::AlwaysAllow,
            ApprovalVerdict::Deny { reason: None },
            ApprovalVerdict::Deny { reason: Some("no".into()) },
        ] {
            assert_eq!(ApprovalVerdict::of(&verdict.batch(), true), verdict);
        }
    }

    #[test]
    fn a_command_is_shown_as_the_command() {
        let r = render_tool_call("Bash", &json!({ "command": "npm publish --tag next", "description": "Publish" }));
        assert_eq!(r.summary, "run `npm publish --tag next`");
        assert_eq!(r.detail, "Publish\n$ npm publish --tag next");
        let r = render_tool_call("shell", &json!({ "command": ["bash", "-lc", "rm -rf build"] }));
        assert_eq!(r.detail, "$ bash -lc 'rm -rf build'");
    }

    #[test]
    fn an_edit_is_shown_as_its_file_and_diff() {
        let r = render_tool_call(
            "Edit",
            &json!({ "file_path": "/p/src/a.rs", "old_string": "let x = 1;", "new_string": "let x = 2;\nlet y = 3;" }),
        );
        assert_eq!(r.summary, "edit /p/src/a.rs");
        assert_eq!(r.detail, "/p/src/a.rs\n- let x = 1;\n+ let x = 2;\n+ let y = 3;");
        let r = render_tool_call("Write", &json!({ "file_path": "/p/new.txt", "content": "one\ntwo\n" }));
        assert_eq!((r.summary.as_str(), r.detail.as_str()), ("write /p/new.txt", "/p/new.txt\n+ one\n+ two"));
        let r = render_tool_call(
            "MultiEdit",
            &json!({ "file_path": "/p/b.rs", "edits": [{ "old_string": "a", "new_string": "b" }, { "old_string": "c", "new_string": "d" }] }),
        );
        assert_eq!(r.detail, "/p/b.rs\n- a\n+ b\n…\n- c\n+ d");
    }

    #[test]
    fn a_fetch_is_shown_as_its_url_and_an_unknown_tool_as_fields_never_json() {
        let r = render_tool_call("WebFetch", &json!({ "url": "https://example.com/x", "prompt": "Summarise" }));
        assert_eq!(
            (r.summary.as_str(), r.detail.as_str()),
            ("fetch https://example.com/x", "https://example.com/x\nSummarise")
        );
        let r = render_tool_call(
            "mcp__db__query",
            &json!({ "sql": "select 1", "limit": 5, "opts": { "dry": true, "tags": ["a", "b"] }, "rows": [{ "id": 1 }] }),
        );
        assert_eq!(r.summary, "use mcp__db__query");
        assert_eq!(r.detail, "limit: 5\nopts.dry: true\nopts.tags: a, b\nrows[0].id: 1\nsql: select 1");
        assert!(!r.detail.contains('{'), "{}", r.detail);
    }

    #[test]
    fn tool_text_is_made_plain_and_bounded() {
        let r = render_tool_call("Bash", &json!({ "command": "echo ok\u{202E}txt.exe\u{200B}\u{7}" }));
        assert_eq!(r.detail, "$ echo oktxt.exe");
        let r = render_tool_call("Write", &json!({ "file_path": "/f", "content": "x".repeat(10_000) }));
        assert!(
            r.detail.chars().count() <= MAX_DETAIL_CHARS && r.detail.ends_with("more characters)"),
            "{}",
            r.detail.len()
        );
        let r = render_tool_call("Bash", &json!({ "command": "a\nb" }));
        assert_eq!(r.summary, "run `a b`");
    }

    #[test]
    fn suggestions_are_worded_and_only_offered_when_there_is_one() {
        let s = json!([{ "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "npm run test:*" }],
                          "behavior": "allow", "destination": "localSettings" }]);
        assert_eq!(word_suggestions(&s).as_deref(), Some("always allow `Bash(npm run test:*)` in this project"));
        let mode = json!([{ "type": "setMode", "mode": "acceptEdits", "destination": "session" }]);
        assert_eq!(word_suggestions(&mode).as_deref(), Some("accept every edit for this session"));
        assert_eq!(word_suggestions(&json!([])), None);
        assert_eq!(word_suggestions(&Value::Null), None);
        assert_eq!(word_suggestions(&json!([{ "type": "removeRules", "rules": [] }])), None);
        let with = approval_questions("Claude Code", "run `npm test`", word_suggestions(&s).as_deref());
        let labels: Vec<&str> = with[0].options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, [ALLOW_ONCE_LABEL, ALWAYS_ALLOW_LABEL, DENY_LABEL]);
        assert_eq!(with[0].question, "Allow Claude Code to run `npm test`?");
        let without = approval_questions("Codex", "run `ls`", None);
        let labels: Vec<&str> = without[0].options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, [ALLOW_ONCE_LABEL, DENY_LABEL]);
        super::super::validate_questions(&with).unwrap();
    }
}
