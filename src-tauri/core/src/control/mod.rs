//! The control socket: while one process hosts a data directory (the desktop app), another front door
//! on the same machine (the `hark` CLI) answers that host's questions through it instead of failing
//! with DATA_DIR_BUSY. First valid answer wins across every surface, because the host answers a
//! request exactly as it answers its own panel or a notification.
//!
//! An outside agent asks through it too (`hark mcp`): its question is shown like the host's own, and
//! the reply comes when the question ends, on a connection that stays open until then; closing it
//! withdraws the question.
//!
//! A terminal front door (`hark tui`) works the host's sessions through it as the window does: it
//! follows a session (`watch`: a connection that streams the session's and every question's events
//! until it closes), reads what to show (`overview`), starts and steers sessions, and holds a timed
//! question's countdown for as long as its connection to `attach` stays open.
//!
//! One JSON request line per connection after the hello (see [`hello`]: both sides say which
//! protocol they speak), answered by one reply line (a stream of them for `watch` and `attach`). On Unix it is a socket in the data directory, mode 0600;
//! a peer that is not the user who owns it is refused. On Windows it is a named pipe named after the
//! data directory, local clients only, owned by the user who runs the host, whose access list admits
//! only its owner; a client talks to it only when its owner is the client's own user (the name is
//! predictable: another user could make a pipe of that name first).

mod hello;
mod types;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::error::{BoundaryError, CodedError};
use crate::open_session::AgentEvent;
use crate::question::AnswerBatch;
use crate::service::{QuestionEvent, SessionQuestions};
use crate::session::{SessionSummary, Transcript};
use crate::tools::QuestionSettings;

pub use hello::{this_build, Hello, PROTOCOL};
pub use types::{
    AnswerPath, ApprovalRequest, ClientAnswer, ClientAnswers, ClientCall, ClientId, FormReply, FormRequest, InboxEntry,
    LateAnswer, Overview, ShownSession,
};

/// The socket's name inside the data directory.
pub const SOCKET_FILE: &str = "control.sock";

/// The most a request may hold (an answer batch is a few KiB; this bounds a hostile peer).
const REQUEST_LIMIT: usize = 1 << 20;

/// What a client asks the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Answers a question: `path` says which way (`None`: whichever applies, the call waiting for it
    /// or late to a question that continued). `session` is an id or a prefix matching one session.
    Answer {
        session: String,
        call_id: String,
        answers: AnswerBatch,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<AnswerPath>,
    },
    /// An outside agent's `ask_user_question` call, asked in its session under `settings` (`None`:
    /// the host's), under `call_id` when the client chose one. Replied to when the question ends.
    Ask {
        client: ClientId,
        settings: Option<QuestionSettings>,
        arguments: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
    },
    /// The outside agent's late answers not returned before: to its own questions, and to `calls`,
    /// questions asked in its session that it was told about elsewhere (a hook's reply names its
    /// call, which the agent's own `hark mcp` then collects).
    Answers {
        client: ClientId,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        calls: Vec<String>,
    },
    /// Where one call asked in the outside agent's session stands (read from the log, so it holds
    /// after either side restarted): what an MCP task reports.
    Call { client: ClientId, call_id: String },
    /// The outside agent takes back a continued question of its session (`withdraw_question`, or
    /// its task cancelled).
    Withdraw { client: ClientId, call_id: String, reason: String },
    /// An outside agent's permission request, asked in its session as an approval; replied to with
    /// `asked` when the person answered, refused when it ended otherwise (the connection closing
    /// ends it: the agent stopped waiting).
    Approve { client: ClientId, request: ApprovalRequest },
    /// The outside agent reports a tool call settled elsewhere (it ran, or was refused, after the
    /// person answered in the agent's own terminal): its approvals for that call end unanswered.
    EndApprovals { client: ClientId, request: ApprovalRequest, reason: String },
    /// An MCP server's form an outside agent received, asked in its session as a form; replied to
    /// with `form` (accept with the typed content, decline, or cancel when the person closed it),
    /// refused when it ended otherwise (the connection closing ends it: the agent stopped waiting).
    Form { client: ClientId, request: FormRequest },
    /// The question settings an outside agent's calls get unless it chooses its own.
    Settings,
    /// Follows `session` (an id or prefix; made live) and every session's questions: replied to with
    /// `watching`, then each event as it happens, until the connection closes.
    Watch { session: Option<String> },
    /// What a front door shows now: the sessions, every waiting question, and `session`'s newest
    /// `turns` turns.
    Overview { session: Option<String>, turns: usize },
    /// A new session with its first message (`workspace`: an absolute folder), recorded as started
    /// by `by` (the front door's name; "another program" when it gives none).
    Start {
        text: String,
        workspace: Option<PathBuf>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        #[serde(default)]
        plan_first: Option<bool>,
        #[serde(default)]
        ptc: Option<bool>,
    },
    /// The person's next message to a session.
    Send { session: String, text: String },
    /// Stops the session's running turn.
    Stop { session: String },
    /// Closes a waiting question unanswered (`ASK_CANCELLED`).
    Cancel { session: String, call_id: String },
    /// A surface's countdown ran out: the timed question continues without an answer.
    Expire { session: String, call_id: String },
    /// Takes over a timed question's countdown (the host's deadline waits) for as long as this
    /// connection stays open; replied to with `attached`.
    Attach { session: String, call_id: String },
    /// Every session, newest first.
    Sessions,
    /// A session's transcript; with `turns`, its newest turns.
    Transcript {
        session: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turns: Option<usize>,
    },
    /// A session's waiting questions, with the revision that orders the read against the events.
    Questions { session: String },
    /// Every waiting question of every session, in the inbox's order.
    Inbox,
    /// Runs the session's last turn again after it failed.
    Retry { session: String },
    /// The person declined an MCP server's form (`ASK_DECLINED`).
    Decline { session: String, call_id: String },
}

