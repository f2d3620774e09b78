//! `hark chat`: a terminal session with the agent. Streams assistant text to stdout and asks
//! questions on stdin (see [`crate::stdio_provider`]). The hosting is the core's [`Host`]; this file
//! adds the terminal it asks on and the model choices the CLI's flags make.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use hark_core::agent::{Agent, AgentEvent};
use hark_core::error::{BoundaryError, CodedError};
use hark_core::host::{Host, HostError, ModelSource};
use hark_core::launch::RunOptions;
use hark_core::mcp::McpConfig;
use hark_core::model::{
    demo_scripts, env_key_for, ApiKey, ModelError, ModelProvider, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL,
    DEFAULT_DEMO_SCRIPT, DEMO_LABEL, ENV_KEYS,
};
use hark_core::question::ToolMode;
use hark_core::session::{Event, ModelKind, ModelRef, ToolOutcome, TurnEndReason};
use hark_core::tools::{OnTimeout, QuestionSettings};
use tokio::sync::{Mutex, Notify};

use crate::args::RunOptionValue;
use crate::stdio_provider::{safe, safe_lines, say, Lines, Shown, StdioProvider};

/// Prints `{name, code, message}` on stderr and returns `code` as the exit status.
pub(crate) fn fail(error: &impl CodedError, code: u8) -> ExitCode {
    print_error(&error.boundary(), code)
}

pub(crate) fn print_error(error: &BoundaryError, code: u8) -> ExitCode {
    let json = serde_json::to_string(error).unwrap_or_else(|_| "{}".into());
    eprintln!("{json}");
    ExitCode::from(code)
}

/// `CODE: message` for the terminal. A model's error text is untrusted: it goes through `safe`.
fn error_line(error: &BoundaryError) -> String {
    format!("{}: {}", safe(&error.code), safe(&error.message))
}

pub(crate) fn fail_msg(code: &str, message: impl Into<String>) -> ExitCode {
    print_error(&BoundaryError::new("CliError", code, message), 1)
}

/// The terminal this process asks its questions on: stdin's lines, who owns the keyboard, and the
/// signal that stdin closed while a question waited.
pub(crate) struct Terminal {
    pub lines: Arc<Mutex<Lines>>,
    pub eof: Arc<Notify>,
    pub shown: Arc<Shown>,
}

impl Terminal {
    pub(crate) fn stdin() -> Terminal {
        Terminal { lines: Lines::stdin(), eof: Arc::new(Notify::new()), shown: Arc::new(Shown::default()) }
    }

    /// Hosts the data directory (the core's [`Host`]) with this terminal as the question surface.
    pub(crate) fn host(&self, models: CliModels) -> Result<Host, ExitCode> {
        let dir = chosen_dir()?;
        self.host_in(&dir, models).map_err(|e| fail(&e, 1))
    }

    /// [`host`](Self::host) in `dir`, failing with the host's error (DATA_DIR_BUSY while another
    /// process hosts it) for the caller to act on.
    pub(crate) fn host_in(&self, dir: &std::path::Path, models: CliModels) -> Result<Host, HostError> {
        let surface = StdioProvider::new(Arc::clone(&self.lines), Arc::clone(&self.shown), Arc::clone(&self.eof));
        Host::start(dir, Arc::new(surface), Arc::new(models))
    }
}

/// Opens `host`'s front door (its control socket), as every host does: `hark answer` and `hark mcp`
/// from another terminal reach it while it runs. A failure costs only that way in; it is said once.
pub(crate) fn serve(host: &Arc<Host>) -> Result<(), std::io::Error> {
    #[cfg(any(unix, windows))]
    return host.serve();
    #[cfg(not(any(unix, windows)))]
    return Ok(());
}

/// The phone relay of a host in this process, with the bot token from the environment (none: off).
pub(crate) fn phone(host: &Arc<Host>) -> hark_core::phone::Phone {
    let token = std::env::var(hark_core::phone::TOKEN_VARIABLE).unwrap_or_default();
    hark_core::phone::start(host, hark_core::phone::BotToken::new(token))
}

/// The data directory this process uses, created if needed.
pub(crate) fn chosen_dir() -> Result<std::path::PathBuf, ExitCode> {
    data_dir().map_err(|e| fail(&e, 1))
}

/// The data directory (`HARK_DATA_DIR` or the platform's), created private when missing.
pub(crate) fn data_dir() -> Result<std::path::PathBuf, hark_core::data_dir::DataDirError> {
    hark_core::data_dir::choose(None, crate::data::platform_default()).and_then(|d| hark_core::data_dir::prepare(&d))
}

