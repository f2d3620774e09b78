//! An MCP server's form that an outside agent received (Claude Code's `Elicitation` hook), asked in
//! the agent's session as an [`Intent::Form`], made from the server's request by the same
//! conversion as a form Hark's own MCP client receives. Like an approval it lives exactly as long
//! as the agent waits for it: asked in the foreground only, never continued, and ended unanswered
//! when the agent stops waiting (its hook's budget ran out or the hook went away). How it ended is
//! recorded in the session's log as the form it is.

use rmcp::model::ElicitationAction;
use tokio_util::sync::CancellationToken;

use super::{HostError, Relay};
use crate::control::{ClientId, FormReply, FormRequest};
use crate::mcp::{outside_form, FormFailure};
use crate::question::{ErrorCode, UserInteractionError};

/// How every outside agent's form's call id begins.
const OUTSIDE_FORM_CALL_PREFIX: &str = "agent-form-";

impl Relay {
    /// Asks the person the form and waits until they answer, decline or close it, or it ends:
    /// `gone` (the agent stopped waiting) ends it unanswered (`ASK_ABORTED`), as Hark quitting does.
    /// A form Hark cannot show is `INVALID_REQUEST`, asked nowhere.
    pub async fn form(&self, request: FormRequest, gone: CancellationToken) -> Result<FormReply, HostError> {
        let cannot_show =
            |why: String| HostError::Interaction(UserInteractionError::new(ErrorCode::InvalidRequest, why));
        let form = outside_form(&request).map_err(cannot_show)?;
        let server = super::plain_name(&request.server);
        let call_id = format!("{OUTSIDE_FORM_CALL_PREFIX}{}", uuid::Uuid::new_v4().simple());
        self.begin(None)?;
        let answered = self.ask_while_waiting(&call_id, form.intent(&server), form.questions().to_vec(), &gone).await;
        // Only the person's answer, Decline or Close is a reply. Anything else (the agent stopped
        // waiting, Hark quits, the questions broke a limit, nobody could be asked) decided nothing,
        // and the agent hears the error as it is.
        let undecided = answered
            .as_ref()
            .err()
            .filter(|e| !matches!(e.code, ErrorCode::AskDeclined | ErrorCode::AskCancelled))
            .cloned();
        let ended = form.ended(answered);
        let recorded = match &ended {
            Ok((outcome, _)) => self.session.record_one(form.event(&server, outcome.clone())).map(|_| ()),
            Err(_) => Ok(()),
        };
        self.end(gone.is_cancelled() || self.quit.is_cancelled())?;
        recorded?;
        if let Some(e) = undecided {
            return Err(HostError::Interaction(e));
        }
        let (_, reply) = ended.map_err(|failure| match failure {
            FormFailure::CannotShow(why) | FormFailure::Failed(why) => cannot_show(why),
        })?;
        let action = match reply.action {
            ElicitationAction::Accept => "accept",
            ElicitationAction::Decline => "decline",
            _ => "cancel",
        };
        Ok(FormReply {
            session_id: self.session.id().to_string(),
            call_id,
            action: action.to_string(),
            content: reply.content,
        })
    }
}

impl crate::host::Host {
    /// Asks the person an outside agent's MCP form in the agent's session (see [`Relay::form`]).
    pub async fn client_form(
        &self,
        client: &ClientId,
        request: FormRequest,
        gone: CancellationToken,
    ) -> Result<FormReply, HostError> {
        self.client_relay(client)?.form(request, gone).await
    }
}
