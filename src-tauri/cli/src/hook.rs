//! `hark hook claude-code | codex [--timeout SECONDS]`: an agent's `PreToolUse` hook that answers
//! the agent's own question tool (Claude Code's `AskUserQuestion`, Codex's `request_user_input`)
//! with the person's answers from Hark. The question is asked through the running app (started when
//! none runs), in the session the agent's `hark mcp` uses, so it shows wherever Hark asks. With
//! `hark setup --approvals` it also takes the agents' permission requests (`approval`) and, for
//! Claude Code, its MCP servers' forms (`Elicitation`, see `form`).
//!
//! stdout carries the hook's decision and nothing else. Anything that is not a question for Hark
//! gets no decision (exit 0, nothing printed); a failure gets no decision either (exit 1, the error
//! on stderr), which both agents read as "go on as if no hook ran": the agent then asks in its own
//! terminal, so a broken hook never blocks it and never answers for the person.

mod approval;
mod form;

use std::io::Read;
use std::process::ExitCode;

use hark_core::control::CLOSED;
use hark_core::error::BoundaryError;
use hark_core::front_door::FrontDoor;
use hark_core::host::{ClientId, CLAUDE_CODE, CODEX};
use hark_core::question::{Answer, AnswerBatch, ToolMode};
use hark_core::tools::QuestionSettings;
use serde::Deserialize;
use serde_json::{json, Value};

/// The longest hook event read from stdin; a question batch is a few kilobytes.
const MAX_EVENT_BYTES: u64 = 1024 * 1024;

/// How long the question waits in the foreground before the hook gives the agent a "not answered
/// yet" and the question goes on waiting in Hark: five minutes under the hook timeout `hark setup`
/// writes, so the hook answers before the agent gives up on it, with room for "Take your time".
pub(crate) const DEFAULT_TIMEOUT_SECS: u64 = hark_core::agent_setup::HOOK_TIMEOUT_SECS - 300;

/// The agent whose hook this is: what its event holds and how it reads a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    ClaudeCode,
    Codex,
}

impl Agent {
    /// The hook of an agent `hark setup` knows, by the same name on the command line.
    fn of(agent: hark_core::agent_setup::Agent) -> Agent {
        match agent {
            hark_core::agent_setup::Agent::ClaudeCode => Agent::ClaudeCode,
            hark_core::agent_setup::Agent::Codex => Agent::Codex,
        }
    }

    /// The agent's question tool.
    fn tool(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "AskUserQuestion",
            Agent::Codex => "request_user_input",
        }
    }

    /// The name its questions are shown under: the one its `hark mcp` gets too.
    fn shown_name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => CLAUDE_CODE,
            Agent::Codex => CODEX,
        }
    }

    fn slug(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }
}

/// The fields of a hook event Hark reads (both agents send these names).
#[derive(Debug, Deserialize)]
struct HookEvent {
    hook_event_name: String,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<Value>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    /// The rules Claude Code offers to keep allowing, on a permission request.
    #[serde(default)]
    permission_suggestions: Option<Value>,
    /// What the person (or Claude Code, for a task's notification) submits: `UserPromptSubmit`.
    #[serde(default)]
    prompt: Option<String>,
    /// An MCP server's form (`Elicitation`): which server asks, why, in which mode, and what.
    #[serde(default)]
    mcp_server_name: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    elicitation_id: Option<String>,
    #[serde(default)]
    requested_schema: Option<Value>,
}

