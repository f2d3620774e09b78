//! The phone relay: a question that still waits after a delay, and every question that goes on
//! after its timeout, reaches the person's phone (Telegram) with its options as buttons and a way to
//! answer in their own words; what they tap goes through the host like any other surface's answer,
//! so the first valid answer from anywhere wins, and the phone's message says when a question was
//! answered elsewhere or ended.
//!
//! The engine ([`engine`]) knows nothing of Telegram: it reads the host's question events and views
//! and talks to a [`Transport`]. [`telegram`] is the one transport today.

mod card;
mod draft;
mod engine;
mod error;
mod pair;
pub mod settings;
mod status;
pub mod telegram;
mod transport;

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

pub use card::{Asker, Button, Card, Ended};
pub use draft::{Action, Draft, Step};
pub use error::PhoneError;
pub use pair::{pair_here, pairing_code, TOKEN_VARIABLE};
pub use settings::{PairedUser, Pairing, PhoneSettings, DEFAULT_API_URL, DEFAULT_DELAY_SECS, PHONE_FILE};
pub use status::Link;
pub use telegram::BotToken;
pub use transport::{Inbound, Sender, Transport};

use crate::host::Host;

/// The running relay of one host. Dropping it stops the relay.
pub struct Phone {
    stop: CancellationToken,
    link: watch::Receiver<Link>,
}

impl Phone {
    /// How the link stands now.
    pub fn link(&self) -> Link {
        self.link.borrow().clone()
    }

    /// Every change of the link, for a surface that shows it.
    pub fn watch(&self) -> watch::Receiver<Link> {
        self.link.clone()
    }
}

impl Drop for Phone {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Starts the relay for `host` with the bot's `token` (none: the relay stays off and says so). Every
/// front door that hosts a data directory calls this once after [`Host::start`]; call inside a
/// tokio runtime. Changes of the link are written to stderr once each, never the token.
pub fn start(host: &Arc<Host>, token: Option<BotToken>) -> Phone {
    let stop = CancellationToken::new();
    let Some(token) = token else {
        return Phone { stop, link: watch::channel(Link::NoToken).1 };
    };
    let settings = settings::load(host.data_dir()).and_then(|s| s.validate().map(|()| s));
    let (link_tx, link) = watch::channel(Link::Connecting);
    let transport = match settings.and_then(|s| telegram::Telegram::new(s.api_base(), token, link_tx.clone())) {
        Ok(t) => t,
        Err(e) => {
            let _ = link_tx.send(Link::Misconfigured { reason: e.to_string() });
            report(link.clone(), stop.clone());
            return Phone { stop, link };
        }
    };
    let (inbound_tx, inbound) = mpsc::unbounded_channel();
    transport.poll(inbound_tx, stop.clone());
    report(link.clone(), stop.clone());
    engine::Engine::spawn(host, transport, inbound, stop.clone());
    Phone { stop, link }
}

/// Writes each change of the link to stderr, once.
fn report(mut link: watch::Receiver<Link>, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut said: Option<String> = None;
        loop {
            let state = link.borrow_and_update().clone();
            let now = state.describe();
            // Being online is news only after a problem was reported.
            let quiet = state == Link::Online && said.is_none();
            if now.is_some() && now != said && !quiet {
                if let Some(line) = &now {
                    eprintln!("hark: phone: {line}");
                }
                said = now;
            }
            tokio::select! {
                _ = stop.cancelled() => return,
                changed = link.changed() => if changed.is_err() { return },
            }
        }
    });
}
