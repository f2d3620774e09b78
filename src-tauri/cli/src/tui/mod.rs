//! `hark tui [same options as hark chat]`: the terminal front door as a full-screen UI (ratatui on
//! crossterm). The transcript streams above a composer; a question of any session takes the
//! composer's place as an overlay with the window panel's keys (see [`overlay`]), one at a time, the
//! rest counted; `h` hides it and Tab brings back a hidden one or answers a continued one late; a
//! timed question counts down and `t` takes your time. Ctrl-O lists the sessions with their waiting
//! questions (Enter opens one, `n` starts a new one). Ctrl-C stops the running turn, and quits when
//! none runs (or when pressed again), with the same quit as every front door ([`Host::shutdown`]).
//!
//! While the desktop app runs, it works the app's sessions through the app's control socket (the
//! first valid answer wins across window, notification and terminal); otherwise it hosts the data
//! directory itself, as `hark chat` does, and takes over when the app it worked through quits.

mod backend;
mod overlay;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::agent::AgentEvent;
use hark_core::error::BoundaryError;
use hark_core::host::{AnswerPath, Host, WorkingChoices};
use hark_core::question::Countdown;
use hark_core::service::{next_to_show, questions_view, ContinuedQuestion, ForwardingProvider, InteractionRequest};
use hark_core::session::{SessionSummary, Transcript};
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tokio::sync::mpsc;

use crate::chat::{self, chosen_dir, fail, fail_msg, ChatArgs};
use backend::{Follow, Update};
use hark_core::front_door::{FrontDoor, Hold, InProcess, Remote, Start};
use overlay::{Action, Draft, Key, Overlay};

/// How many of the newest turns the screen reads (older ones are in `hark show`).
const TURNS_SHOWN: usize = 20;

pub fn run(flags: chat::ChatFlags) -> ExitCode {
    match flags.into_args("tui") {
        Ok(args) => chat::on_runtime(tui(args)),
        Err(code) => code,
    }
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
    let choices = WorkingChoices { plan_first: args.run.plan_first.then_some(true), ptc: args.run.ptc.then_some(true) };
    // While the app runs, this terminal is one more of its surfaces; otherwise it hosts the directory.
    let mut screen = match Remote::running(&dir).await {
        Some(app) => Screen::new(Arc::new(app), args.run.workspace.clone(), choices),
        None => match host_here(&dir, &args, mcp) {
            Ok(host) => Screen::new(Arc::new(InProcess::new(host)), args.run.workspace.clone(), choices),
            Err(e) => return fail(&e, 1),
        },
    };
    let status = screen.door.is_remote().then(|| app_notice(&args)).flatten();
    screen.status = status;
    let opened = screen.show(args.run.session.as_deref()).await;
    let started = match (&args.prompt, opened) {
        (_, Err(e)) => Err(e),
        (Some(prompt), Ok(())) => screen.send(prompt).await,
        (None, Ok(())) => Ok(()),
    };
    if let Err(e) = started {
        screen.quit().await;
        return chat::print_error(&e, 1);
    }
    let mut terminal = ratatui::init();
    let keys = terminal_keys();
    let ran = run_until_quit(&mut screen, &mut terminal, keys, &dir, &args).await;
    ratatui::restore();
    screen.quit().await;
    match ran {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(stranded)) => fail_msg("APP_QUIT", stranded),
        Err(e) => fail_msg("TERMINAL", e.to_string()),
    }
}

/// Runs the screen; when the app it worked through quits, this terminal hosts the data directory
/// itself and goes on, keeping what was typed and the question being answered. When it cannot
/// (another process took the directory), it says so once the screen is gone, with the unsent text.
async fn run_until_quit(
    screen: &mut Screen,
    terminal: &mut ratatui::DefaultTerminal,
    mut keys: mpsc::UnboundedReceiver<TermEvent>,
    dir: &std::path::Path,
    args: &ChatArgs,
) -> std::io::Result<Option<String>> {
    loop {
        match screen.run(terminal, &mut keys).await? {
            Ended::Quit => return Ok(None),
            Ended::AppQuit => {
                screen.follow = None;
                screen.status = Some("The Hark app quit; starting here…".into());
                terminal.draw(|frame| view::draw(frame, screen))?;
                let host = take_over(dir, args).await;
                // The session whose question is being answered is shown, so that question stays.
                let session = screen.shown.as_ref().map(|s| s.session_id.clone()).or_else(|| screen.session.clone());
                match host {
                    Some(host) => {
                        screen.door = Arc::new(InProcess::new(host));
                        screen.status = Some("The Hark app quit: this terminal hosts your sessions now.".into());
                        if let Err(e) = screen.show(session.as_deref()).await {
                            screen.status = Some(say(&e));
                        }
                    }
                    None => {
                        let mut stranded = "the Hark app quit and this terminal could not take over its data \
                                            directory (another Hark process holds it)"
                            .to_string();
                        if !screen.composer.trim().is_empty() {
                            stranded.push_str(&format!("; your unsent message: {}", screen.composer));
                        }
                        return Ok(Some(stranded));
                    }
                }
            }
        }
    }
}