/// Whether a vendor's key is in the environment: then a session without a provider flag uses a real
/// model rather than the demo.
fn vendor_key_set() -> bool {
    ENV_KEYS.iter().any(|(variable, _)| ApiKey::from_optional(std::env::var(variable).ok()).is_some())
}

/// The model a session gets with no flag and nothing recorded: the demo, unless a vendor's key is set.
fn default_model() -> ModelRef {
    if vendor_key_set() {
        ModelRef {
            provider: ModelKind::Openai,
            base_url: Some(DEEPSEEK_BASE_URL.into()),
            model: Some(DEEPSEEK_MODEL.into()),
            script: None,
        }
    } else {
        ModelRef { provider: ModelKind::Demo, base_url: None, model: None, script: Some(DEFAULT_DEMO_SCRIPT.into()) }
    }
}

/// The question settings the terminal starts from: the wait-until-answered tool, with the default
/// timeout a `--timed` run uses.
fn saved_questions() -> QuestionSettings {
    QuestionSettings { mode: ToolMode::Legacy, ..QuestionSettings::default() }
}

/// The CLI's model choices: its options, over what a session recorded.
pub(crate) struct CliModels {
    pub run: RunOptions,
    /// Says on stderr when a session runs on the demo model (not under a full-screen UI, which
    /// shows the model in its header and whose screen a stray line would spoil).
    pub announce_demo: bool,
}

impl ModelSource for CliModels {
    fn for_new(&self) -> ModelRef {
        self.run.model.over(default_model())
    }

    fn for_existing(&self, recorded: Option<ModelRef>) -> ModelRef {
        self.run.model.for_existing(recorded, || self.for_new())
    }

    fn forced_questions(&self) -> Option<QuestionSettings> {
        self.run.forced_questions(saved_questions())
    }

    fn default_questions(&self) -> QuestionSettings {
        self.run.questions(saved_questions())
    }

    fn forced_plan_first(&self) -> Option<bool> {
        self.run.plan_first.then_some(true)
    }

    fn default_plan_first(&self) -> bool {
        false
    }

    fn forced_ptc(&self) -> Option<bool> {
        self.run.ptc.then_some(true)
    }

    fn default_ptc(&self) -> bool {
        false
    }

    fn provider(&self, model: &ModelRef) -> Result<Arc<dyn ModelProvider>, ModelError> {
        // A vendor's key goes only to that vendor's host (over https); other servers get none.
        let key = model.base_url.as_deref().and_then(env_key_for).map(|(key, _)| key);
        let built = hark_core::model::provider_for(model, key)?;
        if model.provider == ModelKind::Demo && self.announce_demo {
            eprintln!("hark: {DEMO_LABEL} (script {})", model.script.as_deref().unwrap_or(DEFAULT_DEMO_SCRIPT));
        }
        Ok(built)
    }
}

