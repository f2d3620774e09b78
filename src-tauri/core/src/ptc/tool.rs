//! The `run_code` tool: the model's script runs in the sandbox in a worker process, and each of its
//! `tools.<name>(args)` calls runs here, recorded as `tool/ptc-dispatch` then `tool/ptc-result`
//! before the script sees its result, through the same registry (and plan gate) as the model's own
//! calls.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use std::sync::Mutex;

use super::sandbox::{CallFailure, Limits};
use super::worker;
use crate::error::CodedError;
use crate::model::ToolCallRequest;
use crate::open_session::Session;
use crate::session::{Event, ToolOutcome};
use crate::sync::lock;
use crate::tools::{definition_of, outcome_of, BoxFuture, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};

pub use crate::tool_definition::RUN_CODE_TOOL_NAME;
/// The longest script, in characters.
pub const MAX_CODE_CHARS: usize = 100_000;

/// The arguments of `run_code`.
///
/// Run JavaScript that calls tools, to do several steps in one call. The code is the body of an async
/// function: `await tools.<name>(args)` calls a tool (it returns the tool's result, parsed when it is
/// JSON, and throws an Error with a `code` when the tool fails), `console.log(...)` records a line,
/// and `return` gives the call's result. There is no other I/O: no require, import, fetch, process or
/// timers. Limits: 64 MiB of memory, 10 s of JavaScript time (waiting for a tool does not count), 64 KiB
/// of logs and of result, 100 tool calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCodeArguments {
    /// The JavaScript: the body of an async function.
    #[schemars(length(min = 1, max = MAX_CODE_CHARS))]
    pub code: String,
}

/// A call a script made, and its recorded outcome once there is one.
struct Made {
    call_id: String,
    name: String,
    outcome: Option<ToolOutcome>,
}

/// A coded error as the script sees it.
fn failure(e: &impl CodedError) -> CallFailure {
    CallFailure { code: e.code().to_string(), message: e.message() }
}

/// What a failed script did before it stopped, for the model.
fn calls_summary(made: &[Made]) -> String {
    if made.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = made
        .iter()
        .map(|c| {
            let what = match &c.outcome {
                Some(ToolOutcome::Ok { .. }) => "ok".to_string(),
                Some(ToolOutcome::Pending { .. }) => {
                    format!("pending: the question stays open; a late answer arrives with call_id {:?}", c.call_id)
                }
                Some(ToolOutcome::Error { error }) => format!("failed {}", error.code),
                Some(ToolOutcome::Unknown) | None => "outcome unknown".to_string(),
            };
            format!("- {} {}: {what}", c.call_id, c.name)
        })
        .collect();
    format!("\nCalls the script made before it stopped:\n{}", lines.join("\n"))
}

/// `run_code` over `children`, the tools a script may call.
pub struct RunCodeTool {
    children: ToolRegistry,
    session: Arc<Session>,
    limits: Limits,
}

impl RunCodeTool {
    pub fn new(children: ToolRegistry, session: Arc<Session>) -> Self {
        RunCodeTool { children, session, limits: Limits::default() }
    }

    /// The model's arguments as a script to run, or why they are not one.
    fn script_of(args: &Value) -> Result<RunCodeArguments, ToolError> {
        let failed = |message: String| ToolError::Failed { code: "INVALID_REQUEST".into(), message };
        let args: RunCodeArguments = RunCodeArguments::deserialize(args)
            .map_err(|e| failed(format!("run_code: invalid arguments ({e}); send {{\"code\": \"...\"}}")))?;
        let chars = args.code.chars().count();
        if args.code.trim().is_empty() || chars > MAX_CODE_CHARS {
            return Err(failed(format!("run_code: the code has {chars} characters; give 1 to {MAX_CODE_CHARS}")));
        }
        Ok(args)
    }