/// Prints a prompt's decision, when there is one (none: the agent asks in its own terminal).
fn print_decision(decided: Result<Option<Value>, HookError>) -> ExitCode {
    match decided {
        Ok(Some(decision)) => {
            println!("{decision}");
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => no_decision(&e),
    }
}

/// A question of the agent's tool call, in either agent's shape.
#[derive(Debug, Deserialize)]
struct AgentQuestion {
    /// Codex names its questions; Claude Code does not (its answers are keyed by the text).
    #[serde(default)]
    id: Option<String>,
    question: String,
    #[serde(default)]
    header: Option<String>,
    #[serde(default, rename = "multiSelect")]
    multi_select: bool,
    #[serde(default)]
    options: Option<Vec<AgentOption>>,
}

#[derive(Debug, Deserialize)]
struct AgentOption {
    label: String,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
struct AgentInput {
    questions: Vec<AgentQuestion>,
}

/// Why the hook gives no decision: shown on stderr, with the code.
#[derive(Debug, thiserror::Error)]
enum HookError {
    #[error("the hook event is not valid: {0}")]
    BadEvent(String),
    #[error("the {tool} call cannot be asked in Hark: {detail}")]
    BadQuestions { tool: &'static str, detail: String },
    #[error("{0}")]
    App(BoundaryError),
}

impl HookError {
    fn code(&self) -> &str {
        match self {
            HookError::BadEvent(_) => "BAD_HOOK_EVENT",
            HookError::BadQuestions { .. } => "BAD_QUESTIONS",
            HookError::App(error) => &error.code,
        }
    }
}

/// `hark hook`'s arguments, as `hark setup` writes them into the agent's settings.
#[derive(clap::Args)]
pub struct HookArgs {
    /// The agent whose hook this is.
    #[arg(value_parser = crate::args::AgentName)]
    agent: hark_core::agent_setup::Agent,
    /// How long the question waits before the agent is told it waits in Hark, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT_SECS,
          value_parser = hark_core::question::limits::parse_timeout_secs)]
    timeout: u64,
    /// How long a permission request (or an MCP server's form) waits in Hark before the agent asks
    /// in its own terminal, in seconds (default 300 for Claude Code, 60 for Codex).
    #[arg(long, value_name = "SECONDS", value_parser = hark_core::question::limits::parse_timeout_secs)]
    approval_budget: Option<u64>,
}

pub fn run(args: HookArgs) -> ExitCode {
    let agent = Agent::of(args.agent);
    let timeout = args.timeout;
    let approval_budget = args.approval_budget.unwrap_or_else(|| approval::default_budget(agent));
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().take(MAX_EVENT_BYTES + 1).read_to_end(&mut input) {
        return no_decision(&HookError::BadEvent(format!("could not read stdin: {e}")));
    }
    if input.len() as u64 > MAX_EVENT_BYTES {
        return no_decision(&HookError::BadEvent(format!("longer than {MAX_EVENT_BYTES} bytes")));
    }
    let event: HookEvent = match serde_json::from_slice(&input) {
        Ok(event) => event,
        Err(e) => return no_decision(&HookError::BadEvent(e.to_string())),
    };
    if event.hook_event_name == "PermissionRequest" {
        return crate::chat::on_runtime(async move {
            print_decision(approval::decide(agent, approval_budget, &event).await)
        });
    }
    if event.hook_event_name == "Elicitation" {
        return crate::chat::on_runtime(
            async move { print_decision(form::decide(agent, approval_budget, &event).await) },
        );
    }
    if approval::reports_settled(&event.hook_event_name) {
        let event = &event;
        crate::chat::on_runtime(async move {
            approval::settled(agent, event).await;
            ExitCode::SUCCESS
        });
    }
    if agent == Agent::ClaudeCode && event.hook_event_name == "UserPromptSubmit" {
        let (prompt, cwd) = (event.prompt.unwrap_or_default(), event_cwd(event.cwd));
        return crate::chat::on_runtime(async move {
            if let Some(context) = crate::prompt_hook::context(&prompt, cwd).await {
                println!("{context}");
            }
            ExitCode::SUCCESS
        });
    }
    if event.hook_event_name != "PreToolUse" || event.tool_name.as_deref() != Some(agent.tool()) {
        return ExitCode::SUCCESS;
    }
    crate::chat::on_runtime(async move {
        match decide(agent, timeout, event).await {
            Ok(decision) => {
                println!("{decision}");
                ExitCode::SUCCESS
            }
            Err(e) => no_decision(&e),
        }
    })
}

/// Exit 1 with the reason on stderr: both agents go on without a decision from this hook.
fn no_decision(error: &HookError) -> ExitCode {
    eprintln!("hark: {} {error}", error.code());
    ExitCode::from(1)
}

/// Asks the person and turns how the question ended into the agent's decision.
async fn decide(agent: Agent, timeout: u64, event: HookEvent) -> Result<Value, HookError> {
    let original = event.tool_input.clone().unwrap_or(Value::Null);
    let input: AgentInput = serde_json::from_value(original.clone())
        .map_err(|e| HookError::BadQuestions { tool: agent.tool(), detail: e.to_string() })?;
    let (arguments, ids) = hark_arguments(agent, &input)?;
    // Checked here too, so a call Hark would refuse never starts the app.
    hark_core::question::parse_request(&arguments, ToolMode::Timed, timeout)
        .map_err(|e| HookError::BadQuestions { tool: agent.tool(), detail: e.to_string() })?;
    let dir = crate::chat::data_dir().map_err(|e| HookError::App(hark_core::error::CodedError::boundary(&e)))?;
    let client = client_of(agent, &event);
    let settings = QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: timeout, stop_turn: false };
    let call_id = format!("hook-{}", uuid::Uuid::new_v4().simple());
    match crate::app_link::door(&dir).ask(&client, Some(call_id.clone()), Some(settings), arguments).await {
        Ok(answer) => Ok(match answer.answers {
            Some(batch) => answered(agent, &original, &input, &ids, &batch),
            None => deny(&not_answered_yet(agent, &call_id, timeout)),
        }),
        Err(error) if error.code == "ASK_CANCELLED" => Ok(deny(&closed(agent))),
        Err(error) if error.code == CLOSED => Err(HookError::App(BoundaryError::new(
            "ControlError",
            "HARK_GONE",
            format!("Hark stopped before the person answered question {call_id}"),
        ))),
        Err(error) => Err(HookError::App(error)),
    }
}

