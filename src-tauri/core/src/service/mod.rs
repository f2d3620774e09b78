//! UserQuestionService: the host side of `ask_user_question`.
//!
//! - Foreground: [`UserQuestionService::ask`] / [`UserQuestionService::ask_timed`] open a pending
//!   entry, hand the request to the registered [`InteractionProvider`], and end on the first of: the
//!   provider's answer, a surface's [`submit_foreground`](UserQuestionService::submit_foreground) or
//!   [`cancel`](UserQuestionService::cancel), the turn's abort, the host deadline (timed only; paused
//!   while a client holds a take-over from [`attach`](UserQuestionService::attach)).
//! - Continued: a timed question whose deadline passed (its `pending` result recorded) stays
//!   answerable through [`answer`](UserQuestionService::answer), which queues a reply in the session
//!   inbox and steers it to the agent; the question settles when the agent admits it
//!   ([`on_admitted`](UserQuestionService::on_admitted)). The service keeps no state for this: it
//!   reads the session log's question fold, in the step that writes the reply.
//! - Every resolution is broadcast as a [`QuestionEvent`] so every surface can close its card.

mod ask;
mod callers;
mod events;
mod late;
mod log;
mod pending;
mod provider;
mod stats;
mod store_log;
mod view;
mod wait;

#[cfg(test)]
pub(crate) mod tests;

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::broadcast;

pub use ask::AskParams;
pub use events::{Outcome, QuestionEvent};
pub use late::{not_continued, ContinuedQuestion, SteerMessage, SteerReceiver};
pub use log::{LogError, MemoryLog, SessionLog};
pub use provider::{
    BoxFuture, Caller, ForwardingProvider, InteractionProvider, InteractionRequest, ProviderRegistration, WaitInfo,
};
pub use stats::ServiceStats;
pub use view::{next_to_show, questions_view, Phase, QuestionView, SessionQuestions};
pub use wait::{Attached, Takeover};

use crate::error::CodedError;
use crate::question::{AnswerBatch, ErrorCode, Question, UserInteractionError};
use crate::session::{Event, QuestionFold, QuestionState};
use callers::LiveRoots;
use events::EventBus;
use late::Steering;
use pending::{PendingTable, Settlement};
use provider::ProviderRegistry;
use stats::Counters;

pub(crate) use crate::sync::lock;

/// The message of a wait that ended because the host quit, which is how a tool tells a quit from a
/// timeout when it says why the call returned pending.
pub const QUIT_BEFORE_ANSWER: &str = "Hark quit before the question was answered";

/// The longest a late answer waits for a call whose foreground just ended to be recorded continued.
const BECOMING_CONTINUED: std::time::Duration = std::time::Duration::from_secs(2);

/// Failure of an operation that also writes to the session log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    Interaction(#[from] UserInteractionError),
    #[error("writing the session log failed: {0}")]
    Log(#[from] LogError),
}

impl ServiceError {
    /// The interaction code, when this is a question-protocol error.
    pub fn interaction_code(&self) -> Option<ErrorCode> {
        match self {
            ServiceError::Interaction(e) => Some(e.code),
            ServiceError::Log(_) => None,
        }
    }
}

impl CodedError for ServiceError {
    fn name(&self) -> &str {
        match self {
            ServiceError::Interaction(e) => e.name(),
            ServiceError::Log(e) => e.name(),
        }
    }
    fn code(&self) -> &str {
        match self {
            ServiceError::Interaction(e) => e.code.as_str(),
            ServiceError::Log(e) => &e.code,
        }
    }
    fn message(&self) -> String {
        match self {
            ServiceError::Interaction(e) => e.message.clone(),
            ServiceError::Log(e) => e.message.clone(),
        }
    }
}

/// A late answer accepted into the session inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LateReply {
    pub session_id: String,
    pub call_id: String,
    /// The inbox message id; the agent admits it under this id.
    pub message_id: String,
}

/// Which path [`UserQuestionService::respond`] took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "path", rename_all = "snake_case")]
pub enum Responded {
    Foreground,
    Late(LateReply),
}

