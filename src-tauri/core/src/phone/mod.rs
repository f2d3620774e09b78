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
mod ledger;
mod pair;
mod reader;
pub mod settings;
mod status;
pub mod telegram;
mod transport;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

pub use card::{Asker, Button, Card, Ended};
pub use draft::{Action, Draft, Step};
pub use engine::MAX_OPEN_CARDS;
pub use error::PhoneError;
pub use pair::{pair_here, pairing_code, TOKEN_VARIABLE};
pub use settings::{PairedUser, Pairing, PhoneSettings, DEFAULT_API_URL, DEFAULT_DELAY_SECS, PHONE_FILE};
pub use status::{published as published_link, Link, LINK_FILE};
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
    let dir = host.data_dir().to_path_buf();
    let Some(token) = token else {
        let link = watch::channel(Link::NoToken).1;
        report(&dir, link.clone(), stop.clone());
        return Phone { stop, link };
    };
    let settings = settings::load(host.data_dir()).and_then(|s| s.validate().map(|()| s));
    let (link_tx, link) = watch::channel(Link::Connecting);
    let built = settings.and_then(|s| {
        let api = s.api_base().to_string();
        telegram::Telegram::new(&api, token.clone(), link_tx.clone()).map(|t| (t, api))
    });
    let (transport, api) = match built {
        Ok(built) => built,
        Err(e) => {
            let _ = link_tx.send(Link::Misconfigured { reason: e.to_string() });
            report(&dir, link.clone(), stop.clone());
            return Phone { stop, link };
        }
    };
    report(&dir, link.clone(), stop.clone());
    let (host, engine_link, stopped) = (Arc::downgrade(host), link.clone(), stop.clone());
    tokio::spawn(async move {
        let Some(_reader) = take_reader(&api, &token, &dir, &link_tx, &stopped).await else { return };
        let Some(host) = host.upgrade() else { return };
        let (inbound_tx, inbound) = mpsc::unbounded_channel();
        transport.poll(inbound_tx, stopped.clone());
        engine::Engine::spawn(&host, transport, inbound, engine_link, stopped.clone());
        drop(host);
        // The bot stays this host's until the relay stops.
        stopped.cancelled().await;
    });
    Phone { stop, link }
}

/// How often a host whose bot another Hark reads looks whether it is free.
const TAKE_AGAIN: Duration = Duration::from_secs(3);

/// Waits until this host may read the bot (no other Hark on this computer does), saying meanwhile
/// that the bot is in use; `None` when the relay stopped first. When the lock cannot be made at
/// all the relay goes on without it, and says why in the log.
pub(crate) async fn take_reader(
    api: &str,
    token: &BotToken,
    dir: &std::path::Path,
    link: &watch::Sender<Link>,
    stop: &CancellationToken,
) -> Option<Option<reader::ReaderLock>> {
    loop {
        match reader::take(api, token, dir) {
            Ok(lock) => return Some(Some(lock)),
            Err(reader::Taken::Unavailable(reason)) => {
                eprintln!("hark: phone: could not make sure no other Hark reads this bot ({reason})");
                return Some(None);
            }
            Err(reader::Taken::Elsewhere(who)) => {
                link.send_if_modified(|now| {
                    let next = Link::InUseElsewhere { reason: format!("{who} reads it") };
                    let changed = *now != next;
                    *now = next;
                    changed
                });
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return None,
            _ = tokio::time::sleep(TAKE_AGAIN) => {}
        }
    }
}

/// Writes each change of the link to stderr, once, and publishes it for `hark phone status` (taken
/// back when the relay stops).
fn report(dir: &std::path::Path, mut link: watch::Receiver<Link>, stop: CancellationToken) {
    let dir = dir.to_path_buf();
    tokio::spawn(async move {
        let mut said: Option<String> = None;
        loop {
            let state = link.borrow_and_update().clone();
            status::publish(&dir, &state);
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
                _ = stop.cancelled() => break,
                changed = link.changed() => if changed.is_err() { break },
            }
        }
        let _ = std::fs::remove_file(dir.join(LINK_FILE));
    });
}
