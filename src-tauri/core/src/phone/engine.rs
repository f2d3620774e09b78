//! The relay's one task: it follows the host's question events, posts a card for each question that
//! should reach the phone, keeps the card true (answered elsewhere, ended, went on), and turns taps
//! and replies into answers through the host, the same path as the window's. Which question is
//! answerable and what it asks is always the host's [`QuestionView`], never a copy kept here.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use super::card::{ended_card, open_card, summary_of, Asker, Ended};
use super::draft::{Action, Draft, Step};
use super::pair::accept_start;
use super::settings::{self, PairedUser};
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

/// A card to post (or bring up to date) now.
#[derive(Debug)]
struct Due {
    session: String,
    call: String,
    /// The question may not be listed yet (it just went on): look again if it is not.
    look_again: bool,
    attempt: u32,
}

/// A card on the phone.
struct Posted {
    session: String,
    call: String,
    chat: String,
    message: String,
    view: QuestionView,
    asker: Asker,
    draft: Draft,
    only_that_it_waits: bool,
    ended: Option<Ended>,
}

pub(crate) struct Engine {
    host: Weak<Host>,
    dir: PathBuf,
    transport: Arc<dyn Transport>,
    cards: HashMap<u64, Posted>,
    by_call: HashMap<(String, String), u64>,
    next_tag: u64,
    /// The prompt messages waiting for a typed answer: to which card, and which item (none: a
    /// plan's feedback).
    prompts: HashMap<String, (u64, Option<usize>)>,
    due: mpsc::UnboundedSender<Due>,
}

