//! Raw tool arguments → [`AskRequest`]. The arguments are walked by hand rather than fed to serde so
//! every problem names its field path and says what to do, which a model can act on; serde's
//! "unknown field `x`, expected one of ..." cannot say why `value` or `recommended` are gone.

use serde_json::{Map, Value};

use super::error::{ErrorCode, UserInteractionError};
use super::limits::{clamp_timeout_secs, MAX_QUESTIONS, MAX_TIMEOUT_SECS, MIN_QUESTIONS};
use super::problems::{field_name, kind, Problems};
use super::types::{AskRequest, Question, QuestionOption, ToolMode, WaitLimit};
use super::validate::{check_count, check_questions, REQUEST_FIX_HINT};

const QUESTION_FIELDS: &[&str] = &["id", "question", "header", "options", "multi_select"];
const OPTION_FIELDS: &[&str] = &["label", "description"];

/// Parses and validates raw tool arguments under the schema in force. Errors are INVALID_REQUEST with a
/// message the model can act on (which field, which limit). `default_timeout_secs` applies when timed and omitted,
/// brought into the timeout bounds.
///
/// Leniencies, each because models are known to produce it and the intent is unambiguous:
/// - arguments given as a JSON *string* holding the object (double-encoded) are decoded, and so is a
///   `questions` string holding the array;
/// - `null` in an optional field means "omitted";
/// - a whole-number float `timeout` (`120.0`) counts as that integer.
pub fn parse_request(
    args: &Value,
    mode: ToolMode,
    default_timeout_secs: u64,
) -> Result<AskRequest, UserInteractionError> {
    let decoded;
    let obj = match args {
        Value::Object(m) => m,
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => {
                decoded = m;
                &decoded
            }
            _ => return Err(not_an_object("a string that is not a JSON object")),
        },
        other => return Err(not_an_object(kind(other))),
    };

    let mut p = Problems::default();
    let top_fields: &[&str] = match mode {
        ToolMode::Legacy => &["questions"],
        ToolMode::Timed => &["questions", "timeout"],
    };
    check_fields(obj, "", top_fields, mode, &mut p);

    let questions = parse_questions(obj.get("questions"), &mut p);
    let wait = match mode {
        ToolMode::Legacy => WaitLimit::Indefinite,
        ToolMode::Timed => parse_timeout(obj.get("timeout"), default_timeout_secs, &mut p),
    };
    p.finish(ErrorCode::InvalidRequest, REQUEST_FIX_HINT)?;
    Ok(AskRequest { questions: questions.unwrap_or_default(), wait })
}

fn not_an_object(got: &str) -> UserInteractionError {
    UserInteractionError::invalid_request(format!(
        "arguments must be a JSON object like {{\"questions\": [{{\"id\": \"db\", \"question\": \"Which database?\"}}]}}, got {got}. {REQUEST_FIX_HINT}"
    ))
}

/// `None` when the array is unusable; problems are recorded either way. Structurally broken questions
/// are dropped before the limit checks so one typo does not cascade into spurious limit errors.
fn parse_questions(v: Option<&Value>, p: &mut Problems) -> Option<Vec<Question>> {
    let decoded;
    let items = match v {
        None | Some(Value::Null) => {
            p.push("questions", format!("missing; give an array of {MIN_QUESTIONS}–{MAX_QUESTIONS} questions"));
            return None;
        }
        Some(Value::Array(a)) => a,
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => {
                decoded = a;
                &decoded
            }
            _ => {
                p.push("questions", "must be an array of question objects, got a string");
                return None;
            }
        },
        Some(other) => {
            p.push("questions", format!("must be an array of question objects, got {}", kind(other)));
            return None;
        }
    };
    check_count(items.len(), p);
    let parsed: Vec<(usize, Question)> =
        items.iter().enumerate().filter_map(|(i, item)| parse_question(i, item, p).map(|q| (i, q))).collect();
    let refs: Vec<(usize, &Question)> = parsed.iter().map(|(i, q)| (*i, q)).collect();
    check_questions(&refs, p);
    Some(parsed.into_iter().map(|(_, q)| q).collect())
}

fn parse_question(i: usize, v: &Value, p: &mut Problems) -> Option<Question> {
    let path = format!("questions[{i}]");
    let Value::Object(obj) = v else {
        p.push(&path, format!("must be an object with id and question, got {}", kind(v)));
        return None;
    };
    let before = p.len();
    check_fields(obj, &path, QUESTION_FIELDS, ToolMode::Legacy, p);
    let id = required_string(obj, &path, "id", p);
    let question = required_string(obj, &path, "question", p);
    let header = optional_string(obj, &path, "header", p);
    let multi_select = match obj.get("multi_select") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            p.push(&format!("{path}.multi_select"), format!("must be true or false, got {}", kind(other)));
            false
        }
    };
    let options = match obj.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            items.iter().enumerate().filter_map(|(k, o)| parse_option(&format!("{path}.options[{k}]"), o, p)).collect()
        }
        Some(other) => {
            p.push(
                &format!("{path}.options"),
                format!("must be an array of {{label, description}} objects, got {}", kind(other)),
            );
            Vec::new()
        }
    };
    if p.len() > before {
        return None;
    }
    Some(Question { id: id?, question: question?, header, options, multi_select })
}

