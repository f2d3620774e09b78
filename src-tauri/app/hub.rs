//! What the desktop process hosts: the locked data directory, its store and question service, one
//! live agent per session the person has opened, and the take-overs the window holds. Tauri-free so
//! it reads (and is tested) as plain hark-core use; `commands.rs` adapts it to IPC.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hark_core::agent::{Agent, AgentConfig, AgentDeps, AgentEvent, NewSession};
use hark_core::host::HostLock;
use hark_core::model::DEMO_LABEL;
use hark_core::question::{AnswerBatch, UserInteractionError};
use hark_core::service::{
    ContinuedQuestion, ForwardingProvider, InteractionRequest, ProviderRegistration, Responded, SessionLog, Takeover,
    UserQuestionService,
};
use hark_core::session::{match_session, project_transcript, Event, ModelRef, Store, Transcript};
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::error::{CommandError, WireError};
use crate::launch::LaunchOptions;
use crate::settings::{self, Settings};

/// Where a window's copy of a session's stream goes; `false` means the window is gone.
pub type Sink = Box<dyn Fn(AgentEvent) -> bool + Send + Sync>;

#[derive(Debug, Clone, Serialize)]
pub struct PendingQuestions {
    pub foreground: Vec<InteractionRequest>,
    pub continued: Vec<ContinuedQuestion>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionView {
    pub session_id: String,
    pub transcript: Transcript,
    pub questions: PendingQuestions,
    pub busy: bool,
    pub model_label: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubmitPath {
    Foreground,
    Late,
}

#[derive(Debug, Clone, Serialize)]
pub struct SubmitResult {
    pub path: SubmitPath,
}

#[derive(Debug, Clone, Serialize)]
pub struct AttachResult {
    pub takeover_id: u64,
    pub remaining_ms: Option<u64>,
}

struct Live {
    agent: Agent,
    model_label: String,
    /// The task copying the agent's stream to the window, while the window shows this session.
    view: Option<JoinHandle<()>>,
}

type TakeoverKey = (String, String, u64);

pub struct Hub {
    data_dir: PathBuf,
    store: Arc<Store>,
    service: UserQuestionService,
    launch: LaunchOptions,
    settings: Mutex<Settings>,
    settings_warning: Mutex<Option<WireError>>,
    live: Mutex<HashMap<String, Live>>,
    takeovers: Mutex<HashMap<TakeoverKey, Takeover>>,
    /// Which load of the window's page is current. A reload leaves nothing behind to release what the
    /// old page held, so the shell counts loads and lets go of everything the earlier ones held.
    page: AtomicU64,
    requests: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<InteractionRequest>>>,
    // Dropped last: the provider before the lock, so questions end before another host may start.
    _provider: ProviderRegistration,
    _lock: HostLock,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hub {
    /// Takes the data directory (one host at a time), opens its store, registers the window as the
    /// question surface and reads the settings.
    pub fn start(dir: &Path, launch: LaunchOptions) -> Result<Hub, WireError> {
        let lock_file = HostLock::acquire(dir).map_err(|e| WireError::of(&e))?;
        let store = Arc::new(Store::open(dir).map_err(|e| WireError::of(&e))?);
        let service = UserQuestionService::new(Arc::clone(&store) as Arc<dyn SessionLog>);
        let (provider, requests) = ForwardingProvider::new();
        let registration = service.register(Arc::new(provider)).map_err(|e| WireError::of(&e))?;
        let (settings, warning) = settings::load(dir);
        Ok(Hub {
            data_dir: dir.to_path_buf(),
            store,
            service,
            launch,
            settings: Mutex::new(settings),
            settings_warning: Mutex::new(warning.as_ref().map(WireError::of)),
            live: Mutex::new(HashMap::new()),
            takeovers: Mutex::new(HashMap::new()),
            page: AtomicU64::new(0),
            requests: Mutex::new(Some(requests)),
            _provider: registration,
            _lock: lock_file,
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn service(&self) -> &UserQuestionService {
        &self.service
    }

    pub fn launch(&self) -> &LaunchOptions {
        &self.launch
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The forwarded requests, for the one task that watches them (notifications). Taken once.
    pub fn take_requests(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<InteractionRequest>> {
        lock(&self.requests).take()
    }

    pub fn settings(&self) -> Settings {
        lock(&self.settings).clone()
    }

    pub fn settings_warning(&self) -> Option<WireError> {
        lock(&self.settings_warning).clone()
    }

    /// Saves and applies the settings to sessions started or opened from now on.
    pub fn save_settings(&self, next: Settings) -> Result<(), CommandError> {
        settings::save(&self.data_dir, &next)?;
        *lock(&self.settings) = next;
        *lock(&self.settings_warning) = None;
        Ok(())
    }

    /// The session a person typed (full id or unique prefix).
    pub fn resolve(&self, typed: &str) -> Result<String, CommandError> {
        match_session(self.store.list_sessions()?, typed).map(|s| s.id).map_err(CommandError::NotFound)
    }

    fn config(&self) -> AgentConfig {
        AgentConfig { questions: self.launch.questions(&self.settings()), ..AgentConfig::default() }
    }

    fn build(&self, model: &ModelRef) -> Result<AgentDeps, CommandError> {
        let provider = crate::models::provider(model).map_err(|e| CommandError::Wire(WireError::of(&e)))?;
        Ok(AgentDeps { store: Arc::clone(&self.store), service: self.service.clone(), model: provider })
    }

    /// Creates a session with the current model and sends its first message. Call inside the runtime.
    pub fn start_session(&self, text: &str, workspace: Option<PathBuf>) -> Result<String, CommandError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(CommandError::InvalidArgument("a message needs some text".into()));
        }
        let workspace = match workspace {
            Some(dir) => match dir.canonicalize() {
                Ok(d) if d.is_dir() => Some(d),
                _ => return Err(CommandError::InvalidArgument(format!("{} is not a folder", dir.display()))),
            },
            None => None,
        };
        let model = self.launch.model_for_new(&self.settings());
        let deps = self.build(&model)?;
        let first_line = text.lines().next().unwrap_or(text);
        let title: String = first_line.chars().take(60).collect();
        let label = model_label(&model);
        let agent = Agent::create(deps, NewSession { title, workspace, model: Some(model) }, self.config())?;
        let id = agent.session_id().to_string();
        agent.steer(text)?;
        lock(&self.live).insert(id.clone(), Live { agent, model_label: label, view: None });
        Ok(id)
    }

    /// Makes the session's agent live (recovering what a dead run left open and admitting a reply
    /// queued before) and returns a subscription taken before it could start a turn.
    fn ensure_live(&self, session: &str) -> Result<broadcast::Receiver<AgentEvent>, CommandError> {
        if let Some(live) = lock(&self.live).get(session) {
            return Ok(live.agent.subscribe());
        }
        let events = self.store.events(session)?;
        if events.is_empty() {
            return Err(CommandError::NotFound(format!("session {session:?} not found")));
        }
        let recorded = events.iter().find_map(|e| match &e.event {
            Event::SessionCreated { model, .. } => model.clone(),
            _ => None,
        });
        let model = self.launch.model_for_existing(recorded, &self.settings());
        let deps = self.build(&model)?;
        let mut live = lock(&self.live);
        // Opened by someone else while this one read the log: use theirs.
        if let Some(existing) = live.get(session) {
            return Ok(existing.agent.subscribe());
        }
        let long = events.len() > LONG_LOG;
        drop(events);
        let (agent, rx) = Agent::open_subscribed(deps, session, self.config())?;
        live.insert(session.to_string(), Live { agent, model_label: model_label(&model), view: None });
        if long {
            release_freed_memory();
        }
        Ok(rx)
    }

    /// Starts streaming the session to the window (replacing an earlier stream of it) and returns
    /// what the window shows now.
    /// `page` is the page load asking (see [`Hub::attach`]).
    pub fn open_session(
        &self,
        session: &str,
        turns: Option<usize>,
        page: Option<u64>,
        sink: Sink,
    ) -> Result<SessionView, CommandError> {
        self.check_page(page)?;
        let mut rx = self.ensure_live(session)?;
        let task = tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(event) => {
                        if !sink(event) {
                            break;
                        }
                    }
                    // The window re-reads the transcript on the next event; nothing is lost there.
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        let (busy, label) = {
            let mut live = lock(&self.live);
            let Some(entry) = live.get_mut(session) else {
                task.abort();
                return Err(CommandError::NotFound(format!("session {session:?} is not open")));
            };
            // Under the lock `new_page` takes to stop streams: a reload meanwhile refuses this one.
            if let Err(stale) = self.check_page(page) {
                task.abort();
                return Err(stale);
            }
            if let Some(old) = entry.view.replace(task) {
                old.abort();
            }
            (entry.agent.is_busy(), entry.model_label.clone())
        };
        Ok(SessionView {
            session_id: session.to_string(),
            transcript: self.transcript(session, turns)?,
            questions: self.pending(session),
            busy,
            model_label: label,
        })
    }

    /// The window stopped showing the session: its stream stops, the agent keeps working.
    pub fn close_view(&self, session: &str) {
        if let Some(task) = lock(&self.live).get_mut(session).and_then(|l| l.view.take()) {
            task.abort();
        }
    }

    /// The session's transcript; with `turns`, only its newest `turns` turns (see `earlier_turns`).
    pub fn transcript(&self, session: &str, turns: Option<usize>) -> Result<Transcript, CommandError> {
        let events = self.store.events(session)?;
        let long = events.len() > LONG_LOG;
        let mut transcript = project_transcript(&events);
        drop(events);
        if let Some(n) = turns {
            transcript.keep_last_turns(n.max(1));
        }
        if long {
            release_freed_memory();
        }
        Ok(transcript)
    }

    fn with_agent<T>(&self, session: &str, f: impl FnOnce(&Agent) -> T) -> Result<T, CommandError> {
        self.ensure_live(session)?;
        let live = lock(&self.live);
        let entry = live.get(session).ok_or_else(|| CommandError::NotFound(format!("session {session:?}")))?;
        Ok(f(&entry.agent))
    }

    pub fn send(&self, session: &str, text: &str) -> Result<(), CommandError> {
        if text.trim().is_empty() {
            return Err(CommandError::InvalidArgument("a message needs some text".into()));
        }
        self.with_agent(session, |a| a.steer(text.trim()))?.map_err(CommandError::from)
    }

    pub fn abort(&self, session: &str) -> bool {
        lock(&self.live).get(session).is_some_and(|l| l.agent.abort())
    }

    pub fn retry(&self, session: &str) -> Result<(), CommandError> {
        self.with_agent(session, |a| a.retry())?.map_err(CommandError::from)
    }

    pub fn pending(&self, session: &str) -> PendingQuestions {
        PendingQuestions {
            foreground: self.service.foreground(Some(session)),
            continued: self.service.continued(session),
        }
    }

    /// The page load now shown; the window passes it back with calls that leave something held.
    pub fn page(&self) -> u64 {
        self.page.load(Ordering::SeqCst)
    }

    /// The window's page (re)loaded: every take-over and stream of an earlier load is let go, so a
    /// question paused by the old page runs on its deadline again. Returns the new page's number.
    pub fn new_page(&self) -> u64 {
        let page = self.page.fetch_add(1, Ordering::SeqCst) + 1;
        self.release_all();
        let views: Vec<JoinHandle<()>> = lock(&self.live).values_mut().filter_map(|l| l.view.take()).collect();
        for view in views {
            view.abort();
        }
        page
    }

    /// Refuses a call from a page load that is no longer shown; `None` (an older window build, tests
    /// that do not care) means the current page.
    pub fn check_page(&self, page: Option<u64>) -> Result<(), CommandError> {
        match page {
            Some(p) if p != self.page() => Err(CommandError::PageReloaded(p)),
            _ => Ok(()),
        }
    }

    /// The window shows a foreground question: the host deadline pauses while this is held.
    /// `page` is the page load asking; a reload meanwhile hands the take-over straight back.
    pub fn attach(&self, session: &str, call_id: &str, page: Option<u64>) -> Result<AttachResult, CommandError> {
        self.check_page(page)?;
        let attached = self.service.attach(session, call_id)?;
        let id = attached.takeover.id();
        let mut takeovers = lock(&self.takeovers);
        // Checked again under the lock `new_page` drains: a take-over is either refused here or drained.
        if let Err(stale) = self.check_page(page) {
            drop(takeovers);
            drop(attached.takeover);
            return Err(stale);
        }
        takeovers.insert((session.to_string(), call_id.to_string(), id), attached.takeover);
        Ok(AttachResult { takeover_id: id, remaining_ms: attached.remaining_ms })
    }

    pub fn release(&self, session: &str, call_id: &str, takeover_id: u64) {
        let key = (session.to_string(), call_id.to_string(), takeover_id);
        // Dropped outside the map's lock: releasing may wake the deadline.
        let taken = lock(&self.takeovers).remove(&key);
        drop(taken);
    }

    /// The window was hidden: every question it held goes back to its host deadline.
    pub fn release_all(&self) {
        let taken: Vec<Takeover> = lock(&self.takeovers).drain().map(|(_, t)| t).collect();
        drop(taken);
    }

    /// A question resolved: its take-overs are inert now; forget them.
    pub fn forget(&self, session: &str, call_id: &str) {
        let taken: Vec<Takeover> = {
            let mut map = lock(&self.takeovers);
            let keys: Vec<TakeoverKey> = map.keys().filter(|(s, c, _)| s == session && c == call_id).cloned().collect();
            keys.into_iter().filter_map(|k| map.remove(&k)).collect()
        };
        drop(taken);
    }

    /// An answer from the panel or a notification. The panel says which path it is on: `Foreground`
    /// answers the waiting call only (once its wait ended that is `NOT_PENDING`, so the panel keeps the
    /// draft and offers to resubmit), `Late` answers a continued question. `None` (a notification,
    /// which does not track phases) takes whichever applies. The session's agent is made live first:
    /// a late reply needs it to be admitted, and a session not opened yet is unknown to the service.
    pub fn submit(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<SubmitPath>,
    ) -> Result<SubmitResult, CommandError> {
        self.ensure_live(session)?;
        let path = match path {
            Some(SubmitPath::Foreground) => {
                self.service.submit_foreground(session, call_id, answers)?;
                SubmitPath::Foreground
            }
            Some(SubmitPath::Late) => {
                self.service.answer(session, call_id, answers)?;
                SubmitPath::Late
            }
            None => match self.service.respond(session, call_id, answers)? {
                Responded::Foreground => SubmitPath::Foreground,
                Responded::Late(_) => SubmitPath::Late,
            },
        };
        Ok(SubmitResult { path })
    }

    pub fn cancel(&self, session: &str, call_id: &str) -> Result<(), UserInteractionError> {
        self.service.cancel(session, call_id)
    }

    pub fn expire(&self, session: &str, call_id: &str) -> Result<(), UserInteractionError> {
        self.service.expire(session, call_id)
    }

    pub fn model_label_for_new(&self) -> (ModelRef, String) {
        let model = self.launch.model_for_new(&self.settings());
        let label = model_label(&model);
        (model, label)
    }

    /// Quitting: a live timed question continues (its result is recorded pending, so it is answerable
    /// after the next start), a live blocking one ends `ASK_ABORTED`, and every running turn ends
    /// recorded as aborted.
    pub async fn shutdown(&self) {
        self.release_all();
        // A timed question waiting now continues (recorded pending) instead of being lost with the
        // turn: after the next start it is answerable like any continued question.
        let timed: Vec<(String, String)> = self
            .service
            .foreground(None)
            .into_iter()
            .filter(|r| r.wait.is_some())
            .map(|r| (r.session_id, r.call_id))
            .collect();
        for (session, call) in &timed {
            let _ = self.service.expire(session, call);
        }
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(3);
        for (session, call) in &timed {
            while tokio::time::Instant::now() < deadline && !self.has_result(session, call) {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
        let agents: Vec<Live> = lock(&self.live).drain().map(|(_, l)| l).collect();
        for live in agents {
            if let Some(view) = live.view {
                view.abort();
            }
            live.agent.close().await;
        }
        self.service.shutdown();
    }
}

impl Hub {
    fn has_result(&self, session: &str, call_id: &str) -> bool {
        self.store.events(session).is_ok_and(|events| {
            events.iter().any(|e| matches!(&e.event, Event::ToolResult { call_id: c, .. } if c == call_id))
        })
    }
}

/// Past this many events, reading a log leaves enough freed heap behind to be worth returning.
const LONG_LOG: usize = 10_000;

/// glibc keeps freed heap for reuse, so a process that once read a 100 000-event log stays that big;
/// this hands it back to the OS (measured by `make bench-desktop`'s app PSS).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the OS; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

pub fn model_label(model: &ModelRef) -> String {
    match model.provider.as_str() {
        "demo" => format!("{DEMO_LABEL} ({})", model.script.as_deref().unwrap_or("batch")),
        _ => {
            let name = model.model.as_deref().unwrap_or(hark_core::model::DEEPSEEK_MODEL);
            let host = model
                .base_url
                .as_deref()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_else(|| "api.deepseek.com".into());
            format!("{name} · {host}")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use hark_core::question::{Answer, ErrorCode};
    use hark_core::session::{project_questions, QuestionState, ToolOutcome};

    use super::*;

    fn hub(dir: &Path, script: &str) -> Hub {
        let launch = LaunchOptions { script: Some(script.into()), timed: true, ..LaunchOptions::default() };
        Hub::start(dir, launch).expect("hub")
    }

    fn db(label: &str) -> AnswerBatch {
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec![label.into()], custom: None }] }
    }

    async fn until(what: &str, mut check: impl FnMut() -> bool) {
        for _ in 0..500 {
            if check() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("timed out waiting for {what}");
    }

    fn state(hub: &Hub, session: &str) -> Option<QuestionState> {
        project_questions(&hub.store().events(session).ok()?).first().map(|r| r.state)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_panel_path_decides_how_an_answer_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub(dir.path(), "timed");
        let session = hub.start_session("plan the notes app", None).unwrap();
        until("the question", || !hub.pending(&session).foreground.is_empty()).await;
        let call = hub.pending(&session).foreground[0].call_id.clone();
        hub.expire(&session, &call).unwrap();
        until("the question to continue", || state(&hub, &session) == Some(QuestionState::Continued)).await;

        // The panel still thought it was in the foreground: refused, so it can offer to resubmit.
        let lost = hub.submit(&session, &call, db("SQLite"), Some(SubmitPath::Foreground)).unwrap_err();
        let CommandError::Interaction(e) = lost else { panic!("expected NOT_PENDING, got {lost:?}") };
        assert_eq!(e.code, ErrorCode::NotPending);
        // The resubmission goes the late path and is admitted by the live agent.
        let taken = hub.submit(&session, &call, db("SQLite"), Some(SubmitPath::Late)).unwrap();
        assert_eq!(taken.path, SubmitPath::Late);
        until("the late answer", || state(&hub, &session) == Some(QuestionState::Settled)).await;
        hub.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_notification_answer_finds_a_question_of_a_session_not_opened_yet() {
        let dir = tempfile::tempdir().unwrap();
        let session = {
            let first = hub(dir.path(), "timed");
            let session = first.start_session("plan the notes app", None).unwrap();
            until("the question", || !first.pending(&session).foreground.is_empty()).await;
            first.shutdown().await;
            session
        };
        // Quitting continued the live timed question; a new process has not opened the session yet.
        let second = hub(dir.path(), "timed");
        assert_eq!(state(&second, &session), Some(QuestionState::Continued));
        let call = project_questions(&second.store().events(&session).unwrap())[0].call_id.clone();
        let taken = second.submit(&session, &call, db("Postgres"), None).unwrap();
        assert_eq!(taken.path, SubmitPath::Late);
        until("the late answer", || state(&second, &session) == Some(QuestionState::Settled)).await;
        second.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn quitting_records_a_live_timed_question_as_pending() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub(dir.path(), "timed");
        let session = hub.start_session("plan the notes app", None).unwrap();
        until("the question", || !hub.pending(&session).foreground.is_empty()).await;
        let attached = hub.attach(&session, &hub.pending(&session).foreground[0].call_id.clone(), None).unwrap();
        assert!(attached.remaining_ms.is_some(), "a timed wait has a deadline to show");
        hub.shutdown().await;
        let events = hub.store().events(&session).unwrap();
        let pending =
            events.iter().any(|e| matches!(&e.event, Event::ToolResult { outcome: ToolOutcome::Pending { .. }, .. }));
        assert!(pending, "the question's result is recorded pending: {events:?}");
        assert!(matches!(events.last().map(|e| &e.event), Some(Event::TurnEnded { .. })));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reloaded_page_lets_go_of_its_takeovers_and_streams() {
        use std::sync::atomic::AtomicUsize;
        let dir = tempfile::tempdir().unwrap();
        let hub = hub(dir.path(), "timed");
        let session = hub.start_session("plan the notes app", None).unwrap();
        until("the question", || !hub.pending(&session).foreground.is_empty()).await;
        let call = hub.pending(&session).foreground[0].call_id.clone();
        let old_page = hub.page();
        let streamed = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&streamed);
        let sink: Sink = Box::new(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            true
        });
        hub.open_session(&session, None, Some(old_page), sink).unwrap();
        // The old page holds the question: its host deadline (5 s in the script) is paused.
        hub.attach(&session, &call, Some(old_page)).unwrap();

        let page = hub.new_page();
        assert_ne!(page, old_page);
        let late = hub.attach(&session, &call, Some(old_page)).unwrap_err();
        assert_eq!(WireError::of(&late).code, "PAGE_RELOADED");
        let late = hub.open_session(&session, None, Some(old_page), Box::new(|_| true)).unwrap_err();
        assert_eq!(WireError::of(&late).code, "PAGE_RELOADED");

        // Nobody holds it now, so it continues when its time runs out, and the dead page hears nothing.
        let heard = streamed.load(Ordering::SeqCst);
        until("the question to continue", || state(&hub, &session) == Some(QuestionState::Continued)).await;
        assert_eq!(streamed.load(Ordering::SeqCst), heard, "the old page's stream was stopped");
        hub.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn unknown_sessions_and_empty_messages_are_refused_with_codes() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub(dir.path(), "hello");
        let missing = hub.open_session("nope", None, None, Box::new(|_| true)).unwrap_err();
        assert_eq!(WireError::of(&missing).code, "NOT_FOUND");
        let empty = hub.start_session("   ", None).unwrap_err();
        assert_eq!(WireError::of(&empty).code, "INVALID_ARGUMENT");
        let busy = Hub::start(dir.path(), LaunchOptions::default()).err().expect("one host per data dir");
        assert_eq!(busy.code, "DATA_DIR_BUSY");
    }
}
