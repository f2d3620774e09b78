//! The relay's one task: it follows the host's question events, posts a card for each question that
//! should reach the phone, keeps the card true (answered elsewhere, ended, went on), and turns taps
//! and replies into answers through the host, the same path as the window's. Which question is
//! answerable and what it asks is always the host's [`QuestionView`], never a copy kept here.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::card::{ended_card, open_card, summary_of, Asker, Card, Ended};
use super::draft::{Action, Draft, Step};
use super::error::PhoneError;
use super::ledger::{self, CardRecord};
use super::pair::accept_start;
use super::settings::{self, PairedUser};
use super::status::Link;
use super::transport::{Inbound, Sender, Transport};
use crate::error::CodedError;
use crate::host::{AnswerPath, Host};
use crate::question::AnswerBatch;
use crate::service::{Outcome, Phase, QuestionEvent, QuestionView};

/// After a timeout the question's continued record is written a moment after the event: look again
/// this often, this many times.
const LOOK_AGAIN: Duration = Duration::from_millis(100);
const LOOKS: u32 = 50;
/// The longest pause between two attempts to post a card Telegram did not take.
const MAX_POST_PAUSE: Duration = Duration::from_secs(60);
/// The most cards with live buttons at once: the rest wait their turn in Hark (one line says so),
/// so a burst of questions never floods the chat or runs into Telegram's limits.
pub const MAX_OPEN_CARDS: usize = 10;
/// How often an edit Telegram did not take is tried again, at most; a card whose question ended
/// must not keep live buttons because one edit failed.
const EDIT_ATTEMPTS: u32 = 6;
/// The typed answers remembered, so an edit of one is told it changes nothing.
const TYPED_REMEMBERED: usize = 100;

/// A card to post (or bring up to date) now.
#[derive(Debug)]
struct Due {
    session: String,
    call: String,
    /// The question may not be listed yet (it just went on): look again if it is not.
    look_again: bool,
    attempt: u32,
}

/// Work the relay set itself for later.
#[derive(Debug)]
enum Later {
    Post(Due),
    /// Draw the card again: an edit Telegram did not take.
    Redraw {
        token: String,
        attempt: u32,
    },
}

/// What the relay holds of a question it shows now (a card restored from an earlier run whose
/// question ended has only its record).
struct Shown {
    view: QuestionView,
    asker: Asker,
    draft: Draft,
    only_that_it_waits: bool,
}

/// A card on the phone.
struct Posted {
    record: CardRecord,
    shown: Option<Shown>,
}

pub(crate) struct Engine {
    host: Weak<Host>,
    dir: PathBuf,
    transport: Arc<dyn Transport>,
    /// Every card the relay remembers, by the token its buttons carry.
    cards: HashMap<String, Posted>,
    by_call: HashMap<(String, String), String>,
    /// The prompt messages waiting for a typed answer: to which card, and which item (none: a
    /// plan's feedback).
    prompts: HashMap<String, (String, Option<usize>)>,
    /// Questions due on the phone while [`MAX_OPEN_CARDS`] cards are open, oldest first.
    held: VecDeque<(String, String)>,
    /// Whether the chat was told that more questions wait (once per time the cards are full).
    told_full: bool,
    /// The person's messages taken as typed answers, newest last.
    typed: VecDeque<String>,
    link: watch::Receiver<Link>,
    later: mpsc::UnboundedSender<Later>,
}

