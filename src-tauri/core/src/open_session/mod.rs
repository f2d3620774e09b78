//! One open session, in memory: its log is read (and repaired) once when it is opened, and from then
//! on every append goes through [`Session::record`], which writes the events, folds them into what
//! the session keeps, and broadcasts each with what it changed in the transcript. Nothing reads the
//! log back to make a request, answer a question or show a change; only a page of older turns is
//! read from the store, starting where its first turn begins.
//!
//! What it keeps costs memory by what is live, not by how long the session is: the question records,
//! the inbox, the newest turns of the model's history (older ones as sizes only), the call ids in
//! use (as hashes) and the latest turn of the transcript with the `seq` where each turn begins.

mod events;
mod folds;
mod snapshot;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::model::ToolCallRequest;
use crate::question::PLAN_TOOL_NAME;
use crate::service::{SteerMessage, UserQuestionService};
use crate::session::{
    Event, ModelRef, QuestionFold, QuestionRecord, QueuedMessage, Store, StoreError, StoredEvent, Transcript,
    TranscriptFold,
};
use crate::sync::lock;
use crate::tool_definition::RUN_CODE_TOOL_NAME;
use crate::tools::QuestionSettings;

pub(crate) use events::forward_questions;
pub use events::AgentEvent;
pub(crate) use folds::Folds;

/// Capacity of the event fan-out; a slower subscriber sees `Lagged` and reads the session again.
const EVENT_CAPACITY: usize = 4096;

/// A snapshot is saved once this many events were folded since the last one (at open or live):
/// rarely enough to cost nothing noticeable, often enough that a reopen reads a short tail.
const SAVE_EVERY: u64 = 2000;

/// What [`Session::admit_reply`] did with a late reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Recorded, and its question settled by it.
    Settled,
    /// Recorded; its question was settled before (first wins).
    Recorded,
    /// Admitted before: nothing recorded again.
    Again,
    /// Not a late reply: nothing recorded.
    Refused,
}

pub struct Session {
    id: String,
    store: Arc<Store>,
    /// The folder holding the database, where snapshots are kept.
    data_dir: PathBuf,
    keep_tokens: usize,
    folds: Mutex<Folds>,
    events: broadcast::Sender<AgentEvent>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish()
    }
}

impl Session {
    /// Creates a session (its `session/created`) and opens it.
    pub fn create(
        store: Arc<Store>,
        title: &str,
        workspace: Option<&str>,
        model: Option<ModelRef>,
        keep_tokens: usize,
    ) -> Result<Arc<Session>, StoreError> {
        let id = store.create_session(title, workspace, model)?;
        Session::open(store, &id, keep_tokens)
    }

    /// Reads the session's log once, folding it as it is read, and closes what a dead run left open
    /// (every call without a result gets an unknown outcome, every turn without an end is
    /// interrupted). Call it once per process and session: only one process hosts a data
    /// directory, so any earlier run is dead. `keep_tokens` is how much of the model's history to
    /// keep in memory (see `agent::history_keep_tokens`).
    pub fn open(store: Arc<Store>, id: &str, keep_tokens: usize) -> Result<Arc<Session>, StoreError> {
        let data_dir = store.path().parent().map(PathBuf::from).unwrap_or_default();
        let saved = snapshot::load(&data_dir, id, keep_tokens, |seq| store.event_time(id, seq).ok().flatten());
        let mut folds = saved.unwrap_or_else(|| Folds::new(keep_tokens));
        folds.mark_saved();
        store.scan(id, folds.last_seq() + 1, &mut |stored| {
            folds.apply(&stored, false);
        })?;
        store.adopt(id, folds.last_seq(), folds.questions().clone());
        let needed = folds.repair().needed();
        if !needed.is_empty() {
            for stored in store.append_batch(id, needed)? {
                folds.apply(&stored, false);
            }
        }
        let session = Session {
            id: id.to_string(),
            store,
            data_dir,
            keep_tokens,
            folds: Mutex::new(folds),
            events: broadcast::channel(EVENT_CAPACITY).0,
        };
        session.save_if(SAVE_EVERY);
        Ok(Arc::new(session))
    }

    /// Saves a snapshot of what the session keeps when at least `unsaved` events were folded since
    /// the last one. A failure costs only the next open's speed, so it is not reported; the next
    /// attempt waits for as many events again.
    fn save_if(&self, unsaved: u64) {
        let mut folds = lock(&self.folds);
        if folds.unsaved() == 0 || folds.unsaved() < unsaved {
            return;
        }
        if let Some(at) = folds.last_at() {
            if snapshot::save(&self.data_dir, &self.id, self.keep_tokens, at, &folds).is_err() {
                snapshot::remove(&self.data_dir, &self.id);
            }
        }
        folds.mark_saved();
    }

