//! The bounds of the vocabulary. The schema, the validators and the tool description all read these,
//! so what the model is told and what is enforced cannot drift apart.
//!
//! Lengths count Unicode scalar values (`chars`), not bytes, so non-Latin text gets the same budget.

/// Questions per call.
pub const MIN_QUESTIONS: usize = 1;
pub const MAX_QUESTIONS: usize = 8;
/// A question id.
pub const MAX_ID_CHARS: usize = 64;
/// The question text.
pub const MAX_QUESTION_CHARS: usize = 1000;
/// The short tag shown above a question.
pub const MAX_HEADER_CHARS: usize = 60;
/// Options per question, when any are given (none = free-form).
pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 10;
/// An option label (also the value returned to the model).
pub const MAX_LABEL_CHARS: usize = 120;
/// An option description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// The longest timed-mode `timeout`: seven days. Longer waits are `-1` (indefinite).
pub const MAX_TIMEOUT_SECS: u64 = 7 * 24 * 60 * 60;
/// The shortest default timeout a person can choose (settings, `--timeout`).
pub const MIN_TIMEOUT_SECS: u64 = 1;
/// Free-text answers. Generous for a pasted paragraph; it keeps one answer from flooding the model's
/// context and the event log.
pub const MAX_CUSTOM_CHARS: usize = 10_000;

/// The `--timeout S` option of `hark chat` and of the desktop's launch options: whole seconds within
/// the timed-mode bounds. The error is the line shown to the person.
pub fn parse_timeout_secs(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|secs| is_default_timeout(*secs))
        .ok_or_else(|| format!("--timeout {text:?}: seconds from {MIN_TIMEOUT_SECS} to {MAX_TIMEOUT_SECS}"))
}

/// Whether `secs` can be a default timeout.
pub fn is_default_timeout(secs: u64) -> bool {
    (MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&secs)
}

/// A default timeout brought into the timed-mode bounds. Defaults come from settings, options and
/// recorded sessions; one out of range must still give the model a limit it was told about and a
/// deadline the clock can hold.
pub fn clamp_timeout_secs(secs: u64) -> u64 {
    secs.clamp(MIN_TIMEOUT_SECS, MAX_TIMEOUT_SECS)
}
