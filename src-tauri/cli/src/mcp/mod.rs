//! `hark mcp [--timed [--timeout SECONDS] | --blocking]`: Hark as an MCP server on stdio, so another
//! agent (Claude Code, Codex, Cursor, goose) asks the person through Hark. It offers
//! `ask_user_question` with Hark's schema and `get_answers` for late answers, and forwards both to
//! the running desktop app over its control socket, starting the app when none runs. The app shows
//! the client's questions in a session named after the client and its folder, like its own.
//!
//! stdout is the MCP channel: nothing else may be written to it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};

use hark_core::control::CLOSED;
use hark_core::error::BoundaryError;
use hark_core::front_door::{FrontDoor, Remote};
use hark_core::host::{ClientAnswer, ClientId};
use hark_core::question::{client_tool_definition, ToolMode, WithdrawnResult, TOOL_NAME};
use hark_core::tools::{definition_of, QuestionSettings, WithdrawArguments, WITHDRAW_TOOL_NAME};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, GetTaskParams,
    GetTaskResult, Implementation, InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

use crate::chat::{chosen_dir, fail_msg};

const ANSWERS_TOOL: &str = "get_answers";

const INSTRUCTIONS: &str = "Hark shows your questions to the person in its window and as notifications, \
    also while they are away. Ask with ask_user_question when you need their decision; when a call returns \
    pending (\"status\": \"pending\"), carry on with what does not depend on it and call get_answers later for \
    the answer.";

mod tasks;

/// How long a call of a client without tasks may wait in the foreground by default: under the
/// tightest deadline agents give a tool call (about 60 s in Cursor and Copilot CLI).
const DEFAULT_BUDGET_SECS: u64 = 45;

/// `hark mcp`'s options. Of --timed and --blocking, the last one given counts.
#[derive(clap::Args)]
pub struct McpArgs {
    /// Timed questions: the agent gets a pending result when one is not answered in time, and
    /// keeps working.
    #[arg(long, overrides_with = "blocking")]
    timed: bool,
    /// The default wait of a timed question, in seconds (with --timed; default: the app's).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Questions that wait for the answer, however long.
    #[arg(long, overrides_with = "timed")]
    blocking: bool,
    /// The longest a call of a client without MCP Tasks waits before it gets a pending result, in
    /// seconds (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_BUDGET_SECS)]
    budget: u64,
}

pub fn run(args: McpArgs) -> ExitCode {
    let Flags { chosen, budget } = match flags(&args) {
        Ok(flags) => flags,
        Err(problem) => return crate::usage_error("mcp", &problem),
    };
    let dir = match chosen_dir() {
        Ok(dir) => dir,
        Err(code) => return code,
    };
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let asker = format!("hark-mcp-{}", uuid::Uuid::new_v4().simple());
    let server = HarkServer {
        door: crate::app_link::door(&dir),
        dir,
        cwd,
        asker,
        chosen,
        budget,
        settings: OnceLock::new(),
        client: Mutex::new(None),
        tasks: tasks::Tasks::default(),
    };
    crate::chat::on_runtime(async move {
        let served = async {
            let running = server.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
            Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
        };
        match served.await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail_msg("MCP_SERVER", e.to_string()),
        }
    })
}

/// What the command line chose.
struct Flags {
    /// The question settings; `None` leaves them to the app's Settings.
    chosen: Option<QuestionSettings>,
    /// The longest foreground wait of a timed call for a client without tasks (`None`: no limit).
    budget: Option<u64>,
}

fn flags(args: &McpArgs) -> Result<Flags, String> {
    let mode = match (args.timed, args.blocking) {
        (true, _) => Some(ToolMode::Timed),
        (_, true) => Some(ToolMode::Legacy),
        _ => None,
    };
    let timeout = args.timeout;
    let budget = (args.budget > 0).then_some(args.budget);
    let chosen = match (mode, timeout) {
        (None, None) => None,
        (Some(ToolMode::Timed), timeout) => Some(QuestionSettings {
            mode: ToolMode::Timed,
            default_timeout_secs: timeout.unwrap_or(QuestionSettings::default().default_timeout_secs),
            stop_turn: false,
        }),
        (Some(ToolMode::Legacy), None) => {
            Some(QuestionSettings { mode: ToolMode::Legacy, ..QuestionSettings::default() })
        }
        (_, Some(_)) => return Err("--timeout goes with --timed".into()),
    };
    Ok(Flags { chosen, budget })
}

struct HarkServer {
    /// The app, started when none runs.
    door: Remote,
    dir: PathBuf,
    cwd: String,
    /// This process's own id: the answers to its questions are returned to it alone, not to another
    /// agent of the same name in the same folder.
    asker: String,
    chosen: Option<QuestionSettings>,
    budget: Option<u64>,
    /// The settings the tool list was made under; every call is asked under them.
    settings: OnceLock<QuestionSettings>,
    /// Who the client said it is.
    client: Mutex<Option<String>>,
    /// The calls this process runs as MCP tasks.
    tasks: tasks::Tasks,
}