/// The data directory's host in this process, once the app that held it has let go (its quit
/// takes a few seconds).
async fn take_over(dir: &std::path::Path, args: &ChatArgs) -> Option<Arc<Host>> {
    let mcp = chat::mcp_from(args).ok()?;
    for _ in 0..40 {
        if let Ok(host) = host_here(dir, args, mcp.clone()) {
            return Some(host);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}

/// A host of the data directory in this process, its questions shown on this screen.
fn host_here(
    dir: &std::path::Path,
    args: &ChatArgs,
    mcp: Option<hark_core::mcp::McpConfig>,
) -> Result<Arc<Host>, hark_core::host::HostError> {
    let (surface, mut requests) = ForwardingProvider::new();
    let models = chat::CliModels { announce_demo: false, ..chat::models(args) };
    let host = Host::start(dir, Arc::new(surface), Arc::new(models))?;
    // The screen follows the service's own events; what the surface is handed needs no second look.
    tokio::spawn(async move { while requests.recv().await.is_some() {} });
    if let Some(config) = mcp {
        host.set_mcp_config(config);
    }
    let host = Arc::new(host);
    // Hosting, this terminal serves the front door as the app would (`hark answer` from another
    // terminal settles a question shown here). Without it only that way in is lost; the screen,
    // in raw mode, has nowhere to say so but its own status line, which the caller owns.
    let _ = chat::serve(&host);
    // The relay runs as long as this process hosts the directory, which is until it exits.
    std::mem::forget(chat::phone(&host));
    Ok(host)
}

/// What the app decides instead of this command line, said once: its models, tools and question
/// settings are the app's.
fn app_notice(args: &ChatArgs) -> Option<String> {
    let given = args.run.model.any_given() || args.run.timed || args.mcp_config.is_some();
    given.then(|| "In the running Hark app: its models, tools and question settings apply.".into())
}

/// Terminal input, read on a thread of its own (crossterm's reads block).
fn terminal_keys() -> mpsc::UnboundedReceiver<TermEvent> {
    let (keys_tx, keys) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = ratatui::crossterm::event::read() {
            if keys_tx.send(event).is_err() {
                break;
            }
        }
    });
    keys
}

/// Why the screen stopped.
enum Ended {
    Quit,
    /// The app it worked through is gone.
    AppQuit,
}

/// A question on screen: the overlay, and what the host gave it.
struct Shown {
    session_id: String,
    overlay: Overlay,
    /// Held while a timed question is shown, so the host's deadline waits for this screen's.
    hold: Option<Hold>,
    /// This screen's countdown (the one rule every surface keeps): it pauses while an empty
    /// "Other" is being started, and the first edit or `t` stops it for good. Indefinite for a
    /// blocking or continued question.
    countdown: Countdown,
}

impl Shown {
    fn untimed(session_id: String, overlay: Overlay) -> Shown {
        Shown { session_id, overlay, hold: None, countdown: Countdown::Indefinite }
    }
}

/// Milliseconds on the screen's clock, for its countdowns.
fn clock(origin: Instant) -> u64 {
    u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX)
}

pub(crate) struct Screen {
    /// The host this screen works through: its own, or the running app's.
    door: Arc<dyn FrontDoor>,
    workspace: Option<PathBuf>,
    /// `--plan` / `--ptc` for the sessions this screen starts.
    choices: WorkingChoices,
    session: Option<String>,
    follow: Option<Follow>,
    transcript: Option<Transcript>,
    model_label: Option<String>,
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
    /// The origin of the countdowns' clock.
    origin: Instant,
}

