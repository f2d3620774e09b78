//! The table of foreground questions, keyed by (session, call id). [`PendingTable::claim`] is the
//! only function that removes an entry, and it does so under the table lock: whoever claims first —
//! the provider's answer, a panel submit, a notification action, cancel, abort, the deadline —
//! settles the question, and everyone after gets `NOT_PENDING`.
//!
//! A question whose wait ended unanswered but goes on (a timed one past its deadline, a plan review at
//! a quit) is handed over in the same step: it is kept as *continuing* until the log records its
//! pending result. Without that, a surface reading between the two moments would find the question
//! neither waiting nor continued.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::lock;
use super::provider::InteractionRequest;
use super::stats::Counters;
use super::wait::{Attached, TimedWait};
use crate::question::{validate_answers, AnswerBatch, ErrorCode, UserInteractionError};

pub(crate) type Settlement = Result<AnswerBatch, UserInteractionError>;

struct Entry {
    /// Distinguishes this question from a later one that reuses the call id.
    ticket: u64,
    request: InteractionRequest,
    wait: Arc<TimedWait>,
    tx: oneshot::Sender<Settlement>,
}

/// A removed entry whose settlement has not been handed to the waiting ask yet. The service does
/// its bookkeeping (continuing a timed-out question) before delivering, so the question is already
/// answerable late when the tool sees the timeout.
pub(crate) struct Claimed {
    pub(crate) request: InteractionRequest,
    tx: oneshot::Sender<Settlement>,
}

impl Claimed {
    pub(crate) fn deliver(self, settlement: Settlement) {
        // The provider is told to take its UI down whatever the outcome.
        self.request.abort.cancel();
        // A closed receiver means the ask was dropped mid-wait; its guard already accounts for that.
        let _ = self.tx.send(settlement);
    }
}

pub(crate) struct PendingTable {
    sessions: Mutex<HashMap<String, HashMap<String, Entry>>>,
    /// Calls handed over to the continued state whose pending result may not be recorded yet, by
    /// session. Only ever locked alone or while `sessions` is held (in that order), so a claim moves a
    /// question from one to the other in a single step as far as any reader is concerned.
    continuing: Mutex<HashMap<String, HashSet<String>>>,
    next_ticket: AtomicU64,
    counters: Arc<Counters>,
}

/// Whether a question claimed with `settlement` goes on as a continued one: its wait ended unanswered
/// the way the tools record as pending (its deadline, a client's countdown, a quit), and it is one that
/// outlives its wait.
fn goes_on(request: &InteractionRequest, settlement: &Settlement) -> bool {
    matches!(settlement, Err(e) if e.code == ErrorCode::AskTimedOut) && request.outlives_quit()
}

fn not_pending(call_id: &str) -> UserInteractionError {
    UserInteractionError::new(
        ErrorCode::NotPending,
        format!("question {call_id} is not waiting in the foreground (already settled, continued or unknown)"),
    )
}

impl PendingTable {
    pub(crate) fn new(counters: Arc<Counters>) -> Self {
        PendingTable {
            sessions: Mutex::new(HashMap::new()),
            continuing: Mutex::new(HashMap::new()),
            next_ticket: AtomicU64::new(1),
            counters,
        }
    }

    pub(crate) fn open(
        &self,
        request: InteractionRequest,
        wait: Arc<TimedWait>,
    ) -> Result<(u64, oneshot::Receiver<Settlement>), UserInteractionError> {
        let mut sessions = lock(&self.sessions);
        let calls = sessions.entry(request.session_id.clone()).or_default();
        if calls.contains_key(&request.call_id) {
            return Err(UserInteractionError::invalid_request(format!(
                "call id {} is already waiting for an answer in this session",
                request.call_id
            )));
        }
        let (tx, rx) = oneshot::channel();
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        calls.insert(request.call_id.clone(), Entry { ticket, request, wait, tx });
        self.counters.pending_waits.inc();
        Ok((ticket, rx))
    }

