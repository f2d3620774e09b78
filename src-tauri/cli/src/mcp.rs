//! `hark mcp [--timed [--timeout SECONDS] | --blocking]`: Hark as an MCP server on stdio, so another
//! agent (Claude Code, Codex, Cursor, goose) asks the person through Hark. It offers
//! `ask_user_question` with Hark's schema and `get_answers` for late answers, and forwards both to
//! the running desktop app over its control socket, starting the app when none runs. The app shows
//! the client's questions in a session named after the client and its folder, like its own.
//!
//! stdout is the MCP channel: nothing else may be written to it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use hark_core::control::{self, ControlError, Reply, Request};
use hark_core::error::{BoundaryError, CodedError};
use hark_core::host::ClientId;
use hark_core::question::{client_tool_definition, ToolMode, TOOL_NAME};
use hark_core::tools::QuestionSettings;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

use crate::chat::{chosen_dir, fail_msg};

const ANSWERS_TOOL: &str = "get_answers";

/// How long a started app may take to answer on its socket.
const APP_START: Duration = Duration::from_secs(60);

const INSTRUCTIONS: &str = "Hark shows your questions to the person in its window and as notifications, \
    also while they are away. Ask with ask_user_question when you need their decision; when a call returns \
    PENDING, carry on with what does not depend on it and call get_answers later for the answer.";

pub fn run(args: &[String]) -> ExitCode {
    let chosen = match parse_flags(args) {
        Ok(chosen) => chosen,
        Err(problem) => return crate::usage_error(&problem),
    };
    let dir = match chosen_dir() {
        Ok(dir) => dir,
        Err(code) => return code,
    };
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let asker = format!("hark-mcp-{}", uuid::Uuid::new_v4().simple());
    let server = HarkServer { dir, cwd, asker, chosen, settings: OnceLock::new(), client: Mutex::new(None) };
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

/// The question settings chosen on the command line; `None` leaves them to the app's Settings.
fn parse_flags(args: &[String]) -> Result<Option<QuestionSettings>, String> {
    let (mut mode, mut timeout) = (None, None);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--timed" => mode = Some(ToolMode::Timed),
            "--blocking" => mode = Some(ToolMode::Legacy),
            "--timeout" => {
                let value = rest.next().ok_or("--timeout needs SECONDS")?;
                timeout =
                    Some(value.parse::<u64>().map_err(|_| format!("--timeout takes whole seconds, not {value:?}"))?);
            }
            other => return Err(format!("mcp does not take {other:?}")),
        }
    }
    match (mode, timeout) {
        (None, None) => Ok(None),
        (Some(ToolMode::Timed), timeout) => Ok(Some(QuestionSettings {
            mode: ToolMode::Timed,
            default_timeout_secs: timeout.unwrap_or(QuestionSettings::default().default_timeout_secs),
        })),
        (Some(ToolMode::Legacy), None) => {
            Ok(Some(QuestionSettings { mode: ToolMode::Legacy, ..QuestionSettings::default() }))
        }
        (_, Some(_)) => Err("--timeout goes with --timed".into()),
    }
}

struct HarkServer {
    dir: PathBuf,
    cwd: String,
    /// This process's own id: the answers to its questions are returned to it alone, not to another
    /// agent of the same name in the same folder.
    asker: String,
    chosen: Option<QuestionSettings>,
    /// The settings the tool list was made under; every call is asked under them.
    settings: OnceLock<QuestionSettings>,
    /// Who the client said it is.
    client: Mutex<Option<String>>,
}

impl HarkServer {
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
            None => match control::call(&self.dir, &Request::Settings).await {
                Ok(Reply::Settings { settings }) => settings,
                _ => QuestionSettings::default(),
            },
        };
        *self.settings.get_or_init(|| settings)
    }

    /// Sends `request` to the app, starting the app first when none answers.
    async fn forward(&self, request: &Request) -> Result<Reply, ControlError> {
        match control::call(&self.dir, request).await {
            Err(ControlError::Unavailable { .. }) => {
                start_app(&self.dir).await?;
                control::call(&self.dir, request).await
            }
            other => other,
        }
    }

    async fn ask(&self, arguments: serde_json::Value) -> CallToolResult {
        let settings = self.settings().await;
        // Chosen here, so the call can be named even when the app goes before it replies.
        let call_id = format!("mcp-{}", uuid::Uuid::new_v4().simple());
        let request =
            Request::Ask { client: self.client(), settings: Some(settings), arguments, call_id: Some(call_id.clone()) };
        match self.forward(&request).await {
            Ok(Reply::Asked { answer }) => {
                let structured = serde_json::json!({
                    "call_id": answer.call_id,
                    "pending": answer.answers.is_none(),
                    "answers": answer.answers.map(|b| b.answers),
                });
                result(answer.text, structured, false)
            }
            Ok(other) => refused(other),
            Err(ControlError::Closed { .. }) => failed(BoundaryError::new(
                "ControlError",
                "HARK_GONE",
                format!(
                    "Hark stopped (it quit or crashed) before the person answered your question {call_id}; \
                     it was not answered. Ask it again if you still need the answer."
                ),
            )),
            Err(e) => failed(e.boundary()),
        }
    }

    async fn answers(&self) -> CallToolResult {
        match self.forward(&Request::Answers { client: self.client() }).await {
            Ok(Reply::Answers { answers }) => {
                let text = if answers.answers.is_empty() {
                    match answers.waiting.len() {
                        0 => "No answers: none of your questions waits for one.".to_string(),
                        n => format!("No new answers yet; {n} of your questions still wait: {:?}.", answers.waiting),
                    }
                } else {
                    let texts: Vec<&str> = answers.answers.iter().map(|a| a.text.as_str()).collect();
                    texts.join("\n")
                };
                let structured = serde_json::json!({
                    "answers": answers.answers.iter().map(|a| serde_json::json!({
                        "call_id": a.call_id,
                        "answers": a.answers.answers,
                    })).collect::<Vec<_>>(),
                    "waiting": answers.waiting,
                });
                result(text, structured, false)
            }
            Ok(other) => refused(other),
            Err(e) => failed(e.boundary()),
        }
    }
}

