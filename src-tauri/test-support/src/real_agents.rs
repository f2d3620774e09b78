//! The real coding agents (Claude Code, the Codex CLI) as the tests run them: where `make test`
//! installed them (`tests/agents`, pinned), a home folder of their own set up the way a person's
//! is after first start, and an environment that keeps them offline and quiet (every request goes
//! to the scripted model server on 127.0.0.1, none anywhere else). Also a `hark chat` hosting the
//! data folder, which `hark mcp` forwards the agents' questions to, and the person answering with
//! `hark answer`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::pane::Pane;
use crate::vendor_models::VendorModel;

/// The API key the agents send the scripted model.
const MODEL_KEY: &str = "test";

/// How long an agent run may take at most: far above the seconds one takes, so only a hang fails.
pub const AGENT_RUN: Duration = Duration::from_secs(90);

fn agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents")
}

/// The installed agent's program (`claude` or `codex`); fails the test when it is not installed.
pub fn installed(program: &str) -> PathBuf {
    let path = agents_dir().join("node_modules/.bin").join(program);
    assert!(
        path.exists(),
        "the real agents are not installed: run `make real-agents` (part of `make test`), which runs `npm ci` in {}",
        agents_dir().display()
    );
    path
}

/// A person's machine in miniature: a home folder, a project folder and Hark's data folder.
pub struct Machine {
    _root: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    pub data: PathBuf,
}

impl Machine {
    pub fn new() -> Machine {
        let root = tempfile::tempdir().expect("a temporary folder");
        let base = root.path().canonicalize().expect("the temporary folder's real path");
        let (home, project, data) = (base.join("home"), base.join("project"), base.join("data"));
        for dir in [&home, &project, &data] {
            std::fs::create_dir_all(dir).expect("create a folder");
        }
        Machine { _root: root, home, project, data }
    }

