//! Filling a reply's placeholders from what triggered it, and cutting text into stream-sized chunks.

use serde_json::Value;

use super::script::Reply;
use super::trigger::{ToolResultInfo, Trigger};
use crate::model::types::ToolCallRequest;
use crate::question::{result_answers, AnswerBatch, PlanVerdict};

/// Longest excerpt of user text or a tool result copied into a reply.
const MAX_QUOTE_CHARS: usize = 300;

/// A reply ready to stream.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rendered {
    pub reasoning: Option<String>,
    pub text: String,
    pub tool_calls: Vec<ToolCallRequest>,
}

/// The values placeholders take for one trigger.
#[derive(Debug, Default)]
pub(super) struct Context {
    answers: Option<String>,
    call_id: Option<String>,
    error_code: Option<String>,
    error_message: Option<String>,
    feedback: Option<String>,
    result: Option<String>,
    user_text: Option<String>,
}

impl Context {
    pub fn new(trigger: &Trigger, subject: Option<&ToolResultInfo>) -> Self {
        let mut ctx = Context::default();
        match trigger {
            Trigger::Start { text } | Trigger::UserText { text } => ctx.user_text = Some(quote_excerpt(text)),
            Trigger::LateAnswer { call_id, answers } => {
                ctx.call_id = Some(call_id.clone());
                ctx.answers = Some(describe_answers(answers));
                ctx.feedback = feedback(answers);
            }
            Trigger::ToolResults(_) | Trigger::Nothing => {}
        }
        if let Some(r) = subject {
            ctx.call_id = Some(r.call_id.clone());
            ctx.error_code = r.code.clone();
            ctx.error_message = r.message.clone();
            ctx.result = Some(quote_excerpt(&r.content));
            let answers = result_answers(&r.content);
            ctx.answers = answers.as_ref().map(describe_answers);
            ctx.feedback = answers.as_ref().and_then(feedback);
        }
        ctx
    }

    fn value(&self, name: &str) -> &str {
        let v = match name {
            "answers" => &self.answers,
            "call_id" => &self.call_id,
            "error_code" => &self.error_code,
            "error_message" => &self.error_message,
            "feedback" => &self.feedback,
            "result" => &self.result,
            "user_text" => &self.user_text,
            _ => &None,
        };
        v.as_deref().unwrap_or("(none)")
    }

    /// Replaces every `{{name}}`. Values are inserted once and never rescanned, so text the user
    /// typed that happens to contain `{{...}}` stays as typed.
    pub fn fill(&self, template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(open) = rest.find("{{") {
            let after = &rest[open + 2..];
            let Some(close) = after.find("}}") else { break };
            out.push_str(&rest[..open]);
            out.push_str(self.value(after[..close].trim()));
            rest = &after[close + 2..];
        }
        out.push_str(rest);
        out
    }

    fn fill_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.fill(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.fill_value(v)).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), self.fill_value(v))).collect()),
            other => other.clone(),
        }
    }

    /// `step` numbers the model's turns in the conversation, which keeps call ids unique within a
    /// session and identical across replays.
    pub fn render(&self, reply: &Reply, step: usize) -> Rendered {
        Rendered {
            reasoning: reply.reasoning.as_deref().map(|r| self.fill(r)),
            text: self.fill(&reply.text),
            tool_calls: reply
                .tool_calls
                .iter()
                .enumerate()
                .map(|(i, call)| ToolCallRequest {
                    id: format!("call_demo_{step}_{i}"),
                    name: call.name.clone(),
                    arguments: self.fill_value(&call.arguments).to_string(),
                })
                .collect(),
        }
    }
}

/// What the person typed when asking for changes to a plan, if they did.
fn feedback(batch: &AnswerBatch) -> Option<String> {
    match PlanVerdict::of(batch) {
        PlanVerdict::ChangesRequested { feedback } => feedback.map(|f| quote_excerpt(&f)),
        PlanVerdict::Approved => None,
    }
}

/// `db: "SQLite"; extras: "Docs", "Tests"; name: "hark" (typed); notes: skipped`.
pub(super) fn describe_answers(batch: &AnswerBatch) -> String {
    if batch.answers.is_empty() {
        return "(no answers)".into();
    }
    batch
        .answers
        .iter()
        .map(|a| {
            let what = match &a.custom {
                Some(custom) => format!("\"{}\" (typed)", quote_excerpt(custom)),
                None if a.selected.is_empty() => "skipped".to_string(),
                None => a.selected.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", "),
            };
            format!("{}: {what}", a.id)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn quote_excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_QUOTE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Cuts text into small pieces so a UI visibly streams it: after a space once a piece has 12
/// characters, or hard at 40 (long unbroken words). Concatenating the pieces gives the text back.
pub(super) fn chunks(text: &str) -> Vec<&str> {
    const SOFT: usize = 12;
    const HARD: usize = 40;
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, c) in text.char_indices() {
        count += 1;
        let end = i + c.len_utf8();
        if (count >= SOFT && c.is_whitespace()) || count >= HARD {
            pieces.push(&text[start..end]);
            start = end;
            count = 0;
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_rebuild_the_text_and_stay_small() {
        let long_word = "x".repeat(130);
        for text in ["", "hi", "Hello there, this is a streamed reply ✓ with ünïcode.", long_word.as_str()] {
            let pieces = chunks(text);
            assert_eq!(pieces.concat(), text);
            assert!(pieces.iter().all(|p| p.chars().count() <= 40), "{pieces:?}");
        }
        assert!(chunks("Hello there, this is a streamed reply").len() > 1);
    }

    #[test]
    fn filled_values_are_not_rescanned() {
        let ctx = Context { user_text: Some("{{answers}}".into()), answers: Some("A".into()), ..Context::default() };
        assert_eq!(
            ctx.fill("you said {{user_text}}, chose {{ answers }}, {{call_id}}"),
            "you said {{answers}}, chose A, (none)"
        );
    }
}
