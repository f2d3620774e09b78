//! `hark tui [same options as hark chat]`: the terminal front door as a full-screen UI (ratatui on
//! crossterm). The transcript streams above a composer; a question of any session takes the
//! composer's place as an overlay with the window panel's keys (see [`overlay`]), one at a time, the
//! rest counted; `h` hides it and Tab brings back a hidden one or answers a continued one late; a
//! timed question counts down and `t` takes your time. Ctrl-O lists the sessions with their waiting
//! questions (Enter opens one, `n` starts a new one). Ctrl-C stops the running turn, and quits when
//! none runs (or when pressed again), with the same quit as every front door ([`Host::shutdown`]).
//!
//! It hosts the data directory itself, as `hark chat` does.

mod overlay;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::agent::AgentEvent;
use hark_core::error::CodedError;
use hark_core::host::{AnswerPath, Host};
use hark_core::service::{ContinuedQuestion, ForwardingProvider, InteractionRequest, Takeover};
use hark_core::session::{SessionSummary, Transcript};
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tokio::sync::{broadcast, mpsc};

use crate::chat::{self, chosen_dir, fail, fail_msg, ChatArgs};
use overlay::{Action, Key, Overlay};

/// How many of the newest turns the screen reads (older ones are in `hark show`).
const TURNS_SHOWN: usize = 20;

pub fn run(args: &[String]) -> ExitCode {
    let args = match chat::parse(args) {
        Ok(a) => a,
        Err(problem) => return crate::usage_error(&problem),
    };
    chat::on_runtime(tui(args))
}

async fn tui(args: ChatArgs) -> ExitCode {
    let dir = match chosen_dir() {
        Ok(dir) => dir,
        Err(code) => return code,
    };
    let mcp = match chat::mcp_from(&args) {
        Ok(mcp) => mcp,
        Err(code) => return code,
    };
    let (surface, requests) = ForwardingProvider::new();
    let models = chat::CliModels { announce_demo: false, ..chat::models(&args) };
    let host = match Host::start(&dir, Arc::new(surface), Arc::new(models)) {
        Ok(host) => Arc::new(host),
        Err(e) => return fail(&e, 1),
    };
    if let Some(config) = mcp {
        host.set_mcp_config(config);
    }
    let mut screen = Screen::new(Arc::clone(&host), args.workspace.clone());
    let opened = match &args.session {
        Some(typed) => host.resolve(typed).and_then(|id| screen.show(&id)),
        None => Ok(()),
    };
    let started = match (&args.prompt, opened) {
        (_, Err(e)) => Err(e),
        (Some(prompt), Ok(())) => screen.send(prompt),
        (None, Ok(())) => Ok(()),
    };
    if let Err(e) = started {
        host.shutdown().await;
        return fail(&e, 1);
    }
    let mut terminal = ratatui::init();
    let ran = screen.run(&mut terminal, requests).await;
    ratatui::restore();
    host.shutdown().await;
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail_msg("TERMINAL", e.to_string()),
    }
}

/// A question on screen: the overlay, and what the host gave it.
struct Shown {
    session_id: String,
    overlay: Overlay,
    /// Held while a timed question is shown, so the host's deadline waits for this screen's.
    takeover: Option<Takeover>,
    /// When this screen's countdown runs out (`None`: blocking, continued, or taking your time).
    deadline: Option<Instant>,
}

pub(crate) struct Screen {
    host: Arc<Host>,
    workspace: Option<PathBuf>,
    session: Option<String>,
    events: Option<broadcast::Receiver<AgentEvent>>,
    transcript: Option<Transcript>,
    /// Assistant text streaming in now.
    streaming: String,
    busy: bool,
    /// Every session's foreground questions, oldest first; the first not hidden is shown.
    waiting: Vec<InteractionRequest>,
    /// The shown session's continued questions.
    continued: Vec<ContinuedQuestion>,
    shown: Option<Shown>,
    /// Questions (session, call) the person hid (`h`): not shown again by themselves.
    hidden: std::collections::HashSet<(String, String)>,
    /// The sessions list (Ctrl-O), with the highlighted row.
    picker: Option<usize>,
    sessions: Vec<SessionSummary>,
    composer: String,
    /// What the last action said (an error's code, how to quit).
    status: Option<String>,
    /// Ctrl-C was pressed once: a second quits.
    quit_armed: bool,
    no_color: bool,
}

