//! What a host answers on its control socket: every request as its own surfaces would do it.

use std::sync::Arc;

use futures_util::stream::{self, StreamExt};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::{Host, HostError, WorkingChoices};
use crate::agent::AgentEvent;
use crate::control::{single, Handler, Replies, Reply, Request};
use crate::error::BoundaryError;
use crate::service::{QuestionEvent, Takeover};

impl Host {
    /// Opens this host's front door to other processes: its data directory's control socket (a
    /// named pipe on Windows), which `hark answer`, `hark mcp` and `hark tui` reach it through,
    /// whichever front door hosts the directory. Closed by [`Host::shutdown`]. Call inside a tokio
    /// runtime. A failure (the path cannot hold a socket) costs only that way in: the caller reports it.
    #[cfg(any(unix, windows))]
    pub fn serve(self: &Arc<Self>) -> std::io::Result<()> {
        let server = crate::control::serve(self.data_dir(), control_handler(Arc::clone(self)))?;
        *crate::sync::lock(&self.front_door) = Some(server);
        Ok(())
    }
}

/// The handler the host's control socket serves with (see [`crate::control::serve`]).
pub fn control_handler(host: Arc<Host>) -> Handler {
    Arc::new(move |request, gone| {
        let host = Arc::clone(&host);
        match request {
            Request::Watch { session } => watch(host, session, gone),
            Request::Attach { session, call_id } => attach(host, session, call_id, gone),
            Request::Answers { client, calls } => answers(host, client, calls, gone),
            request => single(async move { reply(host, request, gone).await.unwrap_or_else(refusal) }),
        }
    })
}

/// A client's late answers, recorded as returned only once their line was written: the socket
/// asks for the next reply only after writing one, and cancels `gone` when it could not (the client
/// was cancelled, killed, or the connection broke). An answer is handed out until a reply with it
/// reached the client.
fn answers(host: Arc<Host>, client: crate::host::ClientId, calls: Vec<String>, gone: CancellationToken) -> Replies {
    let read = {
        let host = Arc::clone(&host);
        async move { off_thread_as(move || host.client_answers_for(&client, &calls).map_err(refused)).await }
    };
    stream::once(read)
        .flat_map(move |read| {
            let (host, gone) = (Arc::clone(&host), gone.clone());
            match read {
                Err(error) => stream::iter(vec![refusal(error)]).boxed(),
                Ok(answers) => {
                    let (session, call_ids): (String, Vec<String>) =
                        (answers.session_id.clone(), answers.answers.iter().map(|a| a.call_id.clone()).collect());
                    let delivered = stream::once(async move {
                        if !gone.is_cancelled() && !call_ids.is_empty() {
                            let _ = off_thread_as(move || {
                                host.client_answers_returned(&session, &call_ids).map_err(refused)
                            })
                            .await;
                        }
                    })
                    .filter_map(|()| async { None::<Reply> });
                    stream::iter(vec![Reply::Answers { answers }]).chain(delivered).boxed()
                }
            }
        })
        .boxed()
}

fn refusal(error: BoundaryError) -> Reply {
    Reply::Refused { error }
}

fn refused(e: HostError) -> BoundaryError {
    BoundaryError::from(e)
}

async fn reply(host: Arc<Host>, request: Request, gone: CancellationToken) -> Result<Reply, BoundaryError> {
    match request {
        Request::Ask { client, settings, arguments, call_id } => {
            let answer = host.client_ask(&client, call_id, settings, arguments, gone).await.map_err(refused)?;
            Ok(Reply::Asked { answer })
        }
        Request::Settings => Ok(Reply::Settings { settings: host.client_settings() }),
        Request::Call { client, call_id } => {
            off_thread(move || {
                let call = host.client_call(&client, &call_id).map_err(refused)?;
                Ok(Reply::Call { call })
            })
            .await
        }
        Request::Answer { session, call_id, answers, path } => {
            off_thread(move || {
                let id = host.resolve(&session).map_err(refused)?;
                let path = host.answer_and_admit(&id, &call_id, answers, path).map_err(refused)?;
                Ok(Reply::Answered { session_id: id, path })
            })
            .await
        }
        Request::Overview { session, turns } => {
            off_thread(move || {
                let overview = host.overview(session.as_deref(), turns).map_err(refused)?;
                Ok(Reply::Overview { overview: Box::new(overview) })
            })
            .await
        }
        Request::Start { text, workspace, by, plan_first, ptc } => {
            off_thread(move || {
                let choices = WorkingChoices { plan_first, ptc };
                // Whoever asked, the window shows the session came from elsewhere.
                let by = super::plain_label(by.as_deref().unwrap_or_default(), "another program");
                let (session_id, _) = host.start_session_by(&text, workspace, choices, Some(&by)).map_err(refused)?;
                Ok(Reply::Started { session_id })
            })
            .await
        }
        Request::Send { session, text } => {
            off_thread(move || {
                host.send(&session, &text).map_err(refused)?;
                Ok(Reply::Done)
            })
            .await
        }
        Request::Stop { session } => Ok(Reply::Stopped { stopped: host.abort(&session) }),
        Request::Withdraw { client, call_id, reason } => {
            off_thread(move || {
                host.client_withdraw(&client, &call_id, &reason).map_err(refused)?;
                Ok(Reply::Done)
            })
            .await
        }
        Request::Cancel { session, call_id } => {
            host.cancel(&session, &call_id).map_err(refused)?;
            Ok(Reply::Done)
        }
        Request::Expire { session, call_id } => {
            host.expire(&session, &call_id).map_err(refused)?;
            Ok(Reply::Done)
        }
        Request::Watch { .. } | Request::Attach { .. } | Request::Answers { .. } => {
            Err(BoundaryError::new("ControlError", "BAD_REQUEST", "a stream is not a single reply"))
        }
    }
}

