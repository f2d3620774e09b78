//! The model-facing tool definition: a hand-written JSON Schema so every word the model reads is
//! chosen, and the bounds come from [`super::limits`].

use serde_json::{json, Value};

use super::limits::*;
use super::types::{ToolMode, TOOL_NAME};

/// `{"name":"ask_user_question","description":...,"parameters":{JSON schema}}`; Timed adds `timeout`.
pub fn tool_definition(mode: ToolMode, default_timeout_secs: u64) -> Value {
    let mut properties = json!({ "questions": questions_schema() });
    if mode == ToolMode::Timed {
        properties["timeout"] = json!({
            "type": "integer",
            "minimum": -1,
            "maximum": MAX_TIMEOUT_SECS,
            "default": default_timeout_secs,
            "description": format!(
                "Seconds to wait for the answer before the call returns a pending result \
                 (default {default_timeout_secs}, at most {MAX_TIMEOUT_SECS}). -1 waits until the user answers. \
                 0 and other negative values are invalid."
            ),
        });
    }
    json!({
        "name": TOOL_NAME,
        "description": description(mode, default_timeout_secs),
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": ["questions"],
            "additionalProperties": false,
        },
    })
}

fn questions_schema() -> Value {
    json!({
        "type": "array",
        "minItems": MIN_QUESTIONS,
        "maxItems": MAX_QUESTIONS,
        "description": "The questions to ask together. The user answers them all in one go.",
        "items": {
            "type": "object",
            "properties": {
                "id": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_ID_CHARS,
                    "description": "Short id, unique in this call, echoed with the answer (e.g. \"db\").",
                },
                "question": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUESTION_CHARS,
                    "description": "The question, one clear sentence.",
                },
                "header": {
                    "type": "string",
                    "maxLength": MAX_HEADER_CHARS,
                    "description": "Optional short tag shown above the question (e.g. \"Database\").",
                },
                "options": {
                    "type": "array",
                    "maxItems": MAX_OPTIONS,
                    "description": format!(
                        "{MIN_OPTIONS}-{MAX_OPTIONS} choices. Omit for a free-form question. \
                         The user can always answer in their own words instead."
                    ),
                    "items": {
                        "type": "object",
                        "properties": {
                            "label": {
                                "type": "string",
                                "minLength": 1,
                                "maxLength": MAX_LABEL_CHARS,
                                "description": "Shown to the user and returned to you when chosen. Unique within the question.",
                            },
                            "description": {
                                "type": "string",
                                "maxLength": MAX_DESCRIPTION_CHARS,
                                "description": "Optional one-line explanation of the choice.",
                            },
                        },
                        "required": ["label"],
                        "additionalProperties": false,
                    },
                },
                "multi_select": {
                    "type": "boolean",
                    "default": false,
                    "description": "true lets the user pick several options.",
                },
            },
            "required": ["id", "question"],
            "additionalProperties": false,
        },
    })
}

/// What the model reads about when and how to ask. Kept short: it is sent with every request.
fn description(mode: ToolMode, default_timeout_secs: u64) -> String {
    let mut d = String::from(
        "Ask the user one or more structured questions when you cannot proceed safely without them: \
         to choose between paths, confirm a risky action, or supply missing information. \
         Ask concise questions and prefer options; every question with options also accepts a free-text \
         answer. Batch related questions in one call. \
         The result is {\"answers\": [{\"id\", \"selected\": [labels], \"custom\"?}]} with your ids echoed; \
         \"custom\" is the user's own text and replaces any selection; \"selected\": [] without \"custom\" \
         means the user skipped that question on purpose.",
    );
    match mode {
        ToolMode::Legacy => d.push_str(" The call waits until the user answers."),
        ToolMode::Timed => d.push_str(&format!(
            " The call waits up to \"timeout\" seconds (default {default_timeout_secs}; -1 waits until answered). \
             If the user has not answered by then, the result is a pending notice, not an answer: \
             the question stays open, continue only with work that does not depend on it, and never treat \
             silence as consent or as a skip. A late answer arrives later as a user message carrying \
             \"answer_to_pending_question\" and the call id."
        )),
    }
    d
}