/// The host's answer to a [`Request`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Reply {
    /// The host accepted the connection's hello: it speaks `protocol` too.
    Hello {
        protocol: u32,
        host: String,
    },
    Answered {
        session_id: String,
        path: AnswerPath,
    },
    Asked {
        answer: ClientAnswer,
    },
    /// How an outside agent's form ended.
    Form {
        reply: FormReply,
    },
    Answers {
        answers: ClientAnswers,
    },
    Call {
        call: ClientCall,
    },
    Settings {
        settings: QuestionSettings,
    },
    /// A `watch` began; `session_id` is the session followed.
    Watching {
        session_id: Option<String>,
    },
    /// One of the watched session's events.
    Agent {
        event: AgentEvent,
    },
    /// A question event of any session.
    Question {
        event: QuestionEvent,
    },
    /// The watch fell behind and events were dropped: read the overview again.
    Lagged,
    Overview {
        overview: Box<Overview>,
    },
    Started {
        session_id: String,
    },
    /// Whether a `stop` found a turn to stop.
    Stopped {
        stopped: bool,
    },
    /// Done as asked (`send`, `cancel`, `expire`, `withdraw`, `retry`, `decline`).
    Done,
    /// The countdown is held; `remaining_ms` is what was left of it (`None`: it had none).
    Attached {
        remaining_ms: Option<u64>,
    },
    Sessions {
        sessions: Vec<SessionSummary>,
    },
    Transcript {
        transcript: Box<Transcript>,
    },
    Questions {
        questions: SessionQuestions,
    },
    Inbox {
        entries: Vec<InboxEntry>,
    },
    // Refused with the error the host's own surfaces would show (NOT_PENDING, REPLY_QUEUED, ...).
    Refused {
        error: BoundaryError,
    },
}

/// The reply lines to one request, in order; the connection closes after the last.
pub type Replies = futures_util::stream::BoxStream<'static, Reply>;

/// What the host does with each request (the desktop answers as its panel does). The token is
/// cancelled when the peer goes away before the last reply (or the server stops): an ask then ends,
/// and is recorded, as withdrawn; a watch ends.
pub type Handler = Arc<dyn Fn(Request, CancellationToken) -> Replies + Send + Sync>;

/// The one reply `reply` resolves to.
pub fn single(reply: impl std::future::Future<Output = Reply> + Send + 'static) -> Replies {
    Box::pin(futures_util::stream::once(reply))
}

/// The code of [`ControlError::Unavailable`]: no host serves the data directory.
pub const UNAVAILABLE: &str = "CONTROL_UNAVAILABLE";

/// The code of [`ControlError::Closed`]: the host closed the connection before it replied (it quit).
pub const CLOSED: &str = "CONTROL_CLOSED";

/// The code of [`ControlError::NotAnswering`]: a host took the connection but never greeted it.
pub const NOT_ANSWERING: &str = "HOST_NOT_ANSWERING";

/// How long a host may take to take a connection and send its hello. The hello is written by the
/// socket's own task before any request is read, so a live host sends it at once, whatever its
/// requests cost; one that does not is stopped (a `hark chat` suspended with Ctrl-Z) or hung, and a
/// client must not wait on it for ever (a hook would hold its agent for the whole hook timeout).
pub const HELLO_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Milliseconds to wait for a host's hello instead of [`HELLO_TIMEOUT`]: for tests, which should not
/// wait ten seconds for a host they stopped.
pub const HELLO_TIMEOUT_ENV: &str = "HARK_HELLO_TIMEOUT_MS";

fn hello_timeout() -> std::time::Duration {
    std::env::var(HELLO_TIMEOUT_ENV)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(HELLO_TIMEOUT, std::time::Duration::from_millis)
}

/// Talking to the host over the socket failed.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// Nothing listens: no host runs, or it is one without a control socket.
    #[error("no running Hark app answers on {path}")]
    Unavailable { path: PathBuf },
    #[error("the control socket {path} failed: {detail}")]
    Io { path: PathBuf, detail: String },
    #[error("the running Hark app sent a reply this version cannot read: {0}")]
    Protocol(String),
    /// The host closed the connection before its reply: it quit or crashed meanwhile.
    #[error("the Hark app on {path} closed the connection before it replied")]
    Closed { path: PathBuf },
    /// Something took the connection but sent no hello in time: the host is suspended or hung.
    #[error(
        "the Hark app on {path} took the connection but did not answer within {} s: it is stopped \
         (suspended with Ctrl-Z?) or hung. Resume or quit it, then try again",
        waited.as_secs_f32()
    )]
    NotAnswering { path: PathBuf, waited: std::time::Duration },
    /// What serves the control pipe is not this user's (Windows): another user's program made a
    /// pipe of that name first. Nothing was sent to it.
    #[error(
        "the control pipe {path} is served by another user's program, not by your Hark app; nothing was sent \
         to it. Quit that program (or ask who runs it), then start Hark again"
    )]
    NotYours { path: PathBuf },
    /// The client and the host are different builds that speak different control protocols.
    #[error("{detail}")]
    VersionMismatch { detail: String },
}

impl CodedError for ControlError {
    fn name(&self) -> &str {
        "ControlError"
    }
    fn code(&self) -> &str {
        match self {
            ControlError::Unavailable { .. } => UNAVAILABLE,
            ControlError::Io { .. } => "CONTROL_IO",
            ControlError::Protocol(_) => "CONTROL_PROTOCOL",
            ControlError::Closed { .. } => CLOSED,
            ControlError::NotAnswering { .. } => NOT_ANSWERING,
            ControlError::NotYours { .. } => "CONTROL_NOT_YOURS",
            ControlError::VersionMismatch { .. } => "VERSION_MISMATCH",
        }
    }
    fn message(&self) -> String {
        self.to_string()
    }
}

fn refused(code: &str, message: impl Into<String>) -> Reply {
    Reply::Refused { error: refusal(code, message) }
}