impl HarkServer {
    /// Learns who the client is from a request: `initialize`'s client info, or (for clients of MCP
    /// 2026-07-28, which send `server/discover` and never `initialize`, Claude Code among them) the
    /// client info each request carries in its `_meta`. Its title when it gives one ("Claude Code"),
    /// else its name.
    fn learn(&self, info: Option<Implementation>) {
        let Some(info) = info else { return };
        let name = info.title.filter(|t| !t.trim().is_empty()).unwrap_or(info.name);
        if !name.trim().is_empty() {
            *hark_core::sync::lock(&self.client) = Some(name);
        }
    }

    fn client(&self) -> ClientId {
        let name = hark_core::sync::lock(&self.client).clone().unwrap_or_else(|| "MCP client".into());
        ClientId { name, cwd: self.cwd.clone(), asker: Some(self.asker.clone()) }
    }

    /// The settings in force: the command line's, else the app's (asked once; the defaults when
    /// no app runs yet, rather than starting one just to list tools).
    async fn settings(&self) -> QuestionSettings {
        if let Some(settings) = self.settings.get() {
            return *settings;
        }
        let settings = match self.chosen {
            Some(chosen) => chosen,
            // Asked of a running app only: listing tools does not start one.
            None => Remote::new(&self.dir).settings().await.unwrap_or_default(),
        };
        *self.settings.get_or_init(|| settings)
    }

    /// A call's question, asked under the settings in force; a client without tasks gets its
    /// timed question's foreground wait cut to the budget, so its own deadline never ends the call.
    /// The returned future asks it; dropping that future withdraws the question.
    pub(super) async fn asking(
        &self,
        mut arguments: serde_json::Value,
        call_id: &str,
        budgeted: bool,
    ) -> impl std::future::Future<Output = Result<ClientAnswer, BoundaryError>> + Send + 'static {
        let mut settings = self.settings().await;
        if let (true, Some(budget), ToolMode::Timed) = (budgeted, self.budget, settings.mode) {
            settings.default_timeout_secs = settings.default_timeout_secs.min(budget);
            if let Some(asked) = arguments.get("timeout").and_then(serde_json::Value::as_i64) {
                // `-1` (wait indefinitely) and anything longer wait the budget.
                if asked < 0 || asked as u64 > budget {
                    arguments["timeout"] = serde_json::json!(budget);
                }
            }
        }
        let (door, client, call_id) = (self.door.clone(), self.client(), call_id.to_string());
        async move { door.ask(&client, Some(call_id), Some(settings), arguments).await }
    }

    async fn ask(&self, arguments: serde_json::Value, context: &RequestContext<RoleServer>) -> CallToolResult {
        // Chosen here, so the call can be named even when the app goes before it replies.
        let call_id = new_call_id();
        let asking = self.asking(arguments, &call_id, true).await;
        let reply = match context.meta.get_progress_token() {
            Some(token) => tasks::with_progress(asking, context.peer.clone(), token).await,
            None => asking.await,
        };
        asked_result(&call_id, reply)
    }

    async fn answers(&self, arguments: serde_json::Value) -> CallToolResult {
        let calls = match serde_json::from_value::<AnswersArgs>(arguments) {
            Ok(args) => args.call_ids,
            Err(e) => {
                return failed(BoundaryError::new(
                    "ToolError",
                    "INVALID_ARGUMENTS",
                    format!("get_answers takes {{\"call_ids\": [\"...\"]}} or nothing: {e}"),
                ))
            }
        };
        // To the end of the connection: the app records the answers as returned after writing them,
        // and the agent's next get_answers must not be handed them again.
        match self.door.answers(&self.client(), calls).await {
            Ok(answers) => {
                // Each late answer as Hark's own agent reads it (call id, questions, answers, note).
                let late = answers.answers.iter().map(|a| match serde_json::from_str(&a.text) {
                    Ok(object @ serde_json::Value::Object(_)) => object,
                    _ => serde_json::json!({ "call_id": a.call_id, "answers": a.answers.answers }),
                });
                result(serde_json::json!({ "answers": late.collect::<Vec<_>>(), "waiting": answers.waiting }), false)
            }
            Err(e) => failed(e),
        }
    }
}

/// `get_answers`' input: optional call ids learnt elsewhere (see [`Request::Answers`]).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AnswersArgs {
    #[serde(default)]
    call_ids: Vec<String>,
}

impl HarkServer {
    /// `withdraw_question`: the same tool as Hark's own agent has, for the client's questions.
    async fn withdraw(&self, arguments: serde_json::Value) -> CallToolResult {
        let args = match serde_json::from_value::<WithdrawArguments>(arguments) {
            Ok(args) => args,
            Err(e) => {
                return failed(BoundaryError::new(
                    "UserInteractionError",
                    "INVALID_REQUEST",
                    format!("{WITHDRAW_TOOL_NAME} takes {{\"call_id\": \"...\", \"reason\": \"...\"}}: {e}"),
                ))
            }
        };
        match self.door.withdraw(&self.client(), &args.call_id, &args.reason).await {
            Ok(()) => {
                let withdrawn = WithdrawnResult { call_id: args.call_id, reason: args.reason.trim().to_string() };
                shown(&withdrawn.text())
            }
            Err(e) => failed(e),
        }
    }
}