fn say(e: &BoundaryError) -> String {
    format!("{}: {}", e.code, e.message)
}

impl Screen {
    fn new(door: Arc<dyn FrontDoor>, workspace: Option<PathBuf>, choices: WorkingChoices) -> Screen {
        Screen {
            door,
            workspace,
            choices,
            session: None,
            follow: None,
            transcript: None,
            model_label: None,
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
            origin: Instant::now(),
        }
    }

    /// Whether the screen works through the running app.
    fn through_app(&self) -> bool {
        self.door.is_remote()
    }

    /// Follows `session` (an id or prefix; `None`: an empty composer, the next message starts a new
    /// session): its agent is made live, and what it shows read.
    async fn show(&mut self, session: Option<&str>) -> Result<(), BoundaryError> {
        let (id, follow) = backend::follow(self.door.as_ref(), session).await?;
        self.follow = Some(follow);
        self.session = id;
        self.transcript = None;
        self.model_label = None;
        self.busy = false;
        self.streaming.clear();
        self.refresh().await;
        Ok(())
    }

    /// A message from the composer: the session's first (starting it), or the next.
    async fn send(&mut self, text: &str) -> Result<(), BoundaryError> {
        match self.session.clone() {
            Some(session) => self.door.send(&session, text).await,
            None => {
                let start = Start {
                    text: text.to_string(),
                    workspace: self.workspace.clone(),
                    by: self.door.is_remote().then(|| "hark tui".to_string()),
                    choices: self.choices,
                };
                let id = self.door.start(start).await?;
                self.show(Some(&id)).await
            }
        }
    }

    /// Reads what the screen shows again: the shown session's newest turns, and every waiting
    /// question; the shown one closes when it was settled elsewhere, and the next waiting one opens.
    async fn refresh(&mut self) {
        let overview = match self.door.overview(self.session.as_deref(), TURNS_SHOWN).await {
            Ok(overview) => overview,
            Err(e) => {
                self.status = Some(say(&e));
                return;
            }
        };
        self.waiting = overview.waiting;
        self.sessions = overview.sessions;
        match overview.shown {
            Some(shown) => {
                self.transcript = Some(shown.transcript);
                self.busy = shown.busy;
                self.model_label = shown.model_label;
                self.continued = shown.continued;
            }
            None => self.continued.clear(),
        }
        let waiting: Vec<(String, String)> = self.waiting.iter().map(key_of).collect();
        self.hidden.retain(|asked| waiting.contains(asked));
        if let Some(shown) = self.shown.as_mut() {
            let (session, call) = (&shown.session_id, &shown.overlay.call_id);
            let answerable_late = self.session.as_ref() == Some(session)
                && questions_view(&[], &self.continued).iter().any(|q| q.call_id == *call && q.answerable);
            let still_asked = if shown.overlay.late {
                answerable_late
            } else {
                waiting.iter().any(|(s, c)| s == session && c == call)
            };
            if !still_asked && !shown.overlay.late && answerable_late {
                // It went on without an answer while shown (the app quit): what was chosen stays,
                // and Enter now answers it late.
                shown.overlay.late = true;
                shown.hold = None;
                shown.countdown = Countdown::Indefinite;
                shown.overlay.notice = Some("It went on without your answer; Enter answers it late.".into());
            } else if !still_asked {
                self.shown = None;
            }
        }
        if self.shown.is_none() {
            // A foreground question is always answerable: the first the person did not hide opens.
            let request = self.waiting.iter().find(|r| !self.hidden.contains(&key_of(r)));
            if let Some(request) = request.cloned() {
                self.shown = Some(self.present(&request).await);
            }
        }
    }

    async fn present(&self, request: &InteractionRequest) -> Shown {
        let timed = request.wait.is_some();
        let overlay =
            Overlay::new(&request.call_id, request.questions.clone(), timed, false).with_intent(&request.intent);
        let session_id = request.session_id.clone();
        if !timed {
            return Shown::untimed(session_id, overlay);
        }
        // Shown means taken over: the host waits, and this screen's countdown decides.
        match self.door.attach(&session_id, &request.call_id).await {
            Ok(attached) => {
                let countdown = Countdown::new(false).start(attached.remaining_ms, self.now());
                Shown { session_id, overlay, hold: Some(attached.hold), countdown }
            }
            Err(_) => Shown::untimed(session_id, overlay),
        }
    }