/// The task that renders an agent's stream; [`drain`] ends it.
pub(crate) struct Printer {
    task: tokio::task::JoinHandle<()>,
    done: tokio_util::sync::CancellationToken,
    /// Text to print once every event already sent is printed, acknowledged when printed.
    after: tokio::sync::mpsc::UnboundedSender<(&'static str, tokio::sync::oneshot::Sender<()>)>,
}

impl Printer {
    /// Prints `text` after everything the agent has sent so far: a prompt written by another task
    /// would otherwise land in the middle of the turn's last words.
    pub(crate) async fn say_after_events(&self, text: &'static str) {
        let (ack, printed) = tokio::sync::oneshot::channel();
        if self.after.send((text, ack)).is_ok() {
            let _ = printed.await;
        }
    }
}

/// Renders the agent's stream for a terminal until the stream closes or [`drain`] is called.
pub(crate) fn print_events(mut rx: tokio::sync::broadcast::Receiver<AgentEvent>, shown: Arc<Shown>) -> Printer {
    let done = tokio_util::sync::CancellationToken::new();
    let finished = done.clone();
    let (after, mut requests) =
        tokio::sync::mpsc::unbounded_channel::<(&'static str, tokio::sync::oneshot::Sender<()>)>();
    let task = tokio::spawn(async move {
        let mut at_line_start = true;
        loop {
            // Events already sent are printed before `done` or a prompt is heeded: the stream is
            // polled first.
            let event = tokio::select! {
                biased;
                event = rx.recv() => match event {
                    Ok(e) => e,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => break,
                },
                Some((text, ack)) = requests.recv() => {
                    // What the person types after a prompt ends its line.
                    say(text);
                    let _ = ack.send(());
                    continue;
                }
                _ = finished.cancelled() => break,
            };
            let line = |text: String, at_line_start: &mut bool| {
                let lead = if *at_line_start { "" } else { "\n" };
                say(&format!("{lead}{text}\n"));
                *at_line_start = true;
            };
            match event {
                AgentEvent::TextDelta { text, .. } => {
                    let text = safe_lines(&text);
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
                            ToolOutcome::Error { error } => format!("  · tool error {}", error_line(&error)),
                            ToolOutcome::Unknown => "  · tool outcome unknown".into(),
                        };
                        line(text, &mut at_line_start);
                    }
                    Event::ModelError { error } => {
                        if !at_line_start {
                            say("\n");
                            at_line_start = true;
                        }
                        eprintln!("hark: model error {}", error_line(&error));
                    }
                    Event::McpUnavailable { error, .. } => {
                        if !at_line_start {
                            say("\n");
                            at_line_start = true;
                        }
                        eprintln!("hark: {}", error_line(&error));
                    }
                    _ => {}
                },
                AgentEvent::TurnEnded { reason, .. } => {
                    if !at_line_start {
                        say("\n");
                        at_line_start = true;
                    }
                    if reason != TurnEndReason::Completed {
                        eprintln!("hark: turn ended ({reason})");
                    }
                }
                AgentEvent::Error { error, .. } => eprintln!("hark: {}", error_line(&error)),
                _ => {}
            }
        }
    });
    Printer { task, done, after }
}

/// Lets the printer show the events sent so far, then ends it: called once the agent is idle, so
/// nothing more is coming, and the command ends as soon as its work is done.
pub(crate) async fn drain(printer: Printer) {
    printer.done.cancel();
    let _ = printer.task.await;
}

/// Runs the agent until it is idle; Ctrl-C or stdin closing while a question waits aborts the turn
/// (pending questions get ASK_ABORTED) and everything recorded stays saved.
pub(crate) async fn run_until_idle(agent: &Agent, terminal: &Terminal) -> bool {
    tokio::select! {
        _ = agent.wait_idle() => true,
        _ = tokio::signal::ctrl_c() => { agent.abort(); agent.wait_idle().await; false }
        _ = terminal.eof.notified() => { agent.abort(); agent.wait_idle().await; false }
    }
}

/// The options `hark chat` and `hark tui` share.
pub(crate) struct ChatArgs {
    /// What every front door that runs sessions takes (parsed and applied in hark-core).
    pub run: RunOptions,
    /// `--mcp-config FILE`: these servers instead of the data directory's `mcp.json`.
    pub mcp_config: Option<PathBuf>,
    pub prompt: Option<String>,
}

/// The model choices the options make.
pub(crate) fn models(args: &ChatArgs) -> CliModels {
    CliModels { run: args.run.clone(), announce_demo: true }
}

/// The servers of `--mcp-config`, if given. A file named on the command line that cannot be read
/// is the person's mistake: it is reported and the command stops.
pub(crate) fn mcp_from(args: &ChatArgs) -> Result<Option<McpConfig>, ExitCode> {
    match &args.mcp_config {
        Some(path) if !path.is_file() => {
            Err(fail_msg("MCP_CONFIG_INVALID", format!("{}: no such file", path.display())))
        }
        Some(path) => McpConfig::load(path, &|name| std::env::var(name).ok()).map(Some).map_err(|e| fail(&e, 2)),
        None => Ok(None),
    }
}