impl Engine {
    pub(crate) fn spawn(
        host: &Arc<Host>,
        transport: Arc<dyn Transport>,
        mut inbound: mpsc::UnboundedReceiver<Inbound>,
        link: watch::Receiver<Link>,
        stop: CancellationToken,
    ) {
        // Subscribed before anything else, so no question asked from now on is missed.
        let mut events = host.service().subscribe();
        let waiting: Vec<(String, String)> =
            host.service().foreground(None).into_iter().map(|r| (r.session_id, r.call_id)).collect();
        let (later, mut later_rx) = mpsc::unbounded_channel();
        let mut engine = Engine {
            host: Arc::downgrade(host),
            dir: host.data_dir().to_path_buf(),
            transport,
            cards: HashMap::new(),
            by_call: HashMap::new(),
            prompts: HashMap::new(),
            held: VecDeque::new(),
            told_full: false,
            typed: VecDeque::new(),
            link,
            later,
        };
        tokio::spawn(async move {
            engine.restore().await;
            for (session, call) in waiting {
                engine.schedule(session, call);
            }
            loop {
                tokio::select! {
                    // A stopped relay touches no card again, even when an event is already queued:
                    // the next run takes its cards back from the ledger.
                    biased;
                    _ = stop.cancelled() => return,
                    event = events.recv() => match event {
                        Ok(event) => engine.on_event(event).await,
                        Err(broadcast::error::RecvError::Lagged(_)) => engine.resync().await,
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    Some(event) = inbound.recv() => engine.on_inbound(event).await,
                    Some(later) = later_rx.recv() => match later {
                        Later::Post(due) => engine.on_due(due).await,
                        Later::Redraw { token, attempt } => engine.redraw_attempt(&token, attempt).await,
                    },
                }
            }
        });
    }

    /// Takes back the cards an earlier run sent: one whose question still waits is shown as it
    /// stands now (its buttons work again), one whose question ended meanwhile loses its buttons.
    async fn restore(&mut self) {
        let records = ledger::load(&self.dir);
        let only_that_it_waits = settings::load(&self.dir).map(|s| s.only_that_it_waits).unwrap_or(false);
        for record in records {
            let (token, key, open) =
                (record.token.clone(), (record.session.clone(), record.call.clone()), record.ended.is_none());
            let mut posted = Posted { record, shown: None };
            if open {
                match self.view_of(&key.0, &key.1).await {
                    Some((view, asker)) if view.answerable => {
                        let draft = Draft::new(&view.questions);
                        posted.shown = Some(Shown { view, asker, draft, only_that_it_waits });
                    }
                    _ => {
                        posted.record.ended = Some(Ended::Gone);
                        posted.record.ended_at = Some(chrono::Utc::now());
                    }
                }
            }
            if open {
                self.by_call.insert(key, token.clone());
            }
            self.cards.insert(token.clone(), posted);
            if open {
                self.redraw(&token).await;
            }
        }
        self.prune_and_save();
    }

    fn paired(&self) -> Option<(PairedUser, bool, Duration)> {
        let s = settings::load(&self.dir).ok()?;
        let delay = s.delay();
        s.paired.map(|p| (p, s.only_that_it_waits, delay))
    }

    /// A new question goes to the phone once the delay passed, if it still waits then.
    fn schedule(&self, session: String, call: String) {
        let Some((_, _, delay)) = self.paired() else { return };
        let due = Due { session, call, look_again: false, attempt: 0 };
        self.send_later(Later::Post(due), delay);
    }

    fn send_later(&self, later: Later, after: Duration) {
        let tx = self.later.clone();
        if after.is_zero() {
            let _ = tx.send(later);
            return;
        }
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let _ = tx.send(later);
        });
    }

    fn post_now(&self, session: String, call: String, look_again: bool) {
        let _ = self.later.send(Later::Post(Due { session, call, look_again, attempt: 0 }));
    }

    async fn on_event(&mut self, event: QuestionEvent) {
        match event {
            QuestionEvent::Requested { request } => self.schedule(request.session_id, request.call_id),
            // It went on: it goes to the phone now, whatever the delay, and its card says so.
            QuestionEvent::Resolved { session_id, call_id, outcome: Outcome::TimedOut } => {
                self.post_now(session_id, call_id, true);
            }
            QuestionEvent::Resolved { session_id, call_id, outcome } => {
                let ended = match outcome {
                    Outcome::Answered | Outcome::AnsweredLate => Ended::Elsewhere,
                    Outcome::Withdrawn => Ended::Withdrawn,
                    _ => Ended::Closed,
                };
                self.end(&session_id, &call_id, ended).await;
            }
            QuestionEvent::ReplyQueued { session_id, call_id, .. } => {
                self.end(&session_id, &call_id, Ended::Elsewhere).await;
            }
            // The queued reply was discarded: the question is answerable again.
            QuestionEvent::ReplyReleased { session_id, call_id, .. } => {
                if let Some(card) = self.card_of(&session_id, &call_id) {
                    card.record.ended = None;
                    card.record.ended_at = None;
                    if let Some(shown) = &mut card.shown {
                        shown.draft.reset(&shown.view.questions);
                    }
                    self.post_now(session_id, call_id, false);
                }
            }
        }
    }

    /// Events were missed: every open card is checked against what the host lists now.
    async fn resync(&mut self) {
        let open: Vec<(String, String)> = self
            .cards
            .values()
            .filter(|c| c.record.ended.is_none())
            .map(|c| (c.record.session.clone(), c.record.call.clone()))
            .collect();
        for (session, call) in open {
            match self.view_of(&session, &call).await {
                Some((view, _)) if view.answerable => self.post_now(session, call, false),
                _ => self.end(&session, &call, Ended::Elsewhere).await,
            }
        }
    }

    fn card_of(&mut self, session: &str, call: &str) -> Option<&mut Posted> {
        let token = self.by_call.get(&(session.to_string(), call.to_string()))?;
        self.cards.get_mut(token)
    }

    fn open_cards(&self) -> usize {
        self.cards.values().filter(|c| c.record.ended.is_none()).count()
    }

    /// The host's view of the question and who asks it; `None` once it no longer waits.
    async fn view_of(&self, session: &str, call: &str) -> Option<(QuestionView, Asker)> {
        let host = self.host.upgrade()?;
        let (session, call) = (session.to_string(), call.to_string());
        tokio::task::spawn_blocking(move || {
            let entry = host.inbox_entry(&session, &call).ok().flatten()?;
            Some((entry.question, Asker { agent: entry.asker, session_title: entry.session_title }))
        })
        .await
        .ok()
        .flatten()
    }

    async fn on_due(&mut self, due: Due) {
        let Some((paired, only_that_it_waits, _)) = self.paired() else { return };
        let Some((view, asker)) = self.view_of(&due.session, &due.call).await else {
            if due.look_again && due.attempt < LOOKS {
                let again = Due { attempt: due.attempt + 1, ..due };
                self.send_later(Later::Post(again), LOOK_AGAIN);
            }
            return;
        };
        if let Some(token) = self.by_call.get(&(due.session.clone(), due.call.clone())).cloned() {
            let redraw = self.cards.get_mut(&token).is_some_and(|card| {
                match &mut card.shown {
                    Some(shown) => shown.view = view,
                    None => {
                        let draft = Draft::new(&view.questions);
                        card.shown = Some(Shown { view, asker, draft, only_that_it_waits });
                    }
                }
                card.record.ended.is_none()
            });
            if redraw {
                self.redraw(&token).await;
            }
            return;
        }
        if !view.answerable {
            return;
        }
        // While another Hark reads this bot, a card sent from here would have its taps taken there.
        if matches!(*self.link.borrow(), Link::InUseElsewhere { .. }) {
            let again = Due { attempt: due.attempt + 1, ..due };
            self.send_later(Later::Post(again), MAX_POST_PAUSE.min(Duration::from_secs(5)));
            return;
        }
        if self.open_cards() >= MAX_OPEN_CARDS {
            self.hold(due.session, due.call, &paired.chat_id).await;
            return;
        }
        let token = ledger::new_token();
        let draft = Draft::new(&view.questions);
        let card = open_card(&view, &asker, &draft, only_that_it_waits);
        match self.transport.post(&paired.chat_id, &card, &token).await {
            Ok(message) => {
                self.by_call.insert((due.session.clone(), due.call.clone()), token.clone());
                let record = CardRecord {
                    token: token.clone(),
                    session: due.session,
                    call: due.call,
                    chat: paired.chat_id,
                    message,
                    text: card.text,
                    ended: None,
                    ended_at: None,
                };
                let shown = Shown { view, asker, draft, only_that_it_waits };
                self.cards.insert(token, Posted { record, shown: Some(shown) });
                self.prune_and_save();
            }
            // Not delivered (offline, blocked, asked to slow down): tried again while the question
            // waits, so it never silently goes unsent. The link's state says why.
            Err(e) => {
                let pause = pause_after(due.attempt, &e);
                let again = Due { look_again: false, attempt: due.attempt + 1, ..due };
                self.send_later(Later::Post(again), pause);
            }
        }
    }

    /// The cards are full: the question waits its turn, and the chat is told once.
    async fn hold(&mut self, session: String, call: String, chat: &str) {
        let key = (session, call);
        if !self.held.contains(&key) {
            self.held.push_back(key);
        }
        if !self.told_full {
            self.told_full = true;
            let line = "More questions wait for you in Hark: each comes here when one of these is answered.";
            let _ = self.transport.say(chat, line).await;
        }
    }

    /// A card ended: the oldest question waiting its turn comes next.
    fn release_held(&mut self) {
        if self.open_cards() >= MAX_OPEN_CARDS {
            return;
        }
        match self.held.pop_front() {
            Some((session, call)) => self.post_now(session, call, false),
            None => self.told_full = false,
        }
    }

    /// Forgets ended cards past their time and writes the record of the rest.
    fn prune_and_save(&mut self) {
        let stale =
            ledger::stale_tokens(&self.cards.values().map(|c| &c.record).collect::<Vec<_>>(), chrono::Utc::now());
        for token in stale {
            if let Some(card) = self.cards.remove(&token) {
                let key = (card.record.session, card.record.call);
                if self.by_call.get(&key) == Some(&token) {
                    self.by_call.remove(&key);
                }
            }
        }
        let mut records: Vec<CardRecord> = self.cards.values().map(|c| c.record.clone()).collect();
        records.sort_by(|a, b| a.message.cmp(&b.message));
        if let Err(e) = ledger::save(&self.dir, &records) {
            eprintln!("hark: phone: the record of sent cards could not be saved ({e})");
        }
    }

    /// Draws the card as it stands now; an edit Telegram did not take is tried again.
    async fn redraw(&mut self, token: &str) {
        self.redraw_attempt(token, 0).await;
    }

    async fn redraw_attempt(&mut self, token: &str, attempt: u32) {
        let Some(card) = self.cards.get_mut(token) else { return };
        let drawn = drawing(card);
        let (chat, message) = (card.record.chat.clone(), card.record.message.clone());
        card.record.text = drawn.text.clone();
        match self.transport.edit(&chat, &message, &drawn, token).await {
            Ok(()) => {}
            // The person deleted the message: nothing is left to draw on.
            Err(PhoneError::Api(reason)) if reason.contains("message to edit not found") => {}
            Err(e) if attempt + 1 < EDIT_ATTEMPTS => {
                let later = Later::Redraw { token: token.to_string(), attempt: attempt + 1 };
                self.send_later(later, pause_after(attempt, &e));
            }
            Err(e) => eprintln!("hark: phone: a card could not be brought up to date ({e})"),
        }
    }

    /// The question ended (`ended` says how): its card loses its buttons and says so.
    async fn end(&mut self, session: &str, call: &str, ended: Ended) {
        let Some(token) = self.by_call.get(&(session.to_string(), call.to_string())).cloned() else { return };
        let Some(card) = self.cards.get_mut(&token) else { return };
        if card.record.ended.is_some() {
            return;
        }
        card.record.ended = Some(ended);
        card.record.ended_at = Some(chrono::Utc::now());
        self.prompts.retain(|_, (t, _)| *t != token);
        self.redraw(&token).await;
        self.prune_and_save();
        self.release_held();
    }

    async fn on_inbound(&mut self, event: Inbound) {
        match event {
            Inbound::Start { user, chat, private, code } => {
                let _ = accept_start(&self.dir, self.transport.as_ref(), &user, &chat, private, &code).await;
            }
            Inbound::Tap { id, user, chat, message, data } => {
                let notice = self.on_tap(&user, chat.as_deref(), message.as_deref(), &data).await;
                // Every tap is answered, refused ones too, so the button never spins.
                let _ = self.transport.ack(&id, &notice).await;
            }
            Inbound::Text { user, chat, message, reply_to, text } => {
                self.on_text(&user, &chat, &message, reply_to, &text).await
            }
            Inbound::Edited { user, chat, message } => self.on_edited(&user, &chat, &message).await,
            Inbound::Unreadable { tap } => {
                if let Some(id) = tap {
                    let _ =
                        self.transport.ack(&id, "Hark could not read this tap; nothing changed. Answer in Hark.").await;
                }
            }
        }
    }

    /// The paired person, in the chat they paired from.
    fn is_paired(&self, user: &Sender) -> bool {
        self.paired().is_some_and(|(p, _, _)| p.user_id == user.id)
    }

    fn is_paired_chat(&self, user: &Sender, chat: &str) -> bool {
        self.paired().is_some_and(|(p, _, _)| p.user_id == user.id && p.chat_id == chat)
    }

    /// What a tap does; the short notice the person sees. A button acts only on the card it was
    /// pressed on: its token must name a card this Hark sent, in that chat, as that message.
    async fn on_tap(&mut self, user: &Sender, chat: Option<&str>, message: Option<&str>, data: &str) -> String {
        if !self.is_paired(user) {
            return "Refused: this bot answers only the person paired with Hark.".into();
        }
        let parsed = data.split_once(':').and_then(|(token, action)| Some((token, Action::decode(action)?)));
        let Some((token, action)) = parsed else { return "That button is not one of Hark's.".into() };
        let Some(card) = self.cards.get_mut(token) else {
            return "This card is not open in this Hark (it is too old, or another Hark on the same bot sent it); nothing changed. Answer in Hark.".into();
        };
        if chat != Some(card.record.chat.as_str()) || message != Some(card.record.message.as_str()) {
            return "That button does not belong to this card; nothing changed.".into();
        }
        if let Some(ended) = &card.record.ended {
            return ended_notice(ended).into();
        }
        let Some(shown) = &mut card.shown else { return ended_notice(&Ended::Gone).into() };
        let step = shown.draft.apply(&shown.view.questions, action);
        let token = token.to_string();
        self.take_step(&token, step).await
    }

    /// Typed text is an answer only from the paired person in their chat, as a reply to the message
    /// that asks for it (or, when that message is the only one waiting, as plain text).
    async fn on_text(&mut self, user: &Sender, chat: &str, message: &str, reply_to: Option<String>, text: &str) {
        // A stranger's message, or one in another chat, changes nothing and gets no reply.
        if !self.is_paired_chat(user, chat) {
            return;
        }
        let prompt = match reply_to.as_deref() {
            Some(to) => self.prompts.get(to).map(|p| (to.to_string(), p.clone())),
            // Not a reply, but only one question asks for text: it is the answer to that one.
            None if self.prompts.len() == 1 => self.prompts.iter().next().map(|(k, v)| (k.clone(), v.clone())),
            None => None,
        };
        let Some((prompt_id, (token, item))) = prompt else {
            let line = if reply_to.is_some() {
                "That message does not ask for an answer, so nothing was sent. To answer in your own words, tap Other… on the question and reply to the message that asks."
            } else {
                "To answer in your own words, tap Other… on the question and reply to the message that asks."
            };
            let _ = self.transport.say(chat, line).await;
            return;
        };
        self.prompts.remove(&prompt_id);
        let Some(card) = self.cards.get_mut(&token) else { return };
        if let Some(ended) = &card.record.ended {
            let _ = self.transport.say(chat, ended_notice(ended)).await;
            return;
        }
        let Some(shown) = &mut card.shown else { return };
        let step = shown.draft.text(&shown.view.questions, item, text);
        self.typed.push_back(message.to_string());
        if self.typed.len() > TYPED_REMEMBERED {
            self.typed.pop_front();
        }
        let notice = self.take_step(&token, step).await;
        let answered = self.cards.get(&token).is_some_and(|c| matches!(c.record.ended, Some(Ended::HereAnswered(_))));
        if !answered && !notice.is_empty() {
            let _ = self.transport.say(chat, &notice).await;
        }
    }

    /// An edit of a typed answer changes nothing (what was sent stands); the person is told so.
    async fn on_edited(&mut self, user: &Sender, chat: &str, message: &str) {
        if self.is_paired_chat(user, chat) && self.typed.iter().any(|m| m == message) {
            let line = "Hark already took your answer as you first sent it; an edit does not change it. To change an answer, tell the agent in Hark.";
            let _ = self.transport.say(chat, line).await;
        }
    }

    async fn take_step(&mut self, token: &str, step: Step) -> String {
        match step {
            Step::Redraw => {
                self.redraw(token).await;
                String::new()
            }
            Step::Refuse(reason) => reason.into(),
            Step::AskText { item } => self.ask_text(token, item).await,
            Step::Send(batch) => self.submit(token, batch).await,
        }
    }

    async fn ask_text(&mut self, token: &str, item: Option<usize>) -> String {
        let Some(card) = self.cards.get(token) else { return String::new() };
        let Some(shown) = &card.shown else { return String::new() };
        let prompt = match item.and_then(|i| shown.view.questions.get(i)) {
            Some(q) => format!("Reply to this message with your answer to: {}", q.question.trim()),
            None => "Reply to this message with what should change in the plan.".to_string(),
        };
        match self.transport.ask_text(&card.record.chat, &prompt).await {
            Ok(message) => {
                self.prompts.insert(message, (token.to_string(), item));
                "Type your answer as a reply".into()
            }
            Err(_) => "Telegram did not take the prompt; try again".into(),
        }
    }

    /// Sends the batch through the host, the same way as the window: the waiting call's answer, or
    /// a late one for a question that went on. The first valid answer from any surface wins.
    async fn submit(&mut self, token: &str, batch: AnswerBatch) -> String {
        let Some(host) = self.host.upgrade() else { return "Hark is closing".into() };
        let Some(card) = self.cards.get(token) else { return String::new() };
        let Some(shown) = &card.shown else { return String::new() };
        let path = match shown.view.phase {
            Phase::Foreground { .. } => AnswerPath::Foreground,
            Phase::Continued { .. } => AnswerPath::Late,
        };
        let (session, call) = (card.record.session.clone(), card.record.call.clone());
        // An approval's card says what the person decided, in the words of the one rule that decides.
        let summary = match shown.view.intent.approval_verdict(&batch) {
            Some(verdict) => verdict.text(),
            None => batch.answers.iter().map(summary_of).collect::<Vec<_>>().join(" · "),
        };
        let answered = {
            let (session, call) = (session.clone(), call.clone());
            tokio::task::spawn_blocking(move || host.answer_and_admit(&session, &call, batch, Some(path))).await
        };
        let error = match answered {
            Ok(Ok(_)) => {
                self.end(&session, &call, Ended::HereAnswered(summary)).await;
                return "Answered".into();
            }
            Ok(Err(e)) => e,
            Err(_) => return "Hark could not take the answer; try again".into(),
        };
        match error.code() {
            "NOT_PENDING" => {
                self.end(&session, &call, Ended::Elsewhere).await;
                ended_notice(&Ended::Elsewhere).into()
            }
            "REPLY_QUEUED" => "A late answer already waits for the agent; try again once it took it".into(),
            _ => {
                // Refused as it stands (a form's rule, a limit): start the batch over, say why.
                if let Some(shown) = self.cards.get_mut(token).and_then(|c| c.shown.as_mut()) {
                    shown.draft.reset(&shown.view.questions);
                }
                let reason: String = error.message().chars().take(180).collect();
                self.redraw(token).await;
                reason
            }
        }
    }
}