/// Who asks, for Hark: the agent by name, in the folder it works in, its session the asker.
fn client_of(agent: Agent, event: &HookEvent) -> ClientId {
    let cwd = event_cwd(event.cwd.clone());
    let asker = event.session_id.as_ref().map(|id| format!("{}-session-{id}", agent.slug()));
    ClientId { name: agent.shown_name().to_string(), cwd, asker }
}

/// The folder the agent works in, which names its session: the event's, else this process's.
fn event_cwd(cwd: Option<String>) -> String {
    cwd.filter(|c| !c.trim().is_empty())
        .or_else(|| std::env::current_dir().ok().map(|d| d.display().to_string()))
        .unwrap_or_default()
}

/// The agent's questions as Hark's `ask_user_question` arguments, and the Hark id of each question
/// in order. Claude Code's questions have no ids: each gets its place (`q1`, `q2`, ...), the same
/// for the same call every time. Hark validates the rest as it does any agent's call.
fn hark_arguments(agent: Agent, input: &AgentInput) -> Result<(Value, Vec<String>), HookError> {
    let bad = |detail: String| HookError::BadQuestions { tool: agent.tool(), detail };
    if input.questions.is_empty() {
        return Err(bad("it has no questions".into()));
    }
    let mut ids = Vec::new();
    let mut questions = Vec::new();
    for (i, q) in input.questions.iter().enumerate() {
        let id = match (agent, &q.id) {
            (Agent::Codex, Some(id)) => id.clone(),
            (Agent::Codex, None) => return Err(bad(format!("question {} has no id", i + 1))),
            (Agent::ClaudeCode, _) => format!("q{}", i + 1),
        };
        let options: Vec<Value> =
            q.options.iter().flatten().map(|o| json!({ "label": o.label, "description": o.description })).collect();
        let mut question = json!({
            "id": id,
            "question": q.question,
            "multi_select": q.multi_select,
            "options": options,
        });
        if let Some(header) = q.header.as_ref().filter(|h| !h.trim().is_empty()) {
            question["header"] = json!(header);
        }
        ids.push(id);
        questions.push(question);
    }
    Ok((json!({ "questions": questions }), ids))
}

/// What the person gave for one question: the chosen labels, or their own words; `None` skipped.
fn values(answer: &Answer) -> Option<Vec<String>> {
    match &answer.custom {
        Some(text) => Some(vec![text.clone()]),
        None if answer.selected.is_empty() => None,
        None => Some(answer.selected.clone()),
    }
}