impl Screen {
    fn new(host: Arc<Host>, workspace: Option<PathBuf>) -> Screen {
        Screen {
            host,
            workspace,
            session: None,
            events: None,
            transcript: None,
            streaming: String::new(),
            busy: false,
            waiting: Vec::new(),
            continued: Vec::new(),
            shown: None,
            hidden: std::collections::HashSet::new(),
            picker: None,
            sessions: Vec::new(),
            composer: String::new(),
            status: None,
            quit_armed: false,
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        }
    }

    /// Follows `session`: its agent is made live and its questions read.
    fn show(&mut self, session: &str) -> Result<(), hark_core::host::HostError> {
        self.events = Some(self.host.activate(session)?);
        self.session = Some(session.to_string());
        self.busy = self.host.is_busy(session);
        self.streaming.clear();
        self.reread();
        self.refresh_questions();
        Ok(())
    }

    /// Back to an empty composer: the next message starts a new session.
    fn new_session(&mut self) {
        self.session = None;
        self.events = None;
        self.transcript = None;
        self.streaming.clear();
        self.busy = false;
        self.refresh_questions();
    }

    /// A message from the composer: the session's first (starting it), or the next.
    fn send(&mut self, text: &str) -> Result<(), hark_core::host::HostError> {
        match &self.session {
            Some(session) => self.host.send(session, text),
            None => {
                let (id, events) = self.host.start_session(text, self.workspace.clone())?;
                self.events = Some(events);
                self.session = Some(id);
                self.busy = true;
                self.reread();
                Ok(())
            }
        }
    }

    fn reread(&mut self) {
        if let Some(session) = &self.session {
            if let Ok(transcript) = self.host.transcript(session, Some(TURNS_SHOWN)) {
                self.transcript = Some(transcript);
            }
        }
    }

    /// Reads the session's questions again: the shown one closes when it was settled elsewhere,
    /// and the next waiting one is shown.
    fn refresh_questions(&mut self) {
        self.waiting = self.host.service().foreground(None);
        self.continued = self.session.as_deref().map(|s| self.host.pending(s).continued).unwrap_or_default();
        self.sessions = self.host.store().list_sessions().unwrap_or_default();
        let waiting: Vec<(String, String)> = self.waiting.iter().map(key_of).collect();
        self.hidden.retain(|asked| waiting.contains(asked));
        let still_asked = |shown: &Shown| {
            let (session, call) = (&shown.session_id, &shown.overlay.call_id);
            if shown.overlay.late {
                self.session.as_ref() == Some(session)
                    && self.continued.iter().any(|q| q.call_id == *call && q.reply_queued.is_none())
            } else {
                waiting.iter().any(|(s, c)| s == session && c == call)
            }
        };
        if self.shown.as_ref().is_some_and(|s| !still_asked(s)) {
            self.shown = None;
        }
        if self.shown.is_none() {
            if let Some(request) = self.waiting.iter().find(|r| !self.hidden.contains(&key_of(r))).cloned() {
                self.shown = Some(self.present(&request));
            }
        }
    }

    fn present(&self, request: &InteractionRequest) -> Shown {
        let timed = request.wait.is_some();
        let overlay = Overlay::new(&request.call_id, request.questions.clone(), timed, false);
        let session_id = request.session_id.clone();
        if !timed {
            return Shown { session_id, overlay, takeover: None, deadline: None };
        }
        // Shown means taken over: the host waits, and this screen's countdown decides.
        match self.host.service().attach(&session_id, &request.call_id) {
            Ok(attached) => {
                let left = Duration::from_millis(attached.remaining_ms.unwrap_or(0));
                Shown { session_id, overlay, takeover: Some(attached.takeover), deadline: Some(Instant::now() + left) }
            }
            Err(_) => Shown { session_id, overlay, takeover: None, deadline: None },
        }
    }

