//! What the chat view renders after a restart: turns of items, rebuilt from the event log.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::inbox::InboxFold;
use super::questions::{recorded_questions, QuestionFold, QuestionRecord};
use crate::question::{parse_late_answer_text, AnswerBatch, Question};
use crate::session::events::{Event, ModelRef, StoredEvent, ToolOutcome};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transcript {
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub model: Option<ModelRef>,
    pub turns: Vec<Turn>,
    /// Older turns left out by [`Transcript::keep_last_turns`]; 0 when `turns` is the whole session.
    pub earlier_turns: usize,
    /// The question projection of the same events, for badges and the question panel. Always the
    /// whole session's, also when older turns are left out.
    pub questions: Vec<QuestionRecord>,
    /// Messages accepted for the agent and not admitted yet, in the order they were queued: a
    /// `user_message` the person typed, or a `late_answer` (also shown on its call's row as
    /// `queued_answers`). `seq`/`at` are those of the `inbox/queued` event. Once admitted, a message
    /// leaves this list and appears in its turn under the same `message_id`.
    pub queued: Vec<TranscriptItem>,
}

impl Transcript {
    /// Keeps the newest `n` turns: a long session is shown from its end, and a window asks for
    /// more as the person scrolls back, instead of rendering a hundred thousand events at once.
    pub fn keep_last_turns(&mut self, n: usize) {
        let drop = self.turns.len().saturating_sub(n);
        if drop > 0 {
            self.turns.drain(..drop);
            self.earlier_turns += drop;
        }
    }
}

