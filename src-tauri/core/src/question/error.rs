//! The error every question operation reports. It crosses IPC, the CLI and tool results, so its wire
//! shape is the shared `{name, code, message}` (see [`crate::error::BoundaryError`]).

use serde::{Deserialize, Serialize};

use crate::error::CodedError;

/// Machine-routable reason a question operation failed. Serialized as `SCREAMING_SNAKE_CASE`, which is
/// also what [`ErrorCode::as_str`] and `Display` produce, so logs and the wire agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The model's tool arguments break the schema or a limit.
    InvalidRequest,
    /// No interaction provider (panel, notification, stdio) is registered to show the question.
    NoProvider,
    /// A second provider tried to register while one is active.
    DuplicateProvider,
    /// The user closed the whole question.
    AskCancelled,
    /// The person declined a form: they will not give what it asks, and the asker may go on.
    AskDeclined,
    /// The owning turn was aborted, or the app shut down.
    AskAborted,
    /// Internal: the foreground wait of a timed question expired; the tool maps it to `pending`.
    AskTimedOut,
    /// A stale agent instance asked.
    CallerNotLive,
    /// A sub-agent owned by another agent asked.
    DelegatedCaller,
    /// An answer batch does not fit the questions it answers.
    BadAnswer,
    /// The question was already settled (late or duplicate answer).
    NotPending,
    /// A late reply for this session already waits for admission.
    ReplyQueued,
    /// A request's intent is unknown, or its questions do not have the shape the intent asks with.
    BadIntent,
    /// A tool that changes the workspace was called in a plan-first session before a plan was approved.
    PlanNotApproved,
}

impl ErrorCode {
    /// Every code, for exhaustive tests and UIs that list them.
    pub const ALL: [ErrorCode; 14] = [
        ErrorCode::InvalidRequest,
        ErrorCode::NoProvider,
        ErrorCode::DuplicateProvider,
        ErrorCode::AskCancelled,
        ErrorCode::AskDeclined,
        ErrorCode::AskAborted,
        ErrorCode::AskTimedOut,
        ErrorCode::CallerNotLive,
        ErrorCode::DelegatedCaller,
        ErrorCode::BadAnswer,
        ErrorCode::NotPending,
        ErrorCode::ReplyQueued,
        ErrorCode::BadIntent,
        ErrorCode::PlanNotApproved,
    ];

    /// The wire spelling, identical to the serde form.
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::NoProvider => "NO_PROVIDER",
            ErrorCode::DuplicateProvider => "DUPLICATE_PROVIDER",
            ErrorCode::AskCancelled => "ASK_CANCELLED",
            ErrorCode::AskDeclined => "ASK_DECLINED",
            ErrorCode::AskAborted => "ASK_ABORTED",
            ErrorCode::AskTimedOut => "ASK_TIMED_OUT",
            ErrorCode::CallerNotLive => "CALLER_NOT_LIVE",
            ErrorCode::DelegatedCaller => "DELEGATED_CALLER",
            ErrorCode::BadAnswer => "BAD_ANSWER",
            ErrorCode::NotPending => "NOT_PENDING",
            ErrorCode::ReplyQueued => "REPLY_QUEUED",
            ErrorCode::BadIntent => "BAD_INTENT",
            ErrorCode::PlanNotApproved => "PLAN_NOT_APPROVED",
        }
    }

    /// Inverse of [`ErrorCode::as_str`].
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A question operation failed. Serializes as
/// `{"name":"UserInteractionError","code":"BAD_ANSWER","message":"..."}` and deserializes from the same
/// shape (a different `name` is refused, so other error kinds are never mistaken for this one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct UserInteractionError {
    pub code: ErrorCode,
    pub message: String,
}

impl UserInteractionError {
    /// The `name` field of the wire shape.
    pub const NAME: &'static str = "UserInteractionError";

    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        UserInteractionError { code, message: message.into() }
    }

    /// Shorthand for the most common construction site: rejecting a model's arguments.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    /// Shorthand for rejecting an answer batch.
    pub fn bad_answer(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadAnswer, message)
    }
}

impl CodedError for UserInteractionError {
    fn name(&self) -> &str {
        Self::NAME
    }
    fn code(&self) -> &str {
        self.code.as_str()
    }
    fn message(&self) -> String {
        self.message.clone()
    }
}

impl<'de> Deserialize<'de> for UserInteractionError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            name: String,
            code: ErrorCode,
            message: String,
        }
        let wire = Wire::deserialize(d)?;
        if wire.name != Self::NAME {
            return Err(serde::de::Error::custom(format!(
                "expected an error named {}, got {:?}",
                Self::NAME,
                wire.name
            )));
        }
        Ok(UserInteractionError { code: wire.code, message: wire.message })
    }
}