struct Inner {
    providers: Arc<ProviderRegistry>,
    pending: PendingTable,
    steering: Steering,
    roots: LiveRoots,
    events: EventBus,
    log: Arc<dyn SessionLog>,
    counters: Arc<Counters>,
}

/// One per process; cheap to clone (all clones share state).
#[derive(Clone)]
pub struct UserQuestionService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for UserQuestionService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserQuestionService").field("stats", &self.stats()).finish()
    }
}

impl UserQuestionService {
    /// `log` receives `inbox/queued` and `inbox/discarded` events (the real one is the session store).
    pub fn new(log: Arc<dyn SessionLog>) -> Self {
        let counters = Arc::new(Counters::default());
        UserQuestionService {
            inner: Arc::new(Inner {
                providers: Arc::new(ProviderRegistry::new()),
                pending: PendingTable::new(Arc::clone(&counters)),
                steering: Steering::new(),
                roots: LiveRoots::new(),
                events: EventBus::new(),
                log,
                counters,
            }),
        }
    }

    /// Registers the provider that shows questions. A second registration fails with
    /// `DUPLICATE_PROVIDER`; dropping the returned handle disposes the provider.
    pub fn register(
        &self,
        provider: Arc<dyn InteractionProvider>,
    ) -> Result<ProviderRegistration, UserInteractionError> {
        self.inner.providers.register(provider)
    }

    pub fn subscribe(&self) -> broadcast::Receiver<QuestionEvent> {
        self.inner.events.subscribe()
    }

    /// Makes `instance` the only agent of `session` allowed to ask, and returns the channel of late
    /// answers the agent must drain at step boundaries (or start a turn with when idle). Calling it
    /// again (the session was reopened) retires the previous instance and its channel. A reply queued
    /// before is not sent again: it waits in the log's inbox, which the new root reads.
    pub fn set_live_root(&self, session: &str, instance: &str) -> SteerReceiver {
        self.inner.roots.set(session, instance);
        self.inner.steering.attach(session)
    }

    /// The instance stopped; only clears it if it still is the live root.
    pub fn clear_live_root(&self, session: &str, instance: &str) -> bool {
        let cleared = self.inner.roots.clear(session, instance);
        if cleared {
            self.inner.steering.detach(session);
        }
        cleared
    }

    /// A surface's answer to a foreground question. `BAD_ANSWER` leaves the question open for a
    /// corrected batch; `NOT_PENDING` when it already settled (or continued: use [`answer`](Self::answer)).
    pub fn submit_foreground(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
    ) -> Result<(), UserInteractionError> {
        self.settle(session, call_id, Ok(answers))
    }

    /// The person closed the whole question: it ends with `ASK_CANCELLED`. A surface closing a timed
    /// question without deciding should release its take-over instead, leaving the question answerable.
    pub fn cancel(&self, session: &str, call_id: &str) -> Result<(), UserInteractionError> {
        self.settle(
            session,
            call_id,
            Err(UserInteractionError::new(ErrorCode::AskCancelled, "the user closed the question")),
        )
    }

    /// The person declined a form (an MCP server's elicitation): it ends with `ASK_DECLINED`, which the
    /// server reads as "no, go on without it". Refused (`BAD_INTENT`) for any other question, which
    /// is answered, skipped or closed instead.
    pub fn decline(&self, session: &str, call_id: &str) -> Result<(), UserInteractionError> {
        if !self.inner.pending.is_form(session, call_id)? {
            return Err(UserInteractionError::new(ErrorCode::BadIntent, format!("question {call_id} is not a form")));
        }
        self.settle(
            session,
            call_id,
            Err(UserInteractionError::new(ErrorCode::AskDeclined, "the user declined the form")),
        )
    }

    /// A client's own countdown on a timed question ran out: the foreground ends as if the host
    /// deadline had fired. Refused (`INVALID_REQUEST`) on a blocking question, which has no countdown.
    pub fn expire(&self, session: &str, call_id: &str) -> Result<(), UserInteractionError> {
        if !self.inner.pending.is_timed(session, call_id)? {
            return Err(UserInteractionError::invalid_request(format!("question {call_id} has no deadline to expire")));
        }
        self.settle(
            session,
            call_id,
            Err(UserInteractionError::new(ErrorCode::AskTimedOut, "the client's countdown ran out")),
        )
    }

