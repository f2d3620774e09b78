//! The Telegram relay: long-polls `getUpdates` (the desktop makes only outbound HTTPS calls; no
//! server of Hark's own), draws cards as messages with inline keyboards, and asks for typed answers
//! with force-reply prompts. Plain text only: model text is never parsed as markup.

mod api;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use frankenstein::methods::{AnswerCallbackQueryParams, EditMessageTextParams, GetUpdatesParams, SendMessageParams};
use frankenstein::types::{
    AllowedUpdate, ChatType, ForceReply, InlineKeyboardButton, InlineKeyboardMarkup, MaybeInaccessibleMessage,
    ReplyMarkup,
};
use frankenstein::updates::{Update, UpdateContent};
use frankenstein::AsyncTelegramApi;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

pub use api::{Bot, BotToken, LONG_POLL_SECS};

use super::card::Card;
use super::error::PhoneError;
use super::status::Link;
use super::transport::{Inbound, Sender, Transport};

/// The longest wait between two attempts while Telegram cannot be reached.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// A poll that came back empty at once (an emulator, or a server that does not long-poll) waits
/// this long before the next, so the relay never spins.
const QUIET_POLL: Duration = Duration::from_millis(150);
/// After Telegram said another program polls the bot, this long before polling again.
const IN_USE_PAUSE: Duration = Duration::from_secs(5);

pub struct Telegram {
    bot: Bot,
    link: watch::Sender<Link>,
}

impl Telegram {
    pub fn new(base: &str, token: BotToken, link: watch::Sender<Link>) -> Result<Arc<Telegram>, PhoneError> {
        Ok(Arc::new(Telegram { bot: Bot::new(base, token)?, link }))
    }

    /// Reads updates until `stop`, handing each one in as it comes. Network loss is retried with a
    /// growing pause and reported once, as the link's state; a rejected token stops polling.
    pub fn poll(self: &Arc<Self>, inbound: mpsc::UnboundedSender<Inbound>, stop: CancellationToken) {
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let mut offset: Option<i64> = None;
            let mut backoff = Duration::from_secs(1);
            // The first poll returns at once, so the link shows online without waiting out a long
            // poll; every later one waits on the server for news.
            let mut hold = 0;
            loop {
                let params = GetUpdatesParams::builder()
                    .timeout(hold)
                    .allowed_updates(vec![
                        AllowedUpdate::Message,
                        AllowedUpdate::EditedMessage,
                        AllowedUpdate::CallbackQuery,
                    ])
                    .maybe_offset(offset)
                    .build();
                let started = tokio::time::Instant::now();
                let polled = tokio::select! {
                    _ = stop.cancelled() => return,
                    polled = me.bot.request::<_, frankenstein::response::MethodResponse<Vec<serde_json::Value>>>("getUpdates", Some(&params)) => polled,
                };
                let pause = match polled {
                    Ok(updates) => {
                        me.set_link(Link::Online);
                        hold = LONG_POLL_SECS;
                        backoff = Duration::from_secs(1);
                        let empty = updates.result.is_empty();
                        for raw in updates.result {
                            // One update Hark cannot read must not stop the others (nor come back).
                            if let Some(id) = raw.get("update_id").and_then(serde_json::Value::as_i64) {
                                offset = Some(offset.map_or(id + 1, |o| o.max(id + 1)));
                            }
                            if let Some(event) = read_update(raw) {
                                if inbound.send(event).is_err() {
                                    return;
                                }
                            }
                        }
                        (empty && started.elapsed() < Duration::from_secs(1)).then_some(QUIET_POLL)
                    }
                    Err(PhoneError::TokenRejected(reason)) => {
                        me.set_link(Link::TokenRejected { reason });
                        Some(MAX_BACKOFF)
                    }
                    // Another program polls this bot: say so, and leave it the bot for a while.
                    Err(PhoneError::InUseElsewhere(reason)) => {
                        me.set_link(Link::InUseElsewhere { reason });
                        Some(IN_USE_PAUSE)
                    }
                    Err(PhoneError::RateLimited { retry_after }) => Some(Duration::from_secs(retry_after)),
                    Err(e) => {
                        me.set_link(Link::Offline { reason: e.to_string() });
                        let pause = backoff;
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                        Some(pause)
                    }
                };
                if let Some(pause) = pause {
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = tokio::time::sleep(pause) => {}
                    }
                }
            }
        });
    }

    fn set_link(&self, link: Link) {
        self.link.send_if_modified(|now| {
            let changed = *now != link;
            *now = link;
            changed
        });
    }

    /// Records what a send's failure says about the link (a block, a revoked token) and passes it on.
    fn noted<T>(&self, result: Result<T, PhoneError>) -> Result<T, PhoneError> {
        match &result {
            Err(PhoneError::Blocked(reason)) => self.set_link(Link::Blocked { reason: reason.clone() }),
            Err(PhoneError::TokenRejected(reason)) => self.set_link(Link::TokenRejected { reason: reason.clone() }),
            Err(PhoneError::Network(reason)) => self.set_link(Link::Offline { reason: reason.clone() }),
            _ => {}
        }
        result
    }
}

fn chat_id(chat: &str) -> Result<i64, PhoneError> {
    chat.parse().map_err(|_| PhoneError::Api(format!("{chat:?} is not a Telegram chat id")))
}

fn message_id(message: &str) -> Result<i32, PhoneError> {
    message.parse().map_err(|_| PhoneError::Api(format!("{message:?} is not a Telegram message id")))
}

