//! A form someone other than the model asks (an MCP server's elicitation): each question stands for
//! one typed field, and the answers become the typed values the asker reads. The questions show the
//! form like any question; the fields hold what a plain question cannot say: that a choice allows no
//! other text, that a field is required, its bounds and format, its default, and the value behind
//! each option. Every rule an answer must meet before it is taken lives in [`FormField::check`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::problems::quote;
use super::types::{Answer, AnswerBatch, Question};

/// The labels a yes/no field is shown with.
pub const YES_LABEL: &str = "Yes";
pub const NO_LABEL: &str = "No";

/// What one field holds. Options (choices, multi-select, yes/no) allow no text of the person's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FieldKind {
    /// One of `values`; the question's options show them in the same order.
    Choice { values: Vec<String> },
    /// Any of `values`, between `min_items` and `max_items` of them.
    Multi {
        values: Vec<String>,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_items: Option<u64>,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_items: Option<u64>,
    },
    /// Yes or No.
    Boolean,
    /// Text, `format` one of email, uri, date, date-time.
    Text {
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_length: Option<u32>,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u32>,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<String>,
    },
    /// A number; `integer` allows no fraction.
    Number {
        integer: bool,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        minimum: Option<f64>,
        #[ts(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maximum: Option<f64>,
    },
}

/// One field of a form: the question with the same `id` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FormField {
    pub id: String,
    pub kind: FieldKind,
    /// A skip is refused unless the field has a default.
    pub required: bool,
    /// What a skip answers, already typed for the asker.
    #[ts(type = "unknown")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

impl FieldKind {
    /// Whether the person can only pick among options (no "other" text).
    pub fn is_closed(&self) -> bool {
        matches!(self, FieldKind::Choice { .. } | FieldKind::Multi { .. } | FieldKind::Boolean)
    }
}

impl FormField {
    /// The problem with `answer` for this field (shown as `q`), if it has one. `None` also for an
    /// answer the general answer checks refuse (unknown label, text with options): they say why.
    pub fn check(&self, q: &Question, answer: &Answer) -> Option<String> {
        if answer.is_skip() {
            return (self.required && self.default.is_none()).then(|| "this field is required".to_string());
        }
        if self.kind.is_closed() && answer.custom.is_some() {
            return Some("choose from the options; this field takes no other text".into());
        }
        let text = answer.custom.as_deref().map(str::trim).unwrap_or("");
        match &self.kind {
            FieldKind::Choice { values } | FieldKind::Multi { values, .. } if values.len() != q.options.len() => {
                Some("the form changed shape; this field cannot be answered".into())
            }
            FieldKind::Multi { min_items, max_items, .. } => {
                let n = answer.selected.len() as u64;
                match (min_items, max_items) {
                    (Some(min), _) if n < *min => Some(format!("choose at least {min}")),
                    (_, Some(max)) if n > *max => Some(format!("choose at most {max}")),
                    _ => None,
                }
            }
            FieldKind::Choice { .. } | FieldKind::Boolean => None,
            FieldKind::Text { min_length, max_length, format } => {
                let n = text.chars().count();
                if let Some(min) = min_length.filter(|m| n < *m as usize) {
                    return Some(format!("write at least {min} characters (this has {n})"));
                }
                if let Some(max) = max_length.filter(|m| n > *m as usize) {
                    return Some(format!("write at most {max} characters (this has {n})"));
                }
                format.as_deref().and_then(|f| format_problem(f, text))
            }
            FieldKind::Number { integer, minimum, maximum } => match parse_number(text, *integer) {
                Err(problem) => Some(problem),
                Ok(v) => match (minimum, maximum) {
                    (Some(min), _) if v < *min => Some(format!("the smallest allowed is {}", shown(*min))),
                    (_, Some(max)) if v > *max => Some(format!("the largest allowed is {}", shown(*max))),
                    _ => None,
                },
            },
        }
    }

    /// The typed value `answer` gives this field; `None` for a skip without a default.
    fn value(&self, q: &Question, answer: &Answer) -> Option<Value> {
        if answer.is_skip() {
            return self.default.clone();
        }
        let value_of = |values: &[String], label: &str| {
            let i = q.options.iter().position(|o| o.label == label)?;
            values.get(i).cloned().map(Value::String)
        };
        let text = answer.custom.as_deref().map(str::trim).unwrap_or("");
        match &self.kind {
            FieldKind::Choice { values } => value_of(values, answer.selected.first()?),
            FieldKind::Multi { values, .. } => {
                Some(Value::Array(answer.selected.iter().filter_map(|l| value_of(values, l)).collect()))
            }
            FieldKind::Boolean => Some(Value::Bool(answer.selected.first()? == YES_LABEL)),
            FieldKind::Text { .. } => Some(Value::String(text.to_string())),
            FieldKind::Number { integer: true, .. } => text.parse::<i64>().ok().map(Value::from),
            FieldKind::Number { integer: false, .. } => {
                text.parse::<f64>().ok().and_then(Number::from_f64).map(Value::Number)
            }
        }
    }
}