    /// The host is quitting while a question that outlives a quit waits (see
    /// [`InteractionRequest::outlives_quit`]): its wait ends unanswered, its tool records it pending,
    /// and it stays answerable after the next start, as after a crash. Refused (`INVALID_REQUEST`) for
    /// a plain blocking question, which ends `ASK_ABORTED` with its turn.
    pub fn continue_on_quit(&self, session: &str, call_id: &str) -> Result<(), UserInteractionError> {
        if !self.inner.pending.outlives_quit(session, call_id)? {
            return Err(UserInteractionError::invalid_request(format!("question {call_id} ends with its turn")));
        }
        self.settle(session, call_id, Err(UserInteractionError::new(ErrorCode::AskTimedOut, QUIT_BEFORE_ANSWER)))
    }

    /// A client starts showing a foreground question: the host deadline pauses while the returned
    /// take-over is held, and `remaining_ms` is the time left on the original deadline. Keep the
    /// take-over until the host has received this client's answer.
    pub fn attach(&self, session: &str, call_id: &str) -> Result<Attached, UserInteractionError> {
        self.inner.pending.attach(session, call_id)
    }

    /// Foreground questions waiting now (all sessions with `None`): what a reconnecting surface shows.
    pub fn foreground(&self, session: Option<&str>) -> Vec<InteractionRequest> {
        self.inner.pending.snapshot(session)
    }

    /// Continued questions of a session, in the order they were asked. Empty when the log cannot be
    /// read (the failure reaches whoever answers one).
    /// A question whose wait just ended is listed from that moment, before the log records its
    /// pending result: no reader ever finds it neither waiting nor continued.
    pub fn continued(&self, session: &str) -> Vec<ContinuedQuestion> {
        // The handed-over calls are read before the log: a call forgotten before this read was already
        // past open in the log, so the log read after it lists it if it is continued.
        let handed = self.inner.pending.continuing(session);
        let (list, recorded) = self.read_questions(session, |fold| {
            let recorded: Vec<String> = handed
                .iter()
                .filter(|call| fold.get(call).is_none_or(|r| r.state != QuestionState::Open))
                .cloned()
                .collect();
            (late::continued(fold, session, &handed), recorded)
        });
        if !recorded.is_empty() {
            // A call leaves the open state only once, so what the log said here stays true.
            self.inner.pending.forget_continuing(session, |call| recorded.iter().any(|r| r == call));
        }
        list
    }

    /// [`questions`](Self::questions) with the revision that orders it against other reads. The
    /// revision is read first: every question event it counts changed the service before the read.
    pub fn session_questions(&self, session: &str) -> SessionQuestions {
        let revision = self.inner.events.revision();
        SessionQuestions { revision, questions: self.questions(session) }
    }

    /// `session`'s waiting questions as every surface lists them: the foreground ones first, then
    /// the continued ones, each saying whether it takes an answer now (see [`questions_view`]).
    pub fn questions(&self, session: &str) -> Vec<QuestionView> {
        // The foreground is read before the continued list: a question claimed between the two reads
        // is in both (and listed once), never in neither.
        let mut views = questions_view(&self.foreground(Some(session)), &self.continued(session));
        let missing: Vec<String> = views.iter().filter(|v| v.asked_at.is_none()).map(|v| v.call_id.clone()).collect();
        if !missing.is_empty() {
            let times = self.read_questions(session, |fold| {
                missing.iter().map(|call| (call.clone(), fold.get(call).and_then(|r| r.asked_at))).collect::<Vec<_>>()
            });
            for (call, at) in times {
                if let Some(view) = views.iter_mut().find(|v| v.call_id == call) {
                    view.asked_at = at;
                }
            }
        }
        views
    }

    /// `f` on the session's question fold as the log says now; its default when the log cannot be
    /// read (whoever then answers or records meets the failure).
    fn read_questions<R: Default>(&self, session: &str, f: impl FnOnce(&QuestionFold) -> R) -> R {
        let mut f = Some(f);
        let mut out = R::default();
        let _ = self.inner.log.with_questions(session, &mut |fold| {
            if let Some(f) = f.take() {
                out = f(fold);
            }
        });
        out
    }

