//! The foreground of one question: open the pending entry, hand the request to the provider, and
//! race the provider's answer, the pending table (panel submits, cancel), the turn's abort and the
//! host deadline. Every path ends in the pending table's single claim, so exactly one wins.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::events::QuestionEvent;
use super::pending::Settlement;
use super::provider::{Caller, InteractionRequest, WaitInfo};
use super::wait::TimedWait;
use super::UserQuestionService;
use crate::question::{validate_questions, AnswerBatch, ErrorCode, Intent, Question, UserInteractionError};

/// One question call as the tool (or any other host code) hands it to the service.
#[derive(Debug, Clone)]
pub struct AskParams {
    /// The tool call id (or a host-minted id); unique among the session's open questions.
    pub call_id: String,
    pub caller: Caller,
    /// A plain question, or a plan review (whose `questions` are `plan_review_questions()`).
    pub intent: Intent,
    pub questions: Vec<Question>,
    /// The owning turn's abort signal.
    pub abort: CancellationToken,
}

pub(crate) fn aborted(message: &str) -> UserInteractionError {
    UserInteractionError::new(ErrorCode::AskAborted, message)
}

/// Settles the entry with `ASK_ABORTED` if the ask future is dropped before it finished (the agent
/// dropped the tool call), so a dropped wait leaves nothing behind. The ticket makes sure it can only
/// ever settle its own entry, never a later question that reused the call id.
struct Abandon<'a> {
    service: &'a UserQuestionService,
    session: &'a str,
    call_id: &'a str,
    ticket: u64,
    armed: bool,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.service.settle_ticket(
                self.session,
                self.call_id,
                Some(self.ticket),
                Err(aborted("the tool call waiting for this question was dropped")),
            );
        }
    }
}

impl UserQuestionService {
    /// Blocking ask: waits until answered, cancelled (`ASK_CANCELLED`) or aborted (`ASK_ABORTED`).
    /// Without a provider it fails at once with `NO_PROVIDER`.
    pub async fn ask(&self, params: AskParams) -> Result<AnswerBatch, UserInteractionError> {
        self.run_foreground(params, None).await
    }

    /// Timed ask: like [`ask`](Self::ask) but the host deadline (paused by take-overs) ends the wait
    /// with `ASK_TIMED_OUT`, after which the question is continued and answerable through
    /// [`answer`](Self::answer). Without a provider it waits out the same deadline.
    pub async fn ask_timed(&self, params: AskParams, timeout: Duration) -> Result<AnswerBatch, UserInteractionError> {
        self.run_foreground(params, Some(timeout)).await
    }

    async fn run_foreground(
        &self,
        params: AskParams,
        timeout: Option<Duration>,
    ) -> Result<AnswerBatch, UserInteractionError> {
        let AskParams { call_id, caller, intent, questions, abort } = params;
        if abort.is_cancelled() {
            return Err(aborted("the turn was aborted before the question was asked"));
        }
        self.inner.roots.check(&caller)?;
        // A plan review asks its own fixed question; every other intent asks a batch that must be
        // valid, and then fit what its intent asks with.
        if !intent.is_plan_review() {
            validate_questions(&questions)?;
        }
        intent.check(&questions)?;
        let provider = self.inner.providers.current();
        if provider.is_none() && timeout.is_none() {
            return Err(UserInteractionError::new(
                ErrorCode::NoProvider,
                "no interaction provider is registered to show the question",
            ));
        }
        let timed = timeout.is_some();
        let session = caller.session_id.clone();
        let wait = TimedWait::new(timeout, Arc::clone(&self.inner.counters));
        let request = InteractionRequest {
            session_id: session.clone(),
            call_id: call_id.clone(),
            caller,
            intent,
            questions,
            wait: timeout.map(|t| WaitInfo {
                call_id: call_id.clone(),
                timed: true,
                timeout_ms: u64::try_from(t.as_millis()).unwrap_or(u64::MAX),
            }),
            abort: CancellationToken::new(),
        };
        let (ticket, mut settled) = match self.inner.pending.open(request.clone(), Arc::clone(&wait)) {
            Ok(opened) => opened,
            Err(e) => {
                wait.close();
                return Err(e);
            }
        };
        let mut abandon = Abandon { service: self, session: &session, call_id: &call_id, ticket, armed: true };
        self.inner.events.send(|| QuestionEvent::Requested { request: Box::new(request.clone()) });

        let provider_answer = async move {
            match provider {
                None => std::future::pending().await,
                Some((provider, disposed)) => tokio::select! {
                    answer = provider.ask(request) => answer,
                    _ = disposed.cancelled() => Err(aborted("the interaction provider was disposed")),
                },
            }
        };
        tokio::pin!(provider_answer);
        let expired = wait.expired();
        tokio::pin!(expired);
        // Each branch settles at most once: after settling, only `settled` can make progress, and a
        // branch that stayed ready would spin until it does.
        let (mut provider_done, mut expiry_done, mut abort_done) = (false, false, false);
        loop {
            tokio::select! {
                biased;
                result = &mut settled => {
                    abandon.armed = false;
                    return result.unwrap_or_else(|_| Err(aborted("the question was dropped without a settlement")));
                }
                _ = abort.cancelled(), if !abort_done => {
                    abort_done = true;
                    let _ = self.settle(&session, &call_id, Err(aborted("the turn was aborted")));
                }
                answer = &mut provider_answer, if !provider_done => {
                    provider_done = true;
                    self.settle_from_provider(&session, &call_id, answer, timed);
                }
                _ = &mut expired, if !expiry_done => {
                    expiry_done = true;
                    let _ = self.settle(&session, &call_id, Err(UserInteractionError::new(
                        ErrorCode::AskTimedOut,
                        "the question was not answered before its deadline",
                    )));
                }
            }
        }
    }

    fn settle_from_provider(&self, session: &str, call_id: &str, answer: Settlement, timed: bool) {
        match answer {
            Ok(batch) => {
                if let Err(e) = self.settle(session, call_id, Ok(batch)) {
                    if e.code == ErrorCode::BadAnswer {
                        // The provider cannot be asked again, so its misfit answer fails the call.
                        let msg = format!("the interaction provider returned an unusable answer: {}", e.message);
                        let _ = self.settle(session, call_id, Err(UserInteractionError::bad_answer(msg)));
                    }
                }
            }
            // A timed question outlives a missing surface: it waits out its deadline like any other.
            Err(e) if timed && e.code == ErrorCode::NoProvider => {}
            Err(e) => {
                let _ = self.settle(session, call_id, Err(e));
            }
        }
    }
}
