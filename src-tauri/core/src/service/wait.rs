//! The foreground wait of one question: its original host deadline and the client take-overs that
//! pause it. This is the only place that decides when a deadline fires.
//!
//! The rule: the host timer runs only while no client holds a take-over. The
//! deadline itself never moves: when the last take-over is released the *original* deadline is
//! armed again, and if it already passed the wait expires at once. Pausing therefore does not buy
//! extra host time; it only stops the host from expiring a question a person is looking at, while
//! that client runs its own countdown (and the client times the question out itself).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::lock;
use super::stats::Counters;
use crate::question::{ErrorCode, UserInteractionError};

/// When a timed wait's host deadline falls.
#[derive(Debug, Clone, Copy)]
enum Deadline {
    At(Instant),
    /// Further ahead than the clock can count (a caller passed `Duration::MAX`): never reached, so
    /// the wait lasts until the question is answered, cancelled or aborted.
    Beyond,
}

impl Deadline {
    fn after(timeout: Duration) -> Deadline {
        Instant::now().checked_add(timeout).map_or(Deadline::Beyond, Deadline::At)
    }
}

pub(crate) struct TimedWait {
    /// `None` for blocking waits: they never expire, and a take-over on them changes nothing.
    deadline: Option<Deadline>,
    state: Mutex<State>,
    changed: Notify,
    counters: Arc<Counters>,
}

#[derive(Default)]
struct State {
    held: HashSet<u64>,
    next_id: u64,
    closed: bool,
}

impl TimedWait {
    /// A timed wait when `timeout` is given, else a blocking one. The deadline is fixed here, once.
    pub(crate) fn new(timeout: Option<Duration>, counters: Arc<Counters>) -> Arc<Self> {
        let deadline = timeout.map(Deadline::after);
        if deadline.is_some() {
            counters.timers.inc();
        }
        Arc::new(TimedWait { deadline, state: Mutex::new(State::default()), changed: Notify::new(), counters })
    }

    /// Time left until the original deadline, floored at zero.
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|d| match d {
            Deadline::At(at) => at.saturating_duration_since(Instant::now()),
            Deadline::Beyond => Duration::MAX,
        })
    }

    pub(crate) fn attach(self: &Arc<Self>) -> Result<Attached, UserInteractionError> {
        let id = {
            let mut st = lock(&self.state);
            if st.closed {
                return Err(UserInteractionError::new(ErrorCode::NotPending, "the foreground wait already ended"));
            }
            st.next_id += 1;
            let id = st.next_id;
            st.held.insert(id);
            id
        };
        self.counters.takeovers.inc();
        self.changed.notify_waiters();
        let remaining_ms = self.remaining().map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Ok(Attached { takeover: Takeover { wait: Arc::clone(self), id }, remaining_ms })
    }

    fn release(&self, id: u64) {
        let removed = lock(&self.state).held.remove(&id);
        if removed {
            self.counters.takeovers.sub(1);
            self.changed.notify_waiters();
        }
    }

    /// Ends the wait: drops every take-over and the timer. Idempotent.
    pub(crate) fn close(&self) {
        let released = {
            let mut st = lock(&self.state);
            if st.closed {
                return;
            }
            st.closed = true;
            let n = st.held.len();
            st.held.clear();
            n
        };
        self.counters.takeovers.sub(released);
        if self.deadline.is_some() {
            self.counters.timers.sub(1);
        }
        self.changed.notify_waiters();
    }

    /// Resolves when the host deadline fires: the deadline has passed and no take-over is held.
    /// Never resolves for blocking waits or a deadline beyond the clock.
    pub(crate) async fn expired(&self) {
        let Some(Deadline::At(deadline)) = self.deadline else {
            return std::future::pending().await;
        };
        loop {
            // Registered before the state is read, so a take-over change between the read and the
            // await cannot be missed.
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if !lock(&self.state).held.is_empty() {
                notified.await;
                continue;
            }
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => {
                    if lock(&self.state).held.is_empty() {
                        return;
                    }
                }
                _ = &mut notified => {}
            }
        }
    }
}

/// A client's hold on a timed wait. While at least one is held the host deadline is paused.
/// Dropping it releases the hold; once the foreground settles it is inert.
pub struct Takeover {
    wait: Arc<TimedWait>,
    id: u64,
}

impl Takeover {
    /// Unique within its wait; lets a shell key its stored take-overs.
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn release(self) {
        // Drop releases; the method names the intent at call sites.
    }
}

impl Drop for Takeover {
    fn drop(&mut self) {
        self.wait.release(self.id);
    }
}

impl std::fmt::Debug for Takeover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Takeover").field("id", &self.id).finish()
    }
}

/// The answer to an attach: the hold and the host-computed time left (`None` on a blocking wait,
/// which has no deadline to show).
#[derive(Debug)]
pub struct Attached {
    pub takeover: Takeover,
    pub remaining_ms: Option<u64>,
}
