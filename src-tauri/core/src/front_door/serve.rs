//! What a host answers on its control socket: every request through the in-process front door, so
//! another process's request means what the host's own surfaces mean by it.

use std::sync::Arc;

use futures_util::stream::{self, StreamExt};
use tokio_util::sync::CancellationToken;

use super::{FrontDoor, InProcess, Start, Watched};
use crate::control::{single, Handler, Replies, Reply, Request};
use crate::error::BoundaryError;
use crate::host::{ClientId, Host};

impl Host {
    /// Opens this host's front door to other processes: its data directory's control socket (a
    /// named pipe on Windows), which `hark answer`, `hark mcp` and `hark tui` reach it through,
    /// whichever front door hosts the directory; with it, the tunnels of the remote hosts the person
    /// keeps (see [`crate::remote_hosts`]). Closed by [`Host::shutdown`]. Call inside a tokio
    /// runtime. A failure (the path cannot hold a socket) costs only that way in: the caller reports it.
    #[cfg(any(unix, windows))]
    pub fn serve(self: &Arc<Self>) -> std::io::Result<()> {
        let server = crate::control::serve(self.data_dir(), control_handler(Arc::clone(self)))?;
        self.keep_front_door(server);
        // Agents on the person's other machines reach the host that other processes reach.
        #[cfg(unix)]
        {
            let host = Arc::downgrade(self);
            let open_door: crate::remote_hosts::DoorOpener =
                Arc::new(move |via: &str| host.upgrade().map(|host| host.serve_agents(via)));
            self.keep_tunnels(crate::remote_hosts::start(self.data_dir(), open_door));
        }
        Ok(())
    }
}

/// The handler the host's control socket serves with (see [`crate::control::serve`]). The token
/// `gone` is cancelled when the peer goes away: its ask is withdrawn, its watch ends, its hold on a
/// countdown is let go.
pub fn control_handler(host: Arc<Host>) -> Handler {
    let door = InProcess::new(host);
    Arc::new(move |request, gone| {
        let door = door.clone();
        match request {
            Request::Watch { session } => watch(door, session, gone),
            Request::Attach { session, call_id } => attach(door, session, call_id, gone),
            Request::Answers { client, calls } => answers(door, client, calls, gone),
            request => single(async move { reply(&door, request, gone).await.unwrap_or_else(refusal) }),
        }
    })
}

fn refusal(error: BoundaryError) -> Reply {
    Reply::Refused { error }
}

async fn reply(door: &InProcess, request: Request, gone: CancellationToken) -> Result<Reply, BoundaryError> {
    Ok(match request {
        Request::Ask { client, settings, arguments, call_id } => {
            Reply::Asked { answer: door.ask_while(&client, call_id, settings, arguments, gone).await? }
        }
        Request::Approve { client, request } => {
            Reply::Asked { answer: door.approve_while(&client, request, gone).await? }
        }
        Request::EndApprovals { client, request, reason } => {
            door.end_approvals(&client, request, &reason).await?;
            Reply::Done
        }
        Request::Form { client, request } => Reply::Form { reply: door.form_while(&client, request, gone).await? },
        Request::Settings => Reply::Settings { settings: door.settings().await? },
        Request::Call { client, call_id } => Reply::Call { call: door.call(&client, &call_id).await? },
        Request::Answer { session, call_id, answers, path } => {
            let answered = door.answer(&session, &call_id, answers, path).await?;
            Reply::Answered { session_id: answered.session_id, path: answered.path }
        }
        Request::Overview { session, turns } => {
            Reply::Overview { overview: Box::new(door.overview(session.as_deref(), turns).await?) }
        }
        Request::Start { text, workspace, by, plan_first, ptc } => {
            // A peer that gives no name is recorded as another program.
            let by = Some(by.unwrap_or_default());
            let choices = crate::host::WorkingChoices { plan_first, ptc };
            Reply::Started { session_id: door.start(Start { text, workspace, by, choices }).await? }
        }
        Request::Send { session, text } => {
            door.send(&session, &text).await?;
            Reply::Done
        }
        Request::Stop { session } => Reply::Stopped { stopped: door.stop(&session).await? },
        Request::Withdraw { client, call_id, reason } => {
            door.withdraw(&client, &call_id, &reason).await?;
            Reply::Done
        }
        Request::Cancel { session, call_id } => {
            door.cancel(&session, &call_id).await?;
            Reply::Done
        }
        Request::Expire { session, call_id } => {
            door.expire(&session, &call_id).await?;
            Reply::Done
        }
        Request::Sessions => Reply::Sessions { sessions: door.sessions().await? },
        Request::Transcript { session, turns } => {
            Reply::Transcript { transcript: Box::new(door.transcript(&session, turns).await?) }
        }
        Request::Questions { session } => Reply::Questions { questions: door.questions(&session).await? },
        Request::Inbox => Reply::Inbox { entries: door.inbox().await? },
        Request::Retry { session } => {
            door.retry(&session).await?;
            Reply::Done
        }
        Request::Decline { session, call_id } => {
            door.decline(&session, &call_id).await?;
            Reply::Done
        }
        Request::Watch { .. } | Request::Attach { .. } | Request::Answers { .. } => {
            return Err(BoundaryError::new("ControlError", "BAD_REQUEST", "a stream is not a single reply"))
        }
    })
}