/// Why the host refuses a connection or a request.
fn refusal(code: &str, message: impl Into<String>) -> BoundaryError {
    BoundaryError::new("ControlError", code, message)
}

/// Writes what the handler makes of one request line, line by line, telling it (`gone`) when the
/// peer goes away meanwhile: it sends nothing more, so its end of the stream closing, or a reply
/// that cannot be written, means it is gone. The handler's replies are still taken to their end
/// then, so what it records about the peer leaving (a withdrawn ask) is recorded.
async fn reply_to<R, W>(line: &[u8], handler: &Handler, gone: CancellationToken, peer: &mut R, write: &mut W)
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    use futures_util::StreamExt;
    let request = match serde_json::from_slice::<Request>(line) {
        Ok(request) => request,
        Err(e) => {
            write_reply(write, &refused("BAD_REQUEST", format!("not a control request: {e}"))).await;
            return;
        }
    };
    let mut replies = handler(request, gone.clone());
    let mut unread = tokio::io::sink();
    // `gone` is also cancelled when the server stops; the peer is still there then, and hears how
    // its request ended (an agent waiting on a timed question is told it is pending).
    let mut peer_left = false;
    loop {
        // The handler first: a reply it has ready (the step that records what the last line
        // delivered) is taken before a peer's close is noticed.
        let reply = tokio::select! {
            biased;
            reply = replies.next() => reply,
            _ = tokio::io::copy(peer, &mut unread), if !peer_left => {
                peer_left = true;
                gone.cancel();
                continue;
            }
        };
        let Some(reply) = reply else { return };
        // A peer that stops reading (a watch nobody drains) is let go once a line cannot be written
        // in time, rather than holding its handler, and the events it lags behind, for ever.
        if !peer_left && !matches!(tokio::time::timeout(WRITE_TIMEOUT, write_reply(write, &reply)).await, Ok(true)) {
            peer_left = true;
            gone.cancel();
        }
    }
}

/// One reply line, flushed; false when the peer cannot take it.
async fn write_reply<W: tokio::io::AsyncWrite + Unpin>(write: &mut W, reply: &Reply) -> bool {
    use tokio::io::AsyncWriteExt;
    let Ok(mut text) = serde_json::to_vec(reply) else { return false };
    text.push(b'\n');
    write.write_all(&text).await.is_ok() && write.flush().await.is_ok()
}

/// How long a peer may take to send its request.
const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// How long the rest of a refused request is read before the connection closes.
const DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);
/// How long quitting waits for requests already taken; a peer that stalls cannot hold it up.
const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(3);
/// How long one reply line may take to reach a peer that does not read.
const WRITE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// The most connections answered at once that have not sent their request yet (each is cut after
/// [`READ_TIMEOUT`] anyway); past it a new connection is refused at once.
pub const MAX_WAITING_CONNECTIONS: usize = 512;
/// The most requests being answered at once (an ask or a watch holds its connection for as long as
/// it lasts); past it a request is refused with `BUSY`.
pub const MAX_ACTIVE_REQUESTS: usize = 256;

/// What bounds one server's connections: each holds a permit of `waiting` until its request is in,
/// then one of `active` until it is answered.
#[derive(Clone)]
struct Admission {
    waiting: Arc<tokio::sync::Semaphore>,
    active: Arc<tokio::sync::Semaphore>,
}

impl Admission {
    fn new() -> Admission {
        Admission {
            waiting: Arc::new(tokio::sync::Semaphore::new(MAX_WAITING_CONNECTIONS)),
            active: Arc::new(tokio::sync::Semaphore::new(MAX_ACTIVE_REQUESTS)),
        }
    }
}

fn busy(what: &str) -> Reply {
    refused("BUSY", format!("the Hark app is answering too many {what} at once; try again shortly"))
}

/// The host's replies to one request, read as they come. Dropping it closes the connection, which
/// withdraws an ask, ends a watch and releases an attach.
pub struct ReplyStream {
    /// A reply read with the hello (a refusal of the connection), handed out first.
    first: Option<Reply>,
    lines: tokio::io::Lines<tokio::io::BufReader<Box<dyn tokio::io::AsyncRead + Send + Unpin>>>,
    /// Kept open: closing the writing half would tell the host this peer is gone.
    _write: Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
    path: PathBuf,
}

impl ReplyStream {
    /// The socket (or pipe) this stream reads from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next reply; `None` once the host closed the connection.
    pub async fn next(&mut self) -> Result<Option<Reply>, ControlError> {
        if let Some(first) = self.first.take() {
            return Ok(Some(first));
        }
        let line = self
            .lines
            .next_line()
            .await
            .map_err(|e| ControlError::Io { path: self.path.clone(), detail: e.to_string() })?;
        match line {
            Some(line) => {
                serde_json::from_str(&line).map(Some).map_err(|e| ControlError::Protocol(format!("{e}: {line:?}")))
            }
            None => Ok(None),
        }
    }
}

/// Sends `request` over a connected stream; its replies are read from what this returns.
async fn exchange<S>(stream: S, request: &Request, path: &Path) -> Result<ReplyStream, ControlError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let io = |e: std::io::Error| ControlError::Io { path: path.to_path_buf(), detail: e.to_string() };
    let (read, mut write) = tokio::io::split(stream);
    write.write_all(&hello::client_lines(request)?).await.map_err(io)?;
    write.flush().await.map_err(io)?;
    let read: Box<dyn tokio::io::AsyncRead + Send + Unpin> = Box::new(read);
    let mut lines = tokio::io::BufReader::new(read).lines();
    let greeting = lines.next_line().await.map_err(io)?.ok_or(ControlError::Closed { path: path.to_path_buf() })?;
    let first = hello::greeted(&greeting)?;
    Ok(ReplyStream { first, lines, _write: Box::new(write), path: path.to_path_buf() })
}

