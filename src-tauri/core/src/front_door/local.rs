//! The front door to a host in this process: each operation is the host's own function, with the
//! store's blocking work moved off the async threads.

use std::sync::Arc;

use futures_util::stream::{self, StreamExt};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio_util::sync::CancellationToken;

use super::{Answered, Attached, FrontDoor, Hold, Result, Start, Watch, Watched};
use crate::agent::AgentEvent;
use crate::error::BoundaryError;
use crate::host::{
    plain_label, AnswerPath, ApprovalRequest, ClientAnswer, ClientAnswers, ClientCall, ClientId, FormReply,
    FormRequest, Host, HostError, InboxEntry, Overview,
};
use crate::question::AnswerBatch;
use crate::service::{QuestionEvent, SessionQuestions};
use crate::session::{SessionSummary, Transcript};
use crate::tools::QuestionSettings;

/// A host of this process, as a front door.
#[derive(Clone)]
pub struct InProcess(Arc<Host>);

impl InProcess {
    pub fn new(host: Arc<Host>) -> InProcess {
        InProcess(host)
    }

    pub fn host(&self) -> &Arc<Host> {
        &self.0
    }

    /// An outside agent's question, asked until `gone` says the asker went away (the host then
    /// records it withdrawn). An ending the host already reached wins over `gone`.
    pub async fn ask_while(
        &self,
        client: &ClientId,
        call_id: Option<String>,
        settings: Option<QuestionSettings>,
        arguments: serde_json::Value,
        gone: CancellationToken,
    ) -> Result<ClientAnswer> {
        let client = client.clone();
        self.until_ended("question", move |host| async move {
            host.client_ask(&client, call_id, settings, arguments, gone).await
        })
        .await
    }

    /// Runs an outside agent's wait for the person (`what`, for a failure) on a task of its own, so
    /// that the host hears the wait's `gone` even when the caller's future is dropped.
    async fn until_ended<T, F, Fut>(&self, what: &str, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Host>) -> Fut,
        Fut: std::future::Future<Output = std::result::Result<T, HostError>> + Send + 'static,
    {
        match tokio::spawn(work(Arc::clone(&self.0))).await {
            Ok(done) => done.map_err(BoundaryError::from),
            Err(e) => Err(BoundaryError::new("HostError", "INTERNAL", format!("the {what} failed: {e}"))),
        }
    }

    /// Runs `work` on the host off the async threads (it reads and writes the store; an answer may
    /// also wait a moment for its question to continue).
    pub(super) async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Host) -> std::result::Result<T, HostError> + Send + 'static,
    ) -> Result<T> {
        let host = Arc::clone(&self.0);
        tokio::task::spawn_blocking(move || work(&host).map_err(BoundaryError::from))
            .await
            .unwrap_or_else(|e| Err(BoundaryError::new("HostError", "INTERNAL", format!("the request failed: {e}"))))
    }
}

#[async_trait::async_trait]
impl FrontDoor for InProcess {
    fn hosted(&self) -> Option<&Arc<Host>> {
        Some(&self.0)
    }

    async fn overview(&self, session: Option<&str>, turns: usize) -> Result<Overview> {
        let session = session.map(str::to_string);
        self.blocking(move |host| host.overview(session.as_deref(), turns)).await
    }

    async fn start(&self, start: Start) -> Result<String> {
        self.blocking(move |host| {
            // Whoever asked, the window shows where the session came from.
            let by = start.by.as_deref().map(|by| plain_label(by, "another program"));
            let (id, _) = host.start_session_by(&start.text, start.workspace, start.choices, by.as_deref())?;
            Ok(id)
        })
        .await
    }

    async fn send(&self, session: &str, text: &str) -> Result<()> {
        let (session, text) = (session.to_string(), text.to_string());
        self.blocking(move |host| host.send(&session, &text)).await
    }

    async fn stop(&self, session: &str) -> Result<bool> {
        Ok(self.0.abort(session))
    }

    async fn watch(&self, session: Option<&str>) -> Result<Watch> {
        // Subscribed before the session is made live, so nothing after the watch began is missed.
        let questions = self.0.service().subscribe();
        let typed = session.map(str::to_string);
        let (session_id, agent) = self
            .blocking(move |host| match typed {
                None => Ok((None, None)),
                Some(typed) => {
                    let id = host.resolve(&typed)?;
                    let rx = host.activate(&id)?;
                    Ok((Some(id), Some(rx)))
                }
            })
            .await?;
        let events = stream::unfold(Following { agent, questions }, |mut following| async move {
            let next = following.next().await?;
            Some((next, following))
        });
        Ok(Watch { session_id, events: events.boxed() })
    }

    async fn sessions(&self) -> Result<Vec<SessionSummary>> {
        self.blocking(|host| Ok(host.store().list_sessions()?)).await
    }

    async fn transcript(&self, session: &str, turns: Option<usize>) -> Result<Transcript> {
        let typed = session.to_string();
        self.blocking(move |host| host.transcript(&host.resolve(&typed)?, turns)).await
    }

    async fn retry(&self, session: &str) -> Result<()> {
        let typed = session.to_string();
        self.blocking(move |host| host.retry(&host.resolve(&typed)?)).await
    }

    async fn answer(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<AnswerPath>,
    ) -> Result<Answered> {
        let (typed, call_id) = (session.to_string(), call_id.to_string());
        self.blocking(move |host| {
            let session_id = host.resolve(&typed)?;
            let path = host.answer_and_admit(&session_id, &call_id, answers, path)?;
            Ok(Answered { session_id, path })
        })
        .await
    }

