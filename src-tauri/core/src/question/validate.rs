//! Limits on a batch of questions. Shared by [`super::parse_request`] (fresh model arguments) and by
//! projections that re-check recorded calls.

use std::collections::HashMap;

use super::error::{ErrorCode, UserInteractionError};
use super::limits::*;
use super::problems::{chars, count, is_blank, quote, Problems};
use super::types::Question;

/// Appended to request errors: the model's next move.
pub(super) const REQUEST_FIX_HINT: &str = "Fix the arguments and call ask_user_question again";

/// Validates only the `questions` array (used by projections on recorded calls).
pub fn validate_questions(questions: &[Question]) -> Result<(), UserInteractionError> {
    let mut p = Problems::default();
    check_count(questions.len(), &mut p);
    let indexed: Vec<(usize, &Question)> = questions.iter().enumerate().collect();
    check_questions(&indexed, &mut p);
    p.finish(ErrorCode::InvalidRequest, REQUEST_FIX_HINT)
}

pub(super) fn check_count(n: usize, p: &mut Problems) {
    if n < MIN_QUESTIONS {
        p.push("questions", format!("empty; give {MIN_QUESTIONS}–{MAX_QUESTIONS} questions"));
    } else if n > MAX_QUESTIONS {
        p.push(
            "questions",
            format!(
                "{} given, at most {MAX_QUESTIONS} per call; ask the most important ones first",
                count(n, "question")
            ),
        );
    }
}

/// Checks each question and id uniqueness. Indices are the positions in the model's array, so
/// messages point at the right element even when some elements were dropped as malformed.
pub(super) fn check_questions(questions: &[(usize, &Question)], p: &mut Problems) {
    let mut first_with_id: HashMap<&str, usize> = HashMap::new();
    for &(i, q) in questions {
        check_question(i, q, p);
        if is_blank(&q.id) {
            continue;
        }
        if let Some(j) = first_with_id.get(q.id.as_str()) {
            p.push(
                &format!("questions[{i}].id"),
                format!("{} is already used by questions[{j}]; ids must be unique in the call", quote(&q.id)),
            );
        } else {
            first_with_id.insert(q.id.as_str(), i);
        }
    }
}

fn check_question(i: usize, q: &Question, p: &mut Problems) {
    let at = |field: &str| format!("questions[{i}].{field}");
    if is_blank(&q.id) {
        p.push(&at("id"), "empty; give a short id such as \"db\", it is echoed in the answer");
    } else if chars(&q.id) > MAX_ID_CHARS {
        p.push(&at("id"), too_long(&q.id, MAX_ID_CHARS));
    }
    if is_blank(&q.question) {
        p.push(&at("question"), "empty; write the question to ask");
    } else if chars(&q.question) > MAX_QUESTION_CHARS {
        p.push(&at("question"), too_long(&q.question, MAX_QUESTION_CHARS));
    }
    if let Some(h) = &q.header {
        if chars(h) > MAX_HEADER_CHARS {
            p.push(
                &at("header"),
                format!("{}; a short tag like \"Database\" is enough", too_long(h, MAX_HEADER_CHARS)),
            );
        }
    }
    let n = q.options.len();
    if n > 0 && !(MIN_OPTIONS..=MAX_OPTIONS).contains(&n) {
        p.push(
            &at("options"),
            format!(
                "{} given, give {MIN_OPTIONS}–{MAX_OPTIONS} or none (no options = free-form answer)",
                count(n, "option")
            ),
        );
    }
    if n == 0 && q.multi_select {
        p.push(&at("multi_select"), "true needs options; a question without options takes a free-form answer");
    }
    let mut first_with_label: HashMap<&str, usize> = HashMap::new();
    for (k, o) in q.options.iter().enumerate() {
        let at = |field: &str| format!("questions[{i}].options[{k}].{field}");
        if is_blank(&o.label) {
            p.push(&at("label"), "empty; the label is what the user sees and what you get back");
            continue;
        }
        if chars(&o.label) > MAX_LABEL_CHARS {
            p.push(&at("label"), too_long(&o.label, MAX_LABEL_CHARS));
        }
        if let Some(d) = &o.description {
            if chars(d) > MAX_DESCRIPTION_CHARS {
                p.push(&at("description"), too_long(d, MAX_DESCRIPTION_CHARS));
            }
        }
        // Labels differing only by surrounding space would look identical to the user.
        let key = o.label.trim();
        if let Some(j) = first_with_label.get(key) {
            p.push(
                &at("label"),
                format!("{} repeats options[{j}]; labels must be unique within a question", quote(&o.label)),
            );
        } else {
            first_with_label.insert(key, k);
        }
    }
}

pub(super) fn too_long(s: &str, max: usize) -> String {
    format!("{} characters, at most {max}", chars(s))
}