/// The blocking clients' exchange over a connected stream: the hello and the request sent, the
/// host's welcome read, then its one reply. `failed` names an I/O error.
#[cfg(any(unix, windows))]
fn exchange_blocking<S>(
    mut stream: S,
    request: &Request,
    path: &Path,
    failed: &dyn Fn(std::io::Error) -> ControlError,
) -> Result<Reply, ControlError>
where
    S: std::io::Read + std::io::Write,
{
    use std::io::BufRead;
    stream.write_all(&hello::client_lines(request)?).map_err(failed)?;
    let mut reader = std::io::BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).map_err(failed)? == 0 {
        return Err(ControlError::Closed { path: path.to_path_buf() });
    }
    if let Some(refusal) = hello::greeted(&line)? {
        return Ok(refusal);
    }
    line.clear();
    if reader.read_line(&mut line).map_err(failed)? == 0 {
        return Err(ControlError::Closed { path: path.to_path_buf() });
    }
    serde_json::from_str(&line).map_err(|e| ControlError::Protocol(format!("{e}: {line:?}")))
}

/// Sends `request` to the host of `data_dir`; its replies are read from what this returns. Connecting
/// and the host's hello must come within [`HELLO_TIMEOUT`] (else [`ControlError::NotAnswering`]);
/// the replies after it take as long as the request does (an ask waits for the person).
pub async fn open(data_dir: &Path, request: &Request) -> Result<ReplyStream, ControlError> {
    within_hello_timeout(connect(data_dir, request), control_path(data_dir)).await
}

/// [`open`] for the host listening on the socket `path` (an agents' door forwarded from a desk).
#[cfg(unix)]
pub async fn open_at(path: &Path, request: &Request) -> Result<ReplyStream, ControlError> {
    within_hello_timeout(unix::connect_at(path, request), path.to_path_buf()).await
}

async fn within_hello_timeout(
    connecting: impl std::future::Future<Output = Result<ReplyStream, ControlError>>,
    path: PathBuf,
) -> Result<ReplyStream, ControlError> {
    let waited = hello_timeout();
    match tokio::time::timeout(waited, connecting).await {
        Ok(opened) => opened,
        Err(_) => Err(ControlError::NotAnswering { path, waited }),
    }
}

/// Where the host of `data_dir` listens, as errors name it.
fn control_path(data_dir: &Path) -> PathBuf {
    #[cfg(unix)]
    {
        socket_path(data_dir)
    }
    #[cfg(windows)]
    {
        PathBuf::from(pipe_name(data_dir))
    }
}

/// Sends `request` to the host of `data_dir` and waits for its (first) reply, however long it takes
/// (an ask waits for the person); dropping the future withdraws it.
pub async fn call(data_dir: &Path, request: &Request) -> Result<Reply, ControlError> {
    let mut replies = open(data_dir, request).await?;
    let path = replies.path.clone();
    replies.next().await?.ok_or(ControlError::Closed { path })
}

/// [`call`] that waits until the host closes the connection: for a request whose host finishes
/// work after writing its reply (late answers are recorded as returned once their line was
/// written), so that the caller's next request sees that work done and closing early never
/// undoes it.
pub async fn call_to_end(data_dir: &Path, request: &Request) -> Result<Reply, ControlError> {
    let mut replies = open(data_dir, request).await?;
    let path = replies.path.clone();
    let first = replies.next().await?.ok_or(ControlError::Closed { path })?;
    while let Ok(Some(_)) = replies.next().await {}
    Ok(first)
}

/// The peer's next line, within [`READ_TIMEOUT`] and [`REQUEST_LIMIT`]: `Ok(None)` when the server
/// stops meanwhile (quitting does not wait for a peer that has not said anything yet), `Err` with
/// the refusal when it is too long, unreadable or late.
async fn read_line<R>(reader: &mut R, gone: &CancellationToken) -> Result<Option<Vec<u8>>, BoundaryError>
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut line = Vec::new();
    let mut limited = reader.take(REQUEST_LIMIT as u64 + 1);
    let read = tokio::select! {
        read = tokio::time::timeout(READ_TIMEOUT, limited.read_until(b'\n', &mut line)) => read,
        _ = gone.cancelled() => return Ok(None),
    };
    match read {
        Ok(Ok(_)) if line.len() > REQUEST_LIMIT => Err(refusal("BAD_REQUEST", "the request is too long")),
        Ok(Ok(_)) => Ok(Some(line)),
        Ok(Err(e)) => Err(refusal("BAD_REQUEST", format!("reading the request failed: {e}"))),
        Err(_) => Err(refusal("BAD_REQUEST", "no request within 10 s")),
    }
}

/// Answers one connection: the hello and one request line (refused unless `same_user`), its reply
/// lines. `gone`
/// is cancelled when the peer leaves or the server stops.
async fn answer<S>(stream: S, same_user: bool, handler: Handler, gone: CancellationToken, admission: Admission)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::AsyncWriteExt;
    let (read, mut write) = tokio::io::split(stream);
    let mut reader = tokio::io::BufReader::new(read);
    let waiting = if same_user { admission.waiting.try_acquire_owned().ok() } else { None };
    let refusal = if !same_user {
        Some(refused("PEER_REFUSED", "the control socket answers only the user running Hark"))
    } else if waiting.is_none() {
        Some(busy("connections"))
    } else {
        // The hello first: a peer of another protocol is told so before its request is read.
        let read = async {
            let Some(first) = read_line(&mut reader, &gone).await? else { return Ok(None) };
            hello::check(&first)?;
            if !write_reply(&mut write, &hello::welcome()).await {
                return Ok(None);
            }
            read_line(&mut reader, &gone).await
        }
        .await;
        drop(waiting);
        match read {
            Ok(None) => None,
            Err(error) => Some(Reply::Refused { error }),
            Ok(Some(line)) => match admission.active.try_acquire_owned() {
                Ok(_active) => {
                    reply_to(&line, &handler, gone.clone(), &mut reader, &mut write).await;
                    None
                }
                Err(_) => Some(busy("requests")),
            },
        }
    };
    if let Some(refusal) = refusal {
        write_reply(&mut write, &refusal).await;
    }
    let _ = write.shutdown().await;
    // What the peer sent and was not read (a refused request) is drained, and the peer's close
    // awaited, before the connection goes: closing with unread input resets it (a pipe drops what
    // the peer has not read yet), and the peer would lose the reply. Not when quitting: a silent
    // peer must not hold the quit up.
    let mut unread = tokio::io::sink();
    tokio::select! {
        _ = tokio::time::timeout(DRAIN_TIMEOUT, tokio::io::copy(&mut reader, &mut unread)) => {}
        _ = gone.cancelled() => {}
    }
}

