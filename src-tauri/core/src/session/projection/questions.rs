//! The durable state of `ask_user_question` calls, folded from session events.
//!
//! Every rule lives in [`QuestionFold::apply`]. [`project_questions`] folds a whole log; the store folds
//! each appended event into a cached fold to keep the per-session counters that `list_sessions` reads,
//! so the two can never disagree.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::question::{approval_questions, APPROVAL_TOOL_NAME};
use crate::question::{
    check_plan, plan_review_questions, result_answers, validate_answers, validate_questions, AnswerBatch, Intent,
    PendingResult, PlanVerdict, Question, SubmitPlanArguments, ToolMode, PLAN_TOOL_NAME, TOOL_NAME,
};
use crate::session::events::{Event, StoredEvent, ToolOutcome};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum QuestionState {
    /// The call is live: its foreground wait has not produced a result yet.
    Open,
    /// The foreground wait ended without an answer (pending, or the run died); a late answer settles it.
    Continued,
    /// Answered, in the foreground or late.
    Settled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct QuestionRecord {
    pub call_id: String,
    pub state: QuestionState,
    /// A plan review (a `submit_plan` call) or a plain question.
    #[serde(default)]
    pub intent: Intent,
    /// The `run_code` call whose script asked, for a question a script asked.
    #[serde(default)]
    pub parent_call_id: Option<String>,
    /// Asked under the timed schema (decided by the `request/header` in force at the call), even when
    /// the model chose `timeout: -1`.
    pub timed: bool,
    pub questions: Vec<Question>,
    pub answers: Option<AnswerBatch>,
    pub answered_late: bool,
    /// The inbox message id of a late reply that waits for admission.
    pub reply_queued: Option<String>,
    /// In a client session: the late answer was returned to the outside agent.
    #[serde(default)]
    pub returned: bool,
    /// In a client session: the run of the outside agent that asked (`None`: one that did not say).
    #[serde(default)]
    pub asker: Option<String>,
    /// When its foreground wait ended unanswered, as its pending result says (`None` for results
    /// recorded before pending results said so).
    #[serde(default)]
    pub since: Option<chrono::DateTime<chrono::Utc>>,
    /// The agent withdrew it, for this reason: it ended unanswered.
    #[serde(default)]
    pub withdrawn: Option<String>,
    /// When it was asked (its call recorded); `None` when folded from events without their times.
    #[serde(default)]
    pub asked_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// How many questions of a session need the user, for badges and the sessions list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct QuestionCounts {
    pub open: u32,
    pub continued: u32,
}

/// The question state of one session, built one event at a time.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct QuestionFold {
    /// The schema of the latest `request/header`; none seen yet means the default, legacy.
    mode: Option<ToolMode>,
    /// Records in call order; removed calls leave a hole so indexes stay valid.
    slots: Vec<Option<QuestionRecord>>,
    by_call: HashMap<String, usize>,
    /// Reserved inbox message id → the call it answers.
    reservations: HashMap<String, String>,
}