/// A tool from a core tool definition (`{name, description, parameters}`).
fn tool_of(definition: &serde_json::Value) -> Tool {
    let name = definition["name"].as_str().unwrap_or_default().to_string();
    let description = definition["description"].as_str().unwrap_or_default().to_string();
    let schema = match &definition["parameters"] {
        serde_json::Value::Object(schema) => schema.clone(),
        _ => serde_json::Map::new(),
    };
    Tool::new(name, description, Arc::new(schema))
}

fn answers_schema() -> serde_json::Map<String, serde_json::Value> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "call_ids": {
                "type": "array",
                "items": { "type": "string" },
                "description": "Call ids of questions Hark told you about outside this tool (a hook's message); \
                                your own questions' answers come without them."
            }
        }
    });
    match schema {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

fn new_call_id() -> String {
    format!("mcp-{}", uuid::Uuid::new_v4().simple())
}

/// What the client's model reads once an `ask` ended: the answers, `PENDING`, or the error.
fn asked_result(call_id: &str, reply: Result<ClientAnswer, BoundaryError>) -> CallToolResult {
    match reply {
        Ok(answer) => shown(&answer.text),
        Err(error) if error.code == CLOSED => failed(BoundaryError::new(
            "ControlError",
            "HARK_GONE",
            format!(
                "Hark stopped (it quit or crashed) before the person answered your question {call_id}; \
                 it was not answered. Ask it again if you still need the answer."
            ),
        )),
        Err(e) => failed(e),
    }
}

/// A result whose text and `structuredContent` are the same JSON: clients show their model one or
/// the other (Claude Code and Codex show only `structuredContent` when there is one, others only the
/// text), so the model reads one shape whichever part its client shows.
fn result(structured: serde_json::Value, is_error: bool) -> CallToolResult {
    let text = structured.to_string();
    let mut result = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(structured);
    result
}

/// What Hark's own agent reads of a question's call (the answers, or the pending notice), as the
/// client's result. Those texts are JSON objects; one that is not is carried as `{"text": ...}`.
fn shown(text: &str) -> CallToolResult {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(object @ serde_json::Value::Object(_)) => result(object, false),
        _ => result(serde_json::json!({ "text": text }), false),
    }
}

/// A failure the client's model reads: `{"error": {name, code, message}}`, as Hark's own agent does.
fn failed(error: BoundaryError) -> CallToolResult {
    result(serde_json::json!({ "error": error }), true)
}

impl ServerHandler for HarkServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
            .with_server_info(Implementation::new("hark", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        self.learn(Some(request.client_info.clone()));
        self.negotiate_initialize(&request)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        self.learn(context.client_info());
        self.task_state(&request.task_id).await.map(GetTaskResult::new)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.learn(context.client_info());
        self.withdraw_task(&request.task_id).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.learn(context.client_info());
        let settings = self.settings().await;
        // A client without tasks gets the foreground wait `asking` gives it, and is told so.
        let longest = if tasks::declared(&context) { None } else { self.budget };
        let ask = tool_of(&client_tool_definition(settings.mode, settings.default_timeout_secs, longest));
        let answers = Tool::new(
            ANSWERS_TOOL,
            "Returns the answers the person gave later to your questions whose call returned pending (each \
             answer is returned once), and the call ids of those still waiting. Call it between steps of your \
             work and before you finish. Pass call_ids to collect a question Hark told you about elsewhere \
             (a hook's message names its call id).",
            Arc::new(answers_schema()),
        );
        let mut tools = vec![ask, answers];
        // Only a timed question can be left waiting while the agent works on.
        if settings.mode == ToolMode::Timed {
            tools.push(tool_of(&definition_of::<WithdrawArguments>(WITHDRAW_TOOL_NAME)));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.learn(context.client_info());
        let arguments = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
        if request.name == TOOL_NAME && tasks::declared(&context) {
            // The question runs on; the client polls the task (see `tasks`).
            return Ok(CallToolResponse::Task(self.ask_as_task(arguments).await));
        }
        let call = async {
            match request.name.as_ref() {
                TOOL_NAME => self.ask(arguments, &context).await,
                ANSWERS_TOOL => self.answers(arguments).await,
                WITHDRAW_TOOL_NAME => self.withdraw(arguments).await,
                other => failed(BoundaryError::new(
                    "ToolError",
                    "UNKNOWN_TOOL",
                    format!("hark mcp has no tool named {other:?}"),
                )),
            }
        };
        // A cancelled call closes its connection to the app, which withdraws the question.
        tokio::select! {
            result = call => Ok(result.into()),
            _ = context.ct.cancelled() => Err(McpError::internal_error("the call was cancelled", None)),
        }
    }
}