#[cfg(unix)]
use unix::connect;
#[cfg(unix)]
pub use unix::{request, serve, serve_at, socket_path, ControlServer, SOCKET_POINTER_FILE};
#[cfg(windows)]
use windows::connect;
#[cfg(windows)]
pub use windows::{pipe_name, request, serve, ControlServer};

#[cfg(unix)]
mod unix {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::os::unix::net::UnixStream as StdStream;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use tokio::net::{UnixListener, UnixStream};
    use tokio_util::sync::CancellationToken;
    use tokio_util::task::TaskTracker;

    use super::*;

    /// How long a client waits for the host's reply (answering may open a session).
    const REPLY_TIMEOUT: Duration = Duration::from_secs(120);

    /// The longest socket path the OS takes (`sun_path` holds 108 bytes with its NUL on Linux, 104
    /// elsewhere).
    const MAX_SOCKET_PATH: usize = if cfg!(target_os = "linux") { 107 } else { 103 };
    /// In a data directory too deep for a socket: the file naming where its socket is instead.
    pub const SOCKET_POINTER_FILE: &str = "control.sock.path";

    /// Where the host of `data_dir` listens: `control.sock` in it, or, when that path is too long
    /// for a socket, the short path its host wrote in `control.sock.path`.
    pub fn socket_path(data_dir: &Path) -> PathBuf {
        let direct = data_dir.join(SOCKET_FILE);
        if direct.as_os_str().len() <= MAX_SOCKET_PATH {
            return direct;
        }
        match std::fs::read_to_string(data_dir.join(SOCKET_POINTER_FILE)) {
            Ok(text) if !text.trim().is_empty() => PathBuf::from(text.trim()),
            // No host said where it listens; the short path counts only in a folder of this user's
            // alone (another user could make one first and listen there).
            _ => Some(short_socket_path(data_dir))
                .filter(|path| path.parent().is_some_and(crate::data_dir::private::is_mine))
                .unwrap_or(direct),
        }
    }

    /// A short socket path for `data_dir`, in a folder of this user's: the runtime directory (the
    /// user's own), else one under the temporary directory.
    fn short_socket_path(data_dir: &Path) -> PathBuf {
        // One socket per directory, the same name for every process.
        let hash = crate::data_dir::stable_hash(data_dir.as_os_str().as_encoded_bytes());
        crate::data_dir::private::user_folder().join(format!("{hash:016x}.sock"))
    }

    /// The path the host of `data_dir` binds, with the pointer file written when it is not in the
    /// directory itself. The short path's folder must be this user's alone: one another user made
    /// first is refused, never used.
    fn path_to_serve(data_dir: &Path) -> std::io::Result<(PathBuf, Option<PathBuf>)> {
        let direct = data_dir.join(SOCKET_FILE);
        if direct.as_os_str().len() <= MAX_SOCKET_PATH {
            return Ok((direct, None));
        }
        let path = short_socket_path(data_dir);
        crate::data_dir::private::ensure_user_folder()?;
        let pointer = data_dir.join(SOCKET_POINTER_FILE);
        crate::data_dir::private::write(&pointer, path.as_os_str().as_encoded_bytes())?;
        Ok((path, Some(pointer)))
    }

    /// A listening control socket. Dropping it stops accepting and removes the socket file;
    /// [`shutdown`](Self::shutdown) also waits for the requests already taken.
    pub struct ControlServer {
        path: PathBuf,
        /// The file in the data directory naming a socket kept elsewhere (see [`socket_path`]).
        pointer: Option<PathBuf>,
        stop: CancellationToken,
        requests: TaskTracker,
    }

    impl ControlServer {
        pub fn path(&self) -> &Path {
            &self.path
        }

        /// Stops taking requests and waits (a few seconds at most) for those being answered, so
        /// none reaches a host that is shutting down.
        pub async fn shutdown(self) {
            self.stop.cancel();
            self.requests.close();
            let _ = tokio::time::timeout(SHUTDOWN_WAIT, self.requests.wait()).await;
        }
    }

    impl Drop for ControlServer {
        fn drop(&mut self) {
            self.stop.cancel();
            let _ = std::fs::remove_file(&self.path);
            if let Some(pointer) = &self.pointer {
                let _ = std::fs::remove_file(pointer);
            }
        }
    }

    /// Binds the socket owner-only from the start: a mode set after `bind` leaves a moment in which
    /// another user could connect. The umask is the process's, so it is put back at once; a file or
    /// folder another thread creates in that instant is only made owner-only, still usable by its owner.
    fn bind_private(path: &Path) -> std::io::Result<UnixListener> {
        // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
        let old = unsafe { libc::umask(0o077) };
        let bound = UnixListener::bind(path);
        // SAFETY: as above, restoring the mask read a moment ago.
        unsafe { libc::umask(old) };
        let listener = bound?;
        // Owner-only already; read and write are all a socket's owner needs.
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        Ok(listener)
    }

