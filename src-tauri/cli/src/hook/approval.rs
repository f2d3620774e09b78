//! The agents' permission requests (`PermissionRequest`): asked in Hark as an approval, answered
//! with the person's decision, or with none at all. Only the person's explicit Allow allows; when
//! the approval's budget runs out, Hark ends or loses it, or the person closes it, the hook gives
//! no decision and the agent asks in its own terminal.
//!
//! The agents' reports that a tool call ran or was refused (`PostToolUse`, `PostToolUseFailure`,
//! `PermissionDenied`) end the approval still waiting for that call: the person answered in the
//! agent's own terminal, and no card may outlive its request.

use hark_core::front_door::{FrontDoor, Remote};
use hark_core::host::ApprovalRequest;
use hark_core::question::{ApprovalVerdict, Intent};
use serde_json::{json, Value};

use super::{Agent, HookError, HookEvent};

/// The permission request's budget when `hark hook` is given none (the agent's own, see
/// [`hark_core::agent_setup::Agent::approval_budget_secs`]).
pub(super) fn default_budget(agent: Agent) -> u64 {
    let agent = match agent {
        Agent::ClaudeCode => hark_core::agent_setup::Agent::ClaudeCode,
        Agent::Codex => hark_core::agent_setup::Agent::Codex,
    };
    agent.approval_budget_secs()
}

/// The events that report a tool call settled, whichever way the person answered.
pub(super) fn reports_settled(event: &str) -> bool {
    matches!(event, "PostToolUse" | "PostToolUseFailure" | "PermissionDenied")
}

fn request_of(agent: Agent, event: &HookEvent) -> Result<ApprovalRequest, HookError> {
    let tool = event.tool_name.clone().filter(|t| !t.trim().is_empty());
    let tool = tool.ok_or_else(|| HookError::BadEvent("a permission request names no tool_name".into()))?;
    let suggestions = match agent {
        Agent::ClaudeCode => event.permission_suggestions.clone().unwrap_or(Value::Null),
        // Codex refuses a decision that carries permissions: it is never offered "Always allow".
        Agent::Codex => Value::Null,
    };
    Ok(ApprovalRequest { tool, input: event.tool_input.clone().unwrap_or_else(|| json!({})), suggestions })
}

/// Asks the person; the decision to print, or `None` for none.
pub(super) async fn decide(agent: Agent, budget: u64, event: &HookEvent) -> Result<Option<Value>, HookError> {
    let request = request_of(agent, event)?;
    let dir = crate::chat::data_dir().map_err(|e| HookError::App(hark_core::error::CodedError::boundary(&e)))?;
    let client = super::client_of(agent, event);
    let door = crate::app_link::door(&dir);
    // When the budget ends the request is dropped, which closes the connection: Hark ends the
    // approval on every surface.
    let asked =
        tokio::time::timeout(std::time::Duration::from_secs(budget), door.approve(&client, request.clone())).await;
    let answer = match asked {
        Err(_) => {
            eprintln!("hark: the approval waited {budget} s unanswered; the agent asks in its own terminal");
            return Ok(None);
        }
        Ok(Err(error)) if matches!(error.code.as_str(), "ASK_CANCELLED" | "ASK_ABORTED") => {
            eprintln!("hark: the approval ended unanswered ({}); the agent asks in its own terminal", error.message);
            return Ok(None);
        }
        Ok(Err(error)) => return Err(HookError::App(error)),
        Ok(Ok(answer)) => answer,
    };
    let (intent, _) = Intent::approval(agent.shown_name(), &request.tool, &request.input, &request.suggestions);
    let verdict = match answer.answers.as_ref().and_then(|batch| intent.approval_verdict(batch)) {
        Some(verdict) => verdict,
        None => ApprovalVerdict::Deny { reason: None },
    };
    Ok(Some(decision(agent, &request, &verdict)))
}

/// The agent's decision for `verdict`. Claude Code drops an allow without `updatedInput` for some
/// tools, so the input goes back as it came; Codex fails closed on either field, so it gets none.
fn decision(agent: Agent, request: &ApprovalRequest, verdict: &ApprovalVerdict) -> Value {
    let decision = match (verdict, agent) {
        (ApprovalVerdict::Deny { reason }, _) => json!({
            "behavior": "deny",
            "message": match reason {
                Some(reason) => format!("The person denied this in Hark, saying: {reason}"),
                None => "The person denied this in Hark.".to_string(),
            },
        }),
        (_, Agent::Codex) => json!({ "behavior": "allow" }),
        (ApprovalVerdict::AllowOnce, Agent::ClaudeCode) => {
            json!({ "behavior": "allow", "updatedInput": request.input })
        }
        (ApprovalVerdict::AlwaysAllow, Agent::ClaudeCode) => json!({
            "behavior": "allow",
            "updatedInput": request.input,
            "updatedPermissions": hark_core::question::kept_suggestions(&request.suggestions),
        }),
    };
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
}

/// Ends the approval still waiting for the tool call `event` reports settled, in the running Hark
/// only (a report never starts the app). Nothing to end, or no Hark running, is no failure.
pub(super) async fn settled(agent: Agent, event: &HookEvent) {
    let Ok(request) = request_of(agent, event) else { return };
    let Ok(dir) = crate::chat::data_dir() else { return };
    let client = super::client_of(agent, event);
    let reason = match event.hook_event_name.as_str() {
        "PostToolUse" | "PostToolUseFailure" => "the person allowed it in the agent's own terminal",
        _ => "the person denied it in the agent's own terminal",
    };
    if let Err(e) = Remote::new(&dir).end_approvals(&client, request, reason).await {
        if e.code != hark_core::control::UNAVAILABLE {
            eprintln!("hark: could not end the approval for this call: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ApprovalRequest {
        ApprovalRequest {
            tool: "Bash".into(),
            input: json!({ "command": "npm run test:unit", "description": "Run the tests" }),
            suggestions: json!([{ "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "npm run test:*" }],
                                  "behavior": "allow", "destination": "localSettings" }]),
        }
    }

    #[test]
    fn claude_code_gets_its_input_back_and_the_rule_only_for_always() {
        let once = decision(Agent::ClaudeCode, &request(), &ApprovalVerdict::AllowOnce);
        let d = &once["hookSpecificOutput"]["decision"];
        assert_eq!(once["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
        assert_eq!((d["behavior"].as_str(), &d["updatedInput"]), (Some("allow"), &request().input));
        assert!(d.get("updatedPermissions").is_none(), "{d}");
        let always = decision(Agent::ClaudeCode, &request(), &ApprovalVerdict::AlwaysAllow);
        assert_eq!(always["hookSpecificOutput"]["decision"]["updatedPermissions"], request().suggestions);
    }

    #[test]
    fn codex_gets_only_a_behavior_and_a_denial_carries_the_reason() {
        let allow = decision(Agent::Codex, &request(), &ApprovalVerdict::AlwaysAllow);
        assert_eq!(allow["hookSpecificOutput"]["decision"], json!({ "behavior": "allow" }));
        let deny = decision(Agent::Codex, &request(), &ApprovalVerdict::Deny { reason: Some("use the mock".into()) });
        let d = &deny["hookSpecificOutput"]["decision"];
        assert_eq!(d["behavior"], "deny");
        assert!(d["message"].as_str().unwrap_or_default().contains("use the mock"), "{d}");
    }
}
