//! Whose sessions `hark tui` works: its own host's (no app runs), or the running app's through its
//! control socket, so the terminal is one more surface of the app's questions and the first valid
//! answer wins across window, notification and terminal. The screen asks both the same things.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hark_core::agent::AgentEvent;
use hark_core::control::{self, Reply, ReplyStream, Request};
use hark_core::error::{BoundaryError, CodedError};
use hark_core::host::{AnswerPath, Host, Overview, WorkingChoices};
use hark_core::question::AnswerBatch;
use hark_core::service::{QuestionEvent, Takeover};
use tokio::sync::{broadcast, mpsc};

/// What happened that the screen may show differently.
pub(super) enum Update {
    /// One of the followed session's events.
    Agent(Box<AgentEvent>),
    /// Some session's question was asked, settled, or got a reply queued.
    Questions,
    /// Events were dropped: read everything again.
    Lagged,
    /// The app this screen works through quit.
    HostGone,
}

/// A spawned task, stopped when this is dropped (closing a connection it holds).
pub(super) struct Task(tokio::task::JoinHandle<()>);

impl Drop for Task {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A followed session's updates and every session's question changes, for as long as it is held.
pub(super) struct Follow {
    pub updates: mpsc::UnboundedReceiver<Update>,
    _task: Task,
}

/// A timed question's countdown, held by this screen until dropped.
pub(super) enum Hold {
    Here(#[allow(dead_code)] Takeover),
    App(#[allow(dead_code)] Task),
}

pub(super) enum Backend {
    Local(Arc<Host>),
    /// The running app hosting this data directory.
    App(PathBuf),
}

type Result<T> = std::result::Result<T, BoundaryError>;

impl Backend {
    /// Through the app when one answers on the data directory's control socket.
    pub async fn app(dir: &Path) -> Option<Backend> {
        match control::call(dir, &Request::Settings).await {
            Ok(Reply::Settings { .. }) => Some(Backend::App(dir.to_path_buf())),
            _ => None,
        }
    }

    pub fn is_app(&self) -> bool {
        matches!(self, Backend::App(_))
    }

    /// Follows `session` (made live) and every session's questions; returns the session's id.
    pub async fn follow(&self, session: Option<&str>) -> Result<(Option<String>, Follow)> {
        let (tx, updates) = mpsc::unbounded_channel();
        match self {
            Backend::Local(host) => {
                let (id, agent) = match session {
                    Some(typed) => {
                        let id = host.resolve(typed).map_err(|e| e.boundary())?;
                        let rx = host.activate(&id).map_err(|e| e.boundary())?;
                        (Some(id), Some(rx))
                    }
                    None => (None, None),
                };
                let task = tokio::spawn(forward_local(agent, host.service().subscribe(), tx));
                Ok((id, Follow { updates, _task: Task(task) }))
            }
            Backend::App(dir) => {
                let mut replies = open(dir, &Request::Watch { session: session.map(str::to_string) }).await?;
                let id = match replies.next().await {
                    Ok(Some(Reply::Watching { session_id })) => session_id,
                    other => return Err(unexpected(other)),
                };
                let task = tokio::spawn(forward_app(replies, tx));
                Ok((id, Follow { updates, _task: Task(task) }))
            }
        }
    }

    pub async fn overview(&self, session: Option<&str>, turns: usize) -> Result<Overview> {
        match self {
            Backend::Local(host) => host.overview(session, turns).map_err(|e| e.boundary()),
            Backend::App(dir) => {
                let request = Request::Overview { session: session.map(str::to_string), turns };
                match ask(dir, &request).await? {
                    Reply::Overview { overview } => Ok(*overview),
                    other => Err(unexpected(Ok(Some(other)))),
                }
            }
        }
    }

    /// A new session with its first message; returns its id.
    pub async fn start(&self, text: &str, workspace: Option<PathBuf>, choices: WorkingChoices) -> Result<String> {
        match self {
            Backend::Local(host) => {
                host.start_session_with(text, workspace, choices).map(|(id, _)| id).map_err(|e| e.boundary())
            }
            Backend::App(dir) => {
                // The app runs elsewhere: the folder goes as this terminal means it.
                let workspace = workspace.map(|w| std::path::absolute(&w).unwrap_or(w));
                let request = Request::Start {
                    text: text.to_string(),
                    workspace,
                    by: Some("hark tui".into()),
                    plan_first: choices.plan_first,
                    ptc: choices.ptc,
                };
                match ask(dir, &request).await? {
                    Reply::Started { session_id } => Ok(session_id),
                    other => Err(unexpected(Ok(Some(other)))),
                }
            }
        }
    }

    pub async fn send(&self, session: &str, text: &str) -> Result<()> {
        match self {
            Backend::Local(host) => host.send(session, text).map_err(|e| e.boundary()),
            Backend::App(dir) => done(dir, Request::Send { session: session.into(), text: text.into() }).await,
        }
    }

    /// Stops the session's running turn; whether one ran.
    pub async fn stop(&self, session: &str) -> bool {
        match self {
            Backend::Local(host) => host.abort(session),
            Backend::App(dir) => {
                matches!(
                    ask(dir, &Request::Stop { session: session.into() }).await,
                    Ok(Reply::Stopped { stopped: true })
                )
            }
        }
    }

    pub async fn cancel(&self, session: &str, call_id: &str) -> Result<()> {
        match self {
            Backend::Local(host) => host.cancel(session, call_id).map_err(|e| e.boundary()),
            Backend::App(dir) => done(dir, Request::Cancel { session: session.into(), call_id: call_id.into() }).await,
        }
    }

    pub async fn expire(&self, session: &str, call_id: &str) -> Result<()> {
        match self {
            Backend::Local(host) => host.expire(session, call_id).map_err(|e| e.boundary()),
            Backend::App(dir) => done(dir, Request::Expire { session: session.into(), call_id: call_id.into() }).await,
        }
    }

    pub async fn answer(&self, session: &str, call_id: &str, answers: AnswerBatch, path: AnswerPath) -> Result<()> {
        match self {
            Backend::Local(host) => {
                host.answer_and_admit(session, call_id, answers, Some(path)).map(|_| ()).map_err(|e| e.boundary())
            }
            Backend::App(dir) => {
                let request =
                    Request::Answer { session: session.into(), call_id: call_id.into(), answers, path: Some(path) };
                ask(dir, &request).await.map(|_| ())
            }
        }
    }

    /// Takes over a timed question's countdown; returns what was left of it.
    pub async fn attach(&self, session: &str, call_id: &str) -> Result<(Option<u64>, Hold)> {
        match self {
            Backend::Local(host) => {
                let attached = host.service().attach(session, call_id).map_err(|e| e.boundary())?;
                Ok((attached.remaining_ms, Hold::Here(attached.takeover)))
            }
            Backend::App(dir) => {
                let mut replies =
                    open(dir, &Request::Attach { session: session.into(), call_id: call_id.into() }).await?;
                match replies.next().await {
                    Ok(Some(Reply::Attached { remaining_ms })) => {
                        // The connection is the take-over: it is held open until the hold is dropped.
                        let held = tokio::spawn(async move { while let Ok(Some(_)) = replies.next().await {} });
                        Ok((remaining_ms, Hold::App(Task(held))))
                    }
                    other => Err(unexpected(other)),
                }
            }
        }
    }
}

async fn open(dir: &Path, request: &Request) -> Result<ReplyStream> {
    control::open(dir, request).await.map_err(|e| e.boundary())
}

/// One request's reply; a refusal is its error.
async fn ask(dir: &Path, request: &Request) -> Result<Reply> {
    match control::call(dir, request).await.map_err(|e| e.boundary())? {
        Reply::Refused { error } => Err(error),
        reply => Ok(reply),
    }
}

async fn done(dir: &Path, request: Request) -> Result<()> {
    ask(dir, &request).await.map(|_| ())
}

/// A reply that is not the one asked for: a refusal says why, anything else is a protocol mismatch.
fn unexpected(reply: std::result::Result<Option<Reply>, control::ControlError>) -> BoundaryError {
    match reply {
        Ok(Some(Reply::Refused { error })) => error,
        Ok(other) => control::ControlError::Protocol(format!("unexpected reply {other:?}")).boundary(),
        Err(e) => e.boundary(),
    }
}

async fn forward_local(
    mut agent: Option<broadcast::Receiver<AgentEvent>>,
    mut questions: broadcast::Receiver<QuestionEvent>,
    tx: mpsc::UnboundedSender<Update>,
) {
    use broadcast::error::RecvError;
    loop {
        let from_agent = async {
            match &mut agent {
                Some(rx) => rx.recv().await,
                None => std::future::pending().await,
            }
        };
        let update = tokio::select! {
            event = from_agent => match event {
                // Question events come with every session's, below.
                Ok(AgentEvent::Question { .. }) => continue,
                Ok(event) => Update::Agent(Box::new(event)),
                Err(RecvError::Lagged(_)) => Update::Lagged,
                // The agent is gone (the host is quitting): its session says nothing more.
                Err(RecvError::Closed) => {
                    agent = None;
                    continue;
                }
            },
            event = questions.recv() => match event {
                Ok(_) => Update::Questions,
                Err(RecvError::Lagged(_)) => Update::Lagged,
                Err(RecvError::Closed) => return,
            },
        };
        if tx.send(update).is_err() {
            return;
        }
    }
}

async fn forward_app(mut replies: ReplyStream, tx: mpsc::UnboundedSender<Update>) {
    loop {
        let update = match replies.next().await {
            Ok(Some(Reply::Agent { event })) => Update::Agent(Box::new(event)),
            Ok(Some(Reply::Question { .. })) => Update::Questions,
            Ok(Some(Reply::Lagged)) => Update::Lagged,
            Ok(Some(_)) => continue,
            // The app closed the watch: it is quitting.
            Ok(None) | Err(_) => {
                let _ = tx.send(Update::HostGone);
                return;
            }
        };
        if tx.send(update).is_err() {
            return;
        }
    }
}