    /// Now, on the clock the countdowns run on.
    pub(crate) fn now(&self) -> u64 {
        clock(self.origin)
    }

    /// The title of a session, as the list shows it.
    fn title_of(&self, session: &str) -> String {
        self.sessions.iter().find(|s| s.id == session).map(|s| s.title.clone()).unwrap_or_default()
    }

    async fn run(
        &mut self,
        terminal: &mut ratatui::DefaultTerminal,
        keys: &mut mpsc::UnboundedReceiver<TermEvent>,
    ) -> std::io::Result<Ended> {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        loop {
            terminal.draw(|frame| view::draw(frame, self))?;
            tokio::select! {
                event = keys.recv() => match event {
                    Some(TermEvent::Key(key)) if key.kind != KeyEventKind::Release => {
                        if self.on_key(key).await {
                            return Ok(Ended::Quit);
                        }
                    }
                    Some(_) => {}
                    None => return Ok(Ended::Quit),
                },
                update = next_update(&mut self.follow) => match update {
                    Update::Agent(event) => self.on_agent(*event).await,
                    // Every session's questions: one asked, answered elsewhere or run out closes or
                    // opens an overlay.
                    Update::Questions | Update::Lagged => self.refresh().await,
                    Update::HostGone => return Ok(Ended::AppQuit),
                },
                _ = tick.tick() => self.on_tick().await,
            }
        }
    }