/// The card's buttons as an inline keyboard; each button's data is `<token>:<action>`.
fn keyboard(card: &Card, token: &str) -> InlineKeyboardMarkup {
    let rows = card
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|b| {
                    InlineKeyboardButton::builder()
                        .text(b.label.clone())
                        .callback_data(format!("{token}:{}", b.action.encode()))
                        .build()
                })
                .collect()
        })
        .collect();
    InlineKeyboardMarkup::builder().inline_keyboard(rows).build()
}

fn sender(user: &frankenstein::types::User) -> Sender {
    let name = match &user.username {
        Some(u) => format!("@{u}"),
        None => user.first_name.clone(),
    };
    Sender { id: user.id.to_string(), name }
}

/// One update as the relay reads it. One Hark cannot read is said in the log and, when it was a
/// tap, still answered (its button would spin otherwise); the others go on.
fn read_update(raw: serde_json::Value) -> Option<Inbound> {
    let id = raw.get("update_id").and_then(serde_json::Value::as_i64);
    let tap = raw.pointer("/callback_query/id").and_then(serde_json::Value::as_str).map(str::to_string);
    match serde_json::from_value::<Update>(raw) {
        Ok(update) => inbound_of(update),
        Err(e) => {
            let id = id.map_or_else(|| "?".to_string(), |id| id.to_string());
            eprintln!("hark: phone: skipped an update Hark cannot read (update {id}: {e})");
            Some(Inbound::Unreadable { tap })
        }
    }
}

/// What an update means to the relay; `None` for what it does not read.
fn inbound_of(update: Update) -> Option<Inbound> {
    match update.content {
        UpdateContent::Message(m) => {
            let user = sender(m.from.as_deref()?);
            let text = m.text.clone()?;
            let chat = m.chat.id.to_string();
            if let Some(rest) = text.strip_prefix("/start") {
                if rest.is_empty() || rest.starts_with(' ') {
                    let private = m.chat.type_field == ChatType::Private;
                    return Some(Inbound::Start { user, chat, private, code: rest.trim().to_string() });
                }
            }
            let reply_to = m.reply_to_message.as_ref().map(|r| r.message_id.to_string());
            Some(Inbound::Text { user, chat, message: m.message_id.to_string(), reply_to, text })
        }
        UpdateContent::EditedMessage(m) => {
            let user = sender(m.from.as_deref()?);
            Some(Inbound::Edited { user, chat: m.chat.id.to_string(), message: m.message_id.to_string() })
        }
        UpdateContent::CallbackQuery(q) => {
            let (chat, message) = match q.message.as_ref() {
                Some(MaybeInaccessibleMessage::Message(m)) => (Some(m.chat.id), Some(m.message_id)),
                Some(MaybeInaccessibleMessage::InaccessibleMessage(m)) => (Some(m.chat.id), Some(m.message_id)),
                None => (None, None),
            };
            Some(Inbound::Tap {
                id: q.id,
                user: sender(&q.from),
                chat: chat.map(|c| c.to_string()),
                message: message.map(|m| m.to_string()),
                data: q.data.unwrap_or_default(),
            })
        }
        _ => None,
    }
}

#[async_trait]
impl Transport for Telegram {
    async fn post(&self, chat: &str, card: &Card, token: &str) -> Result<String, PhoneError> {
        let mut params = SendMessageParams::builder().chat_id(chat_id(chat)?).text(card.text.clone()).build();
        if !card.rows.is_empty() {
            params.reply_markup = Some(ReplyMarkup::InlineKeyboardMarkup(keyboard(card, token)));
        }
        let sent = self.noted(self.bot.send_message(&params).await)?;
        Ok(sent.result.message_id.to_string())
    }

    async fn edit(&self, chat: &str, message: &str, card: &Card, token: &str) -> Result<(), PhoneError> {
        // An empty keyboard, not none: it takes the old buttons away everywhere.
        let params = EditMessageTextParams::builder()
            .chat_id(chat_id(chat)?)
            .message_id(message_id(message)?)
            .text(card.text.clone())
            .reply_markup(keyboard(card, token))
            .build();
        match self.noted(self.bot.call("editMessageText", &params).await) {
            // Telegram refuses an edit that changes nothing: the card already shows it.
            Err(PhoneError::Api(reason)) if reason.contains("message is not modified") => Ok(()),
            done => done,
        }
    }

    async fn ack(&self, tap: &str, text: &str) -> Result<(), PhoneError> {
        let mut params = AnswerCallbackQueryParams::builder().callback_query_id(tap).build();
        if !text.is_empty() {
            params.text = Some(text.to_string());
        }
        self.noted(self.bot.call("answerCallbackQuery", &params).await)
    }

    async fn ask_text(&self, chat: &str, prompt: &str) -> Result<String, PhoneError> {
        let force = ForceReply::builder().force_reply(true).input_field_placeholder("Your answer").build();
        let params = SendMessageParams::builder()
            .chat_id(chat_id(chat)?)
            .text(prompt)
            .reply_markup(ReplyMarkup::ForceReply(force))
            .build();
        let sent = self.noted(self.bot.send_message(&params).await)?;
        Ok(sent.result.message_id.to_string())
    }

    async fn say(&self, chat: &str, text: &str) -> Result<(), PhoneError> {
        let params = SendMessageParams::builder().chat_id(chat_id(chat)?).text(text).build();
        self.noted(self.bot.send_message(&params).await).map(|_| ())
    }
}
