//! The model-facing tool definition, derived from the argument types below and [`Question`]: their
//! field docs are what the model reads about each parameter, and the bounds come from
//! [`super::limits`]. The tool's own description and the timeout's default depend on the settings,
//! so they are filled in here.

use schemars::JsonSchema;
use serde_json::{json, Value};

use super::limits::*;
use super::types::{Question, ToolMode, TOOL_NAME};
use crate::tool_definition::definition_of;

// The arguments as the model writes them under the legacy schema. Never built: `parse_request` reads
// the JSON itself, with checks a schema cannot state (unique ids and labels, option counts) and a
// problem list a serde error could not give; these types exist for the schema they derive.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AskArguments {
    /// The questions to ask together. The user answers them all in one go.
    #[schemars(length(min = MIN_QUESTIONS, max = MAX_QUESTIONS))]
    questions: Vec<Question>,
}

// The timed schema adds `timeout`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct TimedAskArguments {
    /// The questions to ask together. The user answers them all in one go.
    #[schemars(length(min = MIN_QUESTIONS, max = MAX_QUESTIONS))]
    questions: Vec<Question>,
    #[serde(default)]
    #[schemars(range(min = -1, max = MAX_TIMEOUT_SECS), description = format!(
        "Seconds to wait for the answer before the call returns a pending result (at most {MAX_TIMEOUT_SECS}). \
         -1 waits until the user answers. 0 and other negative values are invalid."
    ))]
    timeout: i64,
}

/// `{"name":"ask_user_question","description":...,"parameters":{JSON schema}}`; Timed adds `timeout`,
/// whose default is `default_timeout_secs`.
pub fn tool_definition(mode: ToolMode, default_timeout_secs: u64) -> Value {
    definition_with(mode, default_timeout_secs, AGENT_LATE)
}

/// The definition an outside agent gets from `hark mcp`: a late answer is collected with
/// `get_answers` rather than arriving as a message. `longest_wait` is the longest a timed call may
/// wait in the foreground for this client (one without MCP tasks, whose own deadline would end a
/// longer call): the timeout's default and description then say so, `-1` included, so what the
/// model is told is what happens.
pub fn client_tool_definition(mode: ToolMode, default_timeout_secs: u64, longest_wait: Option<u64>) -> Value {
    let Some(longest) = longest_wait.filter(|_| mode == ToolMode::Timed) else {
        return definition_with(mode, default_timeout_secs, CLIENT_LATE);
    };
    let default = default_timeout_secs.min(longest);
    let mut definition = definition_with(mode, default, CLIENT_LATE);
    definition["description"] = json!(description_with(
        &format!(
            " The call waits up to \"timeout\" seconds (default {default}), at most {longest}: -1 and longer \
             timeouts wait {longest} seconds."
        ),
        CLIENT_LATE
    ));
    if let Some(timeout) = definition["parameters"]["properties"].get_mut("timeout") {
        timeout["description"] = json!(format!(
            "Seconds to wait for the answer before the call returns a pending result (at most {longest} here). \
             -1 waits {longest} seconds. 0 and other negative values are invalid."
        ));
    }
    definition
}

const AGENT_LATE: &str =
    "A late answer arrives later as a user message carrying \"answer_to_pending_question\" and the call id.";
const CLIENT_LATE: &str = "Collect a late answer with the get_answers tool, between steps and before you finish.";

fn definition_with(mode: ToolMode, default_timeout_secs: u64, late: &str) -> Value {
    let mut definition = match mode {
        ToolMode::Legacy => definition_of::<AskArguments>(TOOL_NAME),
        ToolMode::Timed => definition_of::<TimedAskArguments>(TOOL_NAME),
    };
    definition["description"] = json!(description(mode, default_timeout_secs, late));
    if let Some(timeout) = definition["parameters"]["properties"].get_mut("timeout") {
        timeout["default"] = json!(default_timeout_secs);
    }
    definition
}

/// What every description starts with: when and how to ask, and the answered result's shape.
const BASE: &str = "Ask the user one or more structured questions when you cannot proceed safely without them: \
     to choose between paths, confirm a risky action, or supply missing information. \
     Ask concise questions and prefer options; every question with options also accepts a free-text \
     answer. If you recommend an option, list it first and end its label with \"(Recommended)\"; \
     the user still chooses. Batch related questions in one call. \
     The result is {\"answers\": [{\"id\", \"selected\": [labels], \"custom\"?}]} with your ids echoed; \
     \"custom\" is the user's own text and replaces any selection; \"selected\": [] without \"custom\" \
     means the user skipped that question on purpose.";

/// What the model reads about when and how to ask. Kept short: it is sent with every request.
fn description(mode: ToolMode, default_timeout_secs: u64, late: &str) -> String {
    match mode {
        ToolMode::Legacy => format!("{BASE} The call waits until the user answers."),
        ToolMode::Timed => description_with(
            &format!(
                " The call waits up to \"timeout\" seconds (default {default_timeout_secs}; -1 waits until answered)."
            ),
            late,
        ),
    }
}

/// A timed question's description, with `wait` saying how long the call waits.
fn description_with(wait: &str, late: &str) -> String {
    format!(
        "{BASE}{wait} If the user has not answered by then, the result is a pending notice, not an answer: \
         the question stays open, continue only with work that does not depend on it, and never treat \
         silence as consent or as a skip. {late}"
    )
}