fn result(text: String, structured: serde_json::Value, is_error: bool) -> CallToolResult {
    let mut result = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(structured);
    result
}

/// A failure the client's model reads: `{"error": {name, code, message}}`, as Hark's own agent does.
fn failed(error: BoundaryError) -> CallToolResult {
    let structured = serde_json::json!({ "error": error });
    result(structured.to_string(), structured, true)
}

fn refused(reply: Reply) -> CallToolResult {
    match reply {
        Reply::Refused { error } => failed(error),
        other => failed(BoundaryError::new(
            "ControlError",
            "CONTROL_PROTOCOL",
            format!("the Hark app answered with something else: {other:?}"),
        )),
    }
}

impl ServerHandler for HarkServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hark", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let info = &request.client_info;
        let name = info.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| info.name.clone());
        *hark_core::sync::lock(&self.client) = Some(name);
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let settings = self.settings().await;
        let definition = client_tool_definition(settings.mode, settings.default_timeout_secs);
        let description = definition["description"].as_str().unwrap_or_default().to_string();
        let schema = match &definition["parameters"] {
            serde_json::Value::Object(schema) => schema.clone(),
            _ => serde_json::Map::new(),
        };
        let ask = Tool::new(TOOL_NAME, description, Arc::new(schema));
        let mut empty = serde_json::Map::new();
        empty.insert("type".into(), "object".into());
        empty.insert("properties".into(), serde_json::Value::Object(serde_json::Map::new()));
        let answers = Tool::new(
            ANSWERS_TOOL,
            "Returns the answers the person gave later to your questions whose call returned PENDING (each \
             answer is returned once), and the call ids of those still waiting. Call it between steps of your \
             work and before you finish.",
            Arc::new(empty),
        );
        Ok(ListToolsResult::with_all_items(vec![ask, answers]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
        let call = async {
            match request.name.as_ref() {
                TOOL_NAME => self.ask(arguments).await,
                ANSWERS_TOOL => self.answers().await,
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

/// Names the desktop app to start when none runs (an install that keeps it elsewhere).
const DESKTOP_ENV: &str = "HARK_DESKTOP";

/// Starts the desktop app (`HARK_DESKTOP`, else the one next to this binary, else `hark-desktop` on
/// the PATH) detached from this process and waits until it answers on its control socket.
async fn start_app(dir: &Path) -> Result<(), ControlError> {
    let unavailable = |detail: String| ControlError::Io { path: control_path(dir), detail };
    let beside = || {
        std::env::current_exe()
            .ok()
            .map(|exe| exe.with_file_name(format!("hark-desktop{}", std::env::consts::EXE_SUFFIX)))
            .filter(|p| p.is_file())
    };
    let program = std::env::var_os(DESKTOP_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(beside)
        .unwrap_or_else(|| PathBuf::from("hark-desktop"));
    let mut command = std::process::Command::new(&program);
    // The app outlives this call and serves every agent: it gets what a window needs, not the
    // calling agent's environment (its keys and tokens).
    command
        .env_clear()
        .envs(std::env::vars_os().filter(|(name, _)| hark_core::safe_env::for_desktop(name)))
        .env(hark_core::data_dir::DATA_DIR_ENV, dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        // Its own process group: the client's Ctrl-C or exit does not take the app down with it.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut app = command.spawn().map_err(|e| unavailable(format!("could not start {}: {e}", program.display())))?;
    let started = Instant::now();
    while started.elapsed() < APP_START {
        match control::call(dir, &Request::Settings).await {
            Ok(_) => return Ok(()),
            Err(ControlError::Unavailable { .. }) => {}
            Err(e) => return Err(e),
        }
        // An app that could not start (no display, another one took the data directory) says so at
        // once rather than after the whole wait.
        if let Ok(Some(status)) = app.try_wait() {
            return match control::call(dir, &Request::Settings).await {
                Ok(_) => Ok(()),
                Err(_) => Err(unavailable(format!("{} exited ({status}) before it answered", program.display()))),
            };
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(unavailable(format!("{} started but did not answer within {} s", program.display(), APP_START.as_secs())))
}

fn control_path(dir: &Path) -> PathBuf {
    #[cfg(unix)]
    {
        control::socket_path(dir)
    }
    #[cfg(windows)]
    {
        PathBuf::from(control::pipe_name(dir))
    }
}