    /// The questions of call `call_id` as the log recorded them, whatever its state: what a surface
    /// shows of a question that just timed out, before its pending result is recorded.
    pub fn asked(&self, session: &str, call_id: &str) -> Option<Vec<Question>> {
        self.read_questions(session, |fold| fold.get(call_id).map(|r| r.questions.clone()))
    }

    /// When `call_id` was asked, as the log recorded its call.
    pub fn asked_at(&self, session: &str, call_id: &str) -> Option<chrono::DateTime<chrono::Utc>> {
        self.read_questions(session, |fold| fold.get(call_id).and_then(|r| r.asked_at))
    }

    fn state_of(&self, session: &str, call_id: &str) -> Option<QuestionState> {
        self.read_questions(session, |fold| fold.get(call_id).map(|r| r.state))
    }

    fn late_path_decides(&self, session: &str, call_id: &str) -> bool {
        self.read_questions(session, |fold| {
            fold.get(call_id).is_some_and(|r| {
                matches!(r.state, QuestionState::Continued | QuestionState::Open) || r.withdrawn.is_some()
            })
        })
    }

    /// Whether `call_id` is continued: a late answer to it may be queued (and its admission settles it).
    pub fn is_continued(&self, session: &str, call_id: &str) -> bool {
        self.state_of(session, call_id) == Some(QuestionState::Continued)
    }

    /// A call whose foreground wait ended unanswered while the log still has it open: its pending
    /// result is about to be recorded (the agent does it as the wait returns), and it becomes
    /// continued then.
    fn is_becoming_continued(&self, session: &str, call_id: &str) -> bool {
        self.inner.pending.is_continuing(session, call_id)
            && self.state_of(session, call_id) == Some(QuestionState::Open)
    }

    /// A late answer to a continued question: checks it against the session's question fold and
    /// records it as `inbox/queued` in one step (so of two surfaces answering at once, one is taken
    /// and the other told `REPLY_QUEUED`), then steers the reply to the agent. The question settles
    /// when the agent admits it.
    /// The agent that asked takes back a continued question (see [`late::withdrawal`]): recorded, then
    /// every surface told it ended. `session` is the asker's own, so another session's question is
    /// never found (`NOT_PENDING`).
    pub fn withdraw(&self, session: &str, call_id: &str, reason: &str) -> Result<(), ServiceError> {
        let mut decided = Err(late::not_continued(call_id));
        self.inner.log.append_decided(session, &mut |fold| {
            decided = late::withdrawal(fold, call_id, reason);
            decided.as_ref().ok().cloned()
        })?;
        decided?;
        self.inner.events.send(|| QuestionEvent::Resolved {
            session_id: session.to_string(),
            call_id: call_id.to_string(),
            outcome: Outcome::Withdrawn,
        });
        Ok(())
    }

    pub fn answer(&self, session: &str, call_id: &str, answers: AnswerBatch) -> Result<LateReply, ServiceError> {
        // An answer given just as the foreground wait ended (a notification's button pressed at the
        // timeout) waits the moment until the call is continued rather than being refused for it.
        let deadline = std::time::Instant::now() + BECOMING_CONTINUED;
        while self.is_becoming_continued(session, call_id) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let mut decided = Err(late::not_continued(call_id));
        self.inner.log.append_decided(session, &mut |fold| {
            decided = late::reply(fold, call_id, &answers);
            let message = decided.as_ref().ok()?;
            Some(Event::InboxQueued {
                message_id: message.message_id.clone(),
                text: message.text.clone(),
                source: message.source.clone(),
            })
        })?;
        let message = decided?;
        let reply = LateReply {
            session_id: session.to_string(),
            call_id: call_id.to_string(),
            message_id: message.message_id.clone(),
        };
        self.inner.steering.deliver(session, message);
        self.inner.events.send(|| QuestionEvent::ReplyQueued {
            session_id: reply.session_id.clone(),
            call_id: reply.call_id.clone(),
            message_id: reply.message_id.clone(),
        });
        Ok(reply)
    }