/// A client's late answers, recorded as handed over only once their line was written: the socket
/// asks for the next reply only after writing one, and cancels `gone` when it could not (the client
/// was cancelled, killed, or the connection broke). An answer is handed out until a reply with it
/// reached the client.
fn answers(door: InProcess, client: ClientId, calls: Vec<String>, gone: CancellationToken) -> Replies {
    let read = {
        let door = door.clone();
        async move { door.blocking(move |host| host.client_answers_for(&client, &calls)).await }
    };
    stream::once(read)
        .flat_map(move |read| match read {
            Err(error) => stream::iter(vec![refusal(error)]).boxed(),
            Ok(answers) => {
                let (door, gone) = (door.clone(), gone.clone());
                let (session, call_ids): (String, Vec<String>) =
                    (answers.session_id.clone(), answers.answers.iter().map(|a| a.call_id.clone()).collect());
                let delivered = stream::once(async move {
                    if !gone.is_cancelled() && !call_ids.is_empty() {
                        let _ = door.blocking(move |host| host.client_answers_returned(&session, &call_ids)).await;
                    }
                })
                .filter_map(|()| async { None::<Reply> });
                stream::iter(vec![Reply::Answers { answers }]).chain(delivered).boxed()
            }
        })
        .boxed()
}

fn watch(door: InProcess, session: Option<String>, gone: CancellationToken) -> Replies {
    let opened = async move { door.watch(session.as_deref()).await };
    stream::once(opened)
        .flat_map(move |watched| match watched {
            Err(error) => stream::iter(vec![refusal(error)]).boxed(),
            Ok(watch) => {
                let events = watch.events.map(|event| match event {
                    Watched::Agent(event) => Reply::Agent { event: *event },
                    Watched::Question(event) => Reply::Question { event: *event },
                    Watched::Lagged => Reply::Lagged,
                });
                stream::iter(vec![Reply::Watching { session_id: watch.session_id }])
                    .chain(events.take_until(gone.clone().cancelled_owned()))
                    .boxed()
            }
        })
        .boxed()
}

fn attach(door: InProcess, session: String, call_id: String, gone: CancellationToken) -> Replies {
    let attached = async move { door.attach(&session, &call_id).await };
    stream::once(attached)
        .flat_map(move |attached| match attached {
            Err(error) => stream::iter(vec![refusal(error)]).boxed(),
            Ok(attached) => {
                let gone = gone.clone();
                // The take-over lasts until the connection closes (or the server stops).
                let held = stream::once(async move {
                    gone.cancelled().await;
                    drop(attached.hold);
                })
                .filter_map(|()| async { None::<Reply> });
                stream::iter(vec![Reply::Attached { remaining_ms: attached.remaining_ms }]).chain(held).boxed()
            }
        })
        .boxed()
}
