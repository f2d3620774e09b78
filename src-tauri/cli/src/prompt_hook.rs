//! `hark hook claude-code` on Claude Code's `UserPromptSubmit`: a person's answer that came back
//! through an MCP task, confirmed to Claude Code's model as the person's own.
//!
//! Claude Code runs Hark's question as a background task and, when the task completes, hands its
//! model the result wrapped as a background event that it must "NOT treat as approval or consent":
//! the model may discount the very answer the person gave. Claude Code submits that notification
//! as a prompt, so this hook runs on it, and its model takes what a hook adds as coming from the
//! person. The hook checks with Hark that the person really answered that call (the notification's
//! text is never taken for it) and adds their answer as context. Claude Code delivers each task's
//! notification once, so the answer reaches the model this way once.
//!
//! Any other prompt gets nothing, at once, and Hark is never started for it: the hook runs before
//! every prompt the person types.

use hark_core::control::ClientCall;
use hark_core::front_door::{FrontDoor, Remote};
use hark_core::host::{ClientId, CLAUDE_CODE};
use hark_core::question::AnswerBatch;
use serde_json::{json, Value};

/// The tool whose task notifications carry the person's answers.
const ASK_TOOL: &str = "ask_user_question";

/// The call (Hark's id, which is the MCP task's) of a completed `ask_user_question` task that
/// Claude Code's notification names, e.g. `<task-notification>` … `<status>completed</status>`
/// `<summary>MCP task mcp-3f… (hark/ask_user_question) completed.</summary>` …
pub(crate) fn completed_task(prompt: &str) -> Option<&str> {
    let prompt = prompt.trim_start();
    if !prompt.starts_with("<task-notification>") || !prompt.contains("<status>completed</status>") {
        return None;
    }
    let summary = prompt.split("<summary>").nth(1)?.split("</summary>").next()?;
    let rest = summary.strip_prefix("MCP task ")?;
    let (task, rest) = rest.split_once(" (")?;
    let (_server, tool) = rest.split_once(')')?.0.split_once('/')?;
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    (tool == ASK_TOOL && !task.is_empty() && task.len() <= 100 && task.chars().all(plain)).then_some(task)
}

/// What the hook prints for `prompt` in `cwd`: the person's answer as context when the prompt is
/// the notification of a call of theirs they answered, else nothing.
pub(crate) async fn context(prompt: &str, cwd: String) -> Option<Value> {
    let call_id = completed_task(prompt)?;
    let dir = crate::chat::data_dir().ok()?;
    let client = ClientId { name: CLAUDE_CODE.to_string(), cwd, asker: None };
    // A running Hark only (never started for this): with none, no answer can be confirmed.
    match Remote::new(&dir).call(&client, call_id).await {
        Ok(ClientCall::Answered { answers, .. }) => Some(json!({ "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": confirmation(call_id, &answers),
        }})),
        _ => None,
    }
}

fn confirmation(call_id: &str, answers: &AnswerBatch) -> String {
    let given = serde_json::to_string(answers).unwrap_or_default();
    format!(
        "Hark confirms: the person answered your ask_user_question call {call_id} themselves, in Hark. The task \
         result in the notification above is their own answer, not an automated event: {given}. Treat it as \
         the person's reply to that question and act on it."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTIFICATION: &str = "<task-notification>\n<task-id>k6i3216gw</task-id>\n<status>completed</status>\n\
        <summary>MCP task mcp-b3c5679f46c24957811b7e80e2576b89 (hark/ask_user_question) completed.</summary>\n\
        <result>\n{\"answers\":[{\"id\":\"db\",\"selected\":[\"Postgres\"]}]}\n</result>\n</task-notification>";

    #[test]
    fn the_notification_of_a_completed_question_task_names_its_call() {
        assert_eq!(completed_task(NOTIFICATION), Some("mcp-b3c5679f46c24957811b7e80e2576b89"));
        // A server the person named otherwise is still Hark's tool.
        let renamed = NOTIFICATION.replace("(hark/", "(my-hark/");
        assert_eq!(completed_task(&renamed), Some("mcp-b3c5679f46c24957811b7e80e2576b89"));
    }

    #[test]
    fn anything_else_names_no_call() {
        for prompt in [
            "Set up the database",
            "",
            &NOTIFICATION.replace("<status>completed</status>", "<status>failed</status>"),
            &NOTIFICATION.replace("ask_user_question", "get_answers"),
            &NOTIFICATION.replace("mcp-b3c5679f46c24957811b7e80e2576b89", "x y"),
            &NOTIFICATION.replace("<task-notification>", "please read: <task-notification>"),
            "<task-notification><status>completed</status><summary>Stop hook feedback</summary></task-notification>",
        ] {
            assert_eq!(completed_task(prompt), None, "{prompt}");
        }
    }
}
