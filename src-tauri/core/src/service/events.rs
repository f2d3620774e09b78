//! What the service tells every surface (panel, notification, tray, CLI) about questions, so each can
//! open a card when a question is requested and close it when the question resolves — whoever won.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use tokio::sync::broadcast;

use super::provider::InteractionRequest;
use crate::question::{ErrorCode, UserInteractionError};

/// How a question left the foreground (or, for `AnsweredLate`, the continued state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Answered,
    Cancelled,
    Aborted,
    /// The foreground wait of a timed question expired: the question is now continued and answerable
    /// through [`super::UserQuestionService::answer`].
    TimedOut,
    AnsweredLate,
    /// The agent withdrew a continued question: it ended unanswered.
    Withdrawn,
    /// The provider failed in some other way; the error reached the tool caller.
    Failed,
}

impl Outcome {
    /// The outcome a foreground settlement stands for. `timed` tells a deadline wait (whose timeout
    /// continues the question) from a blocking one (where a timeout error is just a failure).
    pub(crate) fn of(result: &Result<crate::question::AnswerBatch, UserInteractionError>, timed: bool) -> Self {
        match result {
            Ok(_) => Outcome::Answered,
            Err(e) => match e.code {
                ErrorCode::AskCancelled => Outcome::Cancelled,
                ErrorCode::AskAborted => Outcome::Aborted,
                ErrorCode::AskTimedOut if timed => Outcome::TimedOut,
                _ => Outcome::Failed,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QuestionEvent {
    /// A foreground question opened. Sent after the pending entry exists, so a surface that reacts
    /// at once can already attach, submit or cancel.
    Requested {
        request: Box<InteractionRequest>,
    },
    Resolved {
        session_id: String,
        call_id: String,
        outcome: Outcome,
    },
    /// A late reply was queued in the session inbox and awaits admission; answering again is refused
    /// with `REPLY_QUEUED` until it is admitted or discarded.
    ReplyQueued {
        session_id: String,
        call_id: String,
        message_id: String,
    },
    /// A queued reply was discarded: the question can be answered again.
    ReplyReleased {
        session_id: String,
        call_id: String,
        message_id: String,
    },
}

/// A broadcast fan-out. Sending with no subscriber is normal (headless tests, CLI without a UI).
pub(crate) struct EventBus {
    tx: broadcast::Sender<QuestionEvent>,
    /// Counts the events sent, listened to or not: a list of questions read after the count moved
    /// is at least as new as every event counted (see [`super::SessionQuestions`]).
    revision: AtomicU64,
}

/// Enough for a burst of questions and resolutions; a slower subscriber sees `Lagged` and should
/// resynchronise from [`super::UserQuestionService::foreground`] and the questions projection.
const CAPACITY: usize = 1024;

impl EventBus {
    pub(crate) fn new() -> Self {
        EventBus { tx: broadcast::channel(CAPACITY).0, revision: AtomicU64::new(0) }
    }

    pub(crate) fn revision(&self) -> u64 {
        self.revision.load(Ordering::SeqCst)
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<QuestionEvent> {
        self.tx.subscribe()
    }

    /// Builds the event only when someone listens: a headless service (CLI without a UI, the
    /// benchmark) should not pay for cloning requests nobody reads.
    pub(crate) fn send(&self, event: impl FnOnce() -> QuestionEvent) {
        self.revision.fetch_add(1, Ordering::SeqCst);
        if self.tx.receiver_count() > 0 {
            let _ = self.tx.send(event());
        }
    }
}
