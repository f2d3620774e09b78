//! Validation of requests and answers (in progress).
use super::*;

pub mod limits {}

pub fn parse_request(
    _args: &serde_json::Value,
    _mode: ToolMode,
    _default_timeout_secs: u64,
) -> Result<AskRequest, UserInteractionError> {
    Err(UserInteractionError::invalid_request("not implemented yet"))
}

pub fn validate_questions(_questions: &[Question]) -> Result<(), UserInteractionError> {
    Ok(())
}

pub fn validate_answers(
    _questions: &[Question],
    _batch: &AnswerBatch,
) -> Result<(), UserInteractionError> {
    Ok(())
}
