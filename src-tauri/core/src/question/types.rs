//! The question vocabulary as data: what the model asks and what the user answers.
//!
//! The types are strict (`deny_unknown_fields`): a misspelt `custom` in an answer must not silently
//! become a skip, and a recorded call with extra fields was rejected when it was made anyway.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::limits::{
    MAX_DESCRIPTION_CHARS, MAX_HEADER_CHARS, MAX_ID_CHARS, MAX_LABEL_CHARS, MAX_OPTIONS, MAX_QUESTION_CHARS,
    MIN_OPTIONS,
};

/// The model-facing tool name.
pub const TOOL_NAME: &str = "ask_user_question";

/// One choice. `label` is both what the user sees and the value the model gets back.
///
/// The field docs are what the model reads in the tool's schema (see [`super::tool_definition`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct QuestionOption {
    /// Shown to the user and returned to you when chosen. Unique within the question.
    #[schemars(length(min = 1, max = MAX_LABEL_CHARS))]
    pub label: String,
    /// Optional one-line explanation of the choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(max = MAX_DESCRIPTION_CHARS))]
    pub description: Option<String>,
}

/// How the model marks the option it recommends: at the end of the label (the tool's description asks
/// for it, first in the list). Surfaces show the mark as a badge and never choose the option for the
/// person; the label the model gets back is the whole label, mark included.
pub const RECOMMENDED_MARK: &str = "(Recommended)";

impl QuestionOption {
    /// Whether the label ends with [`RECOMMENDED_MARK`] (in any case) after some text of its own.
    pub fn is_recommended(&self) -> bool {
        self.shown_label().len() < self.label.len()
    }

    /// The label as a surface shows it beside its badge: without the recommendation mark.
    pub fn shown_label(&self) -> &str {
        let label = self.label.trim_end();
        let Some(split) = label.len().checked_sub(RECOMMENDED_MARK.len()) else {
            return &self.label;
        };
        match (label.get(..split), label.get(split..)) {
            (Some(rest), Some(mark)) if mark.eq_ignore_ascii_case(RECOMMENDED_MARK) && !rest.trim().is_empty() => {
                rest.trim_end()
            }
            _ => &self.label,
        }
    }
}

/// One question of a batch. No options (or an empty list) makes it free-form; a question with options
/// still accepts a free-text "Other" answer.
///
/// The field docs are what the model reads in the tool's schema (see [`super::tool_definition`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct Question {
    /// Short id, unique in this call, echoed with the answer (e.g. "db").
    #[schemars(length(min = 1, max = MAX_ID_CHARS))]
    pub id: String,
    /// The question, one clear sentence.
    #[schemars(length(min = 1, max = MAX_QUESTION_CHARS))]
    pub question: String,
    /// Optional short tag shown above the question (e.g. "Database").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(max = MAX_HEADER_CHARS))]
    pub header: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    #[schemars(length(max = MAX_OPTIONS), description = format!(
        "{MIN_OPTIONS}-{MAX_OPTIONS} choices. Omit for a free-form question. \
         The user can always answer in their own words instead."
    ))]
    pub options: Vec<QuestionOption>,
    /// true lets the user pick several options.
    #[serde(default, deserialize_with = "null_as_default")]
    pub multi_select: bool,
}

impl Question {
    /// Free-form questions collect only `custom` text (or a skip).
    pub fn is_free_form(&self) -> bool {
        self.options.is_empty()
    }

    /// The option with exactly this label, if any.
    pub fn option(&self, label: &str) -> Option<&QuestionOption> {
        self.options.iter().find(|o| o.label == label)
    }
}

/// `null` reads as the default, as [`crate::question::parse_request`] treats it, so a recorded call
/// deserialized with serde agrees with what the parser accepted.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Which schema the tool is offered with. A setting, never the model's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// No `timeout`: the call waits until the user answers or cancels.
    Legacy,
    /// Adds `timeout`: when it expires the call returns `pending` and the question stays answerable.
    Timed,
}

/// How long the foreground wait lasts. Legacy calls and timed calls with timeout -1 are `Indefinite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "secs")]
pub enum WaitLimit {
    Indefinite,
    Seconds(u64),
}

impl WaitLimit {
    /// The value of the model-facing `timeout` field that means this limit (-1 = indefinite).
    pub fn as_timeout_field(&self) -> i64 {
        match self {
            WaitLimit::Indefinite => -1,
            WaitLimit::Seconds(s) => i64::try_from(*s).unwrap_or(i64::MAX),
        }
    }
}

/// A validated request: what [`crate::question::parse_request`] returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskRequest {
    pub questions: Vec<Question>,
    pub wait: WaitLimit,
}

