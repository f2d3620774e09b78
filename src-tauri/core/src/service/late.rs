//! The second settlement of a timed question: continued questions, the single
//! per-session reply reservation, and the steer channel that carries a late answer to the agent.
//!
//! A continued question settles only when its reply is *admitted* (the agent appends it as
//! `user/message`). Until then the session's reservation blocks a second reply (`REPLY_QUEUED`); only
//! a discarded reply frees it, so a reply survives a stopped turn, a Quit and a crash and is admitted
//! later. The rules mirror the store's questions projection so that reopening a session rebuilds
//! the same state.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::lock;
use crate::question::{late_answer_text, validate_answers, AnswerBatch, ErrorCode, Question, UserInteractionError};
use crate::session::{MessageSource, QuestionRecord, QuestionState};

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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ContinuedQuestion {
    pub session_id: String,
    pub call_id: String,
    pub questions: Vec<Question>,
    /// The inbox message id of a reply to this question that awaits admission.
    pub reply_queued: Option<String>,
}

struct Reservation {
    call_id: String,
    message_id: String,
    /// `None` when rebuilt from the log on open: the agent re-reads the queued text from the inbox.
    message: Option<SteerMessage>,
}

#[derive(Default)]
struct SessionLate {
    /// call id → (order it became continued, its questions).
    continued: HashMap<String, (u64, Vec<Question>)>,
    next_order: u64,
    reservation: Option<Reservation>,
    /// Every reply message id this session issued that is not admitted yet → its call. Kept after a
    /// release: if the agent admits a released reply anyway, the log records an admitted answer, and
    /// the projection settles the question on it, so the service must as well.
    issued: HashMap<String, String>,
    steer: Option<mpsc::UnboundedSender<SteerMessage>>,
}

impl SessionLate {
    fn is_empty(&self) -> bool {
        self.continued.is_empty() && self.reservation.is_none() && self.issued.is_empty() && self.steer.is_none()
    }
}

pub(crate) struct LateAnswers {
    sessions: Mutex<HashMap<String, SessionLate>>,
}

fn not_continued(call_id: &str) -> UserInteractionError {
    UserInteractionError::new(
        ErrorCode::NotPending,
        format!("question {call_id} is not waiting for a late answer (unknown, still in the foreground, or settled)"),
    )
}

impl LateAnswers {
    pub(crate) fn new() -> Self {
        LateAnswers { sessions: Mutex::new(HashMap::new()) }
    }

    pub(crate) fn continue_question(&self, session: &str, call_id: &str, questions: Vec<Question>) {
        let mut sessions = lock(&self.sessions);
        let s = sessions.entry(session.to_string()).or_default();
        let order = s.next_order;
        s.next_order += 1;
        s.continued.entry(call_id.to_string()).or_insert((order, questions));
    }

    pub(crate) fn is_continued(&self, session: &str, call_id: &str) -> bool {
        lock(&self.sessions).get(session).is_some_and(|s| s.continued.contains_key(call_id))
    }

    /// Takes the session's reservation for a reply to `call_id`. Checks in the seed's order: not
    /// continued → `NOT_PENDING`, reservation taken → `REPLY_QUEUED`, batch misfit → `BAD_ANSWER`.
    pub(crate) fn reserve(
        &self,
        session: &str,
        call_id: &str,
        batch: &AnswerBatch,
    ) -> Result<SteerMessage, UserInteractionError> {
        let mut sessions = lock(&self.sessions);
        let s = sessions.get_mut(session).ok_or_else(|| not_continued(call_id))?;
        let (_, questions) = s.continued.get(call_id).ok_or_else(|| not_continued(call_id))?;
        if let Some(r) = &s.reservation {
            return Err(UserInteractionError::new(
                ErrorCode::ReplyQueued,
                format!(
                    "a late reply (to question {}) already waits for the agent to take it; try again once it \
                     is admitted or discarded",
                    r.call_id
                ),
            ));
        }
        validate_answers(questions, batch)?;
        let message = SteerMessage {
            message_id: uuid::Uuid::new_v4().to_string(),
            text: late_answer_text(call_id, questions, batch),
            source: MessageSource::question_reply(call_id, batch.clone()),
        };
        s.issued.insert(message.message_id.clone(), call_id.to_string());
        s.reservation = Some(Reservation {
            call_id: call_id.to_string(),
            message_id: message.message_id.clone(),
            message: Some(message.clone()),
        });
        Ok(message)
    }

    /// Undoes a reservation whose inbox event could not be written: the reply never existed.
    pub(crate) fn unreserve(&self, session: &str, message_id: &str) {
        let mut sessions = lock(&self.sessions);
        if let Some(s) = sessions.get_mut(session) {
            s.issued.remove(message_id);
            if s.reservation.as_ref().is_some_and(|r| r.message_id == message_id) {
                s.reservation = None;
            }
        }
    }

