//! `hark chat`: a terminal session with the agent. Streams assistant text to stdout and asks
//! questions on stdin (see [`crate::stdio_provider`]). Also the hosting both `chat` and `answer` share:
//! the data-directory lock, the store, the question service and the session's model.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use hark_core::agent::{Agent, AgentConfig, AgentDeps, AgentEvent, NewSession};
use hark_core::host::HostLock;
use hark_core::model::{
    env_key_for, ApiKey, ModelProvider, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL, DEFAULT_DEMO_SCRIPT, DEMO_LABEL, ENV_KEYS,
};
use hark_core::question::limits::parse_timeout_secs;
use hark_core::question::ToolMode;
use hark_core::service::{ProviderRegistration, SessionLog, UserQuestionService};
use hark_core::session::{Event, ModelRef, Store, ToolOutcome};
use hark_core::tools::QuestionSettings;
use serde::Serialize;
use tokio::sync::{Mutex, Notify};

use crate::stdio_provider::{safe, say, Lines, Shown, StdioProvider};

/// Prints `{name, code, message}` on stderr and returns `code` as the exit status.
pub(crate) fn fail(error: &impl Serialize, code: u8) -> ExitCode {
    let json = serde_json::to_string(error).unwrap_or_else(|_| "{}".into());
    eprintln!("{json}");
    ExitCode::from(code)
}

fn fail_msg(code: &str, message: impl Into<String>) -> ExitCode {
    fail(&serde_json::json!({ "name": "CliError", "code": code, "message": message.into() }), 1)
}

/// What this process hosts: the locked data directory and its single store and service.
pub(crate) struct Host {
    _lock: HostLock,
    pub store: Arc<Store>,
    pub service: UserQuestionService,
    pub lines: Arc<Mutex<Lines>>,
    pub eof: Arc<Notify>,
    pub shown: Arc<Shown>,
    _provider: ProviderRegistration,
}

impl Host {
    pub(crate) fn open() -> Result<Host, ExitCode> {
        let dir = hark_core::data_dir::choose(None, crate::data::platform_default())
            .and_then(|d| hark_core::data_dir::prepare(&d))
            .map_err(|e| fail(&e, 1))?;
        let lock = HostLock::acquire(&dir).map_err(|e| fail(&e, 1))?;
        let store = Arc::new(Store::open(&dir).map_err(|e| fail(&e, 1))?);
        let service = UserQuestionService::new(Arc::clone(&store) as Arc<dyn SessionLog>);
        let lines = Lines::stdin();
        let eof = Arc::new(Notify::new());
        let shown = Arc::new(Shown::default());
        let provider = StdioProvider::new(Arc::clone(&lines), Arc::clone(&shown), Arc::clone(&eof));
        let registration = service.register(Arc::new(provider)).map_err(|e| fail(&e, 1))?;
        Ok(Host { _lock: lock, store, service, lines, eof, shown, _provider: registration })
    }

    pub(crate) fn deps(&self, model: Arc<dyn ModelProvider>) -> AgentDeps {
        AgentDeps { store: Arc::clone(&self.store), service: self.service.clone(), model }
    }

    /// The full id of a session typed as its id or a unique prefix.
    pub(crate) fn resolve(&self, typed: &str) -> Result<String, ExitCode> {
        let sessions = self.store.list_sessions().map_err(|e| fail(&e, 1))?;
        crate::data::match_session(sessions, typed).map(|s| s.id).map_err(|f| fail_msg("NOT_FOUND", f.message()))
    }

    /// The model a session recorded when it was created.
    pub(crate) fn recorded_model(&self, session: &str) -> Option<ModelRef> {
        let events = self.store.events(session).ok()?;
        events.into_iter().find_map(|e| match e.event {
            Event::SessionCreated { model, .. } => model,
            _ => None,
        })
    }
}

/// Model flags; unset ones fall back to the session's recorded model, then to defaults.
#[derive(Debug, Default, Clone)]
pub(crate) struct ModelFlags {
    pub provider: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub script: Option<String>,
}

/// Whether a vendor's key is in the environment: then a session without a provider flag uses a real
/// model rather than the demo.
fn vendor_key_set() -> bool {
    ENV_KEYS.iter().any(|(variable, _)| ApiKey::from_optional(std::env::var(variable).ok()).is_some())
}