/// The decision carrying the person's answers. Questions they skipped are left out; when they
/// skipped every one there is nothing to allow the call with.
fn answered(agent: Agent, original: &Value, input: &AgentInput, ids: &[String], batch: &AnswerBatch) -> Value {
    let given: Vec<(usize, Vec<String>)> = ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| batch.answers.iter().find(|a| &a.id == id).and_then(values).map(|v| (i, v)))
        .collect();
    if given.is_empty() {
        return deny(&skipped(agent));
    }
    match agent {
        // Claude Code keys its answers by question text: two questions of one call with the same
        // text could not both be answered that way. Its own schema refuses such a call before any
        // hook runs, so this is for a call that reached the hook anyway.
        Agent::ClaudeCode if !texts_unique(input) => {
            let answers: serde_json::Map<String, Value> = given
                .into_iter()
                .map(|(i, values)| {
                    let question = &input.questions[i];
                    ((i + 1).to_string(), json!({ "question": question.question, "answers": values }))
                })
                .collect();
            let result = json!({ "answers": answers });
            deny(&format!(
                "The person already answered these questions in Hark, so the AskUserQuestion call was not \
                 shown again. Some of its questions have the same text, so each answer below is keyed by its \
                 question's place in the call (\"1\" is the first). Treat the JSON below as the tool's result, \
                 exactly as if it had returned it, and go on:\n{result}"
            ))
        }
        Agent::ClaudeCode => {
            let answers: serde_json::Map<String, Value> = given
                .into_iter()
                .map(|(i, values)| {
                    let question = &input.questions[i];
                    // A single choice and the person's own words go as they are; only several
                    // labels need Claude Code's joining to be read back apart.
                    let custom = batch.answers.iter().any(|a| a.id == ids[i] && a.custom.is_some());
                    let value =
                        if question.multi_select && !custom { claude_code_labels(&values) } else { values.concat() };
                    (question.question.clone(), Value::String(value))
                })
                .collect();
            json!({ "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "The person answered in Hark.",
                "updatedInput": { "questions": original["questions"], "answers": answers },
            }})
        }
        Agent::Codex => {
            let answers: serde_json::Map<String, Value> =
                given.into_iter().map(|(i, values)| (ids[i].clone(), json!({ "answers": values }))).collect();
            let result = json!({ "answers": answers });
            deny(&format!(
                "The person already answered these questions in Hark, so the request_user_input call was \
                     not shown again. Treat the JSON below as the tool's result, exactly as if it had returned \
                     it, and go on:\n{result}"
            ))
        }
    }
}

/// Whether no two questions of the call have the same text (Claude Code's answers are keyed by it).
fn texts_unique(input: &AgentInput) -> bool {
    let texts: std::collections::HashSet<&str> = input.questions.iter().map(|q| q.question.as_str()).collect();
    texts.len() == input.questions.len()
}

/// Chosen labels as Claude Code writes several in one answer, so that it reads them back label by
/// label: joined with ", ", and a label that holds ", " or a quote written as a JSON string (its
/// own prompt joins a multi-select's labels so, and its tool result splits them the same way).
fn claude_code_labels(labels: &[String]) -> String {
    let label = |l: &String| {
        if l.contains(", ") || l.contains('"') {
            serde_json::to_string(l).unwrap_or_else(|_| l.clone())
        } else {
            l.clone()
        }
    };
    labels.iter().map(label).collect::<Vec<_>>().join(", ")
}

fn deny(reason: &str) -> Value {
    json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }})
}

fn not_answered_yet(agent: Agent, call_id: &str, timeout: u64) -> String {
    format!(
        "The person has not answered in Hark yet (question {call_id}, asked through {tool}, waited {timeout} s). \
         This is not their answer and not their consent: do not assume any choice. The question stays open in \
         Hark. Go on with what does not depend on it, and collect the answer later with the get_answers tool \
         of the hark MCP server, passing {{\"call_ids\": [\"{call_id}\"]}}; if you cannot, ask again later.",
        tool = agent.tool(),
    )
}

fn closed(agent: Agent) -> String {
    format!(
        "The person closed the question in Hark without answering: they declined to answer the {} call. \
         Do not assume any choice; go on without it, or ask again only if you cannot.",
        agent.tool()
    )
}