    /// Removes the entry if `settlement` may settle it. An answer batch must fit the questions
    /// (`BAD_ANSWER` leaves the entry in place for a corrected submission). With `ticket`, only that
    /// exact question is claimed.
    pub(crate) fn claim(
        &self,
        session: &str,
        call_id: &str,
        ticket: Option<u64>,
        settlement: &Settlement,
    ) -> Result<Claimed, UserInteractionError> {
        let entry = {
            let mut sessions = lock(&self.sessions);
            let calls = sessions.get_mut(session).ok_or_else(|| not_pending(call_id))?;
            let entry = calls.get(call_id).ok_or_else(|| not_pending(call_id))?;
            if ticket.is_some_and(|t| t != entry.ticket) {
                return Err(not_pending(call_id));
            }
            if let Ok(batch) = settlement {
                validate_answers(&entry.request.questions, batch)?;
                entry.request.intent.check_answers(&entry.request.questions, batch)?;
            }
            let entry = calls.remove(call_id).ok_or_else(|| not_pending(call_id))?;
            if calls.is_empty() {
                sessions.remove(session);
            }
            if goes_on(&entry.request, settlement) {
                lock(&self.continuing).entry(session.to_string()).or_default().insert(call_id.to_string());
            }
            entry
        };
        self.counters.pending_waits.sub(1);
        entry.wait.close();
        Ok(Claimed { request: entry.request, tx: entry.tx })
    }

    pub(crate) fn attach(&self, session: &str, call_id: &str) -> Result<Attached, UserInteractionError> {
        let wait = self.with_entry(session, call_id, |e| Arc::clone(&e.wait))?;
        // Outside the table lock: a claim racing with us closes the wait, and attach then fails.
        wait.attach()
    }

    pub(crate) fn is_timed(&self, session: &str, call_id: &str) -> Result<bool, UserInteractionError> {
        self.with_entry(session, call_id, |e| e.request.wait.is_some())
    }

    pub(crate) fn is_form(&self, session: &str, call_id: &str) -> Result<bool, UserInteractionError> {
        self.with_entry(session, call_id, |e| e.request.intent.is_form())
    }

    pub(crate) fn outlives_quit(&self, session: &str, call_id: &str) -> Result<bool, UserInteractionError> {
        self.with_entry(session, call_id, |e| e.request.outlives_quit())
    }

    fn with_entry<T>(
        &self,
        session: &str,
        call_id: &str,
        f: impl FnOnce(&Entry) -> T,
    ) -> Result<T, UserInteractionError> {
        let sessions = lock(&self.sessions);
        sessions.get(session).and_then(|calls| calls.get(call_id)).map(f).ok_or_else(|| not_pending(call_id))
    }

    /// The open requests, for a surface that (re)connects and must show what is waiting.
    pub(crate) fn snapshot(&self, session: Option<&str>) -> Vec<InteractionRequest> {
        let sessions = lock(&self.sessions);
        let mut out: Vec<InteractionRequest> = sessions
            .iter()
            .filter(|(s, _)| session.is_none_or(|want| want == s.as_str()))
            .flat_map(|(_, calls)| calls.values().map(|e| e.request.clone()))
            .collect();
        out.sort_by(|a, b| (&a.session_id, &a.call_id).cmp(&(&b.session_id, &b.call_id)));
        out
    }

    /// Calls of `session` handed over to the continued state (see [`forget_continuing`](Self::forget_continuing)).
    pub(crate) fn continuing(&self, session: &str) -> HashSet<String> {
        lock(&self.continuing).get(session).cloned().unwrap_or_default()
    }

    /// Whether `call_id` of `session` was handed over to the continued state and not forgotten yet.
    pub(crate) fn is_continuing(&self, session: &str, call_id: &str) -> bool {
        lock(&self.continuing).get(session).is_some_and(|calls| calls.contains(call_id))
    }

    /// Stops holding the calls `done` says the log no longer has open: their pending result is
    /// recorded (or they settled or went), after which the log alone says where they stand.
    pub(crate) fn forget_continuing(&self, session: &str, done: impl Fn(&str) -> bool) {
        let mut continuing = lock(&self.continuing);
        if let Some(calls) = continuing.get_mut(session) {
            calls.retain(|call| !done(call));
            if calls.is_empty() {
                continuing.remove(session);
            }
        }
    }

    /// Forgets every handed-over call of a session that was closed or deleted.
    pub(crate) fn forget_session(&self, session: &str) {
        lock(&self.continuing).remove(session);
    }

    pub(crate) fn keys(&self) -> Vec<(String, String)> {
        let sessions = lock(&self.sessions);
        sessions.iter().flat_map(|(s, calls)| calls.keys().map(move |c| (s.clone(), c.clone()))).collect()
    }
}