/// How a form ended, as the session records it: the person's answers, or their no.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum FormOutcome {
    /// Answered; a skipped field gave the form's default (or nothing).
    Accept { answers: AnswerBatch },
    /// The person declined: the server goes on without it.
    Decline,
    /// Closed without an answer, or the turn that asked stopped.
    Cancel,
}

/// Every field's problem with `batch`, each named as the person sees the field (its header, else its
/// id); empty when the batch fits.
pub fn form_problems(fields: &[FormField], questions: &[Question], batch: &AnswerBatch) -> Vec<String> {
    fields
        .iter()
        .filter_map(|field| {
            let q = questions.iter().find(|q| q.id == field.id)?;
            let problem = match batch.get(&field.id) {
                Some(answer) => field.check(q, answer)?,
                None => return None,
            };
            let name = q.header.clone().unwrap_or_else(|| quote(&field.id));
            Some(format!("{name}: {problem}"))
        })
        .collect()
}

/// The typed content a fitting `batch` gives: one entry per answered field, skipped fields with a
/// default carry it, others are left out.
pub fn form_content(fields: &[FormField], questions: &[Question], batch: &AnswerBatch) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|field| {
            let q = questions.iter().find(|q| q.id == field.id)?;
            let answer = batch.get(&field.id)?;
            Some((field.id.clone(), field.value(q, answer)?))
        })
        .collect()
}

fn parse_number(text: &str, integer: bool) -> Result<f64, String> {
    if integer {
        return text.parse::<i64>().map(|v| v as f64).map_err(|_| format!("{} is not a whole number", quote(text)));
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{} is not a number", quote(text))),
    }
}

fn shown(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        v.to_string()
    }
}