impl ModelFlags {
    /// The model to use: flags over the recorded model; without either, demo unless a key is set.
    pub(crate) fn resolve(&self, recorded: Option<ModelRef>) -> ModelRef {
        let provider = self.provider.clone().or_else(|| recorded.as_ref().map(|r| r.provider.clone()));
        let same = recorded.filter(|r| provider.as_deref().is_none_or(|p| p == r.provider));
        let provider = provider.unwrap_or_else(|| if vendor_key_set() { "openai" } else { "demo" }.to_string());
        let pick = |flag: &Option<String>, rec: Option<String>| flag.clone().or(rec);
        if provider == "demo" {
            let script = pick(&self.script, same.as_ref().and_then(|r| r.script.clone()))
                .unwrap_or_else(|| DEFAULT_DEMO_SCRIPT.to_string());
            ModelRef { provider, base_url: None, model: None, script: Some(script) }
        } else {
            let base_url = pick(&self.base_url, same.as_ref().and_then(|r| r.base_url.clone()))
                .unwrap_or_else(|| DEEPSEEK_BASE_URL.to_string());
            let model = pick(&self.model, same.as_ref().and_then(|r| r.model.clone()))
                .unwrap_or_else(|| DEEPSEEK_MODEL.to_string());
            ModelRef { provider, base_url: Some(base_url), model: Some(model), script: None }
        }
    }
}

pub(crate) fn build_model(model: &ModelRef) -> Result<Arc<dyn ModelProvider>, ExitCode> {
    // A vendor's key goes only to that vendor's host (over https); other servers get none.
    let key = model.base_url.as_deref().and_then(env_key_for).map(|(key, _)| key);
    let built = hark_core::model::provider_for(model, key).map_err(|e| fail(&e, 1))?;
    if model.provider == "demo" {
        eprintln!("hark: {DEMO_LABEL} (script {})", model.script.as_deref().unwrap_or(DEFAULT_DEMO_SCRIPT));
    }
    Ok(built)
}

/// Renders the agent's stream for a terminal until the agent is dropped.
pub(crate) fn print_events(
    mut rx: tokio::sync::broadcast::Receiver<AgentEvent>,
    shown: Arc<Shown>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut at_line_start = true;
        loop {
            let event = match rx.recv().await {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => break,
            };
            let line = |text: String, at_line_start: &mut bool| {
                let lead = if *at_line_start { "" } else { "\n" };
                say(&format!("{lead}{text}\n"));
                *at_line_start = true;
            };
            match event {
                AgentEvent::TextDelta { text, .. } => {
                    let text = safe_keep_newlines(&text);
                    at_line_start = text.ends_with('\n');
                    say(&text);
                }
                AgentEvent::EventAppended { event } => match event.event {
                    Event::ToolCall { call_id, name, arguments } => {
                        if name != hark_core::question::TOOL_NAME {
                            let args = safe(&arguments.to_string());
                            let args: String = args.chars().take(120).collect();
                            line(format!("  · {} {args}", safe(&name)), &mut at_line_start);
                        } else if !at_line_start {
                            say("\n");
                            at_line_start = true;
                        }
                        shown.mark(&call_id);
                    }
                    Event::ToolResult { call_id, outcome } => {
                        let text = match outcome {
                            ToolOutcome::Ok { .. } => continue,
                            ToolOutcome::Pending { .. } => format!(
                                "  · question {call_id} is still open: answer it any time with \
                                 `hark answer {} {call_id} '{{\"answers\":[...]}}'`",
                                event.session_id
                            ),
                            ToolOutcome::Error { error } => format!("  · tool error {}", safe(&error.to_string())),
                            ToolOutcome::Unknown => "  · tool outcome unknown".into(),
                        };
                        line(text, &mut at_line_start);
                    }
                    Event::ModelError { error } => {
                        if !at_line_start {
                            say("\n");
                            at_line_start = true;
                        }
                        eprintln!("hark: model error {error}");
                    }
                    _ => {}
                },
                AgentEvent::TurnEnded { reason, .. } => {
                    if !at_line_start {
                        say("\n");
                        at_line_start = true;
                    }
                    if reason != "completed" {
                        eprintln!("hark: turn ended ({reason})");
                    }
                }
                AgentEvent::Error { error, .. } => eprintln!("hark: {error}"),
                _ => {}
            }
        }
    })
}

/// Lets the printer show the last events; it ends when the agent's event stream closes.
pub(crate) async fn drain(printer: tokio::task::JoinHandle<()>) {
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), printer).await;
}

fn safe_keep_newlines(text: &str) -> String {
    text.split('\n').map(safe).collect::<Vec<_>>().join("\n")
}

/// Runs the agent until it is idle; Ctrl-C or stdin closing while a question waits aborts the turn
/// (pending questions get ASK_ABORTED) and everything recorded stays saved.
pub(crate) async fn run_until_idle(agent: &Agent, host: &Host) -> bool {
    tokio::select! {
        _ = agent.wait_idle() => true,
        _ = tokio::signal::ctrl_c() => { agent.abort(); agent.wait_idle().await; false }
        _ = host.eof.notified() => { agent.abort(); agent.wait_idle().await; false }
    }
}

