//! The front door to a host in another process, over its data directory's control socket: each
//! operation is one request whose reply is checked to be the one it asks for.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::stream::{self, StreamExt};
use tokio_util::task::AbortOnDropHandle;

use super::{Answered, Attached, FrontDoor, Hold, Result, Start, Watch, Watched};
use crate::control::{self, ControlError, Reply, ReplyStream, Request};
use crate::error::{BoundaryError, CodedError};
use crate::host::{AnswerPath, ClientAnswer, ClientAnswers, ClientCall, ClientId, Host, InboxEntry, Overview};
use crate::question::AnswerBatch;
use crate::service::SessionQuestions;
use crate::session::{SessionSummary, Transcript};
use crate::tools::QuestionSettings;

/// Starts a host for the data directory when none answers (the agents' front doors start the
/// desktop app, so a question always finds the person), returning once it answers.
pub type AppStarter = Arc<dyn Fn(PathBuf) -> BoxFuture<'static, std::result::Result<(), ControlError>> + Send + Sync>;

/// The host serving a data directory's control socket.
#[derive(Clone)]
pub struct Remote {
    dir: PathBuf,
    start: Option<AppStarter>,
}

impl Remote {
    /// The host of `dir`, which must be running.
    pub fn new(dir: &Path) -> Remote {
        Remote { dir: dir.to_path_buf(), start: None }
    }

    /// The host of `dir`, started by `start` when none answers.
    pub fn starting(dir: &Path, start: AppStarter) -> Remote {
        Remote { dir: dir.to_path_buf(), start: Some(start) }
    }

    /// The running host of `dir`, when one answers on its socket.
    pub async fn running(dir: &Path) -> Option<Remote> {
        let door = Remote::new(dir);
        door.settings().await.is_ok().then_some(door)
    }

    pub fn data_dir(&self) -> &Path {
        &self.dir
    }

    /// Opens `request`'s connection, starting the host first when none answers and this door may.
    async fn open(&self, request: &Request) -> Result<ReplyStream> {
        match control::open(&self.dir, request).await {
            Err(ControlError::Unavailable { .. }) if self.start.is_some() => {
                // On a machine a desk's Hark reaches through a tunnel, the agent asks the person at
                // that desk; with the tunnel down this fails at once (the agent asks in its own
                // terminal) rather than starting an app here that nobody sits at.
                #[cfg(unix)]
                if let Some(socket) = crate::remote_hosts::forwarded_socket() {
                    return control::open_at(&socket, request).await.map_err(|e| e.boundary());
                }
                if let Some(start) = &self.start {
                    start(self.dir.clone()).await.map_err(|e| e.boundary())?;
                }
                control::open(&self.dir, request).await.map_err(|e| e.boundary())
            }
            opened => opened.map_err(|e| e.boundary()),
        }
    }

    /// The request's first reply; a refusal is its error.
    async fn ask(&self, request: &Request) -> Result<Reply> {
        let mut replies = self.open(request).await?;
        first(&mut replies).await
    }

    /// [`ask`](Self::ask) that waits until the host closes the connection: for a request whose host
    /// finishes work after writing its reply (late answers recorded as handed over), so that the
    /// next request sees it done.
    async fn ask_to_end(&self, request: &Request) -> Result<Reply> {
        let mut replies = self.open(request).await?;
        let reply = first(&mut replies).await?;
        while let Ok(Some(_)) = replies.next().await {}
        Ok(reply)
    }

    async fn done(&self, request: Request) -> Result<()> {
        match self.ask(&request).await? {
            Reply::Done => Ok(()),
            other => Err(unexpected(&request, other)),
        }
    }
}

async fn first(replies: &mut ReplyStream) -> Result<Reply> {
    match replies.next().await {
        Ok(Some(Reply::Refused { error })) => Err(error),
        Ok(Some(reply)) => Ok(reply),
        Ok(None) => Err(ControlError::Closed { path: replies.path().to_path_buf() }.boundary()),
        Err(e) => Err(e.boundary()),
    }
}

/// A reply that is not the one `request` asks for: the peers do not speak the same protocol.
fn unexpected(request: &Request, reply: Reply) -> BoundaryError {
    ControlError::Protocol(format!("{request:?} was replied to with {reply:?}")).boundary()
}

#[async_trait::async_trait]
impl FrontDoor for Remote {
    fn hosted(&self) -> Option<&Arc<Host>> {
        None
    }