impl QuestionFold {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event; true when a record was added, changed or removed.
    pub fn apply(&mut self, event: &Event) -> bool {
        match event {
            Event::RequestHeader { question_mode, .. } => {
                self.mode = Some(*question_mode);
                false
            }
            Event::ToolCall { call_id, name, arguments } => self.open(call_id, name, arguments, None),
            Event::ToolResult { call_id, outcome } => self.result(call_id, outcome),
            Event::PtcDispatch { parent_call_id, call_id, name, arguments } => {
                self.open(call_id, name, arguments, Some(parent_call_id))
            }
            Event::PtcResult { call_id, outcome } => self.result(call_id, outcome),
            Event::InboxQueued { message_id, source, .. } => match source.reply_call_id() {
                Some(call_id) => self.reserve(call_id, message_id),
                None => false,
            },
            // Only an explicit discard frees the call for another answer. A turn that ends (stopped,
            // quit, or closed by crash repair) leaves the reply queued: the next turn admits it.
            Event::InboxDiscarded { message_id, .. } => self.release(message_id),
            Event::UserMessage { message_id, text, source: Some(source) } => match source.reply_call_id() {
                Some(call_id) => self.admit_reply(call_id, message_id, source.reply_answers(text)),
                None => false,
            },
            Event::UserMessage { source: None, .. } => false,
            Event::SessionCreated { .. }
            | Event::TurnStarted { .. }
            | Event::TurnEnded { .. }
            | Event::AssistantMessage { .. }
            | Event::ModelError { .. }
            | Event::McpUnavailable { .. }
            | Event::McpForm { .. }
            | Event::HistoryCompacted { .. } => false,
            Event::AnswersReturned { call_ids } => {
                let mut changed = false;
                for call_id in call_ids {
                    if let Some(record) = self.record_mut(call_id) {
                        changed |= !record.returned;
                        record.returned = true;
                    }
                }
                changed
            }
            Event::ClientAsked { call_id, asker } => match self.record_mut(call_id) {
                Some(record) if record.asker.is_none() => {
                    record.asker = Some(asker.clone());
                    true
                }
                _ => false,
            },
            Event::QuestionWithdrawn { call_id, reason } => self.withdraw(call_id, reason),
            // What a newer build recorded cannot be understood here, so it changes nothing.
            Event::Unknown { .. } => false,
        }
    }

    /// [`apply`](Self::apply) for a stored event, which also says when a question was asked.
    pub fn apply_stored(&mut self, stored: &StoredEvent) -> bool {
        self.apply_at(&stored.event, stored.at)
    }

    /// [`apply`](Self::apply) for an event recorded at `at`.
    pub fn apply_at(&mut self, event: &Event, at: chrono::DateTime<chrono::Utc>) -> bool {
        let changed = self.apply(event);
        if let (true, Event::ToolCall { call_id, .. } | Event::PtcDispatch { call_id, .. }) = (changed, event) {
            if let Some(record) = self.record_mut(call_id) {
                record.asked_at.get_or_insert(at);
            }
        }
        changed
    }

    /// The call whose question a queued late reply `message_id` holds, if it holds one.
    pub fn reserved_call(&self, message_id: &str) -> Option<&str> {
        self.reservations.get(message_id).map(String::as_str)
    }

    pub fn get(&self, call_id: &str) -> Option<&QuestionRecord> {
        self.by_call.get(call_id).and_then(|&i| self.slots[i].as_ref())
    }

    pub fn records(&self) -> impl Iterator<Item = &QuestionRecord> {
        self.slots.iter().flatten()
    }

    pub fn into_records(self) -> Vec<QuestionRecord> {
        self.slots.into_iter().flatten().collect()
    }

    /// Whether the latest plan review the person settled approved its plan: what lets a plan-first
    /// session change its workspace. A review still waiting changes nothing, so a second plan does
    /// not take back an approval until the person asks for changes to it.
    pub fn plan_approved(&self) -> bool {
        self.records()
            .filter(|r| r.intent.is_plan_review() && r.state == QuestionState::Settled)
            .last()
            .and_then(|r| r.answers.as_ref())
            .is_some_and(|batch| PlanVerdict::of(batch) == PlanVerdict::Approved)
    }

    pub fn counts(&self) -> QuestionCounts {
        self.records().fold(QuestionCounts::default(), |mut c, r| {
            match r.state {
                QuestionState::Open => c.open += 1,
                QuestionState::Continued => c.continued += 1,
                QuestionState::Settled => {}
            }
            c
        })
    }