    /// Hands the message to the session's agent if one listens; otherwise it waits in the
    /// reservation and is delivered when the next live root attaches.
    pub(crate) fn deliver(&self, session: &str, message: SteerMessage) {
        let sessions = lock(&self.sessions);
        if let Some(tx) = sessions.get(session).and_then(|s| s.steer.as_ref()) {
            let _ = tx.send(message);
        }
    }

    /// A new steer channel for the session's new live root; an unadmitted reply is delivered again.
    pub(crate) fn attach_agent(&self, session: &str) -> SteerReceiver {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut sessions = lock(&self.sessions);
        let s = sessions.entry(session.to_string()).or_default();
        if let Some(message) = s.reservation.as_ref().and_then(|r| r.message.clone()) {
            let _ = tx.send(message);
        }
        s.steer = Some(tx);
        rx
    }

    pub(crate) fn detach_agent(&self, session: &str) {
        let mut sessions = lock(&self.sessions);
        if let Some(s) = sessions.get_mut(session) {
            s.steer = None;
            if s.is_empty() {
                sessions.remove(session);
            }
        }
    }

    /// The agent appended reply `message_id`: settles its question if it is still continued (first
    /// admitted reply wins). Returns the settled call id.
    pub(crate) fn admit(&self, session: &str, message_id: &str) -> Option<String> {
        let mut sessions = lock(&self.sessions);
        let s = sessions.get_mut(session)?;
        let call_id = s.issued.remove(message_id)?;
        if s.reservation.as_ref().is_some_and(|r| r.message_id == message_id) {
            s.reservation = None;
        }
        s.continued.remove(&call_id)?;
        // A second reply queued after the first was released answers a question that is now settled.
        if s.reservation.as_ref().is_some_and(|r| r.call_id == call_id) {
            s.reservation = None;
        }
        s.issued.retain(|_, c| *c != call_id);
        Some(call_id)
    }

    /// Frees the reservation held by `message_id`. Returns its call id when it held it.
    pub(crate) fn release(&self, session: &str, message_id: &str) -> Option<String> {
        let mut sessions = lock(&self.sessions);
        let s = sessions.get_mut(session)?;
        if s.reservation.as_ref().is_some_and(|r| r.message_id == message_id) {
            s.reservation.take().map(|r| r.call_id)
        } else {
            None
        }
    }

    /// Rebuilds continued questions and a queued reply from the durable projection. Merges: state
    /// this process already holds (a question that timed out moments ago) is kept.
    pub(crate) fn load(&self, session: &str, records: &[QuestionRecord]) {
        let mut sessions = lock(&self.sessions);
        let s = sessions.entry(session.to_string()).or_default();
        for record in records.iter().filter(|r| r.state == QuestionState::Continued) {
            if !s.continued.contains_key(&record.call_id) {
                let order = s.next_order;
                s.next_order += 1;
                s.continued.insert(record.call_id.clone(), (order, record.questions.clone()));
            }
            if let Some(message_id) = &record.reply_queued {
                s.issued.insert(message_id.clone(), record.call_id.clone());
                if s.reservation.is_none() {
                    s.reservation = Some(Reservation {
                        call_id: record.call_id.clone(),
                        message_id: message_id.clone(),
                        message: None,
                    });
                }
            }
        }
        if s.is_empty() {
            sessions.remove(session);
        }
    }

    pub(crate) fn list(&self, session: &str) -> Vec<ContinuedQuestion> {
        let sessions = lock(&self.sessions);
        let Some(s) = sessions.get(session) else {
            return Vec::new();
        };
        let mut rows: Vec<(u64, ContinuedQuestion)> = s
            .continued
            .iter()
            .map(|(call_id, (order, questions))| {
                let reply_queued =
                    s.reservation.as_ref().filter(|r| r.call_id == *call_id).map(|r| r.message_id.clone());
                let row = ContinuedQuestion {
                    session_id: session.to_string(),
                    call_id: call_id.clone(),
                    questions: questions.clone(),
                    reply_queued,
                };
                (*order, row)
            })
            .collect();
        rows.sort_by_key(|(order, _)| *order);
        rows.into_iter().map(|(_, row)| row).collect()
    }

    pub(crate) fn forget_session(&self, session: &str) {
        lock(&self.sessions).remove(session);
    }

    /// (continued questions, taken reservations) over all sessions.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let sessions = lock(&self.sessions);
        sessions.values().fold((0, 0), |(c, r), s| (c + s.continued.len(), r + usize::from(s.reservation.is_some())))
    }
}