fn parse_option(path: &str, v: &Value, p: &mut Problems) -> Option<QuestionOption> {
    let Value::Object(obj) = v else {
        p.push(path, format!("must be an object like {{\"label\": \"SQLite\"}}, got {}", kind(v)));
        return None;
    };
    check_fields(obj, path, OPTION_FIELDS, ToolMode::Legacy, p);
    let label = required_string(obj, path, "label", p)?;
    let description = optional_string(obj, path, "description", p);
    Some(QuestionOption { label, description })
}

fn parse_timeout(v: Option<&Value>, default_secs: u64, p: &mut Problems) -> WaitLimit {
    let hint =
        format!("give a whole number of seconds from 1 to {MAX_TIMEOUT_SECS}, or -1 to wait until the user answers");
    let n = match v {
        None | Some(Value::Null) => return WaitLimit::Seconds(clamp_timeout_secs(default_secs)),
        Some(Value::Number(n)) => {
            if let Some(i) = n.as_i64() {
                Some(i128::from(i))
            } else if let Some(u) = n.as_u64() {
                Some(i128::from(u))
            } else {
                // Whole-number floats only; `as` saturates, and the range check below bounds it.
                n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i128)
            }
        }
        Some(_) => None,
    };
    match n {
        Some(-1) => WaitLimit::Indefinite,
        Some(s) if s >= 1 && s <= i128::from(MAX_TIMEOUT_SECS) => {
            WaitLimit::Seconds(u64::try_from(s).unwrap_or(MAX_TIMEOUT_SECS))
        }
        Some(s) if s > i128::from(MAX_TIMEOUT_SECS) => {
            p.push("timeout", format!("{s} is more than {MAX_TIMEOUT_SECS} (7 days); {hint}"));
            WaitLimit::Indefinite
        }
        Some(s) => {
            p.push("timeout", format!("{s} is not allowed; {hint}"));
            WaitLimit::Indefinite
        }
        None => {
            let got = match v {
                Some(Value::Number(_)) => "a fractional number",
                Some(other) => kind(other),
                None => "nothing",
            };
            p.push("timeout", format!("must be an integer, got {got}; {hint}"));
            WaitLimit::Indefinite
        }
    }
}

fn required_string(obj: &Map<String, Value>, path: &str, key: &str, p: &mut Problems) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        None | Some(Value::Null) => {
            p.push(&join(path, key), "missing; it is required");
            None
        }
        Some(other) => {
            p.push(&join(path, key), format!("must be a string, got {}", kind(other)));
            None
        }
    }
}

fn optional_string(obj: &Map<String, Value>, path: &str, key: &str, p: &mut Problems) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        None | Some(Value::Null) => None,
        Some(other) => {
            p.push(&join(path, key), format!("must be a string, got {}", kind(other)));
            None
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        field_name(key)
    } else {
        format!("{path}.{}", field_name(key))
    }
}

/// Rejects fields outside `allowed`. Names from older vocabularies get a specific explanation: the
/// model must learn they do not exist rather than guess again.
fn check_fields(obj: &Map<String, Value>, path: &str, allowed: &[&str], mode: ToolMode, p: &mut Problems) {
    let top = path.is_empty();
    for key in obj.keys().filter(|k| !allowed.contains(&k.as_str())) {
        let why = match key.as_str() {
            "value" => "does not exist: an option's label is also the value you get back".to_string(),
            "recommended" => "does not exist: to recommend an option, say so in its description".to_string(),
            "allow_custom" | "allowCustom" => "does not exist: every question with options already accepts \
                 free text, and a question without options is free-form"
                .to_string(),
            "desc" => "does not exist: use \"description\"".to_string(),
            "multiSelect" | "multiselect" | "multiple" | "multi" => "does not exist: use \"multi_select\"".to_string(),
            "timeout" if top && mode == ToolMode::Legacy => {
                "is not available: this tool waits until the user answers".to_string()
            }
            "id" | "question" | "header" | "options" | "multi_select" if top => {
                "belongs inside a question: use {\"questions\": [{\"id\": ..., \"question\": ...}]}".to_string()
            }
            _ => format!("is not a field here; allowed: {}", allowed.join(", ")),
        };
        p.push(&join(path, key), why);
    }
}