    /// Saves a snapshot of what the session keeps if anything was recorded since the last one, so
    /// the next open reads only what comes after (quitting does this for every open session).
    pub fn save(&self) {
        self.save_if(1);
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn subscribe(&self) -> broadcast::Receiver<AgentEvent> {
        self.events.subscribe()
    }

    /// Sends an event to everyone following the session (nobody listening is fine).
    pub fn emit(&self, event: AgentEvent) {
        let _ = self.events.send(event);
    }

    /// Appends `events` in one transaction; each is durable, folded and broadcast (as
    /// `event_appended`, then `transcript` with what it changed) before this returns. Events another
    /// writer appended meanwhile are folded and broadcast first, in `seq` order.
    pub fn record(&self, events: Vec<Event>) -> Result<Vec<StoredEvent>, StoreError> {
        let mut events = Some(events);
        self.record_decided(&mut |_| events.take().unwrap_or_default())
    }

    /// [`record`](Self::record) for the events `decide` makes of the session's question fold, as
    /// stored, in the transaction that reads it (see [`Store::append_decided`]): how a late answer is
    /// checked and queued in one step, so two surfaces answering at once cannot both be taken.
    pub fn record_decided(
        &self,
        decide: &mut dyn FnMut(&QuestionFold) -> Vec<Event>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let mut folds = lock(&self.folds);
        let stored = self.store.append_decided(&self.id, decide)?;
        if let Some(first) = stored.first() {
            if first.seq > folds.last_seq() + 1 {
                let mut missed = Vec::new();
                self.store.scan(&self.id, folds.last_seq() + 1, &mut |e| {
                    if e.seq < first.seq {
                        missed.push(e)
                    }
                })?;
                for event in &missed {
                    self.fold_and_send(&mut folds, event);
                }
            }
        }
        for event in &stored {
            self.fold_and_send(&mut folds, event);
        }
        drop(folds);
        self.save_if(SAVE_EVERY);
        Ok(stored)
    }

    /// [`record`](Self::record) for one event.
    pub fn record_one(&self, event: Event) -> Result<StoredEvent, StoreError> {
        self.record(vec![event])?.pop().ok_or_else(|| StoreError::Io {
            path: self.store.path().to_path_buf(),
            detail: "the append stored nothing".into(),
        })
    }

    fn fold_and_send(&self, folds: &mut Folds, event: &StoredEvent) {
        let deltas = folds.apply(event, true);
        self.emit(AgentEvent::EventAppended { event: event.clone() });
        self.emit(AgentEvent::Transcript { session_id: self.id.clone(), seq: event.seq, deltas });
    }

    /// The folder the session works on, as `session/created` recorded it.
    pub fn workspace(&self) -> Option<PathBuf> {
        lock(&self.folds).transcript().workspace().map(PathBuf::from)
    }

    /// The outside agent whose questions the session holds, as `session/created` recorded it.
    pub fn client(&self) -> Option<String> {
        lock(&self.folds).transcript().client().map(str::to_string)
    }

    /// The model `session/created` recorded.
    pub fn model(&self) -> Option<ModelRef> {
        lock(&self.folds).transcript().model().cloned()
    }

    /// The question settings the session last recorded in `request/header`.
    pub fn recorded_settings(&self) -> Option<QuestionSettings> {
        lock(&self.folds).recorded_settings()
    }

    /// The `request/header` offering `tools` under `settings`, when it differs from the last one
    /// recorded: a header is recorded only when what the model is offered changes (the question
    /// fold reads a call's schema from the header before it). For Hark's agent and outside agents.
    pub fn changed_header(&self, tools: Vec<String>, settings: QuestionSettings) -> Option<Event> {
        let header = Event::RequestHeader {
            tools,
            question_mode: settings.mode,
            default_timeout_secs: settings.default_timeout_secs,
            stop_turn: settings.stop_turn,
        };
        (self.last_header().as_ref() != Some(&header)).then_some(header)
    }

    /// Whether the session last ran plan first: its last `request/header` offered `submit_plan`.
    pub fn recorded_plan_first(&self) -> Option<bool> {
        match lock(&self.folds).last_header() {
            Some(Event::RequestHeader { tools, .. }) => Some(tools.iter().any(|t| t == PLAN_TOOL_NAME)),
            _ => None,
        }
    }

    /// Whether the session last ran with programmatic tool calls: its last `request/header` offered
    /// `run_code`.
    pub fn recorded_ptc(&self) -> Option<bool> {
        match lock(&self.folds).last_header() {
            Some(Event::RequestHeader { tools, .. }) => Some(tools.iter().any(|t| t == RUN_CODE_TOOL_NAME)),
            _ => None,
        }
    }

    /// The last `request/header` recorded.
    pub fn last_header(&self) -> Option<Event> {
        lock(&self.folds).last_header().cloned()
    }

    /// `f` on what the session keeps, as it stands (for building a request).
    pub(crate) fn with_folds<R>(&self, f: impl FnOnce(&Folds) -> R) -> R {
        f(&lock(&self.folds))
    }

    /// Gives each call an id the session has not used (see `history::call_ids`).
    pub fn make_call_ids_unique(&self, calls: &mut [ToolCallRequest]) {
        lock(&self.folds).make_call_ids_unique(calls);
    }

    /// How many of the session's questions wait open or continued, as its fold says now.
    pub fn question_counts(&self) -> crate::session::QuestionCounts {
        lock(&self.folds).questions().counts()
    }

    pub fn question_records(&self) -> Vec<QuestionRecord> {
        lock(&self.folds).questions().records().cloned().collect()
    }

    /// What waits in the inbox for admission, in the order it was queued.
    pub fn queued_messages(&self) -> Vec<QueuedMessage> {
        let folds = lock(&self.folds);
        folds.inbox().waiting(folds.questions()).cloned().collect()
    }

    /// Whether a late reply with this inbox id was admitted (recorded as `user/message`).
    pub fn reply_admitted(&self, message_id: &str) -> bool {
        lock(&self.folds).reply_admitted(message_id)
    }

    /// Admits a queued late reply as `user/message`: the one admission rule, for Hark's own agent
    /// and for an outside agent's session alike.
    /// - A reply is admitted once per inbox id: one that reaches the session twice (its channel and
    ///   the inbox at a restart) is recorded once.
    /// - It is always recorded, so words the person was told were taken are never dropped.
    /// - It settles its question only while that question is continued: the first admitted reply
    ///   wins, a later one (a discarded reply admitted anyway, then the next) settles nothing, and
    ///   nobody is told twice.
    ///
    /// A message that is not a late reply admits nothing. A failed write leaves the reply in the
    /// inbox, for the next admission.
    pub fn admit_reply(&self, service: &UserQuestionService, message: SteerMessage) -> Result<Admission, StoreError> {
        let Some(call_id) = message.source.reply_call_id().map(str::to_string) else { return Ok(Admission::Refused) };
        if self.reply_admitted(&message.message_id) {
            return Ok(Admission::Again);
        }
        let settles = service.is_continued(&self.id, &call_id);
        let event =
            Event::UserMessage { message_id: message.message_id, text: message.text, source: Some(message.source) };
        self.record_one(event)?;
        if settles {
            service.on_admitted(&self.id, &call_id);
            return Ok(Admission::Settled);
        }
        Ok(Admission::Recorded)
    }

    /// The transcript; with `turns`, only its newest `turns` turns, read from where the first of
    /// them begins (the rest is counted in `earlier_turns`). Its `seq` is the last event it
    /// includes, so a window applies only later deltas to it.
    pub fn transcript(&self, turns: Option<usize>) -> Result<Transcript, StoreError> {
        let (from_turn, from_seq, through, questions, inbox, texts, meta) = {
            let folds = lock(&self.folds);
            let tail = folds.transcript();
            let from_turn = turns.map_or(0, |n| tail.turn_count().saturating_sub(n.max(1)));
            let from_seq = folds.turn_start(from_turn).unwrap_or(1);
            let meta = (
                tail.title().map(String::from),
                tail.workspace().map(String::from),
                tail.model().cloned(),
                tail.client().map(String::from),
                tail.started_by().map(String::from),
            );
            (
                from_turn,
                from_seq,
                folds.last_seq(),
                folds.questions().clone(),
                folds.inbox().clone(),
                tail.reply_answers().clone(),
                meta,
            )
        };
        let mut page = if from_turn == 0 { TranscriptFold::whole() } else { TranscriptFold::page(from_turn) };
        self.store.scan(&self.id, from_seq, &mut |stored| {
            if stored.seq <= through {
                // Items show their question as it is now; a whole fold gets there by its end anyway.
                page.add(&stored, &questions, None);
            }
        })?;
        let mut transcript = page.finish(&questions, &inbox, Some(&texts));
        // A page starts after `session/created`.
        (transcript.title, transcript.workspace, transcript.model, transcript.client, transcript.started_by) = meta;
        transcript.seq = through;
        Ok(transcript)
    }
}

impl crate::tools::PlanApproval for Session {
    fn plan_approved(&self) -> bool {
        lock(&self.folds).questions().plan_approved()
    }
}
