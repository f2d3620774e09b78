//! The second settlement of a timed question: a late answer to a continued question is checked
//! against the session's question fold and queued in its inbox in one append, then steered to the
//! session's agent; the question settles when the agent admits it (appends it as `user/message`).
//!
//! Nothing here keeps question state. Which questions are continued and which reply is queued is the
//! log's question fold, read in the transaction that writes the reply, so the service, a reopened
//! session and another process all see the same state. Until a reply is admitted the session's one
//! reservation blocks a second (`REPLY_QUEUED`); only an explicit discard frees it, so a reply
//! survives a stopped turn, a Quit and a crash, and the next run admits it from the inbox.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::lock;
use crate::question::{
    late_answer_text, validate_answers, AnswerBatch, ErrorCode, Intent, Question, UserInteractionError,
    MAX_WITHDRAW_REASON_CHARS,
};
use crate::session::{Event, MessageSource, QuestionFold, QuestionState};

/// A user message the service asks the agent to admit at its next step boundary (or to start a turn
/// with when idle). The agent appends it as `user/message {message_id, text, source}` and then calls
/// [`super::UserQuestionService::on_admitted`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteerMessage {
    pub message_id: String,
    pub text: String,
    pub source: MessageSource,
}

/// The receiving end the agent drains. A new live root gets a new one; see
/// [`super::UserQuestionService::set_live_root`].
pub type SteerReceiver = mpsc::UnboundedReceiver<SteerMessage>;

/// A question answerable through the late path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ContinuedQuestion {
    pub session_id: String,
    pub call_id: String,
    pub intent: Intent,
    pub questions: Vec<Question>,
    /// The inbox message id of a reply to this question that awaits admission.
    pub reply_queued: Option<String>,
    /// When it was asked, as the log recorded its call.
    pub asked_at: Option<chrono::DateTime<chrono::Utc>>,
}

pub fn not_continued(call_id: &str) -> UserInteractionError {
    UserInteractionError::new(
        ErrorCode::NotPending,
        format!("question {call_id} is not waiting for a late answer (unknown, still in the foreground, or settled)"),
    )
}

fn withdrawn(call_id: &str, reason: &str) -> UserInteractionError {
    UserInteractionError::new(ErrorCode::NotPending, format!("question {call_id} was withdrawn by the agent: {reason}"))
}

/// Whether the agent may take back `call_id`'s question, and the event that records it: only a
/// continued question, and not once the person's reply to it is on its way (their answer wins).
pub(crate) fn withdrawal(fold: &QuestionFold, call_id: &str, reason: &str) -> Result<Event, UserInteractionError> {
    let reason = reason.trim();
    if reason.is_empty() || reason.chars().count() > MAX_WITHDRAW_REASON_CHARS {
        return Err(UserInteractionError::invalid_request(format!(
            "reason: say in 1 to {MAX_WITHDRAW_REASON_CHARS} characters why the question is no longer needed"
        )));
    }
    let Some(record) = fold.get(call_id) else { return Err(not_continued(call_id)) };
    if let Some(earlier) = &record.withdrawn {
        return Err(withdrawn(call_id, earlier));
    }
    // A plan review or a server's form is the person's decision to make, not the agent's question.
    if record.intent != Intent::Question {
        return Err(UserInteractionError::invalid_request(format!(
            "{call_id} is not an ask_user_question call: only questions can be withdrawn"
        )));
    }
    if record.reply_queued.is_some() {
        return Err(UserInteractionError::new(
            ErrorCode::NotPending,
            format!("the user already answered question {call_id}; the answer reaches you at your next step"),
        ));
    }
    match record.state {
        QuestionState::Continued => {
            Ok(Event::QuestionWithdrawn { call_id: call_id.to_string(), reason: reason.to_string() })
        }
        QuestionState::Open => Err(UserInteractionError::new(
            ErrorCode::NotPending,
            format!("question {call_id} still waits in the foreground; it ends with its own call"),
        )),
        QuestionState::Settled => Err(not_continued(call_id)),
    }
}

/// Whether a late answer to `call_id` may be queued in a session whose questions are `fold`, and the
/// message it becomes. Checks in this order: not continued → `NOT_PENDING`, the session's reservation
/// taken → `REPLY_QUEUED`, a batch that does not fit → `BAD_ANSWER`.
pub(crate) fn reply(
    fold: &QuestionFold,
    call_id: &str,
    batch: &AnswerBatch,
) -> Result<SteerMessage, UserInteractionError> {
    if let Some(reason) = fold.get(call_id).and_then(|r| r.withdrawn.as_ref()) {
        return Err(withdrawn(call_id, reason));
    }
    let record =
        fold.get(call_id).filter(|r| r.state == QuestionState::Continued).ok_or_else(|| not_continued(call_id))?;
    if let Some(taken) = fold.records().find(|r| r.reply_queued.is_some()) {
        return Err(UserInteractionError::new(
            ErrorCode::ReplyQueued,
            format!(
                "a late reply (to question {}) already waits for the agent to take it; try again once it is \
                 admitted or discarded",
                taken.call_id
            ),
        ));
    }
    validate_answers(&record.questions, batch)?;
    Ok(SteerMessage {
        message_id: uuid::Uuid::new_v4().to_string(),
        text: late_answer_text(call_id, &record.intent, &record.questions, batch, record.since),
        source: MessageSource::question_reply(call_id, batch.clone()),
    })
}

/// The session's continued questions, in the order they were asked: those the log records as
/// continued, and the `handed` over ones whose pending result is not recorded yet.
pub(crate) fn continued(fold: &QuestionFold, session: &str, handed: &HashSet<String>) -> Vec<ContinuedQuestion> {
    fold.records()
        .filter(|r| {
            r.state == QuestionState::Continued || (r.state == QuestionState::Open && handed.contains(&r.call_id))
        })
        .map(|r| ContinuedQuestion {
            session_id: session.to_string(),
            call_id: r.call_id.clone(),
            intent: r.intent.clone(),
            questions: r.questions.clone(),
            reply_queued: r.reply_queued.clone(),
            asked_at: r.asked_at,
        })
        .collect()
}

/// Where each session's late replies go: the steer channel of its live root, if one listens. A reply
/// queued while none does waits in the log's inbox, which the next live root reads.
pub(crate) struct Steering {
    senders: Mutex<HashMap<String, mpsc::UnboundedSender<SteerMessage>>>,
}

impl Steering {
    pub(crate) fn new() -> Self {
        Steering { senders: Mutex::new(HashMap::new()) }
    }

    /// A new steer channel for the session's new live root, replacing the previous one.
    pub(crate) fn attach(&self, session: &str) -> SteerReceiver {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.senders).insert(session.to_string(), tx);
        rx
    }

    pub(crate) fn detach(&self, session: &str) {
        lock(&self.senders).remove(session);
    }

    pub(crate) fn deliver(&self, session: &str, message: SteerMessage) {
        if let Some(tx) = lock(&self.senders).get(session) {
            let _ = tx.send(message);
        }
    }

    /// Sessions with a live root listening.
    pub(crate) fn count(&self) -> usize {
        lock(&self.senders).len()
    }
}