/// Items between a `turn/started` and its `turn/ended`. Items recorded outside any turn are grouped
/// in a turn whose `turn_id` is `None`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    pub turn_id: Option<String>,
    pub run_id: Option<String>,
    pub started_at: DateTime<Utc>,
    pub ended: Option<TurnEnd>,
    pub items: Vec<TranscriptItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnEnd {
    pub reason: String,
    pub seq: u64,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptItem {
    UserMessage {
        seq: u64,
        at: DateTime<Utc>,
        message_id: String,
        text: String,
    },
    /// A late answer, shown as answers rather than its JSON text. `raw_text` is set only when the
    /// recorded text cannot be read as a late answer, so nothing is lost.
    LateAnswer {
        seq: u64,
        at: DateTime<Utc>,
        message_id: String,
        call_id: String,
        questions: Vec<Question>,
        answers: Option<AnswerBatch>,
        raw_text: Option<String>,
    },
    AssistantMessage {
        seq: u64,
        at: DateTime<Utc>,
        text: String,
        reasoning: Option<String>,
        tool_calls: Vec<String>,
    },
    ToolCall {
        seq: u64,
        at: DateTime<Utc>,
        call_id: String,
        name: String,
        arguments: serde_json::Value,
        result: Option<ToolResultView>,
        /// For `ask_user_question` calls still in the question projection: its final state, including
        /// a late answer that settled it after its own result said pending.
        question: Option<QuestionRecord>,
        /// The answers of a late reply waiting in the inbox for admission.
        queued_answers: Option<AnswerBatch>,
    },
    /// A result whose call is not in the log (kept visible rather than dropped).
    OrphanResult {
        seq: u64,
        at: DateTime<Utc>,
        call_id: String,
        outcome: ToolOutcome,
    },
    ModelError {
        seq: u64,
        at: DateTime<Utc>,
        error: serde_json::Value,
    },
    /// Earlier turns were summarised (or, with no `summary`, left out) to fit the model's context:
    /// the model no longer reads the events up to `through_seq` themselves. They stay in the log
    /// and in this transcript.
    HistoryCompacted {
        seq: u64,
        at: DateTime<Utc>,
        through_seq: u64,
        summary: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResultView {
    pub seq: u64,
    pub at: DateTime<Utc>,
    pub outcome: ToolOutcome,
}

/// Builds the transcript of a session log.
pub fn project_transcript(events: &[StoredEvent]) -> Transcript {
    let mut b = Builder::default();
    for stored in events {
        b.questions.apply(&stored.event);
        b.inbox.apply(stored);
        b.add(stored);
    }
    b.finish()
}

#[derive(Default)]
struct Builder {
    title: Option<String>,
    workspace: Option<String>,
    model: Option<ModelRef>,
    turns: Vec<Turn>,
    /// Whether the last turn still takes items.
    current_open: bool,
    calls: HashMap<String, (usize, usize)>,
    inbox_texts: HashMap<String, String>,
    inbox: InboxFold,
    questions: QuestionFold,
}

impl Builder {
    fn add(&mut self, stored: &StoredEvent) {
        let (seq, at) = (stored.seq, stored.at);
        match &stored.event {
            Event::SessionCreated { title, workspace, model } => {
                self.title = Some(title.clone());
                self.workspace = workspace.clone();
                self.model = model.clone();
            }
            Event::RequestHeader { .. } => {}
            Event::TurnStarted { turn_id, run_id } => {
                self.turns.push(Turn {
                    turn_id: Some(turn_id.clone()),
                    run_id: Some(run_id.clone()),
                    started_at: at,
                    ended: None,
                    items: Vec::new(),
                });
                self.current_open = true;
            }
            Event::TurnEnded { turn_id, reason } => {
                let turn = self.turns.iter_mut().rev().find(|t| t.turn_id.as_deref() == Some(turn_id));
                if let Some(turn) = turn {
                    turn.ended = Some(TurnEnd { reason: reason.clone(), seq, at });
                }
                self.current_open = false;
            }
            Event::UserMessage { message_id, text, source } => {
                let item = match source.as_ref().and_then(|s| s.reply_call_id()) {
                    Some(call_id) => self.late_answer(seq, at, message_id, call_id, text),
                    None => TranscriptItem::UserMessage { seq, at, message_id: message_id.clone(), text: text.clone() },
                };
                self.push(at, item);
            }
            Event::AssistantMessage { text, reasoning, tool_calls, .. } => {
                let item = TranscriptItem::AssistantMessage {
                    seq,
                    at,
                    text: text.clone(),
                    reasoning: reasoning.clone(),
                    tool_calls: tool_calls.clone(),
                };
                self.push(at, item);
            }
            Event::ToolCall { call_id, name, arguments } => {
                let item = TranscriptItem::ToolCall {
                    seq,
                    at,
                    call_id: call_id.clone(),
                    name: name.clone(),
                    arguments: arguments.clone(),
                    result: None,
                    question: None,
                    queued_answers: None,
                };
                let place = self.push(at, item);
                self.calls.entry(call_id.clone()).or_insert(place);
            }
            Event::ToolResult { call_id, outcome } => self.pair_result(seq, at, call_id, outcome),
            Event::InboxQueued { message_id, text, .. } => {
                self.inbox_texts.insert(message_id.clone(), text.clone());
            }
            Event::InboxDiscarded { .. } => {}
            Event::ModelError { error } => {
                self.push(at, TranscriptItem::ModelError { seq, at, error: error.clone() });
            }
            Event::HistoryCompacted { through_seq, summary, .. } => {
                let item =
                    TranscriptItem::HistoryCompacted { seq, at, through_seq: *through_seq, summary: summary.clone() };
                self.push(at, item);
            }
            // Nothing to show for an event only a newer build understands.
            Event::Unknown { .. } => {}
        }
    }

    fn late_answer(&self, seq: u64, at: DateTime<Utc>, message_id: &str, call_id: &str, text: &str) -> TranscriptItem {
        // Recognised by its source only: a user pasting the same JSON stays a plain message.
        let parsed = parse_late_answer_text(text).filter(|(id, _)| id == call_id);
        let questions = self.call_questions(call_id).unwrap_or_default();
        TranscriptItem::LateAnswer {
            seq,
            at,
            message_id: message_id.to_string(),
            call_id: call_id.to_string(),
            questions,
            raw_text: parsed.is_none().then(|| text.to_string()),
            answers: parsed.map(|(_, batch)| batch),
        }
    }

    fn call_questions(&self, call_id: &str) -> Option<Vec<Question>> {
        if let Some(record) = self.questions.get(call_id) {
            return Some(record.questions.clone());
        }
        let &(t, i) = self.calls.get(call_id)?;
        match &self.turns[t].items[i] {
            TranscriptItem::ToolCall { arguments, .. } => recorded_questions(arguments),
            _ => None,
        }
    }

    fn pair_result(&mut self, seq: u64, at: DateTime<Utc>, call_id: &str, outcome: &ToolOutcome) {
        if let Some(&(t, i)) = self.calls.get(call_id) {
            if let TranscriptItem::ToolCall { result: slot @ None, .. } = &mut self.turns[t].items[i] {
                *slot = Some(ToolResultView { seq, at, outcome: outcome.clone() });
                return;
            }
        }
        let item = TranscriptItem::OrphanResult { seq, at, call_id: call_id.to_string(), outcome: outcome.clone() };
        self.push(at, item);
    }

    /// Adds an item to the current turn, or to a turn of its own when no turn is running.
    fn push(&mut self, at: DateTime<Utc>, item: TranscriptItem) -> (usize, usize) {
        if !self.current_open {
            self.turns.push(Turn { turn_id: None, run_id: None, started_at: at, ended: None, items: Vec::new() });
            self.current_open = true;
        }
        let t = self.turns.len() - 1;
        self.turns[t].items.push(item);
        (t, self.turns[t].items.len() - 1)
    }

    fn finish(mut self) -> Transcript {
        for (call_id, &(t, i)) in &self.calls {
            if let TranscriptItem::ToolCall { question, queued_answers, .. } = &mut self.turns[t].items[i] {
                let record = self.questions.get(call_id);
                *queued_answers = record
                    .and_then(|r| r.reply_queued.as_ref())
                    .and_then(|m| self.inbox_texts.get(m))
                    .and_then(|text| parse_late_answer_text(text))
                    .filter(|(id, _)| id == call_id)
                    .map(|(_, batch)| batch);
                *question = record.cloned();
            }
        }
        let queued = self
            .inbox
            .waiting(&self.questions)
            .map(|m| match m.source.reply_call_id() {
                Some(call_id) => self.late_answer(m.seq, m.at, &m.message_id, call_id, &m.text),
                None => TranscriptItem::UserMessage {
                    seq: m.seq,
                    at: m.at,
                    message_id: m.message_id.clone(),
                    text: m.text.clone(),
                },
            })
            .collect();
        Transcript {
            title: self.title,
            workspace: self.workspace,
            model: self.model,
            turns: self.turns,
            earlier_turns: 0,
            questions: self.questions.into_records(),
            queued,
        }
    }
}
