//! The question vocabulary: request, answer and error types, validation, the model-facing schema,
//! and the texts the model sees as results. Pure functions; no I/O.

mod error;
mod results;
mod schema;
mod types;
mod validate;

pub use error::{ErrorCode, UserInteractionError};
pub use results::{
    answered_result_text, late_answer_text, parse_late_answer_text, pending_result_text,
};
pub use schema::tool_definition;
pub use types::{
    Answer, AnswerBatch, AskRequest, Question, QuestionOption, ToolMode, WaitLimit, TOOL_NAME,
};
pub use validate::{limits, parse_request, validate_answers, validate_questions};