    fn open(&mut self, call_id: &str, name: &str, arguments: &serde_json::Value, parent: Option<&String>) -> bool {
        // A repeated call id keeps the first call: ids are the model's, and the first one is what any
        // answer was given to.
        if self.by_call.contains_key(call_id) {
            return false;
        }
        let (intent, questions, timed) = match name {
            TOOL_NAME => match recorded_questions(arguments) {
                Some(questions) => (Intent::Question, questions, self.mode == Some(ToolMode::Timed)),
                None => return false,
            },
            // A plan review always waits in the foreground, whatever the schema.
            PLAN_TOOL_NAME => match recorded_plan(arguments) {
                Some(plan) => (Intent::PlanReview { plan }, plan_review_questions(), false),
                None => return false,
            },
            APPROVAL_TOOL_NAME => match recorded_approval(arguments) {
                Some((intent, questions)) => (intent, questions, false),
                None => return false,
            },
            _ => return false,
        };
        self.by_call.insert(call_id.to_string(), self.slots.len());
        self.slots.push(Some(QuestionRecord {
            call_id: call_id.to_string(),
            state: QuestionState::Open,
            intent,
            parent_call_id: parent.cloned(),
            timed,
            questions,
            answers: None,
            answered_late: false,
            reply_queued: None,
            returned: false,
            asker: None,
            since: None,
            withdrawn: None,
            asked_at: None,
        }));
        true
    }

    fn result(&mut self, call_id: &str, outcome: &ToolOutcome) -> bool {
        let Some(record) = self.record_mut(call_id) else {
            return false;
        };
        // Only the first result of a live call counts; repair never adds a second one.
        if record.state != QuestionState::Open {
            return false;
        }
        match outcome {
            // A script's question whose run died before its result was recorded is gone with the
            // script: nothing would read a late answer to it.
            ToolOutcome::Unknown if record.parent_call_id.is_some() => self.remove(call_id),
            // An approval never continues: ended without its answer, it is gone.
            ToolOutcome::Pending { .. } | ToolOutcome::Unknown if record.intent.is_approval() => self.remove(call_id),
            ToolOutcome::Pending { content, since } => {
                record.state = QuestionState::Continued;
                // Read from the text only in a log of a build that did not record it.
                record.since = since.or_else(|| PendingResult::parse(content).map(|p| p.since));
            }
            ToolOutcome::Unknown => record.state = QuestionState::Continued,
            ToolOutcome::Ok { content, answers } => match valid_batch(&record.questions, answers.as_ref(), content) {
                Some(batch) => {
                    record.state = QuestionState::Settled;
                    record.answers = Some(batch);
                }
                None => self.remove(call_id),
            },
            ToolOutcome::Error { .. } => self.remove(call_id),
        }
        true
    }

    fn reserve(&mut self, call_id: &str, message_id: &str) -> bool {
        let Some(record) = self.record_mut(call_id) else {
            return false;
        };
        if record.state != QuestionState::Continued {
            return false;
        }
        let previous = record.reply_queued.replace(message_id.to_string());
        if let Some(previous) = previous {
            self.reservations.remove(&previous);
        }
        self.reservations.insert(message_id.to_string(), call_id.to_string());
        true
    }

    fn release(&mut self, message_id: &str) -> bool {
        let Some(call_id) = self.reservations.remove(message_id) else {
            return false;
        };
        match self.record_mut(&call_id) {
            Some(record) if record.reply_queued.as_deref() == Some(message_id) => {
                record.reply_queued = None;
                true
            }
            _ => false,
        }
    }

    fn admit_reply(&mut self, call_id: &str, message_id: &str, answers: Option<AnswerBatch>) -> bool {
        let Some(record) = self.record_mut(call_id) else {
            return false;
        };
        // First wins: a reply for a call already settled (or never continued) changes nothing.
        if record.state != QuestionState::Continued {
            return false;
        }
        // A recorded reply we cannot read still settles the call, with an empty batch: the model saw
        // the message, so the question must not stay answerable.
        let answers = answers
            .filter(|batch| validate_answers(&record.questions, batch).is_ok())
            .unwrap_or(AnswerBatch { answers: Vec::new() });
        record.state = QuestionState::Settled;
        record.answers = Some(answers);
        record.answered_late = true;
        let reserved = record.reply_queued.take();
        self.reservations.remove(message_id);
        if let Some(reserved) = reserved {
            self.reservations.remove(&reserved);
        }
        true
    }