    async fn cancel(&self, session: &str, call_id: &str) -> Result<()> {
        self.0.cancel(session, call_id).map_err(BoundaryError::from)
    }

    async fn expire(&self, session: &str, call_id: &str) -> Result<()> {
        self.0.expire(session, call_id).map_err(BoundaryError::from)
    }

    async fn attach(&self, session: &str, call_id: &str) -> Result<Attached> {
        let attached =
            self.0.service().attach(session, call_id).map_err(|e| BoundaryError::from(HostError::from(e)))?;
        Ok(Attached { remaining_ms: attached.remaining_ms, hold: Hold::new(attached.takeover) })
    }

    async fn decline(&self, session: &str, call_id: &str) -> Result<()> {
        let (typed, call_id) = (session.to_string(), call_id.to_string());
        self.blocking(move |host| host.decline(&host.resolve(&typed)?, &call_id)).await
    }

    async fn questions(&self, session: &str) -> Result<SessionQuestions> {
        let typed = session.to_string();
        self.blocking(move |host| Ok(host.service().session_questions(&host.resolve(&typed)?))).await
    }

    async fn inbox(&self) -> Result<Vec<InboxEntry>> {
        self.blocking(|host| host.inbox()).await
    }

    async fn settings(&self) -> Result<QuestionSettings> {
        Ok(self.0.client_settings())
    }

    async fn ask(
        &self,
        client: &ClientId,
        call_id: Option<String>,
        settings: Option<QuestionSettings>,
        arguments: serde_json::Value,
    ) -> Result<ClientAnswer> {
        // Dropping this future says the asker went away.
        let gone = CancellationToken::new();
        let _withdraw_if_dropped = gone.clone().drop_guard();
        self.ask_while(client, call_id, settings, arguments, gone).await
    }

    async fn answers(&self, client: &ClientId, calls: Vec<String>) -> Result<ClientAnswers> {
        let client = client.clone();
        // Handed over in this process means it reached the asker.
        self.blocking(move |host| {
            let answers = host.client_answers_for(&client, &calls)?;
            let handed: Vec<String> = answers.answers.iter().map(|a| a.call_id.clone()).collect();
            if !handed.is_empty() {
                host.client_answers_returned(&answers.session_id, &handed)?;
            }
            Ok(answers)
        })
        .await
    }

    async fn call(&self, client: &ClientId, call_id: &str) -> Result<ClientCall> {
        let (client, call_id) = (client.clone(), call_id.to_string());
        self.blocking(move |host| host.client_call(&client, &call_id)).await
    }

    async fn withdraw(&self, client: &ClientId, call_id: &str, reason: &str) -> Result<()> {
        let (client, call_id, reason) = (client.clone(), call_id.to_string(), reason.to_string());
        self.blocking(move |host| host.client_withdraw(&client, &call_id, &reason)).await
    }

    async fn approve(&self, client: &ClientId, request: ApprovalRequest) -> Result<ClientAnswer> {
        // Dropping this future says the agent stopped waiting.
        let gone = CancellationToken::new();
        let _end_if_dropped = gone.clone().drop_guard();
        self.approve_while(client, request, gone).await
    }

    async fn end_approvals(&self, client: &ClientId, request: ApprovalRequest, reason: &str) -> Result<()> {
        let (client, reason) = (client.clone(), reason.to_string());
        self.blocking(move |host| host.client_end_approvals(&client, &request, &reason).map(|_| ())).await
    }

    async fn form(&self, client: &ClientId, request: FormRequest) -> Result<FormReply> {
        // Dropping this future says the agent stopped waiting.
        let gone = CancellationToken::new();
        let _end_if_dropped = gone.clone().drop_guard();
        self.form_while(client, request, gone).await
    }
}

impl InProcess {
    /// An outside agent's permission request, asked until `gone` says the agent stopped waiting.
    pub async fn approve_while(
        &self,
        client: &ClientId,
        request: ApprovalRequest,
        gone: CancellationToken,
    ) -> Result<ClientAnswer> {
        let client = client.clone();
        self.until_ended("approval", move |host| async move { host.client_approve(&client, request, gone).await }).await
    }

    /// An outside agent's MCP form, asked until `gone` says the agent stopped waiting.
    pub async fn form_while(
        &self,
        client: &ClientId,
        request: FormRequest,
        gone: CancellationToken,
    ) -> Result<FormReply> {
        let client = client.clone();
        self.until_ended("form", move |host| async move { host.client_form(&client, request, gone).await }).await
    }
}

/// What a watch follows: the session's events and every session's question events.
struct Following {
    agent: Option<broadcast::Receiver<AgentEvent>>,
    questions: broadcast::Receiver<QuestionEvent>,
}

impl Following {
    /// The next event; `None` once the host is gone.
    async fn next(&mut self) -> Option<Watched> {
        loop {
            let from_agent = async {
                match &mut self.agent {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = from_agent => match event {
                    // A session's question events come with every session's, below.
                    Ok(AgentEvent::Question { .. }) => continue,
                    Ok(event) => return Some(Watched::Agent(Box::new(event))),
                    Err(RecvError::Lagged(_)) => return Some(Watched::Lagged),
                    // The agent is gone (the host is quitting): its session says nothing more.
                    Err(RecvError::Closed) => self.agent = None,
                },
                event = self.questions.recv() => return match event {
                    Ok(event) => Some(Watched::Question(Box::new(event))),
                    Err(RecvError::Lagged(_)) => Some(Watched::Lagged),
                    Err(RecvError::Closed) => None,
                },
            }
        }
    }
}