/// A light check of the four formats a form may name: enough to catch a slip, not a full grammar.
fn format_problem(format: &str, text: &str) -> Option<String> {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let is_date = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        matches!(parts.as_slice(), [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2)
            && (1..=12).contains(&m.parse::<u32>().unwrap_or(0)) && (1..=31).contains(&d.parse::<u32>().unwrap_or(0)))
    };
    let fits = match format {
        "email" => {
            text.split_once('@').is_some_and(|(user, host)| {
                !user.is_empty() && host.contains('.') && !host.starts_with('.') && !host.ends_with('.')
            }) && !text.contains(char::is_whitespace)
        }
        "uri" => {
            text.split_once(':').is_some_and(|(scheme, rest)| {
                !rest.is_empty()
                    && scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            }) && !text.contains(char::is_whitespace)
        }
        "date" => is_date(text),
        "date-time" => text
            .split_once(['T', 't', ' '])
            .is_some_and(|(date, time)| is_date(date) && time.len() >= 5 && time.as_bytes().get(2) == Some(&b':')),
        _ => true,
    };
    let example = match format {
        "email" => "name@example.com",
        "uri" => "https://example.com",
        "date" => "2026-12-31",
        _ => "2026-12-31T09:30:00Z",
    };
    (!fits).then(|| format!("{} is not a valid {format} (for example {example})", quote(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::QuestionOption;

    fn question(id: &str, options: &[&str]) -> Question {
        Question {
            id: id.into(),
            question: format!("{id}?"),
            header: None,
            options: options.iter().map(|l| QuestionOption { label: (*l).into(), description: None }).collect(),
            multi_select: false,
        }
    }

    fn pick(id: &str, labels: &[&str]) -> Answer {
        Answer { id: id.into(), selected: labels.iter().map(|l| (*l).into()).collect(), custom: None }
    }

    fn text(id: &str, t: &str) -> Answer {
        Answer { id: id.into(), selected: vec![], custom: Some(t.into()) }
    }

    fn field(id: &str, kind: FieldKind, required: bool) -> FormField {
        FormField { id: id.into(), kind, required, default: None }
    }

    #[test]
    fn options_map_back_to_their_values_and_text_to_its_type() {
        let questions = vec![
            question("env", &["Staging", "Production"]),
            question("regions", &["EU", "US", "Asia"]),
            question("notify", &[YES_LABEL, NO_LABEL]),
            question("count", &[]),
            question("ratio", &[]),
            question("name", &[]),
        ];
        let fields = vec![
            field("env", FieldKind::Choice { values: vec!["stg".into(), "prod".into()] }, true),
            field(
                "regions",
                FieldKind::Multi {
                    values: vec!["eu".into(), "us".into(), "ap".into()],
                    min_items: None,
                    max_items: None,
                },
                true,
            ),
            field("notify", FieldKind::Boolean, true),
            field("count", FieldKind::Number { integer: true, minimum: None, maximum: None }, true),
            field("ratio", FieldKind::Number { integer: false, minimum: None, maximum: None }, true),
            field("name", FieldKind::Text { min_length: None, max_length: None, format: None }, true),
        ];
        let batch = AnswerBatch {
            answers: vec![
                pick("env", &["Production"]),
                pick("regions", &["EU", "Asia"]),
                pick("notify", &[NO_LABEL]),
                text("count", " 3 "),
                text("ratio", "0.5"),
                text("name", "Ada"),
            ],
        };
        assert_eq!(form_problems(&fields, &questions, &batch), Vec::<String>::new());
        assert_eq!(
            Value::Object(form_content(&fields, &questions, &batch)),
            serde_json::json!({
                "env": "prod", "regions": ["eu", "ap"], "notify": false, "count": 3, "ratio": 0.5, "name": "Ada"
            })
        );
    }

    #[test]
    fn a_skip_is_refused_for_a_required_field_and_gives_the_default_otherwise() {
        let questions = vec![question("a", &[]), question("b", &[]), question("c", &[])];
        let fields = vec![
            field("a", FieldKind::Text { min_length: None, max_length: None, format: None }, true),
            FormField { default: Some("x".into()), ..field("b", FieldKind::Boolean, true) },
            field("c", FieldKind::Text { min_length: None, max_length: None, format: None }, false),
        ];
        let batch = AnswerBatch { answers: vec![Answer::skip("a"), Answer::skip("b"), Answer::skip("c")] };
        assert_eq!(form_problems(&fields, &questions, &batch), vec!["\"a\": this field is required".to_string()]);
        assert_eq!(Value::Object(form_content(&fields, &questions, &batch)), serde_json::json!({"b": "x"}));
    }

    #[test]
    fn bounds_formats_and_closed_choices_are_enforced_with_reasons() {
        let q = question("f", &[]);
        let cases: Vec<(FieldKind, &str, Option<&str>)> = vec![
            (FieldKind::Number { integer: true, minimum: Some(1.0), maximum: Some(5.0) }, "2.5", Some("whole")),
            (
                FieldKind::Number { integer: true, minimum: Some(1.0), maximum: Some(5.0) },
                "9",
                Some("largest allowed is 5"),
            ),
            (FieldKind::Number { integer: false, minimum: Some(0.5), maximum: None }, "0.1", Some("smallest")),
            (FieldKind::Number { integer: false, minimum: None, maximum: None }, "NaN", Some("not a number")),
            (FieldKind::Number { integer: false, minimum: None, maximum: None }, "-1e3", None),
            (FieldKind::Text { min_length: Some(3), max_length: None, format: None }, "ab", Some("at least 3")),
            (FieldKind::Text { min_length: None, max_length: Some(2), format: None }, "abc", Some("at most 2")),
            (
                FieldKind::Text { min_length: None, max_length: None, format: Some("email".into()) },
                "ada@x",
                Some("email"),
            ),
            (FieldKind::Text { min_length: None, max_length: None, format: Some("email".into()) }, "ada@x.org", None),
            (
                FieldKind::Text { min_length: None, max_length: None, format: Some("uri".into()) },
                "not a uri",
                Some("uri"),
            ),
            (FieldKind::Text { min_length: None, max_length: None, format: Some("uri".into()) }, "https://a.b/c", None),
            (
                FieldKind::Text { min_length: None, max_length: None, format: Some("date".into()) },
                "2026-13-01",
                Some("date"),
            ),
            (FieldKind::Text { min_length: None, max_length: None, format: Some("date".into()) }, "2026-12-02", None),
            (
                FieldKind::Text { min_length: None, max_length: None, format: Some("date-time".into()) },
                "2026-12-02T10:00:00Z",
                None,
            ),
        ];
        for (kind, typed, want) in cases {
            let problem = field("f", kind.clone(), true).check(&q, &text("f", typed));
            match want {
                None => assert_eq!(problem, None, "{kind:?} {typed}"),
                Some(w) => assert!(problem.as_deref().unwrap_or("").contains(w), "{kind:?} {typed}: {problem:?}"),
            }
        }
        let choice = question("c", &["A", "B"]);
        let closed = field("c", FieldKind::Choice { values: vec!["a".into(), "b".into()] }, true);
        assert!(closed.check(&choice, &text("c", "something else")).unwrap().contains("options"));
        let multi = FieldKind::Multi { values: vec!["a".into(), "b".into()], min_items: Some(1), max_items: Some(1) };
        let multi = field("c", multi, false);
        assert!(multi.check(&choice, &pick("c", &["A", "B"])).unwrap().contains("at most 1"));
        assert_eq!(multi.check(&choice, &Answer::skip("c")), None);
    }
}