    /// The title of a session, as the list shows it.
    fn title_of(&self, session: &str) -> String {
        self.sessions.iter().find(|s| s.id == session).map(|s| s.title.clone()).unwrap_or_default()
    }

    async fn run(
        &mut self,
        terminal: &mut ratatui::DefaultTerminal,
        mut requests: mpsc::UnboundedReceiver<InteractionRequest>,
    ) -> std::io::Result<()> {
        let (keys_tx, mut keys) = mpsc::unbounded_channel();
        // crossterm's reads block; a thread of their own hands them over.
        std::thread::spawn(move || {
            while let Ok(event) = ratatui::crossterm::event::read() {
                if keys_tx.send(event).is_err() {
                    break;
                }
            }
        });
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        // Every session's questions: one asked, answered elsewhere or run out closes or opens an overlay.
        let mut questions = self.host.service().subscribe();
        loop {
            terminal.draw(|frame| view::draw(frame, self))?;
            tokio::select! {
                event = keys.recv() => match event {
                    Some(TermEvent::Key(key)) if key.kind != KeyEventKind::Release => {
                        if self.on_key(key) {
                            return Ok(());
                        }
                    }
                    Some(_) => {}
                    None => return Ok(()),
                },
                event = next_event(&mut self.events) => self.on_agent(event),
                Some(_) = requests.recv() => self.refresh_questions(),
                _ = questions.recv() => {
                    self.refresh_questions();
                    self.reread();
                }
                _ = tick.tick() => self.on_tick(),
            }
        }
    }

    fn on_agent(&mut self, event: Option<AgentEvent>) {
        match event {
            Some(AgentEvent::TextDelta { text, .. }) => self.streaming.push_str(&text),
            Some(AgentEvent::TurnStarted { .. }) => self.busy = true,
            Some(AgentEvent::TurnEnded { .. }) => {
                self.busy = false;
                self.streaming.clear();
                self.reread();
            }
            Some(AgentEvent::EventAppended { event }) => {
                if matches!(event.event, hark_core::session::Event::AssistantMessage { .. }) {
                    self.streaming.clear();
                }
                self.reread();
            }
            // The service's own stream (every session's) refreshes the questions; this is its copy.
            Some(AgentEvent::Question { .. }) => {}
            Some(AgentEvent::Error { error, .. }) => self.status = Some(format!("{}: {}", error.code, error.message)),
            Some(AgentEvent::Transcript { .. } | AgentEvent::ReasoningDelta { .. }) => {}
            // The stream lagged: read the session again.
            None => {
                self.reread();
                self.refresh_questions();
            }
        }
    }

    fn on_tick(&mut self) {
        let ran_out = self.shown.as_ref().and_then(|s| s.deadline).is_some_and(|d| Instant::now() >= d);
        if !ran_out {
            return;
        }
        if let Some(shown) = self.shown.take() {
            // The question goes on without an answer; its row answers it late.
            if let Err(e) = self.host.expire(&shown.session_id, &shown.overlay.call_id) {
                self.status = Some(e.boundary().code);
            }
            self.refresh_questions();
        }
    }