    /// One entry point for surfaces that do not track which phase a question is in (a notification
    /// action): the foreground if it is still waiting there, the late path if it is continued.
    pub fn respond(&self, session: &str, call_id: &str, answers: AnswerBatch) -> Result<Responded, ServiceError> {
        match self.submit_foreground(session, call_id, answers.clone()) {
            Ok(()) => Ok(Responded::Foreground),
            // Not in the foreground: the late path answers a continued question, and says why a
            // withdrawn one takes no answer.
            Err(e) if e.code == ErrorCode::NotPending && self.late_path_decides(session, call_id) => {
                self.answer(session, call_id, answers).map(Responded::Late)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The agent appended a late reply to `call_id` as `user/message`, which settled the question (it
    /// was [continued](Self::is_continued) just before: the first admitted reply settles it). Every
    /// surface is told; returns whether the log agrees it settled.
    pub fn on_admitted(&self, session: &str, call_id: &str) -> bool {
        let settled = self.read_questions(session, |fold| {
            fold.get(call_id).is_some_and(|r| r.state == QuestionState::Settled && r.answered_late)
        });
        if settled {
            self.inner.events.send(|| QuestionEvent::Resolved {
                session_id: session.to_string(),
                call_id: call_id.to_string(),
                outcome: Outcome::AnsweredLate,
            });
        }
        settled
    }

    /// Reply `message_id` is dropped without being admitted: `inbox/discarded` is recorded, which
    /// releases the reservation (the user may answer again). This is the only release: a reply waits
    /// through turn ends, Quit and crashes until it is admitted. Returns whether that reply held
    /// the reservation (false, and nothing recorded, when it did not).
    pub fn on_discarded(&self, session: &str, message_id: &str, reason: &str) -> Result<bool, ServiceError> {
        let mut call_id = None;
        let recorded = self.inner.log.append_decided(session, &mut |fold| {
            call_id = fold.reserved_call(message_id).map(str::to_string);
            call_id.as_ref()?;
            Some(Event::InboxDiscarded { message_id: message_id.to_string(), reason: reason.to_string() })
        })?;
        if let (true, Some(call_id)) = (recorded, call_id) {
            self.inner.events.send(|| QuestionEvent::ReplyReleased {
                session_id: session.to_string(),
                call_id,
                message_id: message_id.to_string(),
            });
        }
        Ok(recorded)
    }

    /// Forgets a session's live root and its steer channel (the session was closed or deleted). Its
    /// foreground questions belong to its turn, which the owner aborts.
    pub fn close_session(&self, session: &str) {
        self.inner.roots.remove_session(session);
        self.inner.steering.detach(session);
        self.inner.pending.forget_session(session);
    }

    /// Rejects every foreground question with `ASK_ABORTED` (the app is quitting).
    pub fn shutdown(&self) {
        for (session, call_id) in self.inner.pending.keys() {
            let _ = self.settle(&session, &call_id, Err(ask::aborted("Hark is shutting down")));
        }
    }

    pub fn stats(&self) -> ServiceStats {
        let c = &self.inner.counters;
        ServiceStats {
            pending_waits: c.pending_waits.get(),
            timers: c.timers.get(),
            takeovers: c.takeovers.get(),
            steer_channels: self.inner.steering.count(),
            providers: self.inner.providers.count(),
        }
    }

    pub(crate) fn settle(
        &self,
        session: &str,
        call_id: &str,
        settlement: Settlement,
    ) -> Result<(), UserInteractionError> {
        self.settle_ticket(session, call_id, None, settlement)
    }

    /// The one settlement path: claim (first wins), continue a timed-out question, wake the asker,
    /// tell the surfaces.
    fn settle_ticket(
        &self,
        session: &str,
        call_id: &str,
        ticket: Option<u64>,
        settlement: Settlement,
    ) -> Result<(), UserInteractionError> {
        let claimed = self.inner.pending.claim(session, call_id, ticket, &settlement)?;
        let outcome = Outcome::of(&settlement, claimed.request.wait.is_some());
        claimed.deliver(settlement);
        self.inner.events.send(|| QuestionEvent::Resolved {
            session_id: session.to_string(),
            call_id: call_id.to_string(),
            outcome,
        });
        Ok(())
    }
}
