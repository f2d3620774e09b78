//! The question vocabulary: request, answer and error types, validation, the model-facing schema,
//! and the texts the model sees as results. Pure functions; no I/O.

mod answers;
mod approval;
mod countdown;
mod ending;
mod error;
mod form;
mod intent;
pub mod limits;
mod parse;
mod problems;
mod results;
mod schema;
mod types;
mod validate;

pub use answers::validate_answers;
pub(crate) use approval::invisible;
pub use approval::{
    approval_questions, kept_suggestions, render_tool_call, word_suggestions, ApprovalVerdict, Rendered,
    ALLOW_ONCE_LABEL, ALWAYS_ALLOW_LABEL, APPROVAL_CALL_PREFIX, APPROVAL_QUESTION_ID, APPROVAL_TOOL_NAME, DENY_LABEL,
    MAX_DETAIL_CHARS,
};
pub use countdown::Countdown;
pub use ending::{PendingReason, PendingResult, WithdrawnResult, MAX_WITHDRAW_REASON_CHARS};
pub use error::{ErrorCode, UserInteractionError};
pub use form::{form_content, form_problems, FieldKind, FormField, FormOutcome, NO_LABEL, YES_LABEL};
pub use intent::{
    check_plan, plan_pending_result, plan_review_questions, plan_review_result_text, Intent, PlanVerdict,
    SubmitPlanArguments, APPROVE_LABEL, MAX_PLAN_CHARS, PLAN_QUESTION_ID, PLAN_TOOL_NAME,
};
pub use parse::parse_request;
pub use results::{
    answered_result_text, client_pending_result, late_answer_text, own_pending_result, parse_late_answer_text,
    pending_result_text, result_answers, LATE_ANSWER_MARKER,
};
pub use schema::{client_tool_definition, tool_definition};
pub use types::{
    Answer, AnswerBatch, AskRequest, Question, QuestionOption, ToolMode, WaitLimit, RECOMMENDED_MARK, TOOL_NAME,
};
pub use validate::validate_questions;

#[cfg(test)]
pub(crate) mod tests;
