//! Pairing: a one-time code written to the phone settings, sent to the bot as `/start <code>` from
//! a private chat; whoever sends it first, in time, becomes the one person the relay talks to.
//! Whichever process reads the bot's updates completes it (the host's relay, or `hark phone pair`
//! itself when no host runs), since both read the same settings file.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::error::PhoneError;
use super::settings::{self, PairedUser, Pairing};
use super::status::Link;
use super::telegram::{BotToken, Telegram};
use super::transport::{Inbound, Sender, Transport};

/// The variable the terminal reads the bot's token from.
pub const TOKEN_VARIABLE: &str = "HARK_TELEGRAM_TOKEN";

/// Starts a pairing: a fresh code, saved for whichever process reads the bot's updates.
pub fn pairing_code(dir: &Path) -> Result<Pairing, PhoneError> {
    let pairing = Pairing::new();
    settings::update(dir, |s| s.pairing = Some(pairing.clone()))?;
    Ok(pairing)
}

/// What `/start <code>` from `user` in `chat` does: pairs them when the code is the one waiting and
/// the chat is private (then the settings say so and the chat is told); `None` otherwise.
pub(crate) async fn accept_start(
    dir: &Path,
    transport: &dyn Transport,
    user: &Sender,
    chat: &str,
    private: bool,
    code: &str,
) -> Result<Option<PairedUser>, PhoneError> {
    let current = settings::load(dir)?;
    let fits = current.pairing.as_ref().is_some_and(|p| p.accepts(code));
    if !fits || !private {
        if current.paired.as_ref().is_some_and(|p| p.user_id == user.id) {
            transport.say(chat, "This chat is paired with Hark: questions that wait for you come here.").await?;
        }
        return Ok(None);
    }
    let paired = PairedUser { user_id: user.id.clone(), chat_id: chat.to_string(), name: user.name.clone() };
    settings::update(dir, |s| {
        s.paired = Some(paired.clone());
        s.pairing = None;
    })?;
    transport
        .say(chat, "Paired with Hark. A question that waits for you will come here, with its options as buttons.")
        .await?;
    Ok(Some(paired))
}

/// Completes the pairing `pairing` by reading the bot's updates here (no host runs to do it), or
/// sees another process complete it. Returns the paired person, or PAIRING_EXPIRED.
pub async fn pair_here(dir: &Path, token: BotToken, pairing: &Pairing) -> Result<PairedUser, PhoneError> {
    let phone_settings = settings::load(dir)?;
    phone_settings.validate()?;
    // Another Hark reading this bot would take the `/start` meant for this one.
    let _reader = match super::reader::take(phone_settings.api_base(), &token, dir) {
        Ok(lock) => Some(lock),
        Err(super::reader::Taken::Elsewhere(who)) => return Err(PhoneError::InUseElsewhere(format!("{who} reads it"))),
        Err(super::reader::Taken::Unavailable(_)) => None,
    };
    let (link_tx, mut link) = watch::channel(Link::Connecting);
    let telegram: Arc<Telegram> = Telegram::new(phone_settings.api_base(), token, link_tx)?;
    let stop = CancellationToken::new();
    let _stop_on_return = stop.clone().drop_guard();
    let (tx, mut inbound) = mpsc::unbounded_channel();
    telegram.poll(tx, stop.clone());
    let expires = (pairing.expires_at - chrono::Utc::now()).to_std().unwrap_or_default();
    let deadline = tokio::time::Instant::now() + expires;
    loop {
        if let Some(paired) = paired_by_now(dir, pairing)? {
            return Ok(paired);
        }
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => return Err(PhoneError::PairingExpired),
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            changed = link.changed() => {
                if changed.is_ok() {
                    if let Link::TokenRejected { reason } = link.borrow_and_update().clone() {
                        return Err(PhoneError::TokenRejected(reason));
                    }
                }
            }
            Some(event) = inbound.recv() => {
                if let Inbound::Start { user, chat, private, code } = event {
                    if let Some(paired) = accept_start(dir, telegram.as_ref(), &user, &chat, private, &code).await? {
                        return Ok(paired);
                    }
                }
            }
        }
    }
}

/// The paired person once `pairing` was completed (by any process): its code is gone from the file
/// and someone is paired.
fn paired_by_now(dir: &Path, pairing: &Pairing) -> Result<Option<PairedUser>, PhoneError> {
    let now = settings::load(dir)?;
    let still_waiting = now.pairing.as_ref().is_some_and(|p| p.code == pairing.code);
    Ok(if still_waiting { None } else { now.paired })
}