    /// Listens on the data directory's control socket, answering each request with `handler` (run
    /// off the async threads: it may read the store). A socket file left by a host that died is
    /// replaced; one a live host answers on is not (AddrInUse). Call inside a tokio runtime.
    pub fn serve(data_dir: &Path, handler: Handler) -> std::io::Result<ControlServer> {
        let (path, pointer) = path_to_serve(data_dir)?;
        serve_path(path, pointer, handler)
    }

    /// Listens on the socket `path` (a door other than the data directory's, such as an agents'
    /// door), as [`serve`] does.
    pub fn serve_at(path: &Path, handler: Handler) -> std::io::Result<ControlServer> {
        serve_path(path.to_path_buf(), None, handler)
    }

    fn serve_path(path: PathBuf, pointer: Option<PathBuf>, handler: Handler) -> std::io::Result<ControlServer> {
        // Only a socket nobody answers on is taken over; anything else in its place is left alone.
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            let refused = meta.file_type().is_socket()
                && StdStream::connect(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionRefused);
            if !refused {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AddrInUse,
                    "something else is at the socket's path",
                ));
            }
            std::fs::remove_file(&path)?;
        }
        let listener = bind_private(&path)?;
        let owner = std::fs::metadata(&path)?.uid();
        let stop = CancellationToken::new();
        let requests = TaskTracker::new();
        let (stopped, taken, admission) = (stop.clone(), requests.clone(), Admission::new());
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = stopped.cancelled() => return,
                    accepted = listener.accept() => accepted,
                };
                match accepted {
                    Ok((stream, _)) => {
                        let (handler, gone, admission) = (handler.clone(), stopped.child_token(), admission.clone());
                        taken.spawn(async move { answer_peer(stream, owner, handler, gone, admission).await });
                    }
                    // Out of descriptors and the like: wait rather than spin on the error.
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
        Ok(ControlServer { path, pointer, stop, requests })
    }

    async fn answer_peer(
        stream: UnixStream,
        owner: u32,
        handler: Handler,
        gone: CancellationToken,
        admission: Admission,
    ) {
        let same_user = stream.peer_cred().is_ok_and(|peer| peer.uid() == owner);
        answer(stream, same_user, handler, gone, admission).await;
    }

    /// Connects to the host of `data_dir` and sends `request` (see [`super::open`]).
    pub(super) async fn connect(data_dir: &Path, request: &Request) -> Result<ReplyStream, ControlError> {
        connect_at(&socket_path(data_dir), request).await
    }

    /// Connects to the host listening on the socket `path` and sends `request`.
    pub(super) async fn connect_at(path: &Path, request: &Request) -> Result<ReplyStream, ControlError> {
        let stream = UnixStream::connect(path).await.map_err(|e| not_connected(path, e))?;
        exchange(stream, request, path).await
    }

    /// Why connecting failed: no host listens there (no socket, or one nobody answers on), or the
    /// socket itself failed.
    fn not_connected(path: &Path, e: std::io::Error) -> ControlError {
        match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
                ControlError::Unavailable { path: path.to_path_buf() }
            }
            _ => ControlError::Io { path: path.to_path_buf(), detail: e.to_string() },
        }
    }

    /// Sends `request` to the host of `data_dir` and waits for its reply (blocking).
    pub fn request(data_dir: &Path, request: &Request) -> Result<Reply, ControlError> {
        let path = socket_path(data_dir);
        let io = |e: std::io::Error| ControlError::Io { path: path.clone(), detail: e.to_string() };
        let stream = StdStream::connect(&path).map_err(|e| not_connected(&path, e))?;
        stream.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(READ_TIMEOUT)).map_err(io)?;
        exchange_blocking(stream, request, &path, &io)
    }
}

#[cfg(windows)]
mod windows {
    use std::os::windows::io::{AsRawHandle, RawHandle};
    use std::path::Path;
    use std::time::Duration;

    use tokio::net::windows::named_pipe::{NamedPipeServer, ServerOptions};
    use tokio_util::sync::CancellationToken;
    use tokio_util::task::TaskTracker;
    use windows_sys::Win32::Foundation::{
        CloseHandle, LocalFree, ERROR_BROKEN_PIPE, ERROR_FILE_NOT_FOUND, ERROR_NO_DATA, ERROR_PIPE_BUSY,
        ERROR_PIPE_NOT_CONNECTED, ERROR_SUCCESS, HANDLE,
    };
    use windows_sys::Win32::Security::Authorization::{
        ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW, GetSecurityInfo, SDDL_REVISION_1,
        SE_KERNEL_OBJECT,
    };
    use windows_sys::Win32::Security::{
        EqualSid, GetTokenInformation, TokenUser, OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID,
        SECURITY_ATTRIBUTES, SECURITY_MAX_SID_SIZE, TOKEN_QUERY, TOKEN_USER,
    };
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

    use super::*;

    /// A protected access list with one entry: full access for the pipe's owner, which the host sets
    /// to the user who runs it. Nobody else may open it (or make another instance of it), so there is
    /// no peer to refuse after the fact.
    const OWNER_ONLY_ACCESS: &str = "D:P(A;;GA;;;OW)";

    /// The pipe of a data directory: one per directory, as the socket file is on Unix.
    pub fn pipe_name(data_dir: &Path) -> String {
        // Resolved as the file system resolves a socket's path on Unix, so every spelling of the
        // directory (relative, short names, the `\\?\` form a host's own canonical path has)
        // names one pipe; a directory that is not there yet has no server anyway.
        let dir = std::fs::canonicalize(data_dir)
            .or_else(|_| std::path::absolute(data_dir))
            .unwrap_or_else(|_| data_dir.to_path_buf());
        // Over the lower-cased path: Windows paths are case-insensitive.
        let hash = crate::data_dir::stable_hash(dir.display().to_string().to_lowercase().as_bytes());
        format!(r"\\.\pipe\hark-control-{hash:016x}")
    }

    /// A handle, closed when dropped.
    struct Handle(HANDLE);

