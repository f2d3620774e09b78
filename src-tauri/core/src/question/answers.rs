//! Whether an answer batch fits the questions it answers.
//!
//! Providers own the shape of what they submit: when the user typed "Other" text after ticking
//! options, the provider clears the selection before submitting (custom overrides). A batch that still
//! carries both is refused rather than silently trimmed, so a provider bug surfaces instead of
//! changing what the user meant.

use std::collections::HashMap;

use super::error::{ErrorCode, UserInteractionError};
use super::limits::MAX_CUSTOM_CHARS;
use super::problems::{chars, count, is_blank, quote, Problems};
use super::types::{AnswerBatch, Question};
use super::validate::too_long;

/// BAD_ANSWER unless every question answered exactly once, labels exist, single-select ≤1, no duplicates,
/// custom ⇒ selected empty (custom overrides), `{id, selected: []}` = explicit skip.
pub fn validate_answers(questions: &[Question], batch: &AnswerBatch) -> Result<(), UserInteractionError> {
    let mut p = Problems::default();
    let mut by_id: HashMap<&str, &Question> = HashMap::new();
    for q in questions {
        by_id.entry(q.id.as_str()).or_insert(q);
    }
    let mut answered: HashMap<&str, usize> = HashMap::new();
    for (i, a) in batch.answers.iter().enumerate() {
        let at = format!("answers[{i}] ({})", quote(&a.id));
        let Some(q) = by_id.get(a.id.as_str()) else {
            p.push(&format!("answers[{i}]"), format!("id {} matches no question of this call", quote(&a.id)));
            continue;
        };
        if let Some(j) = answered.get(a.id.as_str()) {
            p.push(&at, format!("question answered twice (also answers[{j}]); answer each question once"));
            continue;
        }
        answered.insert(a.id.as_str(), i);

        if let Some(c) = &a.custom {
            if is_blank(c) {
                p.push(&at, "custom text is empty; leave custom out to skip the question");
            } else if chars(c) > MAX_CUSTOM_CHARS {
                p.push(&at, format!("custom text has {}", too_long(c, MAX_CUSTOM_CHARS)));
            }
            if !a.selected.is_empty() {
                p.push(&at, "custom text and selected options together; custom overrides, so selected must be empty");
            }
        }
        if q.is_free_form() && !a.selected.is_empty() {
            p.push(&at, "this question has no options; answer with custom text or skip it");
            continue;
        }
        if !q.multi_select && a.selected.len() > 1 {
            p.push(&at, format!("{} selected, this question allows one", count(a.selected.len(), "option")));
        }
        let mut seen: Vec<&str> = Vec::new();
        for label in &a.selected {
            if seen.contains(&label.as_str()) {
                p.push(&at, format!("{} selected twice", quote(label)));
                continue;
            }
            seen.push(label);
            if q.option(label).is_none() {
                p.push(&at, format!("{} is not an option of this question", quote(label)));
            }
        }
    }
    for q in questions {
        if !answered.contains_key(q.id.as_str()) {
            answered.insert(q.id.as_str(), usize::MAX);
            p.push(
                "",
                format!(
                    "question {} has no answer; answer every question, or skip one with selected: []",
                    quote(&q.id)
                ),
            );
        }
    }
    p.finish(ErrorCode::BadAnswer, "")
}