    /// A key; true to quit.
    fn on_key(&mut self, key: KeyEvent) -> bool {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return self.on_ctrl_c();
        }
        self.quit_armed = false;
        if key.code == KeyCode::Char('o') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.picker = Some(0);
            self.refresh_questions();
            return false;
        }
        let Some(key) = overlay_key(key) else { return false };
        if self.picker.is_some() {
            self.picker_key(key);
        } else if self.shown.is_some() {
            self.overlay_key(key);
        } else {
            self.composer_key(key);
        }
        false
    }

    /// The sessions list: arrows move, Enter opens, `n` starts a new session, Esc goes back.
    fn picker_key(&mut self, key: Key) {
        let Some(row) = self.picker else { return };
        let rows = self.sessions.len();
        match key {
            Key::Up if rows > 0 => self.picker = Some((row + rows - 1) % rows),
            Key::Down if rows > 0 => self.picker = Some((row + 1) % rows),
            Key::Esc => self.picker = None,
            Key::Char('n') => {
                self.picker = None;
                self.new_session();
            }
            Key::Enter => {
                self.picker = None;
                if let Some(id) = self.sessions.get(row).map(|s| s.id.clone()) {
                    if let Err(e) = self.show(&id) {
                        self.status = Some(format!("{}: {}", e.boundary().code, e.boundary().message));
                    }
                }
            }
            _ => {}
        }
    }

    /// Ctrl-C stops the running turn; with none running (or pressed again) it quits.
    fn on_ctrl_c(&mut self) -> bool {
        let stopped = !self.quit_armed && self.session.as_deref().is_some_and(|s| self.host.abort(s));
        if stopped {
            self.quit_armed = true;
            self.status = Some("Stopped. Ctrl-C again quits.".into());
            return false;
        }
        true
    }

    fn overlay_key(&mut self, key: Key) {
        let Some(shown) = self.shown.as_mut() else { return };
        let (session, call_id) = (shown.session_id.clone(), shown.overlay.call_id.clone());
        // `h` hides the question unanswered (Tab brings it back); typed, it is a letter.
        if key == Key::Char('h') && shown.overlay.typing.is_none() {
            if !shown.overlay.late {
                self.hidden.insert((session, call_id));
            }
            self.shown = None;
            self.refresh_questions();
            return;
        }
        match shown.overlay.key(key) {
            Action::None => {}
            Action::TakeTime => {
                shown.deadline = None;
                self.status = Some("Taking your time: no countdown while this question is shown.".into());
            }
            Action::Close => {
                let late = shown.overlay.late;
                self.shown = None;
                // A continued question stays answerable from its row; a waiting one is closed.
                if !late {
                    if let Err(e) = self.host.cancel(&session, &call_id) {
                        self.status = Some(e.boundary().code);
                    }
                }
                self.refresh_questions();
            }
            Action::Submit(batch) => {
                let path = if shown.overlay.late { AnswerPath::Late } else { AnswerPath::Foreground };
                match self.host.answer_and_admit(&session, &call_id, batch, Some(path)) {
                    Ok(_) => {
                        self.shown = None;
                        self.status = None;
                    }
                    // Nothing typed is lost: the overlay stays with its drafts, saying why.
                    Err(e) => {
                        let error = e.boundary();
                        shown.overlay.notice = Some(format!("{}: {}", error.code, error.message));
                    }
                }
                self.refresh_questions();
            }
        }
    }

    fn composer_key(&mut self, key: Key) {
        match key {
            Key::Char(c) => self.composer.push(c),
            Key::Backspace => {
                self.composer.pop();
            }
            Key::Enter => {
                let text = self.composer.trim().to_string();
                if text.is_empty() {
                    return;
                }
                match self.send(&text) {
                    Ok(()) => {
                        self.composer.clear();
                        self.status = None;
                    }
                    Err(e) => self.status = Some(format!("{}: {}", e.boundary().code, e.boundary().message)),
                }
            }
            // Tab brings back a hidden question, else answers the oldest continued one, late.
            Key::Tab => {
                if let Some(request) = self.waiting.iter().find(|r| self.hidden.contains(&key_of(r))).cloned() {
                    self.hidden.remove(&key_of(&request));
                    self.shown = Some(self.present(&request));
                } else if let (Some(session), Some(question)) =
                    (self.session.clone(), self.continued.iter().find(|q| q.reply_queued.is_none()).cloned())
                {
                    let overlay = Overlay::new(&question.call_id, question.questions, false, true);
                    self.shown = Some(Shown { session_id: session, overlay, takeover: None, deadline: None });
                }
            }
            _ => {}
        }
    }
}

fn key_of(request: &InteractionRequest) -> (String, String) {
    (request.session_id.clone(), request.call_id.clone())
}

async fn next_event(events: &mut Option<broadcast::Receiver<AgentEvent>>) -> Option<AgentEvent> {
    match events {
        Some(rx) => loop {
            match rx.recv().await {
                Ok(event) => return Some(event),
                Err(broadcast::error::RecvError::Lagged(_)) => return None,
                // The agent is gone (the host is quitting): nothing more comes.
                Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
            }
        },
        None => std::future::pending().await,
    }
}

fn overlay_key(key: KeyEvent) -> Option<Key> {
    Some(match key.code {
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        _ => return None,
    })
}