struct ChatArgs {
    session: Option<String>,
    flags: ModelFlags,
    timed: bool,
    timeout: u64,
    workspace: Option<PathBuf>,
    prompt: Option<String>,
}

fn parse(args: &[String]) -> Result<ChatArgs, String> {
    let mut parsed = ChatArgs {
        session: None,
        flags: ModelFlags::default(),
        timed: false,
        timeout: QuestionSettings::default().default_timeout_secs,
        workspace: None,
        prompt: None,
    };
    let mut it = args.iter();
    let mut words = Vec::new();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--session" => parsed.session = Some(value("--session")?),
            "--provider" => parsed.flags.provider = Some(value("--provider")?),
            "--base-url" => parsed.flags.base_url = Some(value("--base-url")?),
            "--model" => parsed.flags.model = Some(value("--model")?),
            "--script" => parsed.flags.script = Some(value("--script")?),
            "--workspace" => parsed.workspace = Some(PathBuf::from(value("--workspace")?)),
            "--timed" => parsed.timed = true,
            "--timeout" => parsed.timeout = parse_timeout_secs(&value("--timeout")?)?,
            flag if flag.starts_with("--") => return Err(format!("chat: unknown option {flag:?}")),
            word => words.push(word.to_string()),
        }
    }
    if let Some(p) = &parsed.flags.provider {
        if p != "openai" && p != "demo" {
            return Err(format!("--provider {p:?}: use openai or demo"));
        }
    }
    if !words.is_empty() {
        parsed.prompt = Some(words.join(" "));
    }
    Ok(parsed)
}

pub fn run(args: &[String]) -> ExitCode {
    let args = match parse(args) {
        Ok(a) => a,
        Err(problem) => return crate::usage_error(&problem),
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => return fail_msg("RUNTIME", e.to_string()),
    };
    let code = runtime.block_on(chat(args));
    // Stdin's reader thread may be blocked in read(2); do not wait for it.
    runtime.shutdown_background();
    code
}

async fn chat(args: ChatArgs) -> ExitCode {
    let host = match Host::open() {
        Ok(h) => h,
        Err(code) => return code,
    };
    let session = match &args.session {
        Some(typed) => match host.resolve(typed) {
            Ok(id) => Some(id),
            Err(code) => return code,
        },
        None => None,
    };
    let model_ref = args.flags.resolve(session.as_ref().and_then(|s| host.recorded_model(s)));
    let model = match build_model(&model_ref) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mode = if args.timed { ToolMode::Timed } else { ToolMode::Legacy };
    let config = AgentConfig {
        questions: QuestionSettings { mode, default_timeout_secs: args.timeout },
        ..AgentConfig::default()
    };
    let workspace = match &args.workspace {
        Some(dir) => match dir.canonicalize() {
            Ok(d) if d.is_dir() => Some(d),
            _ => return fail_msg("INVALID_ARGUMENT", format!("--workspace {}: not a folder", dir.display())),
        },
        None => None,
    };
    let deps = host.deps(model);
    // A resumed session may start a turn at once (a queued late reply): subscribe before it can.
    let opened = match session {
        Some(id) => Agent::open_subscribed(deps, &id, config),
        None => {
            let title = args.prompt.as_deref().map(|p| p.chars().take(60).collect()).unwrap_or_else(|| "Chat".into());
            Agent::create(deps, NewSession { title, workspace, model: Some(model_ref) }, config).map(|agent| {
                let events = agent.subscribe();
                (agent, events)
            })
        }
    };
    let (agent, events) = match opened {
        Ok(opened) => opened,
        Err(e) => return fail(&e, 1),
    };
    eprintln!("hark: session {}", agent.session_id());
    let printer = print_events(events, Arc::clone(&host.shown));
    let finished = match &args.prompt {
        Some(prompt) => {
            if let Err(e) = agent.steer(prompt.clone()) {
                return fail(&e, 1);
            }
            run_until_idle(&agent, &host).await
        }
        None => interactive(&agent, &host).await,
    };
    agent.close().await;
    drain(printer).await;
    if !finished {
        eprintln!("hark: stopped; the session is saved");
    }
    ExitCode::SUCCESS
}

async fn interactive(agent: &Agent, host: &Host) -> bool {
    loop {
        if !run_until_idle(agent, host).await {
            return false;
        }
        say("> ");
        let line = tokio::select! {
            line = async { host.lines.lock().await.next().await } => line,
            _ = tokio::signal::ctrl_c() => None,
        };
        match line {
            None => return true,
            Some(text) if text.trim().is_empty() => continue,
            Some(text) => {
                if agent.steer(text).is_err() {
                    return true;
                }
            }
        }
    }
}
