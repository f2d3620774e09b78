//! What an agent (or a client session's relay) streams to the front doors.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::Session;
use crate::error::BoundaryError;
use crate::service::{QuestionEvent, SessionQuestions, UserQuestionService};
use crate::session::{StoredEvent, TranscriptDelta, TurnEndReason};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    TurnStarted {
        session_id: String,
        turn_id: String,
    },
    /// A piece of assistant text as it streams; the whole message follows as an appended event.
    TextDelta {
        session_id: String,
        text: String,
    },
    ReasoningDelta {
        session_id: String,
        text: String,
    },
    /// An event was durably appended to the session log.
    EventAppended {
        event: StoredEvent,
    },
    /// What the event with `seq` changed in the session's transcript: sent for every recorded
    /// event, right after its `EventAppended`, so a window follows the session without reading it.
    Transcript {
        session_id: String,
        seq: u64,
        deltas: Vec<TranscriptDelta>,
    },
    /// The service's question events for this session (requested, resolved, reply queued/released),
    /// each with the session's waiting questions as they stand after it: a window shows those and
    /// does not read them again.
    Question {
        event: QuestionEvent,
        questions: SessionQuestions,
    },
    TurnEnded {
        session_id: String,
        turn_id: String,
        reason: TurnEndReason,
    },
    /// The agent could not record or run something (e.g. the store failed).
    Error {
        session_id: String,
        error: BoundaryError,
    },
}

/// Sends the service's events about the session's questions to everyone following the session (the
/// live root's task: the agent's, or a client session's relay's).
pub(crate) fn forward_questions(service: &UserQuestionService, session: Arc<Session>) -> JoinHandle<()> {
    let mut rx = service.subscribe();
    let service = service.clone();
    tokio::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(event) if concerns(&event, session.id()) => {
                    let questions = service.session_questions(session.id());
                    session.emit(AgentEvent::Question { event, questions });
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    })
}

/// Whether a service event belongs to `session`.
fn concerns(event: &QuestionEvent, session: &str) -> bool {
    match event {
        QuestionEvent::Requested { request } => request.session_id == session,
        QuestionEvent::Resolved { session_id, .. }
        | QuestionEvent::ReplyQueued { session_id, .. }
        | QuestionEvent::ReplyReleased { session_id, .. } => session_id == session,
    }
}
