//! Waiting on what the code under test emits instead of sleeping in loops: a test subscribes to an
//! event stream (an agent's or session's `AgentEvent`s, the service's `QuestionEvent`s) before it
//! acts, then waits for the event it expects, or for a condition that only an event can change.
//! Every wait is bounded; when it runs out the failure lists what was seen, which says more than
//! "timed out".

use std::fmt::Debug;
use std::time::Duration;

use hark_core::agent::AgentEvent;
use hark_core::service::QuestionEvent;
use hark_core::session::Event;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

/// How long a wait lasts unless a test names another bound: far above what any step takes on a
/// loaded two-core machine, so only a real hang fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// How many of the last events a failure lists.
const SHOWN: usize = 40;
/// How much of one event a failure shows: enough to recognise it.
const EVENT_CHARS: usize = 240;

/// The events received from one stream so far, and where the next wait starts looking.
pub struct Events<T> {
    rx: broadcast::Receiver<T>,
    seen: Vec<T>,
    /// Events before this index were already matched or passed over by an earlier wait.
    next: usize,
    /// Events the stream dropped because the test read too slowly (tokio's `Lagged`).
    missed: u64,
}

impl<T: Clone + Debug> Events<T> {
    pub fn new(rx: broadcast::Receiver<T>) -> Events<T> {
        Events { rx, seen: Vec::new(), next: 0, missed: 0 }
    }

    /// Everything received so far, in order.
    pub fn seen(&self) -> &[T] {
        &self.seen
    }

    /// The first event after the previous match for which `wanted` holds, waiting up to [`WAIT`].
    pub async fn wait_for(&mut self, what: &str, wanted: impl FnMut(&T) -> bool) -> T {
        self.wait_for_within(what, WAIT, wanted).await
    }

    pub async fn wait_for_within(&mut self, what: &str, within: Duration, mut wanted: impl FnMut(&T) -> bool) -> T {
        let deadline = Instant::now() + within;
        loop {
            if let Some(offset) = self.seen[self.next..].iter().position(&mut wanted) {
                let found = self.next + offset;
                self.next = found + 1;
                return self.seen[found].clone();
            }
            self.next = self.seen.len();
            self.receive(what, within, deadline).await;
        }
    }

    /// Waits until `ready` holds, asking it now and again after each event received, up to [`WAIT`].
    /// For a condition on state (the store, the service) that the code changes only together with an
    /// event on this stream: subscribe, act, then wait, and no change can slip between.
    pub async fn wait_until(&mut self, what: &str, ready: impl FnMut() -> bool) {
        self.wait_until_within(what, WAIT, ready).await
    }

    pub async fn wait_until_within(&mut self, what: &str, within: Duration, mut ready: impl FnMut() -> bool) {
        let deadline = Instant::now() + within;
        while !ready() {
            self.receive(what, within, deadline).await;
        }
        self.next = self.seen.len();
    }

    /// Receives one more event (or notes how many were dropped); fails the test at `deadline` or
    /// when the stream ends.
    async fn receive(&mut self, what: &str, within: Duration, deadline: Instant) {
        match tokio::time::timeout_at(deadline, self.rx.recv()).await {
            Ok(Ok(event)) => self.seen.push(event),
            Ok(Err(RecvError::Lagged(n))) => self.missed += n,
            Ok(Err(RecvError::Closed)) => panic!("{}", self.failure(what, "the stream ended first")),
            Err(_) => panic!("{}", self.failure(what, &format!("nothing matched within {within:?}"))),
        }
    }

    fn failure(&self, what: &str, why: &str) -> String {
        let mut text = format!("waiting for {what}: {why}; {} events seen", self.seen.len());
        if self.missed > 0 {
            text.push_str(&format!(" ({} more dropped: the test read too slowly)", self.missed));
        }
        let skipped = self.seen.len().saturating_sub(SHOWN);
        if skipped > 0 {
            text.push_str(&format!(", the last {SHOWN}:"));
        } else {
            text.push(':');
        }
        for (i, event) in self.seen.iter().enumerate().skip(skipped) {
            let mut shown = format!("{event:?}");
            if shown.len() > EVENT_CHARS {
                let cut = (0..=EVENT_CHARS).rev().find(|&i| shown.is_char_boundary(i)).unwrap_or(0);
                shown.truncate(cut);
                shown.push('…');
            }
            text.push_str(&format!("\n  {i}: {shown}"));
        }
        text
    }
}

/// Waits, up to [`WAIT`], for the first event on `rx` for which `wanted` holds.
pub async fn wait_for<T: Clone + Debug>(rx: broadcast::Receiver<T>, what: &str, wanted: impl FnMut(&T) -> bool) -> T {
    Events::new(rx).wait_for(what, wanted).await
}

/// A foreground question was requested (the pending entry exists by then).
pub fn question_requested(event: &AgentEvent) -> bool {
    matches!(event, AgentEvent::Question { event: QuestionEvent::Requested { .. }, .. })
}

/// A turn ended, for whatever reason.
pub fn turn_ended(event: &AgentEvent) -> bool {
    matches!(event, AgentEvent::TurnEnded { .. })
}

/// An event for which `wanted` holds was recorded in the session log.
pub fn appended(event: &AgentEvent, wanted: impl FnOnce(&Event) -> bool) -> bool {
    matches!(event, AgentEvent::EventAppended { event } if wanted(&event.event))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_wait_takes_the_next_match_and_a_condition_is_asked_again_after_each_event() {
        let (tx, rx) = broadcast::channel(16);
        let mut events = Events::new(rx);
        for n in [1, 2, 3, 4] {
            tx.send(n).expect("a receiver");
        }
        assert_eq!(events.wait_for("an even number", |n| n % 2 == 0).await, 2);
        assert_eq!(events.wait_for("the next even number", |n| n % 2 == 0).await, 4);
        // State changed together with an event: the wait notices it on that event.
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let setter = tokio::spawn({
            let flag = flag.clone();
            async move {
                tokio::task::yield_now().await;
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
                tx.send(5).expect("a receiver");
                tx
            }
        });
        events.wait_until("the flag", || flag.load(std::sync::atomic::Ordering::SeqCst)).await;
        assert_eq!(events.seen(), [1, 2, 3, 4, 5]);
        drop(setter.await);
    }

    #[tokio::test]
    async fn a_wait_that_runs_out_says_what_it_waited_for_and_lists_what_it_saw() {
        let (tx, rx) = broadcast::channel(16);
        tx.send("first").expect("a receiver");
        tx.send("second").expect("a receiver");
        let waiting = tokio::spawn(async move {
            let _kept = tx;
            Events::new(rx).wait_for_within("the third", Duration::from_millis(50), |e| *e == "third").await
        });
        let panic = waiting.await.expect_err("the wait failed").into_panic();
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(message.contains("waiting for the third: nothing matched within 50ms; 2 events seen"), "{message}");
        assert!(message.contains("0: \"first\"") && message.contains("1: \"second\""), "{message}");
    }
}