/// The options of `hark chat` and `hark tui`. The ones every front door that runs sessions takes
/// (the app's launch options too) are checked and applied by [`RunOptions::take`].
#[derive(clap::Args)]
pub(crate) struct ChatFlags {
    /// Open this session (its id or a unique prefix) instead of starting one; PROMPT goes to it.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// The model: the scripted demo, or any OpenAI-compatible server.
    #[arg(long, value_name = "PROVIDER", value_parser = RunOptionValue::with_choices("--provider", providers))]
    provider: Option<String>,
    /// The OpenAI-compatible server's base URL.
    #[arg(long, value_name = "URL", value_parser = RunOptionValue::new("--base-url"))]
    base_url: Option<String>,
    /// The model's name on that server.
    #[arg(long, value_name = "NAME", value_parser = RunOptionValue::new("--model"))]
    model: Option<String>,
    /// The demo model's script.
    #[arg(long, value_name = "NAME", value_parser = RunOptionValue::with_choices("--script", demo_scripts))]
    script: Option<String>,
    /// Timed questions: the agent keeps working when one is not answered in time.
    #[arg(long)]
    timed: bool,
    /// The default wait of a timed question, in seconds (implies --timed; default 120).
    #[arg(long, value_name = "SECONDS", value_parser = RunOptionValue::new("--timeout"))]
    timeout: Option<String>,
    /// When a timed question runs out: keep working (default), wait (no timeout), or stop the turn
    /// until the answer.
    #[arg(long, value_name = "CHOICE", value_parser = RunOptionValue::with_choices("--on-timeout", on_timeout_choices))]
    on_timeout: Option<String>,
    /// Plan first: a plan review asks "approve? [y / your feedback]" before the agent writes.
    #[arg(long)]
    plan: bool,
    /// Programmatic tool calls: the agent writes scripts (run_code) that call the tools.
    #[arg(long)]
    ptc: bool,
    /// The folder a new session may read and write.
    #[arg(long, value_name = "DIR", value_parser = RunOptionValue::new("--workspace"))]
    workspace: Option<String>,
    /// MCP servers from FILE instead of <data dir>/mcp.json.
    #[arg(long, value_name = "FILE")]
    mcp_config: Option<PathBuf>,
    /// The first message (several words are joined with spaces).
    // Options may stand anywhere, also after the words, so a word that starts with `-` and is
    // not a number is read as an option: after `--` everything is the message (clap's error says so).
    #[arg(value_name = "PROMPT", allow_negative_numbers = true)]
    prompt: Vec<String>,
}

fn providers() -> Vec<&'static str> {
    [ModelKind::Demo, ModelKind::Openai].map(ModelKind::as_str).to_vec()
}

fn on_timeout_choices() -> Vec<&'static str> {
    OnTimeout::ALL.iter().map(OnTimeout::as_flag).collect()
}

impl ChatFlags {
    /// The run options as the core reads them. Every value was checked while parsing; a refusal
    /// here would still be reported as a usage mistake of `command`.
    pub(crate) fn into_args(self, command: &str) -> Result<ChatArgs, ExitCode> {
        let mut run = RunOptions::default();
        let valued = [
            ("--session", self.session),
            ("--provider", self.provider),
            ("--base-url", self.base_url),
            ("--model", self.model),
            ("--script", self.script),
            ("--timeout", self.timeout),
            ("--on-timeout", self.on_timeout),
            ("--workspace", self.workspace),
        ];
        let switches = [("--timed", self.timed), ("--plan", self.plan), ("--ptc", self.ptc)];
        let given = valued
            .into_iter()
            .filter_map(|(flag, value)| value.map(|v| (flag, v)))
            .chain(switches.into_iter().filter(|(_, on)| *on).map(|(flag, _)| (flag, String::new())));
        for (flag, value) in given {
            if let Err(problem) = run.take(flag, &mut || Ok(value.clone())) {
                return Err(crate::usage_error(command, &problem));
            }
        }
        let prompt = (!self.prompt.is_empty()).then(|| self.prompt.join(" "));
        Ok(ChatArgs { run, mcp_config: self.mcp_config, prompt })
    }
}

pub fn run(flags: ChatFlags) -> ExitCode {
    match flags.into_args("chat") {
        Ok(args) => on_runtime(chat(args)),
        Err(code) => code,
    }
}

/// Runs a command's work on a tokio runtime and returns its exit code. The runtime is not waited
/// for at the end: a thread reading stdin or the terminal may be blocked in read(2).
pub(crate) fn on_runtime(work: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => return fail_msg("RUNTIME", e.to_string()),
    };
    let code = runtime.block_on(work);
    runtime.shutdown_background();
    code
}

async fn chat(args: ChatArgs) -> ExitCode {
    let terminal = Terminal::stdin();
    let mcp = match mcp_from(&args) {
        Ok(mcp) => mcp,
        Err(code) => return code,
    };
    let host = match terminal.host(models(&args)) {
        Ok(h) => Arc::new(h),
        Err(code) => return code,
    };
    if let Some(config) = mcp {
        host.set_mcp_config(config);
    }
    if let Err(e) = serve(&host) {
        eprintln!("hark: no control socket for other terminals: {e}");
    }
    let _phone = phone(&host);
    match open_or_start(&host, &terminal, &args).await {
        Ok(Some((agent, events))) => converse(&host, &terminal, agent, events, args.prompt.is_some()).await,
        Ok(None) => {
            host.shutdown().await;
            ExitCode::SUCCESS
        }
        Err(e) => {
            host.shutdown().await;
            fail(&e, 1)
        }
    }
}

