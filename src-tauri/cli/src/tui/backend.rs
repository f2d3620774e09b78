//! What `hark tui` follows through its front door: its own host's (no app runs) or the running
//! app's, reached the same way, so the terminal is one more surface of the app's questions and the
//! first valid answer wins across window, notification and terminal.

use futures_util::StreamExt;
use hark_core::agent::AgentEvent;
use hark_core::error::BoundaryError;
use hark_core::front_door::{FrontDoor, Watched};
use tokio::sync::mpsc;
use tokio_util::task::AbortOnDropHandle;

/// What happened that the screen may show differently.
pub(super) enum Update {
    /// One of the followed session's events.
    Agent(Box<AgentEvent>),
    /// Some session's question was asked, settled, or got a reply queued.
    Questions,
    /// Events were dropped: read everything again.
    Lagged,
    /// The app this screen works through quit.
    HostGone,
}

/// A followed session's updates and every session's question changes, for as long as it is held.
pub(super) struct Follow {
    pub updates: mpsc::UnboundedReceiver<Update>,
    /// Stopped when this is dropped (closing the connection it holds).
    _task: AbortOnDropHandle<()>,
}

/// Follows `session` (made live) and every session's questions; returns the session's id.
pub(super) async fn follow(
    door: &dyn FrontDoor,
    session: Option<&str>,
) -> Result<(Option<String>, Follow), BoundaryError> {
    let watch = door.watch(session).await?;
    let remote = door.is_remote();
    let (tx, updates) = mpsc::unbounded_channel();
    let mut events = watch.events;
    let task = tokio::spawn(async move {
        while let Some(event) = events.next().await {
            let update = match event {
                Watched::Agent(event) => Update::Agent(event),
                Watched::Question(_) => Update::Questions,
                Watched::Lagged => Update::Lagged,
            };
            if tx.send(update).is_err() {
                return;
            }
        }
        // The app's watch ended: it quit. This terminal's own host ends only when the screen does.
        if remote {
            let _ = tx.send(Update::HostGone);
        }
    });
    Ok((watch.session_id, Follow { updates, _task: AbortOnDropHandle::new(task) }))
}