impl AskRequest {
    /// The tool arguments that parse back to this request under `mode` (used by scripted models, the
    /// demo provider and round-trip tests). Legacy arguments carry no `timeout`.
    pub fn to_arguments(&self, mode: ToolMode) -> serde_json::Value {
        let questions: Vec<serde_json::Value> = self.questions.iter().map(question_json).collect();
        match mode {
            ToolMode::Legacy => serde_json::json!({ "questions": questions }),
            ToolMode::Timed => serde_json::json!({
                "questions": questions,
                "timeout": self.wait.as_timeout_field(),
            }),
        }
    }
}

/// The user's answer to one question. `selected` holds option labels; `custom` is free text and, when
/// present, `selected` is empty. `{id, selected: []}` without `custom` is an explicit skip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub id: String,
    #[serde(default)]
    pub selected: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
}

impl Answer {
    /// An explicit, deliberate skip of one question.
    pub fn skip(id: impl Into<String>) -> Self {
        Answer { id: id.into(), selected: Vec::new(), custom: None }
    }

    /// True for `{id, selected: []}` without custom text.
    pub fn is_skip(&self) -> bool {
        self.selected.is_empty() && self.custom.is_none()
    }
}

/// One answer per question of the call, in any order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct AnswerBatch {
    pub answers: Vec<Answer>,
}

impl AnswerBatch {
    /// The answer for a question id, if present.
    pub fn get(&self, id: &str) -> Option<&Answer> {
        self.answers.iter().find(|a| a.id == id)
    }
}

/// The serde shape of a question, built without a fallible serializer so result texts never need
/// an `unwrap`. `tests` pins it equal to `serde_json::to_value`.
pub(crate) fn question_json(q: &Question) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("id".into(), q.id.clone().into());
    m.insert("question".into(), q.question.clone().into());
    if let Some(h) = &q.header {
        m.insert("header".into(), h.clone().into());
    }
    if !q.options.is_empty() {
        let opts = q
            .options
            .iter()
            .map(|o| {
                let mut om = serde_json::Map::new();
                om.insert("label".into(), o.label.clone().into());
                if let Some(d) = &o.description {
                    om.insert("description".into(), d.clone().into());
                }
                serde_json::Value::Object(om)
            })
            .collect();
        m.insert("options".into(), serde_json::Value::Array(opts));
    }
    m.insert("multi_select".into(), q.multi_select.into());
    serde_json::Value::Object(m)
}

/// The serde shape of an answer batch, infallibly (see [`question_json`]).
pub(crate) fn answers_json(batch: &AnswerBatch) -> serde_json::Value {
    let answers = batch
        .answers
        .iter()
        .map(|a| {
            let mut m = serde_json::Map::new();
            m.insert("id".into(), a.id.clone().into());
            m.insert("selected".into(), a.selected.clone().into());
            if let Some(c) = &a.custom {
                m.insert("custom".into(), c.clone().into());
            }
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::Value::Array(answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Question {
        Question {
            id: "db".into(),
            question: "Which database?".into(),
            header: Some("Database".into()),
            options: vec![
                QuestionOption { label: "SQLite".into(), description: Some("embedded".into()) },
                QuestionOption { label: "Postgres".into(), description: None },
            ],
            multi_select: false,
        }
    }

    #[test]
    fn hand_built_json_matches_serde() {
        let free = Question { options: vec![], header: None, ..sample() };
        for q in [sample(), free] {
            assert_eq!(question_json(&q), serde_json::to_value(&q).unwrap());
        }
        let batch = AnswerBatch {
            answers: vec![
                Answer { id: "a".into(), selected: vec!["x".into()], custom: None },
                Answer { id: "b".into(), selected: vec![], custom: Some("t".into()) },
            ],
        };
        assert_eq!(serde_json::json!({ "answers": answers_json(&batch) }), serde_json::to_value(&batch).unwrap());
    }

    #[test]
    fn wait_limit_wire_shape() {
        assert_eq!(
            serde_json::to_value(WaitLimit::Seconds(120)).unwrap(),
            serde_json::json!({"kind": "seconds", "secs": 120})
        );
        assert_eq!(serde_json::to_value(WaitLimit::Indefinite).unwrap(), serde_json::json!({"kind": "indefinite"}));
        assert_eq!(serde_json::to_value(ToolMode::Timed).unwrap(), "timed");
    }

    #[test]
    fn null_optional_fields_read_as_omitted() {
        let q: Question = serde_json::from_value(serde_json::json!({
            "id": "a", "question": "Q?", "header": null, "options": null, "multi_select": null
        }))
        .unwrap();
        assert_eq!(
            q,
            Question { id: "a".into(), question: "Q?".into(), header: None, options: vec![], multi_select: false }
        );
        let o: QuestionOption = serde_json::from_value(serde_json::json!({"label": "x", "description": null})).unwrap();
        assert_eq!(o.description, None);
    }

    #[test]
    fn answer_with_misspelt_field_is_refused() {
        let r: Result<Answer, _> = serde_json::from_value(serde_json::json!({"id": "a", "custom_answer": "x"}));
        assert!(r.is_err());
    }
}
