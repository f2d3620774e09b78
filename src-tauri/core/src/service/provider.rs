//! The seam between the service and whatever shows a question to a person: the desktop panel over
//! IPC, the CLI on stdio, a test double. At most one provider is registered at a time.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::lock;
use crate::question::{AnswerBatch, ErrorCode, Question, UserInteractionError};

/// A boxed, sendable future: what object-safe async trait methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who asks: the agent instance making the tool call. The service only lets the live root agent of
/// the session ask (see [`super::UserQuestionService::set_live_root`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub struct Caller {
    pub session_id: String,
    pub agent_instance_id: String,
    /// The owning agent instance when the caller is a sub-agent.
    #[serde(default)]
    pub parent: Option<String>,
}

impl Caller {
    /// The root agent of a session.
    pub fn root(session_id: impl Into<String>, agent_instance_id: impl Into<String>) -> Self {
        Caller { session_id: session_id.into(), agent_instance_id: agent_instance_id.into(), parent: None }
    }
}

/// Present on requests that run a host deadline. A client that shows such a question should
/// [`attach`](super::UserQuestionService::attach) to pause that deadline while the person looks at it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WaitInfo {
    pub call_id: String,
    /// Always true today; mirrors the wire shape `{call_id, timed: true}` the clients key on.
    pub timed: bool,
    /// The full foreground budget, for a client that draws progress; the live figure comes from attach.
    pub timeout_ms: u64,
}

/// One foreground question as a provider receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct InteractionRequest {
    pub session_id: String,
    /// Key for `submit_foreground`, `cancel`, `attach` (with the session id).
    pub call_id: String,
    pub caller: Caller,
    /// What the question is for; a surface shows a plan review as the plan with Approve and
    /// Request changes.
    #[serde(default)]
    pub intent: crate::question::Intent,
    pub questions: Vec<Question>,
    /// `None` for blocking questions: closing the panel should cancel those, while a timed question
    /// closed unanswered stays answerable.
    pub wait: Option<WaitInfo>,
    /// Fires when the service no longer wants an answer from this provider (settled elsewhere,
    /// aborted, timed out, provider disposed). A provider should take its UI down then.
    #[serde(skip)]
    pub abort: CancellationToken,
}

impl InteractionRequest {
    /// Whether the question stays answerable when the host quits while it waits: a timed question
    /// continues, and so does a plan review (nothing may change the workspace until it is decided). A
    /// plain blocking question ends with its turn.
    pub fn outlives_quit(&self) -> bool {
        self.wait.is_some() || self.intent.is_plan_review()
    }
}

/// Shows questions and collects answers. Return the user's batch, or an error: `ASK_CANCELLED` when
/// the person closed the question, `ASK_TIMED_OUT` when the client's own countdown ran out on a timed
/// question, `NO_PROVIDER` when no surface can show it right now. The returned batch is validated by
/// the service; an invalid one fails the call with `BAD_ANSWER`.
///
/// The future may also never resolve: UIs that answer through
/// [`super::UserQuestionService::submit_foreground`] (see [`ForwardingProvider`]) settle the pending
/// entry directly and the service drops the future.
pub trait InteractionProvider: Send + Sync {
    fn ask(&self, request: InteractionRequest) -> BoxFuture<'_, Result<AnswerBatch, UserInteractionError>>;
}

struct Slot {
    id: u64,
    provider: Arc<dyn InteractionProvider>,
    disposed: CancellationToken,
}

/// The single provider slot.
pub(crate) struct ProviderRegistry {
    slot: Mutex<Option<Slot>>,
    next_id: AtomicU64,
}

/// The current provider and the token that fires when it is disposed.
pub(crate) type Current = (Arc<dyn InteractionProvider>, CancellationToken);

impl ProviderRegistry {
    pub(crate) fn new() -> Self {
        ProviderRegistry { slot: Mutex::new(None), next_id: AtomicU64::new(1) }
    }

    pub(crate) fn register(
        self: &Arc<Self>,
        provider: Arc<dyn InteractionProvider>,
    ) -> Result<ProviderRegistration, UserInteractionError> {
        let mut slot = lock(&self.slot);
        if slot.is_some() {
            return Err(UserInteractionError::new(
                ErrorCode::DuplicateProvider,
                "an interaction provider is already registered; dispose it before registering another",
            ));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let disposed = CancellationToken::new();
        *slot = Some(Slot { id, provider, disposed: disposed.clone() });
        Ok(ProviderRegistration { registry: Arc::clone(self), id, disposed })
    }

    pub(crate) fn current(&self) -> Option<Current> {
        lock(&self.slot).as_ref().map(|s| (Arc::clone(&s.provider), s.disposed.clone()))
    }

    pub(crate) fn count(&self) -> usize {
        usize::from(lock(&self.slot).is_some())
    }

    fn remove(&self, id: u64) {
        let mut slot = lock(&self.slot);
        if slot.as_ref().is_some_and(|s| s.id == id) {
            *slot = None;
        }
    }
}

/// Keeps a provider registered. Dropping it (or calling [`dispose`](Self::dispose)) unregisters the
/// provider and rejects every question it still holds with `ASK_ABORTED`.
pub struct ProviderRegistration {
    registry: Arc<ProviderRegistry>,
    id: u64,
    disposed: CancellationToken,
}

impl ProviderRegistration {
    pub fn dispose(self) {
        // Drop does the work; the method exists so call sites read as intent.
    }

    pub fn is_disposed(&self) -> bool {
        self.disposed.is_cancelled()
    }
}

impl Drop for ProviderRegistration {
    fn drop(&mut self) {
        self.registry.remove(self.id);
        self.disposed.cancel();
    }
}

impl std::fmt::Debug for ProviderRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderRegistration").field("id", &self.id).finish()
    }
}

/// The provider for UIs that answer through the service's pending table: it hands each request to a
/// channel (the desktop shell forwards it over IPC) and leaves settlement to `submit_foreground` /
/// `cancel` / `attach`. When the receiving side is gone it reports `NO_PROVIDER`.
pub struct ForwardingProvider {
    tx: mpsc::UnboundedSender<InteractionRequest>,
}

impl ForwardingProvider {
    pub fn new() -> (Self, mpsc::UnboundedReceiver<InteractionRequest>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (ForwardingProvider { tx }, rx)
    }
}

impl InteractionProvider for ForwardingProvider {
    fn ask(&self, request: InteractionRequest) -> BoxFuture<'_, Result<AnswerBatch, UserInteractionError>> {
        let sent = self.tx.send(request);
        Box::pin(async move {
            match sent {
                // The answer arrives through the pending table, which ends this wait by dropping it.
                Ok(()) => std::future::pending().await,
                Err(_) => Err(UserInteractionError::new(
                    ErrorCode::NoProvider,
                    "the question surface is gone (its request channel closed)",
                )),
            }
        })
    }
}