impl Engine {
    pub(crate) fn spawn(
        host: &Arc<Host>,
        transport: Arc<dyn Transport>,
        mut inbound: mpsc::UnboundedReceiver<Inbound>,
        stop: CancellationToken,
    ) {
        // Subscribed before anything else, so no question asked from now on is missed.
        let mut events = host.service().subscribe();
        let waiting: Vec<(String, String)> =
            host.service().foreground(None).into_iter().map(|r| (r.session_id, r.call_id)).collect();
        let (due, mut due_rx) = mpsc::unbounded_channel();
        let mut engine = Engine {
            host: Arc::downgrade(host),
            dir: host.data_dir().to_path_buf(),
            transport,
            cards: HashMap::new(),
            by_call: HashMap::new(),
            next_tag: 1,
            prompts: HashMap::new(),
            due,
        };
        tokio::spawn(async move {
            for (session, call) in waiting {
                engine.schedule(session, call);
            }
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    event = events.recv() => match event {
                        Ok(event) => engine.on_event(event).await,
                        Err(broadcast::error::RecvError::Lagged(_)) => engine.resync().await,
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    Some(event) = inbound.recv() => engine.on_inbound(event).await,
                    Some(due) = due_rx.recv() => engine.on_due(due).await,
                }
            }
        });
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
        self.send_due_after(due, delay);
    }

    fn send_due_after(&self, due: Due, after: Duration) {
        let tx = self.due.clone();
        if after.is_zero() {
            let _ = tx.send(due);
            return;
        }
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            let _ = tx.send(due);
        });
    }

    async fn on_event(&mut self, event: QuestionEvent) {
        match event {
            QuestionEvent::Requested { request } => self.schedule(request.session_id, request.call_id),
            // It went on: it goes to the phone now, whatever the delay, and its card says so.
            QuestionEvent::Resolved { session_id, call_id, outcome: Outcome::TimedOut } => {
                let _ = self.due.send(Due { session: session_id, call: call_id, look_again: true, attempt: 0 });
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
                    card.ended = None;
                    card.draft.reset(&card.view.questions);
                    let _ = self.due.send(Due { session: session_id, call: call_id, look_again: false, attempt: 0 });
                }
            }
        }
    }

    /// Events were missed: every open card is checked against what the host lists now.
    async fn resync(&mut self) {
        let open: Vec<(String, String)> =
            self.cards.values().filter(|c| c.ended.is_none()).map(|c| (c.session.clone(), c.call.clone())).collect();
        for (session, call) in open {
            match self.view_of(&session, &call).await {
                Some((view, _)) if view.answerable => {
                    let _ = self.due.send(Due { session, call, look_again: false, attempt: 0 });
                }
                _ => self.end(&session, &call, Ended::Elsewhere).await,
            }
        }
    }

    fn card_of(&mut self, session: &str, call: &str) -> Option<&mut Posted> {
        let tag = self.by_call.get(&(session.to_string(), call.to_string()))?;
        self.cards.get_mut(tag)
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
                self.send_due_after(again, LOOK_AGAIN);
            }
            return;
        };
        if let Some(tag) = self.by_call.get(&(due.session.clone(), due.call.clone())).copied() {
            if let Some(card) = self.cards.get_mut(&tag) {
                card.view = view;
                if card.ended.is_none() {
                    self.redraw(tag).await;
                }
            }
            return;
        }
        if !view.answerable {
            return;
        }
        let tag = self.next_tag;
        let draft = Draft::new(&view.questions);
        let card = open_card(&view, &asker, &draft, only_that_it_waits);
        match self.transport.post(&paired.chat_id, &card, tag).await {
            Ok(message) => {
                self.next_tag += 1;
                self.by_call.insert((due.session.clone(), due.call.clone()), tag);
                let posted = Posted {
                    session: due.session,
                    call: due.call,
                    chat: paired.chat_id,
                    message,
                    view,
                    asker,
                    draft,
                    only_that_it_waits,
                    ended: None,
                };
                self.cards.insert(tag, posted);
            }
            // Not delivered (offline, blocked): tried again while the question waits, so it never
            // silently goes unsent. The link's state says why.
            Err(_) => {
                let pause = Duration::from_secs(1u64 << due.attempt.min(6)).min(MAX_POST_PAUSE);
                let again = Due { look_again: false, attempt: due.attempt + 1, ..due };
                self.send_due_after(again, pause);
            }
        }
    }

    /// Draws the card as it stands now.
    async fn redraw(&self, tag: u64) {
        let Some(card) = self.cards.get(&tag) else { return };
        let drawn = match &card.ended {
            Some(ended) => ended_card(&card.view, &card.asker, ended, card.only_that_it_waits),
            None => open_card(&card.view, &card.asker, &card.draft, card.only_that_it_waits),
        };
        // A failed edit leaves the old card; the link's state says why.
        let _ = self.transport.edit(&card.chat, &card.message, &drawn, tag).await;
    }

    /// The question ended (`ended` says how): its card loses its buttons and says so.
    async fn end(&mut self, session: &str, call: &str, ended: Ended) {
        let Some(tag) = self.by_call.get(&(session.to_string(), call.to_string())).copied() else { return };
        let Some(card) = self.cards.get_mut(&tag) else { return };
        if card.ended.is_some() {
            return;
        }
        card.ended = Some(ended);
        self.prompts.retain(|_, (t, _)| *t != tag);
        self.redraw(tag).await;
    }

    async fn on_inbound(&mut self, event: Inbound) {
        match event {
            Inbound::Start { user, chat, private, code } => {
                let _ = accept_start(&self.dir, self.transport.as_ref(), &user, &chat, private, &code).await;
            }
            Inbound::Tap { id, user, data, .. } => {
                let notice = self.on_tap(&user, &data).await;
                // Every tap is answered, refused ones too, so the button never spins.
                let _ = self.transport.ack(&id, &notice).await;
            }
            Inbound::Text { user, chat, reply_to, text } => self.on_text(&user, &chat, reply_to, &text).await,
        }
    }

    fn is_paired(&self, user: &Sender) -> bool {
        self.paired().is_some_and(|(p, _, _)| p.user_id == user.id)
    }

    /// What a tap does; the short notice the person sees.
    async fn on_tap(&mut self, user: &Sender, data: &str) -> String {
        if !self.is_paired(user) {
            return "Refused: this bot answers only the person paired with Hark.".into();
        }
        let parsed =
            data.split_once(':').and_then(|(tag, action)| Some((tag.parse::<u64>().ok()?, Action::decode(action)?)));
        let Some((tag, action)) = parsed else { return "That button is not one of Hark's.".into() };
        let Some(card) = self.cards.get_mut(&tag) else {
            return "This question is no longer open on this phone; answer it in Hark.".into();
        };
        if let Some(ended) = &card.ended {
            return ended_notice(ended).into();
        }
        let step = card.draft.apply(&card.view.questions, action);
        self.take_step(tag, step).await
    }

    async fn on_text(&mut self, user: &Sender, chat: &str, reply_to: Option<String>, text: &str) {
        // A stranger's message changes nothing and gets no reply.
        if !self.is_paired(user) {
            return;
        }
        let prompt = match reply_to.as_deref().and_then(|r| self.prompts.get(r).map(|p| (r.to_string(), *p))) {
            Some(found) => Some(found),
            // Not a reply, but only one question asks for text: it is the answer to that one.
            None if self.prompts.len() == 1 => self.prompts.iter().next().map(|(k, v)| (k.clone(), *v)),
            None => None,
        };
        let Some((prompt_id, (tag, item))) = prompt else {
            let _ = self
                .transport
                .say(
                    chat,
                    "To answer in your own words, tap Other… on the question and reply to the message that asks.",
                )
                .await;
            return;
        };
        self.prompts.remove(&prompt_id);
        let Some(card) = self.cards.get_mut(&tag) else { return };
        if let Some(ended) = &card.ended {
            let _ = self.transport.say(chat, ended_notice(ended)).await;
            return;
        }
        let step = card.draft.text(&card.view.questions, item, text);
        let notice = self.take_step(tag, step).await;
        let answered = self.cards.get(&tag).is_some_and(|c| matches!(c.ended, Some(Ended::HereAnswered(_))));
        if !answered && !notice.is_empty() {
            let _ = self.transport.say(chat, &notice).await;
        }
    }

    async fn take_step(&mut self, tag: u64, step: Step) -> String {
        match step {
            Step::Redraw => {
                self.redraw(tag).await;
                String::new()
            }
            Step::Refuse(reason) => reason.into(),
            Step::AskText { item } => self.ask_text(tag, item).await,
            Step::Send(batch) => self.submit(tag, batch).await,
        }
    }

    async fn ask_text(&mut self, tag: u64, item: Option<usize>) -> String {
        let Some(card) = self.cards.get(&tag) else { return String::new() };
        let prompt = match item.and_then(|i| card.view.questions.get(i)) {
            Some(q) => format!("Reply to this message with your answer to: {}", q.question.trim()),
            None => "Reply to this message with what should change in the plan.".to_string(),
        };
        match self.transport.ask_text(&card.chat, &prompt).await {
            Ok(message) => {
                self.prompts.insert(message, (tag, item));
                "Type your answer as a reply".into()
            }
            Err(_) => "Telegram did not take the prompt; try again".into(),
        }
    }

    /// Sends the batch through the host, the same way as the window: the waiting call's answer, or
    /// a late one for a question that went on. The first valid answer from any surface wins.
    async fn submit(&mut self, tag: u64, batch: AnswerBatch) -> String {
        let Some(host) = self.host.upgrade() else { return "Hark is closing".into() };
        let Some(card) = self.cards.get(&tag) else { return String::new() };
        let path = match card.view.phase {
            Phase::Foreground { .. } => AnswerPath::Foreground,
            Phase::Continued { .. } => AnswerPath::Late,
        };
        let (session, call) = (card.session.clone(), card.call.clone());
        let summary = batch.answers.iter().map(summary_of).collect::<Vec<_>>().join(" · ");
        let answered =
            tokio::task::spawn_blocking(move || host.answer_and_admit(&session, &call, batch, Some(path))).await;
        let Some(card) = self.cards.get_mut(&tag) else { return String::new() };
        let error = match answered {
            Ok(Ok(_)) => {
                let (session, call) = (card.session.clone(), card.call.clone());
                self.end(&session, &call, Ended::HereAnswered(summary)).await;
                return "Answered".into();
            }
            Ok(Err(e)) => e,
            Err(_) => return "Hark could not take the answer; try again".into(),
        };
        match error.code() {
            "NOT_PENDING" => {
                let (session, call) = (card.session.clone(), card.call.clone());
                self.end(&session, &call, Ended::Elsewhere).await;
                ended_notice(&Ended::Elsewhere).into()
            }
            "REPLY_QUEUED" => "A late answer already waits for the agent; try again once it took it".into(),
            _ => {
                // Refused as it stands (a form's rule, a limit): start the batch over, say why.
                card.draft.reset(&card.view.questions);
                let reason: String = error.message().chars().take(180).collect();
                self.redraw(tag).await;
                reason
            }
        }
    }
}

fn ended_notice(ended: &Ended) -> &'static str {
    match ended {
        Ended::HereAnswered(_) | Ended::Elsewhere => "Already answered in Hark",
        Ended::Closed => "This question has ended",
        Ended::Withdrawn => "The agent withdrew this question",
    }
}
