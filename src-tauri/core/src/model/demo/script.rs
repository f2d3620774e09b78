//! The demo script format.
//!
//! A script is a JSON object `{name, description, rules: [...]}`. Each rule is
//! `{id, when, reply}`; the first rule whose `when` matches the end of the request answers it:
//!
//! ```json
//! { "id": "answered",
//!   "when": { "kind": "tool_result", "tool": "ask_user_question", "status": "ok" },
//!   "reply": { "reasoning": "optional", "text": "You chose {{answers}}.",
//!              "tool_calls": [ { "name": "list_dir", "arguments": { "path": "." } } ] } }
//! ```
//!
//! `when.kind` is one of `start` (the first user message), `user_text` (a later one), `late_answer`
//! (a user message carrying `answer_to_pending_question`), `tool_result` (matched against every
//! tool result after the last assistant message; `tool`, `status` = ok | pending | error and `code`
//! and `contains` narrow it) and `any`. `start` and `user_text` take an optional case-insensitive `contains`.
//!
//! Reply strings (text, reasoning and every string inside tool arguments) may use `{{answers}}`
//! (the answer labels of the matched answered result or late answer, quoted), `{{call_id}}`,
//! `{{error_code}}`, `{{error_message}}`, `{{feedback}}` (what the person typed when asking for
//! changes to a plan), `{{result}}` (an excerpt of the matched tool result) and `{{user_text}}`.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::error::ModelError;

/// The placeholders a reply may use.
pub(super) const PLACEHOLDERS: &[&str] =
    &["answers", "call_id", "error_code", "error_message", "feedback", "result", "user_text"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoScript {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub when: Condition,
    pub reply: Reply,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Condition {
    Start {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        contains: Option<String>,
    },
    UserText {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        contains: Option<String>,
    },
    LateAnswer,
    ToolResult {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<ToolStatus>,
        /// An error code such as `ASK_CANCELLED`; only with `status: "error"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// Text the result must contain (case-insensitive), e.g. `changes_requested`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        contains: Option<String>,
    },
    Any,
}

/// How a tool result reads to the demo model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    Ok,
    Pending,
    Error,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<DemoToolCall>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoToolCall {
    pub name: String,
    /// A JSON object; placeholders are replaced inside its strings before it is sent as text.
    pub arguments: Value,
}

impl DemoScript {
    /// Parses and checks a script: unique rule ids, non-empty replies, object arguments, known
    /// placeholders, and no rule hidden behind an earlier, broader one.
    pub fn parse(json: &str) -> Result<Self, ModelError> {
        let script: DemoScript = serde_json::from_str(json)
            .map_err(|e| ModelError::DemoScript { message: format!("Invalid demo script: {e}") })?;
        script.check()?;
        Ok(script)
    }

    fn check(&self) -> Result<(), ModelError> {
        let fail = |message: String| {
            Err(ModelError::DemoScript { message: format!("Demo script {:?}: {message}", self.name) })
        };
        if self.name.trim().is_empty() {
            return fail("the name is empty".into());
        }
        if self.rules.is_empty() {
            return fail("there are no rules".into());
        }
        let mut ids = HashSet::new();
        for (i, rule) in self.rules.iter().enumerate() {
            if rule.id.trim().is_empty() || !ids.insert(rule.id.as_str()) {
                return fail(format!("rules[{i}] needs a unique, non-empty id"));
            }
            if let Err(problem) = rule.check() {
                return fail(format!("rule {:?}: {problem}", rule.id));
            }
            if let Some(earlier) = self.rules[..i].iter().find(|e| e.when.covers(&rule.when)) {
                return fail(format!(
                    "rule {:?} can never match: rule {:?} before it matches first",
                    rule.id, earlier.id
                ));
            }
        }
        Ok(())
    }

    /// The first rule matching the request's trigger.
    pub fn rule_for(&self, trigger: &super::Trigger) -> Option<&Rule> {
        self.rules.iter().find(|r| trigger.matches(&r.when).is_some())
    }
}

impl Rule {
    fn check(&self) -> Result<(), String> {
        if let Condition::ToolResult { status, code: Some(_), .. } = &self.when {
            if *status != Some(ToolStatus::Error) {
                return Err("`code` needs `status: \"error\"`".into());
            }
        }
        let reply = &self.reply;
        if reply.text.trim().is_empty() && reply.tool_calls.is_empty() {
            return Err("the reply has neither text nor tool calls".into());
        }
        let mut strings: Vec<&str> = vec![&reply.text];
        strings.extend(reply.reasoning.as_deref());
        for call in &reply.tool_calls {
            if call.name.trim().is_empty() {
                return Err("a tool call has no name".into());
            }
            if !call.arguments.is_object() {
                return Err(format!("the arguments of {:?} are not a JSON object", call.name));
            }
            collect_strings(&call.arguments, &mut strings);
        }
        for s in strings {
            for name in placeholders_in(s) {
                if !PLACEHOLDERS.contains(&name) {
                    return Err(format!("unknown placeholder {{{{{name}}}}} (known: {})", PLACEHOLDERS.join(", ")));
                }
            }
        }
        Ok(())
    }
}

impl Condition {
    /// Whether every request this condition's `other` matches is already matched by `self`.
    pub fn covers(&self, other: &Condition) -> bool {
        fn narrower<T: PartialEq>(broad: &Option<T>, narrow: &Option<T>) -> bool {
            broad.is_none() || broad == narrow
        }
        fn text_narrower(broad: &Option<String>, narrow: &Option<String>) -> bool {
            match (broad, narrow) {
                (None, _) => true,
                (Some(b), Some(n)) => n.to_lowercase().contains(&b.to_lowercase()),
                (Some(_), None) => false,
            }
        }
        match (self, other) {
            (Condition::Any, _) => true,
            (Condition::Start { contains: a }, Condition::Start { contains: b }) => text_narrower(a, b),
            (Condition::UserText { contains: a }, Condition::UserText { contains: b }) => text_narrower(a, b),
            (Condition::LateAnswer, Condition::LateAnswer) => true,
            (
                Condition::ToolResult { tool: t1, status: s1, code: c1, contains: x1 },
                Condition::ToolResult { tool: t2, status: s2, code: c2, contains: x2 },
            ) => narrower(t1, t2) && narrower(s1, s2) && narrower(c1, c2) && text_narrower(x1, x2),
            _ => false,
        }
    }
}

fn collect_strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// The names inside `{{...}}` in `text`.
pub(super) fn placeholders_in(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) => {
                names.push(after[..close].trim());
                rest = &after[close + 2..];
            }
            None => break,
        }
    }
    names
}
