//! Tests of the question vocabulary. They live inside the module (not in `core/tests/`) so
//! `cargo test -p hark-core question` selects them by path.

mod answers;
pub(crate) mod props;
mod requests;
mod results;
mod schema;

use serde_json::{json, Value};

use super::*;

/// A valid two-question request in the documented shape.
fn db_and_name() -> Value {
    json!({
        "questions": [
            {
                "id": "db",
                "question": "Which database?",
                "header": "Database",
                "options": [
                    {"label": "SQLite", "description": "embedded, zero setup"},
                    {"label": "Postgres"}
                ],
                "multi_select": false
            },
            {"id": "name", "question": "Project name?"}
        ]
    })
}

fn legacy(args: &Value) -> Result<AskRequest, UserInteractionError> {
    parse_request(args, ToolMode::Legacy, 120)
}

fn timed(args: &Value) -> Result<AskRequest, UserInteractionError> {
    parse_request(args, ToolMode::Timed, 120)
}

/// The INVALID_REQUEST message, failing the test when the request was accepted or got another code.
fn rejection(r: Result<AskRequest, UserInteractionError>) -> String {
    match r {
        Ok(req) => panic!("expected INVALID_REQUEST, parsed {req:?}"),
        Err(e) => {
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{e}");
            e.message
        }
    }
}

fn question(id: &str, labels: &[&str], multi: bool) -> Question {
    Question {
        id: id.into(),
        question: format!("question {id}?"),
        header: None,
        options: labels.iter().map(|l| QuestionOption { label: (*l).into(), description: None }).collect(),
        multi_select: multi,
    }
}

fn pick(id: &str, labels: &[&str]) -> Answer {
    Answer { id: id.into(), selected: labels.iter().map(|l| (*l).to_string()).collect(), custom: None }
}

fn custom(id: &str, text: &str) -> Answer {
    Answer { id: id.into(), selected: vec![], custom: Some(text.into()) }
}
