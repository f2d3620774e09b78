//! The notification server's signals (`ActionInvoked`, `NotificationReplied`, `NotificationClosed`),
//! heard on one D-Bus
//! connection of the app's own, subscribed before the first notification is shown, and handed to
//! whoever waits on that notification's id. Waiting per notification (notify-rust's
//! `wait_for_action`) subscribes only after `Notify` returned, so a click in that instant was lost;
//! here a signal for an id nobody waits on yet is kept for a moment, until its waiter comes.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hark_core::sync::lock;
use tokio::sync::oneshot;

use crate::toast::Signal;

/// How long a signal for an unknown id is kept: longer than `Notify`'s reply takes to be read.
const KEEP_EARLY: Duration = Duration::from_secs(10);
/// At most this many are kept (the bus also carries other apps' notifications' signals).
const MAX_EARLY: usize = 64;

#[derive(Default)]
struct State {
    waiting: HashMap<u32, oneshot::Sender<Signal>>,
    early: VecDeque<(Instant, u32, Signal)>,
}

pub struct Signals {
    state: Mutex<State>,
}

impl Signals {
    /// Subscribes to the server's signals on a connection of its own; `None` without a session bus.
    pub async fn listen() -> Option<Arc<Signals>> {
        let connection = zbus::Connection::session().await.ok()?;
        let rule = "type='signal',interface='org.freedesktop.Notifications'";
        let mut stream = zbus::MessageStream::for_match_rule(rule, &connection, None).await.ok()?;
        let signals = Arc::new(Signals { state: Mutex::new(State::default()) });
        let heard = Arc::clone(&signals);
        tauri::async_runtime::spawn(async move {
            // The connection lives as long as the stream is read.
            let _connection = connection;
            while let Some(Ok(message)) = stream.next().await {
                let header = message.header();
                let body = message.body();
                let signal = match header.member().map(|m| m.as_str()) {
                    Some("ActionInvoked") => {
                        body.deserialize::<(u32, String)>().ok().map(|(id, key)| (id, Signal::Action(key)))
                    }
                    Some("NotificationClosed") => {
                        body.deserialize::<(u32, u32)>().ok().map(|(id, _)| (id, Signal::Closed))
                    }
                    Some("NotificationReplied") => {
                        body.deserialize::<(u32, String)>().ok().map(|(id, text)| (id, Signal::Replied(text)))
                    }
                    _ => None,
                };
                if let Some((id, signal)) = signal {
                    heard.deliver(id, signal);
                }
            }
        });
        Some(signals)
    }

    /// The first signal about notification `id`, including one that came before this call.
    pub fn wait(&self, id: u32) -> oneshot::Receiver<Signal> {
        let (tx, rx) = oneshot::channel();
        let mut state = lock(&self.state);
        match state.early.iter().position(|(_, early, _)| *early == id) {
            Some(i) => {
                if let Some((_, _, signal)) = state.early.remove(i) {
                    let _ = tx.send(signal);
                }
            }
            None => {
                state.waiting.insert(id, tx);
            }
        }
        rx
    }

    fn deliver(&self, id: u32, signal: Signal) {
        let mut state = lock(&self.state);
        if let Some(tx) = state.waiting.remove(&id) {
            let _ = tx.send(signal);
            return;
        }
        let now = Instant::now();
        state.early.retain(|(at, _, _)| now.duration_since(*at) < KEEP_EARLY);
        if state.early.len() == MAX_EARLY {
            state.early.pop_front();
        }
        // Only the first signal counts (an action is followed by the close it causes).
        if !state.early.iter().any(|(_, early, _)| *early == id) {
            state.early.push_back((now, id, signal));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals() -> Signals {
        Signals { state: Mutex::new(State::default()) }
    }

    #[tokio::test]
    async fn a_signal_before_its_waiter_is_kept_for_it() {
        let s = signals();
        s.deliver(7, Signal::Action("option:1".into()));
        s.deliver(7, Signal::Closed);
        assert_eq!(s.wait(7).await.unwrap(), Signal::Action("option:1".into()), "the first signal counts");
    }

    #[tokio::test]
    async fn a_waiter_gets_its_own_signal_only() {
        let s = signals();
        let seven = s.wait(7);
        s.deliver(8, Signal::Action("default".into()));
        s.deliver(7, Signal::Closed);
        assert_eq!(seven.await.unwrap(), Signal::Closed);
        assert_eq!(s.wait(8).await.unwrap(), Signal::Action("default".into()));
    }

    #[test]
    fn other_apps_signals_are_not_hoarded() {
        let s = signals();
        for id in 0..(MAX_EARLY as u32 * 2) {
            s.deliver(id, Signal::Closed);
        }
        assert_eq!(lock(&s.state).early.len(), MAX_EARLY);
    }
}
