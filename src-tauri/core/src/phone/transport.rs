//! What the relay needs from a messenger, so a second one (Matrix) fits beside Telegram: post and
//! edit a card, acknowledge a tap, ask for a typed reply, say a line; and what comes back in.

use async_trait::async_trait;

use super::card::Card;
use super::error::PhoneError;

/// Something the person (or anyone else) did in the messenger. Ids are the messenger's, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// `/start <code>`: a pairing attempt.
    Start { user: Sender, chat: String, private: bool, code: String },
    /// A button pressed on one of the relay's messages (in `chat`, on `message`, when the messenger
    /// still says which).
    Tap { id: String, user: Sender, chat: Option<String>, message: Option<String>, data: String },
    /// Typed text (`message` is its id), maybe as a reply to one of the relay's messages.
    Text { user: Sender, chat: String, message: String, reply_to: Option<String>, text: String },
    /// The person edited a message they sent before.
    Edited { user: Sender, chat: String, message: String },
    /// An update the relay could not read; a tap's id when it was one, so its spinner stops.
    Unreadable { tap: Option<String> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    pub id: String,
    pub name: String,
}

#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// Posts a card whose buttons carry `token`; the message's id.
    async fn post(&self, chat: &str, card: &Card, token: &str) -> Result<String, PhoneError>;
    /// Replaces a posted card's text and buttons. An edit that changes nothing succeeds.
    async fn edit(&self, chat: &str, message: &str, card: &Card, token: &str) -> Result<(), PhoneError>;
    /// Answers a tap (Telegram shows `text` as a short notice; it stops the button's spinner).
    async fn ack(&self, tap: &str, text: &str) -> Result<(), PhoneError>;
    /// Asks for a reply whose text answers `prompt`; the prompt message's id.
    async fn ask_text(&self, chat: &str, prompt: &str) -> Result<String, PhoneError>;
    /// A plain line in the chat.
    async fn say(&self, chat: &str, text: &str) -> Result<(), PhoneError>;
}