    async fn on_agent(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TextDelta { text, .. } => self.streaming.push_str(&text),
            AgentEvent::TurnStarted { .. } => self.busy = true,
            AgentEvent::TurnEnded { .. } => {
                self.streaming.clear();
                self.refresh().await;
            }
            AgentEvent::EventAppended { event } => {
                if matches!(event.event, hark_core::session::Event::AssistantMessage { .. }) {
                    self.streaming.clear();
                }
                self.refresh().await;
            }
            AgentEvent::Error { error, .. } => self.status = Some(say(&error)),
            AgentEvent::Question { .. } | AgentEvent::Transcript { .. } | AgentEvent::ReasoningDelta { .. } => {}
        }
    }

    async fn on_tick(&mut self) {
        let now = self.now();
        let ran_out = self.shown.as_ref().is_some_and(|s| s.countdown.expired(now));
        if !ran_out {
            return;
        }
        if let Some(shown) = self.shown.take() {
            // The question goes on without an answer; its row answers it late.
            if let Err(e) = self.door.expire(&shown.session_id, &shown.overlay.call_id).await {
                self.status = Some(e.code);
            }
            self.refresh().await;
        }
    }

    /// A key; true to quit.
    async fn on_key(&mut self, key: KeyEvent) -> bool {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return self.on_ctrl_c().await;
        }
        self.quit_armed = false;
        if key.code == KeyCode::Char('o') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.picker = Some(0);
            self.refresh().await;
            return false;
        }
        let Some(key) = overlay_key(key) else { return false };
        if self.picker.is_some() {
            self.picker_key(key).await;
        } else if self.shown.is_some() {
            self.overlay_key(key).await;
        } else {
            self.composer_key(key).await;
        }
        false
    }

    /// The sessions list: arrows move, Enter opens, `n` starts a new session, Esc goes back.
    async fn picker_key(&mut self, key: Key) {
        let Some(row) = self.picker else { return };
        let rows = self.sessions.len();
        match key {
            Key::Up if rows > 0 => self.picker = Some((row + rows - 1) % rows),
            Key::Down if rows > 0 => self.picker = Some((row + 1) % rows),
            Key::Esc => self.picker = None,
            Key::Char('n') => {
                self.picker = None;
                if let Err(e) = self.show(None).await {
                    self.status = Some(say(&e));
                }
            }
            Key::Enter => {
                self.picker = None;
                if let Some(id) = self.sessions.get(row).map(|s| s.id.clone()) {
                    if let Err(e) = self.show(Some(&id)).await {
                        self.status = Some(say(&e));
                    }
                }
            }
            _ => {}
        }
    }

    /// Ctrl-C stops the running turn; with none running (or pressed again) it quits.
    async fn on_ctrl_c(&mut self) -> bool {
        let stopped = match (&self.session, self.quit_armed) {
            (Some(session), false) => self.door.stop(session).await.unwrap_or(false),
            _ => false,
        };
        if stopped {
            self.quit_armed = true;
            self.status = Some("Stopped. Ctrl-C again quits.".into());
            return false;
        }
        true
    }

    async fn overlay_key(&mut self, key: Key) {
        let Some(shown) = self.shown.as_mut() else { return };
        let (session, call_id) = (shown.session_id.clone(), shown.overlay.call_id.clone());
        // `h` hides the question unanswered (Tab brings it back); typed, it is a letter.
        if key == Key::Char('h') && shown.overlay.typing.is_none() {
            if !shown.overlay.late {
                self.hidden.insert((session, call_id));
            }
            self.shown = None;
            self.refresh().await;
            return;
        }
        let (drafts, typing) = (shown.overlay.drafts.clone(), shown.overlay.typing.clone());
        let action = shown.overlay.key(key);
        let now = clock(self.origin);
        shown.countdown = after_key(shown.countdown, (&drafts, &typing), &shown.overlay, now);
        match action {
            Action::None => {}
            Action::TakeTime => {
                shown.countdown = shown.countdown.freeze(now);
                self.status = Some("Taking your time: no countdown while this question is shown.".into());
            }
            Action::Close => {
                let late = shown.overlay.late;
                self.shown = None;
                // A continued question stays answerable from its row; a waiting one is closed.
                if !late {
                    if let Err(e) = self.door.cancel(&session, &call_id).await {
                        self.status = Some(e.code);
                    }
                }
                self.refresh().await;
            }
            Action::Submit(batch) => {
                let path = if shown.overlay.late { AnswerPath::Late } else { AnswerPath::Foreground };
                match self.door.answer(&session, &call_id, batch, Some(path)).await {
                    Ok(_) => {
                        self.shown = None;
                        self.status = None;
                    }
                    // Nothing typed is lost: the overlay stays with its drafts, saying why.
                    Err(e) => shown.overlay.notice = Some(say(&e)),
                }
                self.refresh().await;
            }
        }
    }

    async fn composer_key(&mut self, key: Key) {
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
                match self.send(&text).await {
                    Ok(()) => {
                        self.composer.clear();
                        self.status = None;
                    }
                    Err(e) => self.status = Some(say(&e)),
                }
            }
            // Tab brings back a hidden question, else answers the oldest continued one, late.
            Key::Tab => {
                if let Some(request) = self.waiting.iter().find(|r| self.hidden.contains(&key_of(r))).cloned() {
                    self.hidden.remove(&key_of(&request));
                    self.shown = Some(self.present(&request).await);
                } else if let (Some(session), Some(question)) = (
                    self.session.clone(),
                    next_to_show(&questions_view(&[], &self.continued), true, |_| false).cloned(),
                ) {
                    let overlay =
                        Overlay::new(&question.call_id, question.questions, false, true).with_intent(&question.intent);
                    self.shown = Some(Shown::untimed(session, overlay));
                }
            }
            _ => {}
        }
    }

    /// Leaves: a host of its own quits as every front door does; through the app, only this
    /// screen's holds go (a shown timed question's countdown goes on in the app).
    async fn quit(&mut self) {
        self.shown = None;
        self.follow = None;
        if let Some(host) = self.door.hosted() {
            host.shutdown().await;
        }
    }
}

/// The countdown after a key, as the window's is after the same gesture: a changed answer (a choice,
/// a skip, a typed letter) stops it for good; opening an empty "Other" pauses it, leaving it resumes.
fn after_key(countdown: Countdown, before: (&[Draft], &Option<String>), overlay: &Overlay, now: u64) -> Countdown {
    let (drafts, typing) = before;
    let typed = matches!((typing, &overlay.typing), (Some(was), Some(is)) if was != is);
    if drafts != overlay.drafts.as_slice() || typed {
        return countdown.freeze(now);
    }
    match (typing, &overlay.typing) {
        (None, Some(_)) => countdown.focus_empty(now),
        (Some(_), None) => countdown.blur(now),
        _ => countdown,
    }
}

fn key_of(request: &InteractionRequest) -> (String, String) {
    (request.session_id.clone(), request.call_id.clone())
}

async fn next_update(follow: &mut Option<Follow>) -> Update {
    match follow {
        Some(follow) => match follow.updates.recv().await {
            Some(update) => update,
            None => std::future::pending().await,
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
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        _ => return None,
    })
}
