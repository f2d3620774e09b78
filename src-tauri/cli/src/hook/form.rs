//! MCP forms inside Claude Code (`Elicitation`): when an MCP server Claude Code runs asks the
//! person for values (`elicitation/create`), the hook asks them in Hark as a form and hands back
//! what they did: `accept` with the typed values, `decline`, or `cancel` when they closed it. When
//! the budget runs out, Hark is not running, the form is one Hark cannot show, or anything fails,
//! the hook gives no decision and Claude Code shows its own form; Hark's ends everywhere.
//!
//! Claude Code also fires `ElicitationResult` after the person answered its own form. Hark does
//! not hook it: Claude Code runs this hook to its end before it shows its own form, so no card of
//! Hark's is left to end by then.

use hark_core::front_door::FrontDoor;
use hark_core::host::FormRequest;
use serde_json::{json, Value};

use super::{Agent, HookError, HookEvent};

fn request_of(event: &HookEvent) -> Result<FormRequest, HookError> {
    let server = event.mcp_server_name.clone().filter(|s| !s.trim().is_empty());
    let server = server.ok_or_else(|| HookError::BadEvent("an elicitation names no mcp_server_name".into()))?;
    Ok(FormRequest {
        server,
        message: event.message.clone().unwrap_or_default(),
        mode: event.mode.clone(),
        url: event.url.clone(),
        elicitation_id: event.elicitation_id.clone(),
        requested_schema: event.requested_schema.clone(),
    })
}

/// Asks the person the form within `budget` seconds (the approvals' budget: see
/// `hark hook --approval-budget`); the decision to print, or `None` for none.
///
/// Claude Code runs this hook before it shows its own form, so while Hark waits the person at the
/// terminal sees no form there: the budget is how long they may wait for it. It is the permission
/// request's, as both are the agent stopping for the person, and one setting covers the two.
pub(super) async fn decide(agent: Agent, budget: u64, event: &HookEvent) -> Result<Option<Value>, HookError> {
    let request = request_of(event)?;
    // Checked here too, so a form Hark would refuse never starts the app.
    if let Some(why) = hark_core::mcp::outside_form_problem(&request) {
        eprintln!("hark: {why}; Claude Code shows its own form");
        return Ok(None);
    }
    let dir = crate::chat::data_dir().map_err(|e| HookError::App(hark_core::error::CodedError::boundary(&e)))?;
    let client = super::client_of(agent, event);
    let door = crate::app_link::door(&dir);
    // When the budget ends the request is dropped, which closes the connection: Hark ends the form
    // on every surface.
    let asked = tokio::time::timeout(std::time::Duration::from_secs(budget), door.form(&client, request)).await;
    let reply = match asked {
        Err(_) => {
            eprintln!("hark: the form waited {budget} s unanswered; Claude Code shows its own form");
            return Ok(None);
        }
        Ok(Err(error)) if matches!(error.code.as_str(), "INVALID_REQUEST" | "ASK_ABORTED") => {
            eprintln!("hark: {}; Claude Code shows its own form", error.message);
            return Ok(None);
        }
        Ok(Err(error)) => return Err(HookError::App(error)),
        Ok(Ok(reply)) => reply,
    };
    Ok(Some(decision(&reply.action, reply.content)))
}

/// Claude Code's decision: the action, and the typed values of an accepted form.
fn decision(action: &str, content: Option<Value>) -> Value {
    let mut out = json!({ "hookEventName": "Elicitation", "action": action });
    if let Some(content) = content.filter(|_| action == "accept") {
        out["content"] = content;
    }
    json!({ "hookSpecificOutput": out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_accept_carries_content() {
        let accepted = decision("accept", Some(json!({ "env": "prod" })));
        assert_eq!(
            accepted,
            json!({ "hookSpecificOutput": { "hookEventName": "Elicitation", "action": "accept", "content": { "env": "prod" } } })
        );
        let declined = decision("decline", Some(json!({ "env": "prod" })));
        assert_eq!(declined, json!({ "hookSpecificOutput": { "hookEventName": "Elicitation", "action": "decline" } }));
    }
}
