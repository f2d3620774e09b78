//! What an open session keeps, and the one place each recorded event is folded into it.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::history::{CallIds, HistoryFold};
use crate::model::ToolCallRequest;
use crate::session::{Event, InboxFold, QuestionFold, RepairFold, StoredEvent, TranscriptDelta, TranscriptFold};
use crate::tools::QuestionSettings;

#[derive(Serialize, Deserialize)]
pub(crate) struct Folds {
    last_seq: u64,
    /// When the event `last_seq` was stored.
    last_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The `seq` a snapshot was last saved at (not part of one).
    #[serde(skip)]
    saved_seq: u64,
    /// What a dead run would leave open, for crash repair when the session is next opened.
    repair: RepairFold,
    questions: QuestionFold,
    inbox: InboxFold,
    history: HistoryFold,
    transcript: TranscriptFold,
    /// The `seq` of the event that began each turn, for reading a page from where it starts.
    turn_starts: Vec<u64>,
    last_header: Option<Event>,
    call_ids: CallIds,
    /// Inbox ids of late replies already admitted, so one reaching the agent twice is admitted once.
    replies_admitted: HashSet<String>,
    /// The ids of the messages the transcript last showed as queued.
    shown_queued: Vec<String>,
}

impl Folds {
    pub fn new(keep_tokens: usize) -> Folds {
        Folds {
            last_seq: 0,
            last_at: None,
            saved_seq: 0,
            repair: RepairFold::default(),
            questions: QuestionFold::new(),
            inbox: InboxFold::new(),
            history: HistoryFold::keeping(keep_tokens),
            transcript: TranscriptFold::tail(),
            turn_starts: Vec::new(),
            last_header: None,
            call_ids: CallIds::default(),
            replies_admitted: HashSet::new(),
            shown_queued: Vec::new(),
        }
    }

    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    pub fn last_at(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.last_at
    }

    /// Events folded since a snapshot was last saved (or loaded).
    pub fn unsaved(&self) -> u64 {
        self.last_seq - self.saved_seq.min(self.last_seq)
    }

    pub fn mark_saved(&mut self) {
        self.saved_seq = self.last_seq;
    }

    pub fn repair(&self) -> &RepairFold {
        &self.repair
    }

    pub fn questions(&self) -> &QuestionFold {
        &self.questions
    }

    pub fn inbox(&self) -> &InboxFold {
        &self.inbox
    }

    pub fn history(&self) -> &HistoryFold {
        &self.history
    }

    pub fn transcript(&self) -> &TranscriptFold {
        &self.transcript
    }

    pub fn last_header(&self) -> Option<&Event> {
        self.last_header.as_ref()
    }

    pub fn recorded_settings(&self) -> Option<QuestionSettings> {
        match &self.last_header {
            Some(Event::RequestHeader { question_mode, default_timeout_secs, stop_turn, .. }) => {
                Some(QuestionSettings {
                    mode: *question_mode,
                    default_timeout_secs: *default_timeout_secs,
                    stop_turn: *stop_turn,
                })
            }
            _ => None,
        }
    }

    pub fn turn_start(&self, turn: usize) -> Option<u64> {
        self.turn_starts.get(turn).copied()
    }

    pub fn reply_admitted(&self, message_id: &str) -> bool {
        self.replies_admitted.contains(message_id)
    }

    pub fn make_call_ids_unique(&mut self, calls: &mut [ToolCallRequest]) {
        self.call_ids.make_unique(calls);
    }

    /// Folds one stored event (the next in `seq` order). With `deltas`, returns what it changed in
    /// the transcript, for a window that shows it.
    pub fn apply(&mut self, stored: &StoredEvent, deltas: bool) -> Vec<TranscriptDelta> {
        self.last_seq = stored.seq;
        self.last_at = Some(stored.at);
        let event = &stored.event;
        // The call whose question this event may change, looked up before the fold forgets a discarded reservation.
        let call = match event {
            Event::ToolResult { call_id, .. } | Event::QuestionWithdrawn { call_id, .. } => Some(call_id.clone()),
            Event::InboxQueued { source, .. } => source.reply_call_id().map(String::from),
            Event::UserMessage { source, .. } => source.as_ref().and_then(|s| s.reply_call_id()).map(String::from),
            Event::InboxDiscarded { message_id, .. } => self.questions.reserved_call(message_id).map(String::from),
            _ => None,
        };
        let changed = self.questions.apply_stored(stored);
        self.repair.apply(event);
        self.inbox.apply(stored);
        self.history.apply(stored);
        self.call_ids.note(event);
        match event {
            Event::RequestHeader { .. } => self.last_header = Some(event.clone()),
            Event::UserMessage { message_id, source: Some(source), .. } if source.reply_call_id().is_some() => {
                self.replies_admitted.insert(message_id.clone());
            }
            _ => {}
        }
        let turns = self.transcript.turn_count();
        let mut out = Vec::new();
        self.transcript.add(stored, &self.questions, deltas.then_some(&mut out));
        if self.transcript.turn_count() > turns {
            self.turn_starts.push(stored.seq);
        }
        if deltas {
            if let Some(call) = call.filter(|_| changed) {
                out.push(self.transcript.call_delta(&self.questions, &call));
            }
        }
        let inbox_event =
            matches!(event, Event::InboxQueued { .. } | Event::InboxDiscarded { .. } | Event::UserMessage { .. });
        if inbox_event || changed {
            let queued: Vec<String> = self.inbox.waiting(&self.questions).map(|m| m.message_id.clone()).collect();
            if queued != self.shown_queued {
                self.shown_queued = queued;
                if deltas {
                    out.push(TranscriptDelta::Queued { queued: self.transcript.queued(&self.questions, &self.inbox) });
                }
            }
        }
        out
    }
}