type Opened = (Arc<Agent>, tokio::sync::broadcast::Receiver<AgentEvent>);

/// The session `--session` names (sending the prompt to it), or a new one started with the prompt
/// (or, interactively, with the first line typed). `None`: stdin closed before anything was typed.
async fn open_or_start(host: &Host, terminal: &Terminal, args: &ChatArgs) -> Result<Option<Opened>, HostError> {
    if let Some(typed) = &args.run.session {
        let id = host.resolve(typed)?;
        let (agent, events) = host.open(&id)?;
        if let Some(prompt) = &args.prompt {
            agent.steer(prompt.clone())?;
        }
        return Ok(Some((agent, events)));
    }
    let first = match &args.prompt {
        Some(prompt) => prompt.clone(),
        None => match first_line(terminal).await {
            Some(line) => line,
            None => return Ok(None),
        },
    };
    let (id, events) = host.start_session(&first, args.run.workspace.clone())?;
    let agent = host.agent(&id).ok_or_else(|| HostError::NotFound(format!("session {id:?} is not open")))?;
    Ok(Some((agent, events)))
}

/// The first non-empty line typed, after a prompt.
async fn first_line(terminal: &Terminal) -> Option<String> {
    loop {
        say("> ");
        let line = tokio::select! {
            line = async { terminal.lines.lock().await.next().await } => line,
            _ = tokio::signal::ctrl_c() => None,
        }?;
        if !line.trim().is_empty() {
            return Some(line);
        }
    }
}

/// Streams the session to the terminal until it is idle (with a prompt) or stdin ends.
async fn converse(
    host: &Host,
    terminal: &Terminal,
    agent: Arc<Agent>,
    events: tokio::sync::broadcast::Receiver<AgentEvent>,
    one_shot: bool,
) -> ExitCode {
    eprintln!("hark: session {}", agent.session_id());
    let printer = print_events(events, Arc::clone(&terminal.shown));
    let finished =
        if one_shot { run_until_idle(&agent, terminal).await } else { interactive(&agent, terminal, &printer).await };
    drop(agent);
    host.shutdown().await;
    drain(printer).await;
    if !finished {
        eprintln!("hark: stopped; the session is saved");
    }
    ExitCode::SUCCESS
}

async fn interactive(agent: &Agent, terminal: &Terminal, printer: &Printer) -> bool {
    loop {
        if !run_until_idle(agent, terminal).await {
            return false;
        }
        printer.say_after_events("> ").await;
        let line = tokio::select! {
            line = async { terminal.lines.lock().await.next().await } => line,
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::ChatArgs;

    fn parse(line: &[&str]) -> Result<ChatArgs, String> {
        let cli = crate::Cli::try_parse_from(["hark", "chat"].iter().chain(line)).map_err(|e| e.to_string())?;
        match cli.command {
            crate::Command::Shown(crate::Shown::Chat(flags)) => flags.into_args("chat").map_err(|_| "refused".into()),
            _ => Err("not chat".into()),
        }
    }

    #[test]
    fn options_go_anywhere_and_words_make_the_prompt() {
        let args = parse(&["fix", "the", "flag", "--timed", "-5", "times", "--plan"]).unwrap();
        assert_eq!(args.prompt.as_deref(), Some("fix the flag -5 times"));
        assert!(args.run.timed && args.run.plan_first);
        let args = parse(&["--ptc", "--", "-v", "--timed", "means"]).unwrap();
        assert_eq!(args.prompt.as_deref(), Some("-v --timed means"));
        assert!(args.run.ptc && !args.run.timed);
        assert!(parse(&["fix", "-v"]).err().unwrap_or_default().contains("use '-- -v'"));
        let args = parse(&["--timeout", "30", "--session", "abc"]).unwrap();
        assert_eq!((args.run.timeout, args.run.timed, args.run.session.as_deref()), (Some(30), true, Some("abc")));
        assert_eq!(args.prompt, None);
        assert!(parse(&["hello", "--sesion", "x"]).err().unwrap_or_default().contains("'--session'"));
    }
}
