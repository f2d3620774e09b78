//! The host of one data directory, shared by every front door (the desktop shell, the `hark` CLI):
//! the lock, the store, the question service with the front door's question surface, one live agent
//! per opened session, and the rules for starting, resuming, answering and quitting. A front door
//! adds only what is its own: windows and notifications, or a terminal.

mod catalogue;
mod clients;
mod error;
mod inbox;
mod lock;
mod models;
mod sessions;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::broadcast;

pub use crate::control::{
    AnswerPath, ApprovalRequest, ClientAnswer, ClientAnswers, ClientCall, ClientId, FormReply, FormRequest, LateAnswer,
    Overview, ShownSession,
};
pub use catalogue::{catalogue, Bounds, Catalogue, ProviderPreset};
pub use clients::{approval_ended, plain_label, plain_name, ClientAsk, Relay, CLAUDE_CODE, CODEX};
pub use error::HostError;
pub use inbox::{InboxEntry, HARK_ASKER};
pub use lock::{HostLock, LockError, LOCK_FILE};
pub use models::{label, plan_first_for, ptc_for, questions_for, ModelSource};

use crate::agent::{history_keep_tokens, Agent, AgentConfig, AgentDeps, AgentEvent};
use crate::mcp::{McpConfig, McpError, CONFIG_FILE};
use crate::open_session::Session;
use crate::question::AnswerBatch;
use crate::service::{
    InteractionProvider, InteractionRequest, ProviderRegistration, QuestionView, Responded, SessionLog,
    UserQuestionService,
};
use crate::session::{match_session, Event, Store, Transcript};
use crate::sync::lock as guard;

/// How long quitting waits for a live timed question's continuation to be recorded.
const CONTINUE_ON_QUIT: Duration = Duration::from_secs(3);

/// A session title: the first line of its first message, at most this many characters.
const TITLE_CHARS: usize = 60;

/// How a new session works, where it differs from this run's choices (`None`: as this run says).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkingChoices {
    pub plan_first: Option<bool>,
    pub ptc: Option<bool>,
}

struct Live {
    agent: Arc<Agent>,
    model_label: String,
}

pub struct Host {
    data_dir: PathBuf,
    store: Arc<Store>,
    service: UserQuestionService,
    models: Arc<dyn ModelSource>,
    sessions: Arc<sessions::OpenSessions>,
    live: Mutex<HashMap<String, Live>>,
    /// The live roots of the client sessions opened, by session id.
    relays: Mutex<HashMap<String, Arc<Relay>>>,
    /// Each client's session, once found or created.
    clients: Mutex<HashMap<ClientId, String>>,
    /// Held while a client's session is found or created, so a client never gets two.
    finding_client: Mutex<()>,
    /// The MCP servers agents opened from now on get.
    mcp: Mutex<Arc<McpConfig>>,
    /// Held while an agent is being opened, so a session never gets two (a second live root would
    /// retire the first); `live` itself is only ever held briefly.
    opening: Mutex<()>,
    /// Each new session's id, whichever front door made it: every surface lists it at once.
    created: broadcast::Sender<String>,
    /// The control socket other processes reach this host through, once [`serve`](Host::serve)d.
    #[cfg(any(unix, windows))]
    front_door: Mutex<Option<crate::control::ControlServer>>,
    /// The tunnels agents on the person's other machines ask through, kept while the socket is served.
    #[cfg(unix)]
    tunnels: Mutex<Option<crate::remote_hosts::Tunnels>>,
    // Dropped last: the surface before the lock, so questions end before another host may start.
    _surface: ProviderRegistration,
    _lock: HostLock,
}

