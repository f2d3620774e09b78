//! The texts the model sees: an answered result, a pending notice, and the late-answer user message.

use serde_json::{json, Value};

use super::intent::{late_plan_fields, Intent};
use super::types::{answers_json, question_json, Answer, AnswerBatch, Question};

/// The marker key of a late-answer user message.
pub const LATE_ANSWER_MARKER: &str = "answer_to_pending_question";

/// The tool result text for an answered call: the answers JSON `{"answers":[...]}` (ids included).
pub fn answered_result_text(batch: &AnswerBatch) -> String {
    json!({ "answers": answers_json(batch) }).to_string()
}

/// The pending text, mentioning `answer_to_pending_question` and the call id.
///
/// Plain prose rather than JSON: it must read as an instruction, and it must not look like an
/// `{"answers": ...}` result a careless model could mistake for a choice.
pub fn pending_result_text(call_id: &str) -> String {
    // The call id comes from the model provider; JSON quoting keeps odd characters inert.
    let id = Value::String(call_id.to_string());
    format!(
        "{PENDING_RULES} If the user answers later, the answer will arrive as a user message whose JSON has \
         \"{LATE_ANSWER_MARKER}\": true and \"call_id\": {id}."
    )
}

/// The pending text for an outside agent asking through `hark mcp`: a late answer does not come to
/// it as a message, it collects it with `get_answers`.
pub fn client_pending_result_text(call_id: &str) -> String {
    let id = Value::String(call_id.to_string());
    format!(
        "{PENDING_RULES} If the user answers later, call the get_answers tool (between steps of your work, \
         and before you finish) to receive the answer; it names \"call_id\": {id}."
    )
}

const PENDING_RULES: &str = "PENDING: the user has not answered yet. The question stays open and the user can \
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
/// the questions.
pub fn late_answer_text(call_id: &str, intent: &Intent, questions: &[Question], batch: &AnswerBatch) -> String {
    let mut text = json!({
        LATE_ANSWER_MARKER: true,
        "call_id": call_id,
        "note": "The user answered a question you asked earlier whose call returned pending. \
                 Take this answer into account from now on.",
        "questions": questions.iter().map(question_json).collect::<Vec<_>>(),
        "answers": answers_json(batch),
    });
    if let (Intent::PlanReview { .. }, Some(fields)) = (intent, text.as_object_mut()) {
        fields.remove("questions");
        fields.extend(late_plan_fields(batch));
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