    async fn execute(&self, ctx: &ToolContext, call_id: &str, args: RunCodeArguments) -> Result<ToolOutput, ToolError> {
        let failed = |code: &str, message: String| ToolError::Failed { code: code.into(), message };
        let made = Mutex::new(Vec::new());
        let names = self.children.names();
        let mut count = 0usize;
        let call = |name: String, args: Value| {
            // Numbered as they come, like the model's own calls; a name the script made up gets none.
            let known = self.children.get(&name).is_some();
            count += usize::from(known);
            let (number, made) = (count, &made);
            async move { self.call(ctx, call_id, made, known.then_some(number), &name, args).await }
        };
        let ran = worker::run(&args.code, &names, self.limits, &ctx.abort, call).await;
        let made = std::mem::take(&mut *lock(&made));
        // A call whose result could not be recorded (or whose thread died) is closed as unknown, as
        // the model's own calls are, so no dispatch is left open.
        for call in made.iter().filter(|c| c.outcome.is_none()) {
            let _ = self
                .session
                .record_one(Event::PtcResult { call_id: call.call_id.clone(), outcome: ToolOutcome::Unknown });
        }
        match ran {
            Ok(out) => {
                let content = json!({ "result": out.result, "logs": out.logs }).to_string();
                // Logs and result are each bounded; escaping can still make the whole larger.
                if content.len() > 4 * self.limits.output_bytes {
                    return Err(failed(
                        "RUN_CODE_OUTPUT_LIMIT",
                        format!("the script's output has {} bytes", content.len()),
                    ));
                }
                Ok(ToolOutput::ok(content))
            }
            // The model learns what the script did before it stopped: which writes happened, and which
            // questions stay open under which call ids.
            Err(e) => Err(failed(e.code(), format!("{e}{}", calls_summary(&made)))),
        }
    }

    /// Runs one of a script's calls: recorded as a dispatch, run through the registry (and its plan
    /// gate) like the model's own calls, its result recorded before the script sees it. `number` is
    /// the call's place among the script's calls to known tools; `None` for an unknown tool.
    async fn call(
        &self,
        ctx: &ToolContext,
        parent: &str,
        made: &Mutex<Vec<Made>>,
        number: Option<usize>,
        name: &str,
        args: Value,
    ) -> Result<Value, CallFailure> {
        if ctx.abort.is_cancelled() {
            return Err(CallFailure { code: "ABORTED".into(), message: "the turn was stopped".into() });
        }
        let Some(number) = number else {
            let known = self.children.names().join(", ");
            return Err(CallFailure { code: "UNKNOWN_TOOL".into(), message: format!("no tool {name:?}; use {known}") });
        };
        // Derived from the script's own call id, and unique in the session like the model's.
        let mut id =
            [ToolCallRequest { id: format!("{parent}.{number}"), name: name.to_string(), arguments: String::new() }];
        self.session.make_call_ids_unique(&mut id);
        let [ToolCallRequest { id: call_id, .. }] = id;
        let prepared = self.children.prepare(name, args);
        let dispatch = Event::PtcDispatch {
            parent_call_id: parent.to_string(),
            call_id: call_id.clone(),
            name: name.to_string(),
            arguments: prepared.arguments.clone(),
        };
        self.session.record_one(dispatch).map_err(|e| failure(&e))?;
        // Listed once its dispatch is recorded: only a recorded dispatch needs closing later.
        lock(made).push(Made { call_id: call_id.clone(), name: name.to_string(), outcome: None });
        let result = self.children.run(ctx, &call_id, name, prepared).await;
        let outcome = outcome_of(&result);
        let recorded = Event::PtcResult { call_id: call_id.clone(), outcome: outcome.clone() };
        self.session.record_one(recorded).map_err(|e| failure(&e))?;
        if let Some(call) = lock(made).iter_mut().rev().find(|c| c.call_id == call_id) {
            call.outcome = Some(outcome);
        }
        match result {
            Ok(out) => Ok(serde_json::from_str(&out.content).unwrap_or(Value::String(out.content))),
            Err(e) => Err(failure(&e)),
        }
    }

    fn description(&self) -> String {
        let mut text = definition_of::<RunCodeArguments>(RUN_CODE_TOOL_NAME)["description"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        text.push_str("\n\nThe tools (`tools.<name>(arguments)`):");
        for definition in self.children.definitions() {
            let name = definition["name"].as_str().unwrap_or_default();
            let about = definition["description"].as_str().unwrap_or_default();
            text.push_str(&format!("\n- {name}: {about} Arguments: {}", definition["parameters"]));
        }
        text
    }
}

impl Tool for RunCodeTool {
    type Input = RunCodeArguments;

    fn name(&self) -> &str {
        RUN_CODE_TOOL_NAME
    }

    fn definition(&self) -> Value {
        let mut definition = definition_of::<RunCodeArguments>(RUN_CODE_TOOL_NAME);
        definition["description"] = Value::String(self.description());
        definition
    }

    /// The script's own calls are gated one by one, as the model's are.
    fn changes_workspace(&self) -> bool {
        false
    }

    fn parse(&self, args: &Value) -> Result<RunCodeArguments, ToolError> {
        RunCodeTool::script_of(args)
    }

    fn run(
        self: Arc<Self>,
        ctx: ToolContext,
        call_id: String,
        args: RunCodeArguments,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.execute(&ctx, &call_id, args).await })
    }
}