impl Host {
    /// Takes the data directory (one host at a time), opens its store and registers `surface` as
    /// where questions are shown.
    pub fn start(
        dir: &Path,
        surface: Arc<dyn InteractionProvider>,
        models: Arc<dyn ModelSource>,
    ) -> Result<Host, HostError> {
        let lock = HostLock::acquire(dir)?;
        let store = Arc::new(Store::open(dir)?);
        let sessions =
            Arc::new(sessions::OpenSessions::new(Arc::clone(&store), history_keep_tokens(&AgentConfig::default())));
        let service = UserQuestionService::new(Arc::clone(&sessions) as Arc<dyn SessionLog>);
        let registration = service.register(surface)?;
        // A broken mcp.json must not keep the app from starting: its sessions run without servers.
        let mcp = McpConfig::load(&dir.join(CONFIG_FILE), &|name| models.variable(name)).unwrap_or_else(|e| {
            eprintln!("hark: {e}");
            McpConfig::default()
        });
        Ok(Host {
            mcp: Mutex::new(Arc::new(mcp)),
            data_dir: dir.to_path_buf(),
            store,
            service,
            models,
            sessions,
            live: Mutex::new(HashMap::new()),
            relays: Mutex::new(HashMap::new()),
            clients: Mutex::new(HashMap::new()),
            finding_client: Mutex::new(()),
            opening: Mutex::new(()),
            created: broadcast::channel(64).0,
            #[cfg(any(unix, windows))]
            front_door: Mutex::new(None),
            #[cfg(unix)]
            tunnels: Mutex::new(None),
            _surface: registration,
            _lock: lock,
        })
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn service(&self) -> &UserQuestionService {
        &self.service
    }

    /// The ids of sessions created from now on, by any front door (the socket's `start`, an outside
    /// agent's first question, the window itself): what a list of sessions refreshes on.
    pub fn subscribe_created(&self) -> broadcast::Receiver<String> {
        self.created.subscribe()
    }

    fn announce_created(&self, session: &str) {
        let _ = self.created.send(session.to_string());
    }

    /// Replaces the MCP servers (from `mcp.json`) for agents opened from now on. How each server
    /// last started is kept across the change.
    pub fn set_mcp_config(&self, mut config: McpConfig) {
        let mut current = guard(&self.mcp);
        config.status = Arc::clone(&current.status);
        *current = Arc::new(config);
    }

    /// Reads the data directory's `mcp.json` again (after Settings saved it) for agents opened from
    /// now on.
    pub fn reload_mcp(&self) -> Result<(), McpError> {
        let config = McpConfig::load(&self.data_dir.join(CONFIG_FILE), &|name| self.models.variable(name))?;
        self.set_mcp_config(config);
        Ok(())
    }

    /// The MCP servers agents opened now get.
    pub fn mcp_config(&self) -> Arc<McpConfig> {
        Arc::clone(&guard(&self.mcp))
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The session a person typed (full id or unique prefix).
    pub fn resolve(&self, typed: &str) -> Result<String, HostError> {
        match_session(self.store.list_sessions()?, typed).map(|s| s.id).map_err(HostError::NotFound)
    }

    fn deps(&self, model: &crate::session::ModelRef) -> Result<AgentDeps, HostError> {
        let provider = self.models.provider(model)?;
        Ok(AgentDeps { store: Arc::clone(&self.store), service: self.service.clone(), model: provider })
    }

    /// Creates a session with the model for new sessions and sends its first message; returns its id
    /// and a subscription taken before the first turn. Call inside a tokio runtime.
    pub fn start_session(
        &self,
        text: &str,
        workspace: Option<PathBuf>,
    ) -> Result<(String, broadcast::Receiver<AgentEvent>), HostError> {
        self.start_session_with(text, workspace, WorkingChoices::default())
    }

    /// [`start_session`](Self::start_session) with `choices` over this run's (a second launch's
    /// `--plan` and `--ptc`, carried out by the running app).
    pub fn start_session_with(
        &self,
        text: &str,
        workspace: Option<PathBuf>,
        choices: WorkingChoices,
    ) -> Result<(String, broadcast::Receiver<AgentEvent>), HostError> {
        self.start_session_by(text, workspace, choices, None)
    }

    /// [`start_session_with`](Self::start_session_with) for another front door, recorded as
    /// `started_by` it (see [`crate::session::Event::SessionCreated`]).
    pub fn start_session_by(
        &self,
        text: &str,
        workspace: Option<PathBuf>,
        choices: WorkingChoices,
        started_by: Option<&str>,
    ) -> Result<(String, broadcast::Receiver<AgentEvent>), HostError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(HostError::InvalidArgument("a message needs some text".into()));
        }
        let workspace = match workspace {
            Some(dir) => match dir.canonicalize() {
                Ok(d) if d.is_dir() => Some(d),
                _ => return Err(HostError::InvalidArgument(format!("{} is not a folder", dir.display()))),
            },
            None => None,
        };
        let model = self.models.for_new();
        let deps = self.deps(&model)?;
        let title: String = text.lines().next().unwrap_or(text).chars().take(TITLE_CHARS).collect();
        let config = AgentConfig {
            questions: questions_for(self.models.as_ref(), None),
            plan_first: choices.plan_first.unwrap_or_else(|| plan_first_for(self.models.as_ref(), None)),
            ptc: choices.ptc.unwrap_or_else(|| ptc_for(self.models.as_ref(), None)),
            mcp: Arc::clone(&guard(&self.mcp)),
            ..AgentConfig::default()
        };
        let workspace = workspace.map(|w| w.to_string_lossy().into_owned());
        let session = self.sessions.create(&title, workspace.as_deref(), Some(model.clone()), started_by)?;
        let (agent, events) = Agent::attach(deps, session, config);
        let id = agent.session_id().to_string();
        agent.steer(text)?;
        guard(&self.live).insert(id.clone(), Live { agent: Arc::new(agent), model_label: label(&model) });
        self.announce_created(&id);
        Ok((id, events))
    }

