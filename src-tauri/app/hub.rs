//! What the desktop process adds to the core's [`Host`]: the window's streams of the sessions it
//! shows, the take-overs it holds, which load of its page is current, and the settings the model
//! choices come from. Tauri-free, so it reads (and is tested) as plain hark-core use; `commands.rs`
//! adapts it to IPC.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hark_core::agent::AgentEvent;
use hark_core::error::{BoundaryError, CodedError};
use hark_core::front_door::InProcess;
use hark_core::host::{Host, ModelSource};
use hark_core::model::{ModelError, ModelProvider};
use hark_core::service::{ForwardingProvider, InteractionRequest, SessionQuestions, Takeover, UserQuestionService};
use hark_core::session::{ModelRef, Store, Transcript};
use hark_core::sync::lock;
use hark_core::tools::QuestionSettings;
use serde::Serialize;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

pub use hark_core::host::AnswerPath;

use crate::error::CommandError;
use crate::launch::LaunchOptions;
use crate::settings::{self, Settings};

/// Where a window's copy of a session's stream goes; `false` means the window is gone.
pub type Sink = Box<dyn Fn(AgentEvent) -> bool + Send + Sync>;

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SessionView {
    pub session_id: String,
    pub transcript: Transcript,
    pub questions: SessionQuestions,
    pub busy: bool,
    pub model_label: String,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SubmitResult {
    pub path: AnswerPath,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct AttachResult {
    pub takeover_id: u64,
    pub remaining_ms: Option<u64>,
}

type TakeoverKey = (String, String, u64);

/// The desktop's model choices: launch options over the settings in force.
struct DesktopModels {
    launch: LaunchOptions,
    settings: Arc<Mutex<Settings>>,
}

impl ModelSource for DesktopModels {
    fn variable(&self, name: &str) -> Option<String> {
        crate::mcp_settings::lookup(name)
    }

    fn for_new(&self) -> ModelRef {
        self.launch.model_for_new(&lock(&self.settings))
    }

    fn for_existing(&self, recorded: Option<ModelRef>) -> ModelRef {
        self.launch.model_for_existing(recorded, &lock(&self.settings))
    }

    fn forced_questions(&self) -> Option<QuestionSettings> {
        self.launch.forced_questions(&lock(&self.settings))
    }

    fn default_questions(&self) -> QuestionSettings {
        self.launch.questions(&lock(&self.settings))
    }

    fn forced_plan_first(&self) -> Option<bool> {
        self.launch.run.plan_first.then_some(true)
    }

    fn default_plan_first(&self) -> bool {
        lock(&self.settings).plan_first
    }

    fn forced_ptc(&self) -> Option<bool> {
        self.launch.run.ptc.then_some(true)
    }

    fn default_ptc(&self) -> bool {
        lock(&self.settings).ptc
    }

    fn provider(&self, model: &ModelRef) -> Result<Arc<dyn ModelProvider>, ModelError> {
        crate::models::provider(model)
    }
}

pub struct Hub {
    host: Arc<Host>,
    launch: LaunchOptions,
    settings: Arc<Mutex<Settings>>,
    settings_warning: Mutex<Option<BoundaryError>>,
    /// The task copying a session's stream to the window, per session the window shows.
    views: Mutex<HashMap<String, JoinHandle<()>>>,
    takeovers: Mutex<HashMap<TakeoverKey, Takeover>>,
    /// Which load of the window's page is current. A reload leaves nothing behind to release what the
    /// old page held, so the shell counts loads and lets go of everything the earlier ones held.
    page: AtomicU64,
    requests: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<InteractionRequest>>>,
}

impl Hub {
    /// Takes the data directory (one host at a time), opens its store, registers the window as the
    /// question surface and reads the settings.
    pub fn start(dir: &Path, launch: LaunchOptions) -> Result<Hub, BoundaryError> {
        let (loaded, warning) = settings::load(dir);
        let settings = Arc::new(Mutex::new(loaded));
        let models = Arc::new(DesktopModels { launch: launch.clone(), settings: Arc::clone(&settings) });
        let (surface, requests) = ForwardingProvider::new();
        let host = Host::start(dir, Arc::new(surface), models).map_err(|e| e.boundary())?;
        Ok(Hub {
            host: Arc::new(host),
            launch,
            settings,
            settings_warning: Mutex::new(warning.as_ref().map(CodedError::boundary)),
            views: Mutex::new(HashMap::new()),
            takeovers: Mutex::new(HashMap::new()),
            page: AtomicU64::new(0),
            requests: Mutex::new(Some(requests)),
        })
    }

    pub fn store(&self) -> &Store {
        self.host.store()
    }

    pub fn service(&self) -> &UserQuestionService {
        self.host.service()
    }

    pub fn launch(&self) -> &LaunchOptions {
        &self.launch
    }

    pub fn data_dir(&self) -> &Path {
        self.host.data_dir()
    }

    /// The outside agent whose questions the session holds, if it is a client session.
    pub fn client_of(&self, session: &str) -> Option<String> {
        self.host.session(session).ok()?.client()
    }

    /// The host, for what serves it to other processes (the control socket).
    pub fn host(&self) -> Arc<Host> {
        Arc::clone(&self.host)
    }

    /// The forwarded requests, for the one task that watches them (notifications). Taken once.
    pub fn take_requests(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<InteractionRequest>> {
        lock(&self.requests).take()
    }

    pub fn settings(&self) -> Settings {
        lock(&self.settings).clone()
    }

    pub fn settings_warning(&self) -> Option<BoundaryError> {
        lock(&self.settings_warning).clone()
    }

    /// The MCP servers as Settings shows them.
    pub fn mcp_view(&self) -> crate::mcp_settings::McpView {
        let config = self.host.mcp_config();
        crate::mcp_settings::view(self.host.data_dir(), &config.status)
    }

    /// Saves the MCP servers and gives them to sessions opened from now on.
    pub fn save_mcp(&self, entries: &[hark_core::mcp::McpEntry]) -> Result<(), CommandError> {
        crate::mcp_settings::save(self.host.data_dir(), entries)?;
        Ok(self.host.reload_mcp()?)
    }

    /// Saves and applies the settings to sessions started from now on.
    pub fn save_settings(&self, next: Settings) -> Result<(), CommandError> {
        settings::save(self.host.data_dir(), &next)?;
        *lock(&self.settings) = next;
        *lock(&self.settings_warning) = None;
        Ok(())
    }

    /// The session a person typed (full id or unique prefix).
    pub fn resolve(&self, typed: &str) -> Result<String, CommandError> {
        Ok(self.host.resolve(typed)?)
    }

    /// Opens the session's live agent ahead of the window asking for it (a launch with `--session`):
    /// its log is read meanwhile, so the window's open finds it ready.
    pub fn warm(&self, session: &str) -> Result<(), CommandError> {
        self.host.activate(session)?;
        Ok(())
    }

    /// Starts streaming the session to the window (replacing an earlier stream of it) and returns
    /// what the window shows now. `page` is the page load asking (see [`Hub::attach`]).
    pub fn open_session(
        &self,
        session: &str,
        turns: Option<usize>,
        page: Option<u64>,
        sink: Sink,
    ) -> Result<SessionView, CommandError> {
        self.check_page(page)?;
        let mut rx = self.host.activate(session)?;
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
        {
            let mut views = lock(&self.views);
            // Under the lock `new_page` takes to stop streams: a reload meanwhile refuses this one.
            if let Err(stale) = self.check_page(page) {
                task.abort();
                return Err(stale);
            }
            if let Some(old) = views.insert(session.to_string(), task) {
                old.abort();
            }
        }
        Ok(SessionView {
            session_id: session.to_string(),
            transcript: self.transcript(session, turns)?,
            questions: self.questions(session),
            busy: self.host.is_busy(session),
            model_label: self.host.model_label(session).unwrap_or_default(),
        })
    }

    /// The window stopped showing the session: its stream stops, the agent keeps working.
    pub fn close_view(&self, session: &str) {
        if let Some(task) = lock(&self.views).remove(session) {
            task.abort();
        }
    }

    /// The session's transcript; with `turns`, only its newest `turns` turns (see `earlier_turns`).
    fn transcript(&self, session: &str, turns: Option<usize>) -> Result<Transcript, CommandError> {
        let transcript = self.host.transcript(session, turns)?;
        after_reading(&transcript);
        Ok(transcript)
    }

    /// The front door every window command about sessions and questions goes through.
    pub fn door(&self) -> InProcess {
        InProcess::new(Arc::clone(&self.host))
    }

    /// The session's waiting questions as the core lists them, with the revision that orders this
    /// read against the lists its stream sends.
    pub fn questions(&self, session: &str) -> SessionQuestions {
        self.host.service().session_questions(session)
    }

    /// The page load now shown; the window passes it back with calls that leave something held.
    pub fn page(&self) -> u64 {
        self.page.load(Ordering::SeqCst)
    }

    /// The window's page (re)loaded: every take-over and stream of an earlier load is let go, so a
    /// question paused by the old page runs on its deadline again. Returns the new page's number.
    pub fn new_page(&self) -> u64 {
        let page = self.page.fetch_add(1, Ordering::SeqCst) + 1;
        self.let_go_of_window();
        page
    }

    /// Every take-over the window holds goes back to its deadline and every stream to it stops.
    fn let_go_of_window(&self) {
        self.release_all();
        let views: Vec<JoinHandle<()>> = lock(&self.views).drain().map(|(_, v)| v).collect();
        for view in views {
            view.abort();
        }
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
        let attached = self.service().attach(session, call_id)?;
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

    pub fn model_label_for_new(&self) -> (ModelRef, String) {
        self.host.label_for_new()
    }

    /// Quitting: the window lets go of what it held and its streams stop, then the host quits the
    /// same way from every front door (see [`Host::shutdown`]).
    pub async fn shutdown(&self) {
        self.let_go_of_window();
        self.host.shutdown().await;
    }
}

/// Past this many turns (some 10 000 events in a busy session), reading the log leaves enough freed
/// heap behind to be worth returning.
const LONG_SESSION_TURNS: usize = 100;

/// After the window read `transcript`: a long one leaves freed heap worth handing back.
pub fn after_reading(transcript: &Transcript) {
    if transcript.earlier_turns + transcript.turns.len() > LONG_SESSION_TURNS {
        release_freed_memory();
    }
}

/// glibc keeps freed heap for reuse, so a process that once read a 100 000-event log stays that big;
/// this hands it back to the OS (measured by `make bench-desktop`'s app PSS).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the OS; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use hark_core::front_door::{FrontDoor, Start};
    use hark_core::question::{Answer, AnswerBatch, ErrorCode};
    use hark_core::session::{project_questions, Event, QuestionState, ToolOutcome};

    use super::*;

    fn hub(dir: &Path, script: &str) -> Hub {
        let model = hark_core::launch::ModelFlags { script: Some(script.into()), ..Default::default() };
        let run = hark_core::launch::RunOptions { model, timed: true, ..Default::default() };
        let launch = LaunchOptions { run, ..LaunchOptions::default() };
        Hub::start(dir, launch).expect("hub")
    }

    async fn start(hub: &Hub, text: &str) -> String {
        hub.door().start(Start { text: text.into(), ..Start::default() }).await.unwrap()
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

    /// The call of the session's first question waiting in the foreground.
    fn waiting(hub: &Hub, session: &str) -> Option<String> {
        hub.questions(session).questions.into_iter().find(|q| q.is_foreground()).map(|q| q.call_id)
    }

    fn state(hub: &Hub, session: &str) -> Option<QuestionState> {
        project_questions(&hub.store().events(session).ok()?).first().map(|r| r.state)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_panel_path_decides_how_an_answer_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub(dir.path(), "timed");
        let session = start(&hub, "plan the notes app").await;
        until("the question", || waiting(&hub, &session).is_some()).await;
        let call = waiting(&hub, &session).unwrap_or_default();
        hub.door().expire(&session, &call).await.unwrap();
        until("the question to continue", || state(&hub, &session) == Some(QuestionState::Continued)).await;

        // The panel still thought it was in the foreground: refused, so it can offer to resubmit.
        let lost = hub.door().answer(&session, &call, db("SQLite"), Some(AnswerPath::Foreground)).await.unwrap_err();
        assert_eq!(lost.code, ErrorCode::NotPending.as_str(), "{lost:?}");
        // The resubmission goes the late path and is admitted by the live agent.
        let taken = hub.door().answer(&session, &call, db("SQLite"), Some(AnswerPath::Late)).await.unwrap();
        assert_eq!(taken.path, AnswerPath::Late);
        until("the late answer", || state(&hub, &session) == Some(QuestionState::Settled)).await;
        hub.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_notification_answer_finds_a_question_of_a_session_not_opened_yet() {
        let dir = tempfile::tempdir().unwrap();
        let session = {
            let first = hub(dir.path(), "timed");
            let session = start(&first, "plan the notes app").await;
            until("the question", || waiting(&first, &session).is_some()).await;
            first.shutdown().await;
            session
        };
        // Quitting continued the live timed question; a new process has not opened the session yet.
        let second = hub(dir.path(), "timed");
        assert_eq!(state(&second, &session), Some(QuestionState::Continued));
        let call = project_questions(&second.store().events(&session).unwrap())[0].call_id.clone();
        let taken = second.door().answer(&session, &call, db("Postgres"), None).await.unwrap();
        assert_eq!(taken.path, AnswerPath::Late);
        until("the late answer", || state(&second, &session) == Some(QuestionState::Settled)).await;
        second.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn quitting_records_a_live_timed_question_as_pending() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub(dir.path(), "timed");
        let session = start(&hub, "plan the notes app").await;
        until("the question", || waiting(&hub, &session).is_some()).await;
        let attached = hub.attach(&session, &waiting(&hub, &session).unwrap_or_default(), None).unwrap();
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
        let session = start(&hub, "plan the notes app").await;
        until("the question", || waiting(&hub, &session).is_some()).await;
        let call = waiting(&hub, &session).unwrap_or_default();
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
        assert_eq!(late.boundary().code, "PAGE_RELOADED");
        let late = hub.open_session(&session, None, Some(old_page), Box::new(|_| true)).unwrap_err();
        assert_eq!(late.boundary().code, "PAGE_RELOADED");

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
        assert_eq!(missing.boundary().code, "NOT_FOUND");
        let empty = hub.door().start(Start { text: "   ".into(), ..Start::default() }).await.unwrap_err();
        assert_eq!(empty.code, "INVALID_ARGUMENT");
        let busy = Hub::start(dir.path(), LaunchOptions::default()).err().expect("one host per data dir");
        assert_eq!(busy.code, "DATA_DIR_BUSY");
    }
}