    /// Only a continued question with no reply on its way can be withdrawn: a reply already queued
    /// is the person's answer, which reaches the agent first.
    fn withdraw(&mut self, call_id: &str, reason: &str) -> bool {
        match self.record_mut(call_id) {
            Some(record)
                if record.state == QuestionState::Continued
                    && record.reply_queued.is_none()
                    && record.intent == Intent::Question =>
            {
                record.state = QuestionState::Settled;
                record.withdrawn = Some(reason.to_string());
                true
            }
            _ => false,
        }
    }

    fn record_mut(&mut self, call_id: &str) -> Option<&mut QuestionRecord> {
        let i = *self.by_call.get(call_id)?;
        self.slots[i].as_mut()
    }

    fn remove(&mut self, call_id: &str) {
        if let Some(i) = self.by_call.remove(call_id) {
            if let Some(record) = self.slots[i].take() {
                if let Some(reserved) = record.reply_queued {
                    self.reservations.remove(&reserved);
                }
            }
        }
    }
}

/// Recorded arguments as JSON. Arguments stored as a string (the model sent text that was not JSON
/// at the time) are given one parse attempt.
fn recorded_json(arguments: &serde_json::Value) -> Option<std::borrow::Cow<'_, serde_json::Value>> {
    match arguments {
        serde_json::Value::String(raw) => serde_json::from_str(raw).ok().map(std::borrow::Cow::Owned),
        other => Some(std::borrow::Cow::Borrowed(other)),
    }
}

/// The questions of a recorded `ask_user_question` call, when its arguments were valid.
pub fn recorded_questions(arguments: &serde_json::Value) -> Option<Vec<Question>> {
    let args = recorded_json(arguments)?;
    let questions: Vec<Question> = serde_json::from_value(args.get("questions")?.clone()).ok()?;
    validate_questions(&questions).ok()?;
    Some(questions)
}

/// The plan of a recorded `submit_plan` call, when its arguments were valid.
fn recorded_plan(arguments: &serde_json::Value) -> Option<String> {
    let args: SubmitPlanArguments = serde_json::from_value(recorded_json(arguments)?.into_owned()).ok()?;
    check_plan(&args.plan).ok()?;
    Some(args.plan)
}

/// The approval a recorded permission request was asked as (see `Relay::approve`).
fn recorded_approval(arguments: &serde_json::Value) -> Option<(Intent, Vec<Question>)> {
    let args = recorded_json(arguments)?;
    let text = |key: &str| args.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
    let (agent, summary, always) = (text("agent")?, text("summary")?, text("always"));
    let questions = approval_questions(&agent, &summary, always.as_deref());
    let intent = Intent::Approval { agent, tool: text("tool")?, summary, detail: text("detail")?, always };
    Some((intent, questions))
}

/// The answers of an `ok` result, when they are a valid batch for these questions: as recorded
/// beside its text; from the text only in a log of a build that did not record them.
fn valid_batch(questions: &[Question], answers: Option<&AnswerBatch>, content: &str) -> Option<AnswerBatch> {
    let batch = match answers {
        Some(answers) => answers.clone(),
        None => result_answers(content)?,
    };
    validate_answers(questions, &batch).ok()?;
    Some(batch)
}

/// The question records of a session log, in call order.
pub fn project_questions(events: &[StoredEvent]) -> Vec<QuestionRecord> {
    fold_stored(events).into_records()
}

/// Folds stored events, with the times they were recorded.
pub fn fold_stored(events: &[StoredEvent]) -> QuestionFold {
    let mut fold = QuestionFold::new();
    for stored in events {
        fold.apply_stored(stored);
    }
    fold
}

/// Folds events that are not (yet) stored.
pub fn fold_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> QuestionFold {
    let mut fold = QuestionFold::new();
    for event in events {
        fold.apply(event);
    }
    fold
}
