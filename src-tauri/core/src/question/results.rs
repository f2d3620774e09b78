//! The texts the model sees: an answered result, a pending notice, and the late-answer user message.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::ending::{secs_after, PendingReason, PendingResult};

use super::intent::{late_plan_fields, Intent};
use super::types::{answers_json, question_json, Answer, AnswerBatch, Question};

/// The marker key of a late-answer user message.
pub const LATE_ANSWER_MARKER: &str = "answer_to_pending_question";

/// The tool result text for an answered call: the answers JSON `{"answers":[...]}` (ids included).
pub fn answered_result_text(batch: &AnswerBatch) -> String {
    json!({ "answers": answers_json(batch) }).to_string()
}

/// The pending result of a timed question whose wait ended unanswered: what happened as data
/// ([`PendingResult`]), with the rules in `next`. The late answer arrives as a user message marked
/// `answer_to_pending_question`.
pub fn pending_result_text(call_id: &str, reason: PendingReason, waited: Duration) -> String {
    own_pending_result(call_id, reason, waited).text()
}

/// [`pending_result_text`] as data.
pub fn own_pending_result(call_id: &str, reason: PendingReason, waited: Duration) -> PendingResult {
    pending_result(call_id, reason, waited, AnswerRoute::Message)
}

/// The pending result for an outside agent asking through `hark mcp`: a late answer does not come to
/// it as a message, it collects it with `get_answers`.
pub fn client_pending_result(call_id: &str, reason: PendingReason, waited: Duration) -> PendingResult {
    pending_result(call_id, reason, waited, AnswerRoute::GetAnswers)
}

enum AnswerRoute {
    Message,
    GetAnswers,
}

/// A pending result saying `next` as what the model should do now.
pub(super) fn pending_with(call_id: &str, reason: PendingReason, waited: Duration, next: String) -> PendingResult {
    PendingResult { reason, call_id: call_id.to_string(), waited_secs: waited.as_secs(), since: Utc::now(), next }
}

fn pending_result(call_id: &str, reason: PendingReason, waited: Duration, route: AnswerRoute) -> PendingResult {
    let later = match route {
        AnswerRoute::Message => format!(
            "If the user answers later, the answer arrives as a user message with \"{LATE_ANSWER_MARKER}\": true \
             and this call_id."
        ),
        AnswerRoute::GetAnswers => "If the user answers later, call get_answers (between steps of your work, and \
                                    before you finish) to receive the answer for this call_id."
            .to_string(),
    };
    PendingResult {
        reason,
        call_id: call_id.to_string(),
        waited_secs: waited.as_secs(),
        since: Utc::now(),
        next: format!("{PENDING_RULES} {later}"),
    }
}

const PENDING_RULES: &str = "The user has not answered yet. The question stays open and the user can \
     still answer it. Continue only with work that does not depend on the answer. Do not treat the silence as \
     consent, as a skip, or as a choice of any option, and do not pick a default on the user's behalf. Do not ask \
     the same question again.";

/// The answers of a recorded answered result (`{"answers": [...], ...}`), whatever else it says.
pub fn result_answers(content: &str) -> Option<AnswerBatch> {
    let value: Value = serde_json::from_str(content).ok()?;
    let answers: Vec<Answer> = serde_json::from_value(value.get("answers")?.clone()).ok()?;
    Some(AnswerBatch { answers })
}

/// The late-answer user message text: JSON {"answer_to_pending_question": true, "call_id", "questions",
/// "answers"}; for a plan review, the verdict's fields (`plan_review`, `feedback`, `note`) instead of
/// the questions. `since` is when the question's wait ended (from its pending result), so the model
/// learns how long after that the answer came (`answered_secs_after_timeout`).
pub fn late_answer_text(
    call_id: &str,
    intent: &Intent,
    questions: &[Question],
    batch: &AnswerBatch,
    since: Option<DateTime<Utc>>,
) -> String {
    let mut text = json!({
        LATE_ANSWER_MARKER: true,
        "call_id": call_id,
        "note": "The user answered a question you asked earlier whose call returned pending. \
                 Take this answer into account from now on.",
        "questions": questions.iter().map(question_json).collect::<Vec<_>>(),
        "answers": answers_json(batch),
    });
    if let Some(fields) = text.as_object_mut() {
        if let Some(since) = since {
            fields.insert("answered_secs_after_timeout".into(), json!(secs_after(since, Utc::now())));
        }
        if let Intent::PlanReview { .. } = intent {
            fields.remove("questions");
            fields.extend(late_plan_fields(batch));
        }
    }
    text.to_string()
}

/// Parses a late-answer text back (for projections/UI); None when it is not one.
pub fn parse_late_answer_text(text: &str) -> Option<(String, AnswerBatch)> {
    let v: Value = serde_json::from_str(text.trim()).ok()?;
    if v.get(LATE_ANSWER_MARKER)? != &Value::Bool(true) {
        return None;
    }
    let call_id = v.get("call_id")?.as_str()?.to_string();
    let answers: Vec<Answer> = serde_json::from_value(v.get("answers")?.clone()).ok()?;
    Some((call_id, AnswerBatch { answers }))
}