    /// The session's live agent, opened if needed (repairing what a dead run left open and admitting
    /// what waits in its inbox), with a subscription taken before it could start a turn.
    pub fn open(&self, session: &str) -> Result<(Arc<Agent>, broadcast::Receiver<AgentEvent>), HostError> {
        if let Some(live) = guard(&self.live).get(session) {
            return Ok((Arc::clone(&live.agent), live.agent.subscribe()));
        }
        let _opening = guard(&self.opening);
        if let Some(live) = guard(&self.live).get(session) {
            return Ok((Arc::clone(&live.agent), live.agent.subscribe()));
        }
        let open = self.session(session)?;
        if let Some(client) = open.client() {
            return Err(HostError::ClientSession(client));
        }
        let questions = questions_for(self.models.as_ref(), open.recorded_settings());
        let model = self.models.for_existing(open.model());
        let deps = self.deps(&model)?;
        let plan_first = plan_first_for(self.models.as_ref(), open.recorded_plan_first());
        let ptc = ptc_for(self.models.as_ref(), open.recorded_ptc());
        let mcp = Arc::clone(&guard(&self.mcp));
        let config = AgentConfig { questions, plan_first, ptc, mcp, ..AgentConfig::default() };
        let (agent, rx) = Agent::attach(deps, open, config);
        let agent = Arc::new(agent);
        guard(&self.live).insert(session.to_string(), Live { agent: Arc::clone(&agent), model_label: label(&model) });
        Ok((agent, rx))
    }

    /// The open session (read once, when first needed). NOT_FOUND for an unknown id.
    pub fn session(&self, session: &str) -> Result<Arc<Session>, HostError> {
        Ok(self.sessions.get(session)?)
    }

    /// Makes the session live (its agent, or a client session's relay) and follows it: what the
    /// window and an answer that must be admitted now want, whichever kind the session is.
    pub fn activate(&self, session: &str) -> Result<broadcast::Receiver<AgentEvent>, HostError> {
        match self.open(session) {
            Ok((_, rx)) => Ok(rx),
            Err(HostError::ClientSession(_)) => Ok(self.relay(session)?.subscribe()),
            Err(e) => Err(e),
        }
    }

    /// Whether the session works: a turn runs or input waits (a client: one of its questions waits).
    pub fn is_busy(&self, session: &str) -> bool {
        match self.agent(session) {
            Some(agent) => agent.is_busy(),
            None => guard(&self.relays).get(session).is_some_and(|r| r.is_busy()),
        }
    }

    /// The session's agent if it is live.
    pub fn agent(&self, session: &str) -> Option<Arc<Agent>> {
        guard(&self.live).get(session).map(|l| Arc::clone(&l.agent))
    }