    impl Drop for Handle {
        fn drop(&mut self) {
            // SAFETY: the handle was opened for this guard alone and is closed once, here.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// Memory the system allocated for us with `LocalAlloc`, freed when dropped.
    struct Local(*mut std::ffi::c_void);

    impl Drop for Local {
        fn drop(&mut self) {
            // SAFETY: the pointer came from a call that hands its result over to be freed with
            // LocalFree (a null one is ignored), and nothing uses it after this guard.
            unsafe { LocalFree(self.0) };
        }
    }

    /// The user this process runs as: its token's `TOKEN_USER`, which holds the SID.
    struct User {
        /// Room for a `TOKEN_USER` and the longest SID after it, aligned as `TOKEN_USER` needs. Boxed:
        /// the `TOKEN_USER` points at its SID in the same buffer, which therefore must not move.
        buffer: Box<[u64; USER_WORDS]>,
    }

    const USER_WORDS: usize =
        (std::mem::size_of::<TOKEN_USER>() + SECURITY_MAX_SID_SIZE as usize).div_ceil(std::mem::size_of::<u64>());

    impl User {
        fn current() -> std::io::Result<User> {
            let mut token: HANDLE = std::ptr::null_mut();
            // SAFETY: GetCurrentProcess returns a pseudo handle (not to be closed); the out pointer
            // is valid for the call.
            if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
                return Err(std::io::Error::last_os_error());
            }
            let token = Handle(token);
            let mut user = User { buffer: Box::new([0; USER_WORDS]) };
            let mut written = 0;
            // SAFETY: the token is open with TOKEN_QUERY; the buffer is writable for the size given
            // and 8-byte aligned, as the TOKEN_USER written at its start needs.
            let ok = unsafe {
                GetTokenInformation(
                    token.0,
                    TokenUser,
                    user.buffer.as_mut_ptr().cast(),
                    std::mem::size_of_val(&*user.buffer) as u32,
                    &mut written,
                )
            };
            if ok == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(user)
        }

        /// The user's SID; it points into `self`.
        fn sid(&self) -> PSID {
            // SAFETY: GetTokenInformation wrote a TOKEN_USER at the buffer's (aligned) start, whose SID
            // follows it in the buffer, which has not moved since.
            unsafe { (*self.buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid }
        }

        /// The SID as text (`S-1-5-21-…`), as a security descriptor's SDDL names it.
        fn sid_text(&self) -> std::io::Result<String> {
            let mut text: *mut u16 = std::ptr::null_mut();
            // SAFETY: the SID is valid while `self` is; the out pointer is valid for the call.
            if unsafe { ConvertSidToStringSidW(self.sid(), &mut text) } == 0 {
                return Err(std::io::Error::last_os_error());
            }
            let _free = Local(text.cast());
            // SAFETY: ConvertSidToStringSidW returned a NUL-terminated UTF-16 string, alive until
            // its guard frees it, after it is copied here.
            let units = unsafe {
                let len = (0..).take_while(|&i| *text.add(i) != 0).count();
                std::slice::from_raw_parts(text, len)
            };
            Ok(String::from_utf16_lossy(units))
        }
    }

    /// Whether the pipe `pipe` (a client's end, open for reading, so with the right to read its
    /// security) is owned by the user this process runs as. A pipe's owner is set by whoever
    /// created it, and it can be only that creator's own user (short of an administrator's
    /// privileges): another user's program serving a pipe of the same name cannot pass for ours.
    fn owned_by_me(pipe: RawHandle) -> std::io::Result<bool> {
        let me = User::current()?;
        let mut owner: PSID = std::ptr::null_mut();
        let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: `pipe` is an open handle the caller holds; the owner and descriptor out pointers
        // are valid, and those for the parts not asked for (group, access lists) may be null.
        let status = unsafe {
            GetSecurityInfo(
                pipe,
                SE_KERNEL_OBJECT,
                OWNER_SECURITY_INFORMATION,
                &mut owner,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut descriptor,
            )
        };
        if status != ERROR_SUCCESS {
            return Err(std::io::Error::from_raw_os_error(status as i32));
        }
        let _descriptor = Local(descriptor);
        // SAFETY: `owner` points into the descriptor, alive until its guard drops after this; the
        // other SID into `me`.
        Ok(!owner.is_null() && unsafe { EqualSid(owner, me.sid()) } != 0)
    }

    /// Lets a client talk over the pipe it opened only when the pipe is its own user's (see
    /// [`owned_by_me`]); else [`ControlError::NotYours`], before anything is sent.
    fn check_owner(pipe: &impl AsRawHandle, path: &Path) -> Result<(), ControlError> {
        match owned_by_me(pipe.as_raw_handle()) {
            Ok(true) => Ok(()),
            Ok(false) => Err(ControlError::NotYours { path: path.to_path_buf() }),
            Err(e) => Err(ControlError::Io { path: path.to_path_buf(), detail: e.to_string() }),
        }
    }

    /// The pipe's security descriptor: owned by the user who runs the host (set, not left to the
    /// token's default owner, which may be a group), access for that owner only. Freed when dropped.
    struct OwnerOnly(Local);

    // The descriptor is immutable once made; it is only read when a pipe instance is created.
    unsafe impl Send for OwnerOnly {}

    impl OwnerOnly {
        fn new() -> std::io::Result<OwnerOnly> {
            let sddl = format!("O:{}{OWNER_ONLY_ACCESS}", User::current()?.sid_text()?);
            let sddl: Vec<u16> = sddl.encode_utf16().chain(std::iter::once(0)).collect();
            let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
            // SAFETY: `sddl` is a NUL-terminated UTF-16 string; the out pointer is valid.
            let ok = unsafe {
                ConvertStringSecurityDescriptorToSecurityDescriptorW(
                    sddl.as_ptr(),
                    SDDL_REVISION_1,
                    &mut descriptor,
                    std::ptr::null_mut(),
                )
            };
            if ok == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(OwnerOnly(Local(descriptor)))
        }

        fn create(&self, name: &str, first: bool) -> std::io::Result<NamedPipeServer> {
            let mut attributes = SECURITY_ATTRIBUTES {
                nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
                lpSecurityDescriptor: self.0 .0,
                bInheritHandle: 0,
            };
            let mut options = ServerOptions::new();
            options.first_pipe_instance(first).reject_remote_clients(true);
            // SAFETY: the attributes and the descriptor they point to outlive the call.
            unsafe {
                options.create_with_security_attributes_raw(name, (&mut attributes as *mut SECURITY_ATTRIBUTES).cast())
            }
        }
    }

    /// A listening control pipe. Dropping it stops accepting; [`shutdown`](Self::shutdown) also waits
    /// for the requests already taken.
    pub struct ControlServer {
        name: String,
        stop: CancellationToken,
        requests: TaskTracker,
        /// The task holding the waiting pipe instance: the pipe exists until it ends.
        accepting: tokio::task::JoinHandle<()>,
    }

    impl ControlServer {
        pub fn name(&self) -> &str {
            &self.name
        }

        /// Stops taking requests and waits (a few seconds at most) for those being answered, and for
        /// the pipe to be gone.
        pub async fn shutdown(mut self) {
            self.stop.cancel();
            self.requests.close();
            let _ = tokio::time::timeout(SHUTDOWN_WAIT, self.requests.wait()).await;
            let _ = tokio::time::timeout(SHUTDOWN_WAIT, &mut self.accepting).await;
        }
    }

    impl Drop for ControlServer {
        fn drop(&mut self) {
            self.stop.cancel();
        }
    }

    /// Listens on the data directory's control pipe, answering each request with `handler`. A pipe
    /// another live host serves is not taken (its first instance exists: access denied; Wine does not
    /// enforce this, and only the host holding the data directory's lock serves anyway). Call inside
    /// a tokio runtime.
    pub fn serve(data_dir: &Path, handler: Handler) -> std::io::Result<ControlServer> {
        let name = pipe_name(data_dir);
        let security = OwnerOnly::new()?;
        let mut server = security.create(&name, true)?;
        let stop = CancellationToken::new();
        let requests = TaskTracker::new();
        let (stopped, taken, pipe, admission) = (stop.clone(), requests.clone(), name.clone(), Admission::new());
        let accepting = tokio::spawn(async move {
            loop {
                let connected = tokio::select! {
                    _ = stopped.cancelled() => return,
                    connected = server.connect() => connected,
                };
                // The next client gets a new instance; this one is answered on its own task.
                let next = match security.create(&pipe, false) {
                    Ok(next) => next,
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let client = std::mem::replace(&mut server, next);
                if connected.is_ok() {
                    let (handler, gone, admission) = (handler.clone(), stopped.child_token(), admission.clone());
                    // Only the owner can open the pipe (see OWNER_ONLY_ACCESS).
                    taken.spawn(async move { answer(client, true, handler, gone, admission).await });
                }
            }
        });
        Ok(ControlServer { name, stop, requests, accepting })
    }

    /// Connects to the host of `data_dir` and sends `request` (see [`super::open`]).
    pub(super) async fn connect(data_dir: &Path, request: &Request) -> Result<ReplyStream, ControlError> {
        use tokio::net::windows::named_pipe::ClientOptions;
        let name = pipe_name(data_dir);
        let path = std::path::PathBuf::from(&name);
        let pipe = loop {
            match ClientOptions::new().open(&name) {
                Ok(pipe) => break pipe,
                Err(e) if e.raw_os_error() == Some(ERROR_FILE_NOT_FOUND as i32) => {
                    return Err(ControlError::Unavailable { path })
                }
                // Every instance is taken: the host makes a new one at once, unless it has stopped
                // answering, which the hello's deadline around this tells (as a Unix socket's
                // backlog that is never accepted does).
                Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => return Err(ControlError::Io { path, detail: e.to_string() }),
            }
        };
        check_owner(&pipe, &path)?;
        exchange(pipe, request, &path).await
    }

    /// Sends `request` to the host of `data_dir` and waits for its reply (blocking).
    pub fn request(data_dir: &Path, request: &Request) -> Result<Reply, ControlError> {
        let name = pipe_name(data_dir);
        let path = std::path::PathBuf::from(&name);
        let io = |e: std::io::Error| ControlError::Io { path: path.clone(), detail: e.to_string() };
        let started = std::time::Instant::now();
        let pipe = loop {
            match std::fs::OpenOptions::new().read(true).write(true).open(&name) {
                Ok(pipe) => break pipe,
                Err(e) if e.raw_os_error() == Some(ERROR_FILE_NOT_FOUND as i32) => {
                    return Err(ControlError::Unavailable { path: path.clone() })
                }
                // Every instance is taken this instant; the host makes a new one at once, unless it
                // has stopped answering: then it is told as a hello that never came.
                Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32) => {
                    let waited = super::hello_timeout();
                    if started.elapsed() >= waited {
                        return Err(ControlError::NotAnswering { path: path.clone(), waited });
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(io(e)),
            }
        };
        check_owner(&pipe, &path)?;
        // An instance that is closing as it is opened (the host is quitting) answers nothing.
        let failed =
            |e: std::io::Error| if closing(&e) { ControlError::Unavailable { path: path.clone() } } else { io(e) };
        exchange_blocking(pipe, request, &path, &failed)
    }

    /// The pipe's other end is gone or going: broken, being closed, or not connected.
    fn closing(e: &std::io::Error) -> bool {
        [ERROR_BROKEN_PIPE, ERROR_NO_DATA, ERROR_PIPE_NOT_CONNECTED]
            .iter()
            .any(|code| e.raw_os_error() == Some(*code as i32))
    }
}