/// The card as it stands: its question's state, or, for a card whose question is gone, its last
/// text and how it ended.
fn drawing(card: &Posted) -> Card {
    match (&card.shown, &card.record.ended) {
        (Some(s), Some(ended)) => ended_card(&s.view, &s.asker, ended, s.only_that_it_waits),
        (Some(s), None) => open_card(&s.view, &s.asker, &s.draft, s.only_that_it_waits),
        (None, ended) => {
            let first = card.record.text.lines().next().unwrap_or("A question waited in Hark.");
            let last = ended_notice(ended.as_ref().unwrap_or(&Ended::Gone));
            Card { text: format!("{first}\n\n{last}."), rows: Vec::new() }
        }
    }
}

/// How long to wait before trying again what Telegram did not take: as long as it asked, else a
/// pause that doubles with each attempt.
fn pause_after(attempt: u32, error: &PhoneError) -> Duration {
    let backoff = Duration::from_secs(1u64 << attempt.min(6)).min(MAX_POST_PAUSE);
    match error {
        PhoneError::RateLimited { retry_after } => backoff.max(Duration::from_secs(*retry_after)),
        _ => backoff,
    }
}

fn ended_notice(ended: &Ended) -> &'static str {
    match ended {
        Ended::HereAnswered(_) | Ended::Elsewhere => "Already answered in Hark",
        Ended::Closed => "This question has ended",
        Ended::Withdrawn => "The agent withdrew this question",
        Ended::Gone => "This question is no longer waiting",
    }
}