    /// How the live session's model is named to the person.
    pub fn model_label(&self, session: &str) -> Option<String> {
        guard(&self.live).get(session).map(|l| l.model_label.clone())
    }

    /// The model label a new session would get.
    pub fn label_for_new(&self) -> (crate::session::ModelRef, String) {
        let model = self.models.for_new();
        let text = label(&model);
        (model, text)
    }

    pub fn send(&self, session: &str, text: &str) -> Result<(), HostError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(HostError::InvalidArgument("a message needs some text".into()));
        }
        Ok(self.open(session)?.0.steer(text)?)
    }

    /// Stops the session's running turn; whether one was running. Never opens a session.
    pub fn abort(&self, session: &str) -> bool {
        self.agent(session).is_some_and(|a| a.abort())
    }

    pub fn retry(&self, session: &str) -> Result<(), HostError> {
        Ok(self.open(session)?.0.retry()?)
    }

    /// `session`'s waiting questions as surfaces list them (see [`UserQuestionService::questions`]).
    pub fn questions(&self, session: &str) -> Vec<QuestionView> {
        self.service.questions(session)
    }

    /// An answer from any surface. `Some(Foreground)` answers the waiting call only (`NOT_PENDING`
    /// once its wait ended), `Some(Late)` a continued question, `None` whichever applies. A late
    /// answer is queued durably before this returns, also for a session whose agent is not live: its
    /// agent admits it when it is opened (a front door that wants it admitted now calls
    /// [`answer_and_admit`](Self::answer_and_admit)).
    pub fn answer(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<AnswerPath>,
    ) -> Result<AnswerPath, HostError> {
        if self.agent(session).is_none() {
            // Opened (read and repaired) first: a call a dead run left open is continued only then.
            self.session(session)?;
        }
        let taken = self.answer_path(session, call_id, answers, path).map_err(|e| match e {
            // An approval never continues: once its agent stopped waiting, an answer is too late.
            HostError::Interaction(e) | HostError::Service(crate::service::ServiceError::Interaction(e))
                if e.code == crate::question::ErrorCode::NotPending
                    && call_id.starts_with(crate::question::APPROVAL_CALL_PREFIX) =>
            {
                HostError::Interaction(approval_ended(call_id))
            }
            other => other,
        })?;
        Ok(taken)
    }

    fn answer_path(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<AnswerPath>,
    ) -> Result<AnswerPath, HostError> {
        let taken = match path {
            Some(AnswerPath::Foreground) => {
                self.service.submit_foreground(session, call_id, answers)?;
                AnswerPath::Foreground
            }
            Some(AnswerPath::Late) => {
                self.service.answer(session, call_id, answers)?;
                AnswerPath::Late
            }
            None => match self.service.respond(session, call_id, answers)? {
                Responded::Foreground => AnswerPath::Foreground,
                Responded::Late(_) => AnswerPath::Late,
            },
        };
        Ok(taken)
    }

    /// [`answer`](Self::answer) from a surface that does not wait for the session (a notification,
    /// another front door): a late answer is admitted at once, the session made live if nobody has.
    pub fn answer_and_admit(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<AnswerPath>,
    ) -> Result<AnswerPath, HostError> {
        let path = self.answer(session, call_id, answers, path)?;
        // The answer is durable by now: a session that cannot run (its model is misconfigured) keeps
        // it queued, and says why when it is opened, rather than this answer being reported lost.
        if path == AnswerPath::Late {
            if let Err(e) = self.activate(session) {
                eprintln!("hark: the late answer is queued; the session could not start: {e}");
            }
        }
        Ok(path)
    }

    pub fn cancel(&self, session: &str, call_id: &str) -> Result<(), HostError> {
        Ok(self.service.cancel(session, call_id)?)
    }

    /// The person declined an MCP server's form.
    pub fn decline(&self, session: &str, call_id: &str) -> Result<(), HostError> {
        Ok(self.service.decline(session, call_id)?)
    }

    pub fn expire(&self, session: &str, call_id: &str) -> Result<(), HostError> {
        Ok(self.service.expire(session, call_id)?)
    }

    /// The session's transcript; with `turns`, only its newest `turns` turns.
    pub fn transcript(&self, session: &str, turns: Option<usize>) -> Result<Transcript, HostError> {
        Ok(self.session(session)?.transcript(turns)?)
    }

    /// The sessions, every waiting question, and `session`'s newest `turns` turns.
    pub fn overview(&self, session: Option<&str>, turns: usize) -> Result<Overview, HostError> {
        let shown = match session {
            Some(id) => Some(ShownSession {
                id: id.to_string(),
                transcript: self.transcript(id, Some(turns))?,
                busy: self.is_busy(id),
                model_label: self.model_label(id),
                continued: self.service.continued(id),
            }),
            None => None,
        };
        Ok(Overview { sessions: self.store.list_sessions()?, waiting: self.service.foreground(None), shown })
    }

    /// Keeps the control socket's server (see `Host::serve`), stopped in its turn by
    /// [`shutdown`](Self::shutdown).
    #[cfg(any(unix, windows))]
    pub(crate) fn keep_front_door(&self, server: crate::control::ControlServer) {
        *guard(&self.front_door) = Some(server);
    }

    /// Keeps the tunnels to the person's remote hosts (see `Host::serve`) until shutdown.
    #[cfg(unix)]
    pub(crate) fn keep_tunnels(&self, tunnels: crate::remote_hosts::Tunnels) {
        *guard(&self.tunnels) = Some(tunnels);
    }

    /// Quitting, the same from every front door: a live timed question and a live plan review
    /// continue (their result is recorded pending, so they are answerable after the next start), a
    /// live blocking question ends `ASK_ABORTED`, every running turn ends recorded as aborted, and queued input stays queued.
    ///
    /// The order is the same for every host: outside agents' waiting questions end first (each
    /// waiting agent is told `PENDING` while the socket can still say so), then the control socket
    /// stops (waiting for the requests it took), then the rest.
    pub async fn shutdown(&self) {
        #[cfg(unix)]
        drop(guard(&self.tunnels).take());
        self.end_client_asks();
        #[cfg(any(unix, windows))]
        {
            let door = guard(&self.front_door).take();
            if let Some(door) = door {
                door.shutdown().await;
            }
        }
        let lasting: Vec<(String, String)> = self
            .service
            .foreground(None)
            .into_iter()
            .filter(InteractionRequest::outlives_quit)
            .map(|r| (r.session_id, r.call_id))
            .collect();
        let mut waits = Vec::new();
        for (session, call) in lasting {
            // Subscribed before the wait ends, so the recorded result cannot be missed.
            let rx = self.sessions.get(&session).ok().map(|s| s.subscribe());
            if self.service.continue_on_quit(&session, &call).is_ok() {
                if let Some(rx) = rx {
                    waits.push(result_recorded(rx, call));
                }
            }
        }
        let _ = tokio::time::timeout(CONTINUE_ON_QUIT, futures_util::future::join_all(waits)).await;
        let agents: Vec<Arc<Agent>> = guard(&self.live).drain().map(|(_, l)| l.agent).collect();
        for agent in agents {
            match Arc::try_unwrap(agent) {
                Ok(agent) => agent.close().await,
                // A front door still holds it: stop the turn and wait for its end to be recorded.
                Err(agent) => {
                    agent.abort();
                    agent.wait_idle().await;
                }
            }
        }
        // A client's blocking question ends ASK_ABORTED here, and its relay records that.
        self.service.shutdown();
        guard(&self.relays).clear();
        self.sessions.save_all();
    }
}

/// Resolves once `call`'s result is in the session's log (a script's call's as `tool/ptc-result`).
async fn result_recorded(mut rx: broadcast::Receiver<AgentEvent>, call: String) {
    loop {
        match rx.recv().await {
            Ok(AgentEvent::EventAppended { event }) => {
                let result = match &event.event {
                    Event::ToolResult { call_id, .. } | Event::PtcResult { call_id, .. } => Some(call_id),
                    _ => None,
                };
                if result == Some(&call) {
                    return;
                }
            }
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}
