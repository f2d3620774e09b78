//! Result texts (in progress).
use super::*;

pub fn answered_result_text(batch: &AnswerBatch) -> String {
    serde_json::json!({ "answers": types::answers_json(batch) }).to_string()
}

pub fn pending_result_text(call_id: &str) -> String {
    format!("pending {call_id} answer_to_pending_question")
}

pub fn late_answer_text(call_id: &str, _questions: &[Question], batch: &AnswerBatch) -> String {
    serde_json::json!({ "answer_to_pending_question": true, "call_id": call_id, "answers": types::answers_json(batch) }).to_string()
}

pub fn parse_late_answer_text(_text: &str) -> Option<(String, AnswerBatch)> {
    None
}