    /// The project folder's name, as Hark names a client's session after it.
    pub fn folder(&self) -> String {
        self.project.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Claude Code after its first start: onboarding done, the API key approved and the project
    /// folder trusted, which a person does once in its first screens.
    pub fn claude_first_start(&self) {
        let state = serde_json::json!({
            "hasCompletedOnboarding": true,
            // Claude Code keeps the last 20 characters of each key the person approved.
            "customApiKeyResponses": { "approved": [MODEL_KEY], "rejected": [] },
            "projects": { self.project.display().to_string(): {
                "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
            } },
        });
        std::fs::write(self.home.join(".claude.json"), format!("{state:#}\n")).expect("write ~/.claude.json");
    }

    /// Claude Code set to ask before tool calls its settings do not allow: it starts in auto mode,
    /// where its own classifier (a model call) decides most of them, so a person who wants to be
    /// asked chooses the default mode, as here (after `hark setup`, which keeps it).
    pub fn claude_asks_permission(&self) {
        let path = self.home.join(".claude/settings.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "{}".into());
        let mut settings: serde_json::Value = serde_json::from_str(&text).expect("settings.json is JSON");
        settings["permissions"]["defaultMode"] = serde_json::json!("default");
        std::fs::create_dir_all(self.home.join(".claude")).expect("~/.claude");
        std::fs::write(&path, format!("{settings:#}\n")).expect("write settings.json");
    }

    /// Codex with the scripted model as its provider, speaking the Responses API. Plugins and
    /// analytics are off: with them on, Codex looks up github.com and chatgpt.com at start (the
    /// curated plugin catalogue, analytics events), which a test must not reach.
    pub fn codex_first_start(&self, model: &VendorModel) {
        let config = format!(
            r#"model = "scripted-model"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "Scripted"
base_url = "{}"
wire_api = "responses"
env_key = "HARK_TEST_MODEL_KEY"

[features]
plugins = false

[analytics]
enabled = false
"#,
            model.base_url()
        );
        let dir = self.home.join(".codex");
        std::fs::create_dir_all(&dir).expect("create ~/.codex");
        std::fs::write(dir.join("config.toml"), config).expect("write ~/.codex/config.toml");
    }

    /// A command with only what this machine gives every program: the agents see none of the test
    /// runner's own variables (a real `ANTHROPIC_API_KEY`, `CODEX_HOME`, `CLAUDE_CONFIG_DIR`).
    pub fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("HARK_DATA_DIR", &self.data)
            // Were `hark mcp` to find no host and start the app, none would answer: fail loudly.
            .env("HARK_DESKTOP", "/nonexistent/hark-desktop")
            .current_dir(&self.project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// `hark ARGS` on this machine, run to its end.
    pub fn hark(&self, hark: &Path, args: &[&str]) -> Output {
        self.command(hark).args(args).output().expect("run hark")
    }

    /// `claude -p PROMPT` offline against `model` (see [`claude_env`](Self::claude_env)).
    pub fn claude(&self, model: &VendorModel, prompt: &str) -> Command {
        let mut command = self.command(&installed("claude"));
        command.args(["-p", prompt]).envs(self.claude_env(model));
        command
    }

    /// What Claude Code runs offline with against `model`, besides [`command`](Self::command)'s:
    /// its non-essential traffic (telemetry, error reports, update checks) and its marketplace
    /// install are off.
    pub fn claude_env(&self, model: &VendorModel) -> Vec<(String, String)> {
        [
            ("ANTHROPIC_BASE_URL", model.base_url()),
            ("ANTHROPIC_API_KEY", MODEL_KEY.to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
            ("CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL", "1".to_string()),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .to_vec()
    }

    /// Claude Code's interactive screen with `prompt` typed, in a terminal of its own (tmux): what
    /// a person runs, and where its own question tool (`AskUserQuestion`) is offered. `name` tells
    /// the test's terminals apart.
    pub fn claude_screen(&self, name: &'static str, model: &VendorModel, prompt: &str) -> Pane {
        self.screen(name, "claude", self.claude_env(model), &[prompt])
    }

    /// Codex's interactive screen, as a person starts it (`codex` in the project folder), but
    /// with `--no-daemon`: by default the screen hands its work to a background app server that
    /// Codex copies into `~/.codex/packages` and leaves running after the screen quits (with an
    /// updater loop beside it), which a test must not leave behind. The hooks and MCP servers run
    /// the same way in the screen's own app server.
    pub fn codex_screen(&self, name: &'static str) -> Pane {
        self.screen(name, "codex", vec![("HARK_TEST_MODEL_KEY".into(), MODEL_KEY.into())], &["--no-daemon"])
    }

    /// Codex's terminal with `prompt` sent as the person's first message, after the person trusted
    /// every hook in the review Codex shows at start (Hark's among them).
    pub fn codex_turn_with_hooks_trusted(&self, name: &'static str, prompt: &str) -> Pane {
        let mut screen = self.codex_screen(name);
        screen.wait_for("Trust all and continue", "hook-review");
        codex_trust_all(&mut screen);
        screen.wait_for("Ask Codex to do anything", "trusted");
        screen.type_text(prompt);
        // The end of the prompt: a long one wraps on the screen.
        let tail: String = prompt.chars().rev().take(16).collect::<Vec<_>>().into_iter().rev().collect();
        screen.wait_for(&tail, "typed");
        screen.keys(&["Enter"]);
        screen
    }

    /// `program ARGS` in a terminal of its own, with [`command`](Self::command)'s environment and `env`.
    fn screen(&self, name: &'static str, program: &str, env: Vec<(String, String)>, args: &[&str]) -> Pane {
        let mut line = format!("cd {} && env -i", quote(&self.project.display().to_string()));
        let mut all = vec![
            ("PATH".to_string(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".to_string(), self.home.display().to_string()),
            ("LANG".to_string(), "C.UTF-8".to_string()),
            ("TERM".to_string(), "xterm-256color".to_string()),
            ("HARK_DATA_DIR".to_string(), self.data.display().to_string()),
            ("HARK_DESKTOP".to_string(), "/nonexistent/hark-desktop".to_string()),
        ];
        all.extend(env);
        for (key, value) in all {
            line.push_str(&format!(" {key}={}", quote(&value)));
        }
        line.push_str(&format!(" {}", quote(&installed(program).display().to_string())));
        for arg in args {
            line.push_str(&format!(" {}", quote(arg)));
        }
        Pane::run(name, &line, captures())
    }

    /// `codex exec PROMPT` against the provider [`codex_first_start`](Self::codex_first_start) wrote.
    pub fn codex(&self, prompt: &str) -> Command {
        let mut command = self.command(&installed("codex"));
        command.args(["exec", "--skip-git-repo-check", prompt]).env("HARK_TEST_MODEL_KEY", MODEL_KEY);
        command
    }
}

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

/// Runs `command` to its end on a thread, so the test's runtime goes on serving the model server.
/// A run longer than [`AGENT_RUN`] is killed (by its pid) and fails the test.
pub async fn finish(mut command: Command) -> Output {
    let child = command.spawn().expect("start the agent");
    tokio::task::spawn_blocking(move || wait_bounded(child)).await.expect("the agent's waiter")
}

/// Starts `command` now and returns a handle that waits for it (bounded) on a thread.
pub fn start(mut command: Command) -> tokio::task::JoinHandle<Output> {
    let child = command.spawn().expect("start the agent");
    tokio::task::spawn_blocking(move || wait_bounded(child))
}

fn wait_bounded(mut child: Child) -> Output {
    let started = Instant::now();
    loop {
        match child.try_wait().expect("the agent's status") {
            Some(_) => return child.wait_with_output().expect("the agent's output"),
            None if started.elapsed() > AGENT_RUN => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("the agent's output");
                panic!(
                    "the agent ran over {AGENT_RUN:?}; stdout:\n{}\nstderr:\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// `hark chat` hosting the machine's data folder, waiting at its prompt with stdin open: its
/// control socket is what `hark mcp` forwards questions to and `hark answer` answers through.
/// Closing stdin ends it.
pub struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Host {
    pub fn start(machine: &Machine, hark: &Path, args: &[&str]) -> Host {
        Host::start_with_env(machine, hark, args, &[])
    }

    /// [`start`](Self::start) with `env` set for `hark chat` too (a phone relay's token, say).
    pub fn start_with_env(machine: &Machine, hark: &Path, args: &[&str], env: &[(&str, &str)]) -> Host {
        let mut child = machine
            .command(hark)
            .arg("chat")
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .spawn()
            .expect("run hark chat");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("hark chat's stdout");
        // The prompt comes once the host serves its socket; read on a thread, so the wait is bounded.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            let mut byte = [0u8; 1];
            while let Ok(1) = stdout.read(&mut byte) {
                seen.push(byte[0]);
                if seen.ends_with(b"> ") {
                    let _ = tx.send(());
                }
            }
        });
        let prompt = rx.recv_timeout(Duration::from_secs(30));
        assert!(prompt.is_ok(), "hark chat never came to its prompt");
        Host { child, stdin }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let started = Instant::now();
        while matches!(self.child.try_wait(), Ok(None)) {
            if started.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.wait();
    }
}

/// An open question of an outside agent, as Hark holds it.
#[derive(Debug, Clone)]
pub struct Asked {
    pub session: String,
    pub title: String,
    pub call_id: String,
    pub question: Value,
}

/// Waits (bounded) until a session of the data folder holds a question waiting for its answer: open,
/// or continued after its timeout. Polls `hark
/// sessions` and `hark questions`: the question is asked by other processes (the agent's `hark
/// mcp` through the host), which emit nothing this test could wait on.
pub async fn open_question(machine: &Machine, hark: &Path) -> Asked {
    let started = Instant::now();
    loop {
        let listed = json_of(&machine.hark(hark, &["sessions", "--json"]));
        for session in listed.as_array().into_iter().flatten() {
            let id = session["id"].as_str().unwrap_or_default();
            let questions = json_of(&machine.hark(hark, &["questions", id, "--json"]));
            if let Some(q) =
                questions.as_array().into_iter().flatten().find(|q| q["state"] == "open" || q["state"] == "continued")
            {
                return Asked {
                    session: id.to_string(),
                    title: session["title"].as_str().unwrap_or_default().to_string(),
                    call_id: q["call_id"].as_str().unwrap_or_default().to_string(),
                    question: q.clone(),
                };
            }
        }
        assert!(started.elapsed() < AGENT_RUN, "no question reached Hark within {AGENT_RUN:?}: {listed}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The person answers in the terminal: `hark answer SESSION CALL_ID ANSWERS`.
pub fn answer(machine: &Machine, hark: &Path, asked: &Asked, answers: &Value) {
    let out = machine.hark(hark, &["answer", &asked.session, &asked.call_id, &answers.to_string()]);
    assert!(
        out.status.success(),
        "hark answer failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The questions of a session, as `hark questions --json` lists them.
pub fn questions(machine: &Machine, hark: &Path, session: &str) -> Value {
    json_of(&machine.hark(hark, &["questions", session, "--json"]))
}

/// The person allows `asked` (an approval) after it stopped waiting: `hark answer` exits 3
/// (`NOT_PENDING`) saying nothing was allowed, and nothing is: `marker` (what the command would
/// write) stays absent and the model, still waiting on the agent's own prompt, is not asked again.
pub async fn a_late_allow_allows_nothing(
    machine: &Machine,
    hark: &Path,
    asked: &Asked,
    marker: &Path,
    model: &VendorModel,
) {
    let allow = serde_json::json!({ "answers": [{ "id": "approval", "selected": ["Allow once"] }] });
    let out = machine.hark(hark, &["answer", &asked.session, &asked.call_id, &allow.to_string()]);
    assert_eq!(out.status.code(), Some(3), "NOT_PENDING: {}", said(&out));
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("no longer waiting") && told.contains("nothing was allowed"), "{told}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!marker.exists(), "a late tap allows nothing");
    assert_eq!(model.turns().len(), 1, "the model still waits on the agent's own prompt");
}

/// Pairs the machine's Hark with the Telegram account `person` on the emulator, as a person does:
/// `hark phone pair` prints a `/start CODE` line, the person sends it to the bot, and the command
/// exits once paired.
pub async fn pair_phone(
    machine: &Machine,
    hark: &Path,
    emulator: &crate::telegram::Emulator,
    token: &str,
    person: i64,
) {
    let mut pair = machine
        .command(hark)
        .args(["phone", "pair", "--delay", "0", "--api-url", &emulator.url])
        .env("HARK_TELEGRAM_TOKEN", token)
        .spawn()
        .expect("run hark phone pair");
    // Its output is read to the end: a closed pipe would end it before it says it paired.
    let stdout = pair.stdout.take().expect("stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let start = tokio::task::spawn_blocking(move || loop {
        let line = lines.recv_timeout(Duration::from_secs(30)).expect("the /start line");
        if line.starts_with("/start ") {
            break line;
        }
    })
    .await
    .expect("the reader");
    emulator.person(token, person, "ada").send(&start).await;
    let paired = tokio::task::spawn_blocking(move || pair.wait_with_output()).await.expect("waiter").expect("pair");
    assert!(paired.status.success(), "hark phone pair exits once paired: {}", said(&paired));
}

/// Waits (bounded) until `hark questions` lists nothing waiting in `session`; what it listed then.
pub async fn nothing_waits(machine: &Machine, hark: &Path, session: &str) -> Value {
    let started = std::time::Instant::now();
    loop {
        let listed = questions(machine, hark, session);
        let waiting =
            listed.as_array().into_iter().flatten().any(|q| q["state"] == "open" || q["state"] == "continued");
        if !waiting {
            return listed;
        }
        assert!(started.elapsed() < AGENT_RUN, "a question still waits: {listed}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// An agent's output, for a failure message.
pub fn said(out: &Output) -> String {
    format!("stdout:\n{}\nstderr:\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `text` as one POSIX shell word.
fn quote(text: &str) -> String {
    crate::pane::quote(Path::new(text))
}

/// Claude Code's own question tool's input, as its model sends it: one single-choice question.
pub fn claude_own_question() -> Value {
    serde_json::json!({ "questions": [{ "question": "Which database?", "header": "Database", "multiSelect": false,
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres", "description": "server" }] }] })
}

/// What Codex's model read of an MCP tool call, from the text Codex hands it: the JSON after its
/// "Output:" line.
pub fn codex_output(text: &str) -> Value {
    let (_, output) = text.split_once("Output:\n").unwrap_or(("", text));
    serde_json::from_str(output).unwrap_or_else(|e| panic!("not one JSON value ({e}): {text}"))
}

/// Chooses "Trust all and continue" in the review Codex shows at start. A key sent while the review
/// is still drawing is lost, so the choice is pressed until the screen shows it chosen, then
/// confirmed.
pub fn codex_trust_all(screen: &mut Pane) {
    let started = Instant::now();
    while !screen.screen().contains("› 2. Trust all and continue") {
        assert!(started.elapsed() < AGENT_RUN, "the review never showed its choice: {}", screen.screen());
        screen.keys(&["2"]);
        std::thread::sleep(Duration::from_millis(300));
    }
    screen.keys(&["Enter"]);
}

/// Where the real agents' screens, and what they sent, are kept for whoever reads the run.
pub fn captures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/agent-screens")
}

/// What an agent sent a hook whose command `tee`d its input to `path`, each event on a line.
pub fn captured(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    serde_json::Deserializer::from_str(&text).into_iter::<Value>().filter_map(Result::ok).collect()
}

/// Keeps what the real client sent a hook beside the screens, as `<name>.<hook>.json`, for whoever
/// reads the run.
pub fn keep(name: &str, hook: &str, events: &[Value]) {
    let dir = captures();
    let _ = std::fs::create_dir_all(&dir);
    let text: String = events.iter().map(|e| format!("{e:#}\n")).collect();
    let _ = std::fs::write(dir.join(format!("{name}.{hook}.json")), text);
}

/// The Python interpreter with the official `mcp` SDK (`make test` installs it in
/// `tests/mcp/.venv`) and `tests/mcp/elicit_server.py`, the MCP server that asks through forms.
pub fn elicit_server() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp");
    let python = dir.join(".venv/bin/python");
    assert!(python.exists(), "the Python MCP SDK is not installed: run `make test` (it makes {})", python.display());
    (python, dir.join("elicit_server.py"))
}
