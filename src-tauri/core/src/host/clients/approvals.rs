//! An outside agent's permission request, asked in the agent's session as an approval (see
//! [`Intent::Approval`]). It lives exactly as long as the agent waits for it: it is asked in the
//! foreground only, never continues, and ends unanswered when the agent stops waiting (its hook's
//! time ran out, the hook went away, or the agent reported the tool call settled in its own
//! terminal). The call and how it ended are recorded in the session's log.

use tokio_util::sync::CancellationToken;

use super::{HostError, Relay};
use crate::control::{ApprovalRequest, ClientAnswer, ClientId};
use crate::question::{ErrorCode, Intent, UserInteractionError, APPROVAL_CALL_PREFIX, APPROVAL_TOOL_NAME};
use crate::session::{Event, ToolOutcome};

/// The message a late answer to an approval gets: it was never granted and cannot be any more.
/// What names this tool call among the asker's: the same for the permission request and for the
/// agent's later report that the call ran or was refused, which carry no common id.
fn key(request: &ApprovalRequest, asker: Option<&str>) -> String {
    // serde_json's maps keep their keys sorted, so equal inputs give equal text.
    let text = format!("{}\n{}\n{}", asker.unwrap_or_default(), request.tool, request.input);
    format!("{:016x}", crate::data_dir::stable_hash(text.as_bytes()))
}

pub fn approval_ended(call_id: &str) -> UserInteractionError {
    UserInteractionError::new(
        ErrorCode::NotPending,
        format!(
            "approval {call_id} is no longer waiting: the agent stopped waiting for it (it was answered in the \
             agent's own terminal, or its time ran out), so this answer changed nothing and nothing was allowed"
        ),
    )
}

impl Relay {
    /// Asks the person for the approval and waits until they answer or it ends: `gone` (the agent
    /// stopped waiting) ends it unanswered (`ASK_ABORTED`), and so does
    /// [`end_approvals`](Self::end_approvals).
    pub async fn approve(
        &self,
        client: &ClientId,
        request: ApprovalRequest,
        gone: CancellationToken,
    ) -> Result<ClientAnswer, HostError> {
        let agent = super::plain_name(&client.name);
        let (intent, questions) = Intent::approval(&agent, &request.tool, &request.input, &request.suggestions);
        let call_id = format!(
            "{APPROVAL_CALL_PREFIX}{}-{}",
            key(&request, client.asker.as_deref()),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let Intent::Approval { tool, summary, detail, always, .. } = &intent else {
            return Err(HostError::InvalidArgument("not an approval".into()));
        };
        let arguments =
            serde_json::json!({ "agent": agent, "tool": tool, "summary": summary, "detail": detail, "always": always });
        self.begin(None)?;
        let mut events =
            vec![Event::ToolCall { call_id: call_id.clone(), name: APPROVAL_TOOL_NAME.to_string(), arguments }];
        events.extend(client.asker.clone().map(|asker| Event::ClientAsked { call_id: call_id.clone(), asker }));
        let asked = self.session.record(events);
        let result = match asked {
            Ok(_) => {
                let answered = self.ask_while_waiting(&call_id, intent.clone(), questions, &gone).await;
                let outcome = match &answered {
                    Ok(batch) => match intent.approval_verdict(batch) {
                        Some(verdict) => ToolOutcome::Ok { content: verdict.text(), answers: Some(batch.clone()) },
                        None => ToolOutcome::ok("denied"),
                    },
                    Err(e) => ToolOutcome::Error { error: crate::error::CodedError::boundary(e) },
                };
                self.session.record_one(Event::ToolResult { call_id: call_id.clone(), outcome }).map(|_| answered)
            }
            Err(e) => Err(e),
        };
        self.end(gone.is_cancelled() || self.quit.is_cancelled())?;
        let batch = result?.map_err(HostError::Interaction)?;
        let text = intent.approval_verdict(&batch).map(|v| v.text()).unwrap_or_default();
        Ok(ClientAnswer { session_id: self.session.id().to_string(), call_id, text, answers: Some(batch) })
    }

    /// Ends the asker's approvals waiting for this very tool call, unanswered: the agent reported
    /// the call ran or was refused, so it was settled somewhere else (its own terminal). How many
    /// ended.
    pub fn end_approvals(&self, client: &ClientId, request: &ApprovalRequest, reason: &str) -> usize {
        let prefix = format!("{APPROVAL_CALL_PREFIX}{}-", key(request, client.asker.as_deref()));
        let mut ended = 0;
        for waiting in self.service.foreground(Some(self.session.id())) {
            if waiting.intent.is_approval() && waiting.call_id.starts_with(&prefix) {
                let error = UserInteractionError::new(ErrorCode::AskAborted, reason);
                ended += usize::from(self.service.settle(self.session.id(), &waiting.call_id, Err(error)).is_ok());
            }
        }
        ended
    }
}

impl crate::host::Host {
    /// Asks the person an outside agent's permission request in the agent's session (see
    /// [`Relay::approve`]).
    pub async fn client_approve(
        &self,
        client: &ClientId,
        request: ApprovalRequest,
        gone: CancellationToken,
    ) -> Result<ClientAnswer, HostError> {
        self.client_relay(client)?.approve(client, request, gone).await
    }

    /// Ends the agent's approvals for this tool call (see [`Relay::end_approvals`]). A client that
    /// never asked has none.
    pub fn client_end_approvals(
        &self,
        client: &ClientId,
        request: &ApprovalRequest,
        reason: &str,
    ) -> Result<usize, HostError> {
        match self.client_session(&client.plain(), false)? {
            Some(id) => Ok(self.relay(&id)?.end_approvals(client, request, reason)),
            None => Ok(0),
        }
    }
}