    async fn overview(&self, session: Option<&str>, turns: usize) -> Result<Overview> {
        let request = Request::Overview { session: session.map(str::to_string), turns };
        match self.ask(&request).await? {
            Reply::Overview { overview } => Ok(*overview),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn start(&self, start: Start) -> Result<String> {
        // The host runs elsewhere: the folder goes as this process means it.
        let workspace = start.workspace.map(|w| std::path::absolute(&w).unwrap_or(w));
        let request = Request::Start {
            text: start.text,
            workspace,
            by: start.by,
            plan_first: start.choices.plan_first,
            ptc: start.choices.ptc,
        };
        match self.ask(&request).await? {
            Reply::Started { session_id } => Ok(session_id),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn send(&self, session: &str, text: &str) -> Result<()> {
        self.done(Request::Send { session: session.into(), text: text.into() }).await
    }

    async fn stop(&self, session: &str) -> Result<bool> {
        let request = Request::Stop { session: session.into() };
        match self.ask(&request).await? {
            Reply::Stopped { stopped } => Ok(stopped),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn watch(&self, session: Option<&str>) -> Result<Watch> {
        let request = Request::Watch { session: session.map(str::to_string) };
        let mut replies = self.open(&request).await?;
        let session_id = match first(&mut replies).await? {
            Reply::Watching { session_id } => session_id,
            other => return Err(unexpected(&request, other)),
        };
        let events = stream::unfold(replies, |mut replies| async move {
            loop {
                let event = match replies.next().await {
                    Ok(Some(Reply::Agent { event })) => Watched::Agent(Box::new(event)),
                    Ok(Some(Reply::Question { event })) => Watched::Question(Box::new(event)),
                    Ok(Some(Reply::Lagged)) => Watched::Lagged,
                    Ok(Some(_)) => continue,
                    // The host closed the watch: it is quitting (or the connection broke).
                    Ok(None) | Err(_) => return None,
                };
                return Some((event, replies));
            }
        });
        Ok(Watch { session_id, events: events.boxed() })
    }

    async fn sessions(&self) -> Result<Vec<SessionSummary>> {
        match self.ask(&Request::Sessions).await? {
            Reply::Sessions { sessions } => Ok(sessions),
            other => Err(unexpected(&Request::Sessions, other)),
        }
    }

    async fn transcript(&self, session: &str, turns: Option<usize>) -> Result<Transcript> {
        let request = Request::Transcript { session: session.into(), turns };
        match self.ask(&request).await? {
            Reply::Transcript { transcript } => Ok(*transcript),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn retry(&self, session: &str) -> Result<()> {
        self.done(Request::Retry { session: session.into() }).await
    }

    async fn answer(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<AnswerPath>,
    ) -> Result<Answered> {
        let request = Request::Answer { session: session.into(), call_id: call_id.into(), answers, path };
        match self.ask(&request).await? {
            Reply::Answered { session_id, path } => Ok(Answered { session_id, path }),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn cancel(&self, session: &str, call_id: &str) -> Result<()> {
        self.done(Request::Cancel { session: session.into(), call_id: call_id.into() }).await
    }

    async fn expire(&self, session: &str, call_id: &str) -> Result<()> {
        self.done(Request::Expire { session: session.into(), call_id: call_id.into() }).await
    }

    async fn attach(&self, session: &str, call_id: &str) -> Result<Attached> {
        let request = Request::Attach { session: session.into(), call_id: call_id.into() };
        let mut replies = self.open(&request).await?;
        match first(&mut replies).await? {
            Reply::Attached { remaining_ms } => {
                // The connection is the take-over: it stays open, read to its end, until the hold
                // is dropped.
                let held = tokio::spawn(async move { while let Ok(Some(_)) = replies.next().await {} });
                Ok(Attached { remaining_ms, hold: Hold::new(AbortOnDropHandle::new(held)) })
            }
            other => Err(unexpected(&request, other)),
        }
    }

    async fn decline(&self, session: &str, call_id: &str) -> Result<()> {
        self.done(Request::Decline { session: session.into(), call_id: call_id.into() }).await
    }

    async fn questions(&self, session: &str) -> Result<SessionQuestions> {
        let request = Request::Questions { session: session.into() };
        match self.ask(&request).await? {
            Reply::Questions { questions } => Ok(questions),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn inbox(&self) -> Result<Vec<InboxEntry>> {
        match self.ask(&Request::Inbox).await? {
            Reply::Inbox { entries } => Ok(entries),
            other => Err(unexpected(&Request::Inbox, other)),
        }
    }

    async fn settings(&self) -> Result<QuestionSettings> {
        match self.ask(&Request::Settings).await? {
            Reply::Settings { settings } => Ok(settings),
            other => Err(unexpected(&Request::Settings, other)),
        }
    }

    async fn ask(
        &self,
        client: &ClientId,
        call_id: Option<String>,
        settings: Option<QuestionSettings>,
        arguments: serde_json::Value,
    ) -> Result<ClientAnswer> {
        // Dropping this future closes the connection, which the host takes as the question withdrawn.
        let request = Request::Ask { client: client.clone(), settings, arguments, call_id };
        match Remote::ask(self, &request).await? {
            Reply::Asked { answer } => Ok(answer),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn answers(&self, client: &ClientId, calls: Vec<String>) -> Result<ClientAnswers> {
        let request = Request::Answers { client: client.clone(), calls };
        match self.ask_to_end(&request).await? {
            Reply::Answers { answers } => Ok(answers),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn call(&self, client: &ClientId, call_id: &str) -> Result<ClientCall> {
        let request = Request::Call { client: client.clone(), call_id: call_id.into() };
        match Remote::ask(self, &request).await? {
            Reply::Call { call } => Ok(call),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn withdraw(&self, client: &ClientId, call_id: &str, reason: &str) -> Result<()> {
        self.done(Request::Withdraw { client: client.clone(), call_id: call_id.into(), reason: reason.into() }).await
    }

    async fn approve(&self, client: &ClientId, request: crate::control::ApprovalRequest) -> Result<ClientAnswer> {
        // Dropping this future closes the connection, which the host takes as the approval ended.
        let request = Request::Approve { client: client.clone(), request };
        match Remote::ask(self, &request).await? {
            Reply::Asked { answer } => Ok(answer),
            other => Err(unexpected(&request, other)),
        }
    }

    async fn end_approvals(
        &self,
        client: &ClientId,
        request: crate::control::ApprovalRequest,
        reason: &str,
    ) -> Result<()> {
        self.done(Request::EndApprovals { client: client.clone(), request, reason: reason.into() }).await
    }

    async fn form(&self, client: &ClientId, request: crate::control::FormRequest) -> Result<crate::control::FormReply> {
        // Dropping this future closes the connection, which the host takes as the form ended.
        let request = Request::Form { client: client.clone(), request };
        match Remote::ask(self, &request).await? {
            Reply::Form { reply } => Ok(reply),
            other => Err(unexpected(&request, other)),
        }
    }
}