/// What a watch follows: the session's events (its question events come with every session's)
/// and the service's question events, until the peer goes.
struct Watched {
    session: Option<broadcast::Receiver<AgentEvent>>,
    questions: broadcast::Receiver<QuestionEvent>,
    gone: CancellationToken,
}

impl Watched {
    /// The next line to send; `None` when the peer is gone (or the host is quitting).
    async fn next(&mut self) -> Option<Reply> {
        loop {
            let agent = async {
                match &mut self.session {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            };
            let received = tokio::select! {
                _ = self.gone.cancelled() => return None,
                event = agent => event.map(|event| Reply::Agent { event }),
                event = self.questions.recv() => event.map(|event| Reply::Question { event }),
            };
            match received {
                Ok(Reply::Agent { event: AgentEvent::Question { .. } }) => continue,
                Ok(reply) => return Some(reply),
                Err(broadcast::error::RecvError::Lagged(_)) => return Some(Reply::Lagged),
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

fn watch(host: Arc<Host>, session: Option<String>, gone: CancellationToken) -> Replies {
    let opened = async move {
        // Subscribed before the first line, so nothing after `watching` is missed.
        let questions = host.service().subscribe();
        let followed = off_thread_as(move || {
            let Some(typed) = session else { return Ok((None, None)) };
            let id = host.resolve(&typed).map_err(refused)?;
            let rx = host.activate(&id).map_err(refused)?;
            Ok((Some(id), Some(rx)))
        })
        .await;
        match followed {
            Ok((session_id, rx)) => (Reply::Watching { session_id }, Some(Watched { session: rx, questions, gone })),
            Err(error) => (Reply::Refused { error }, None),
        }
    };
    let first = stream::once(opened);
    Box::pin(first.flat_map(|(reply, watched)| {
        let rest = stream::unfold(watched, |watched| async move {
            let mut watched = watched?;
            let reply = watched.next().await?;
            Some((reply, Some(watched)))
        });
        stream::once(std::future::ready(reply)).chain(rest)
    }))
}

/// Where an attach stands: not yet taken, or held until the peer goes.
enum Hold {
    Asked(Arc<Host>, String, String),
    Held(Takeover),
}

fn attach(host: Arc<Host>, session: String, call_id: String, gone: CancellationToken) -> Replies {
    Box::pin(stream::unfold(Some(Hold::Asked(host, session, call_id)), move |hold| {
        let gone = gone.clone();
        async move {
            match hold? {
                Hold::Asked(host, session, call_id) => Some(match host.service().attach(&session, &call_id) {
                    Ok(attached) => {
                        (Reply::Attached { remaining_ms: attached.remaining_ms }, Some(Hold::Held(attached.takeover)))
                    }
                    Err(e) => (Reply::Refused { error: refused(e.into()) }, None),
                }),
                // The take-over lasts until the connection closes (or the server stops).
                Hold::Held(takeover) => {
                    gone.cancelled().await;
                    takeover.release();
                    None
                }
            }
        }
    }))
}

/// Work that reads and writes the store (an answer may also wait a moment for its question to
/// continue), run off the async threads.
async fn off_thread(
    work: impl FnOnce() -> Result<Reply, BoundaryError> + Send + 'static,
) -> Result<Reply, BoundaryError> {
    off_thread_as(work).await
}

async fn off_thread_as<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, BoundaryError> + Send + 'static,
) -> Result<T, BoundaryError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(BoundaryError::new("ControlError", "INTERNAL", format!("the request failed: {e}"))))
}