fn skipped(agent: Agent) -> String {
    format!(
        "The person skipped every question of the {} call in Hark: they chose not to answer. Do not assume \
         any choice.",
        agent.tool()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude_input() -> Value {
        json!({ "questions": [
            { "question": "Which database?", "header": "DB", "multiSelect": false,
              "options": [{ "label": "SQLite", "description": "a file" }, { "label": "Postgres", "description": "a server" }] },
            { "question": "Which regions?", "header": "Regions", "multiSelect": true,
              "options": [{ "label": "eu", "description": "" }, { "label": "us", "description": "" }] },
        ]})
    }

    fn answer(id: &str, selected: &[&str], custom: Option<&str>) -> Answer {
        Answer {
            id: id.into(),
            selected: selected.iter().map(|s| s.to_string()).collect(),
            custom: custom.map(Into::into),
        }
    }

    #[test]
    fn claude_codes_questions_become_harks_with_ids_by_place() {
        let input: AgentInput = serde_json::from_value(claude_input()).unwrap();
        let (arguments, ids) = hark_arguments(Agent::ClaudeCode, &input).unwrap();
        assert_eq!(ids, ["q1", "q2"]);
        assert_eq!(arguments["questions"][1]["multi_select"], true);
        assert_eq!(arguments["questions"][0]["header"], "DB");
        assert_eq!(arguments["questions"][0]["options"][1]["description"], "a server");
        hark_core::question::parse_request(&arguments, ToolMode::Timed, 60).expect("a valid Hark call");
    }

    #[test]
    fn an_answer_allows_the_call_with_labels_joined_and_own_words_as_they_are() {
        let original = claude_input();
        let input: AgentInput = serde_json::from_value(original.clone()).unwrap();
        let batch =
            AnswerBatch { answers: vec![answer("q1", &[], Some("DuckDB, really")), answer("q2", &["eu", "us"], None)] };
        let decision = answered(Agent::ClaudeCode, &original, &input, &["q1".into(), "q2".into()], &batch);
        let out = &decision["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], "allow");
        assert_eq!(out["updatedInput"]["questions"], original["questions"]);
        assert_eq!(
            out["updatedInput"]["answers"],
            json!({ "Which database?": "DuckDB, really", "Which regions?": "eu, us" })
        );
    }

    #[test]
    fn every_question_skipped_is_never_an_allow() {
        let original = claude_input();
        let input: AgentInput = serde_json::from_value(original.clone()).unwrap();
        let batch = AnswerBatch { answers: vec![answer("q1", &[], None), answer("q2", &[], None)] };
        let decision = answered(Agent::ClaudeCode, &original, &input, &["q1".into(), "q2".into()], &batch);
        assert_eq!(decision["hookSpecificOutput"]["permissionDecision"], "deny");
    }

    #[test]
    fn codex_gets_a_deny_carrying_the_answers_by_its_ids() {
        let original = json!({ "questions": [
            { "id": "db", "header": "DB", "question": "Which database?", "isOther": true,
              "options": [{ "label": "SQLite", "description": "" }, { "label": "Postgres", "description": "" }] },
        ]});
        let input: AgentInput = serde_json::from_value(original.clone()).unwrap();
        let (_, ids) = hark_arguments(Agent::Codex, &input).unwrap();
        let batch = AnswerBatch { answers: vec![answer("db", &["Postgres"], None)] };
        let decision = answered(Agent::Codex, &original, &input, &ids, &batch);
        let reason = decision["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
        let carried: Value = serde_json::from_str(&reason[reason.find('{').unwrap()..]).unwrap();
        assert_eq!(carried, json!({ "answers": { "db": { "answers": ["Postgres"] } } }));
        assert_eq!(decision["hookSpecificOutput"]["permissionDecision"], "deny");
    }

    #[test]
    fn an_empty_batch_and_a_codex_question_without_id_are_refused() {
        let empty: AgentInput = serde_json::from_value(json!({ "questions": [] })).unwrap();
        assert!(matches!(hark_arguments(Agent::ClaudeCode, &empty), Err(HookError::BadQuestions { .. })));
        let no_id: AgentInput = serde_json::from_value(json!({ "questions": [{ "question": "Q?" }] })).unwrap();
        assert!(matches!(hark_arguments(Agent::Codex, &no_id), Err(HookError::BadQuestions { .. })));
    }
}
