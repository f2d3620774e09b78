//! The control socket: while one process hosts a data directory (the desktop app), another front door
//! on the same machine (the `hark` CLI) answers that host's questions through it instead of failing
//! with DATA_DIR_BUSY. First valid answer wins across every surface, because the host answers a
//! request exactly as it answers its own panel or a notification.
//!
//! One JSON line each way per connection. On Unix it is a socket in the data directory, mode 0600;
//! a peer that is not the user who owns it is refused. (Windows would use a named pipe; not built.)

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{BoundaryError, CodedError};
use crate::host::AnswerPath;
use crate::question::AnswerBatch;

/// The socket's name inside the data directory.
pub const SOCKET_FILE: &str = "control.sock";

/// The most a request may hold (an answer batch is a few KiB; this bounds a hostile peer).
const REQUEST_LIMIT: usize = 1 << 20;

pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// What a client asks the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Answers a question by whichever path applies: the call waiting for it, or late to a question
    /// that continued. `session` is an id or a prefix matching one session.
    Answer { session: String, call_id: String, answers: AnswerBatch },
}

/// The host's answer to a [`Request`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Reply {
    Answered {
        session_id: String,
        path: AnswerPath,
    },
    /// Refused with the error the host's own surfaces would show (NOT_PENDING, REPLY_QUEUED, ...).
    Refused {
        error: BoundaryError,
    },
}

/// What the host does with each request (the desktop answers as its panel does).
pub type Handler = std::sync::Arc<dyn Fn(Request) -> Reply + Send + Sync>;

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
}

impl CodedError for ControlError {
    fn name(&self) -> &str {
        "ControlError"
    }
    fn code(&self) -> &str {
        match self {
            ControlError::Unavailable { .. } => "CONTROL_UNAVAILABLE",
            ControlError::Io { .. } => "CONTROL_IO",
            ControlError::Protocol(_) => "CONTROL_PROTOCOL",
        }
    }
    fn message(&self) -> String {
        self.to_string()
    }
}

fn refused(code: &str, message: impl Into<String>) -> Reply {
    Reply::Refused { error: BoundaryError::new("ControlError", code, message) }
}

/// Reads one request line (at most [`REQUEST_LIMIT`] bytes) and what the handler makes of it.
fn reply_to(line: &[u8], handler: &Handler) -> Reply {
    match serde_json::from_slice::<Request>(line) {
        Ok(request) => handler(request),
        Err(e) => refused("BAD_REQUEST", format!("not a control request: {e}")),
    }
}

#[cfg(unix)]
pub use unix::{request, serve, ControlServer};

#[cfg(unix)]
mod unix {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    use std::os::unix::net::UnixStream as StdStream;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader as AsyncBufReader};
    use tokio::net::{UnixListener, UnixStream};
    use tokio_util::sync::CancellationToken;
    use tokio_util::task::TaskTracker;

    use super::*;

    /// How long a peer may take to send its request.
    const READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// How long a client waits for the host's reply (answering may open a session).
    const REPLY_TIMEOUT: Duration = Duration::from_secs(120);
    /// How long the rest of a refused request is read before the socket closes.
    const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);
    /// How long quitting waits for requests already taken; a peer that stalls cannot hold it up.
    const SHUTDOWN_WAIT: Duration = Duration::from_secs(3);

    /// A listening control socket. Dropping it stops accepting and removes the socket file;
    /// [`shutdown`](Self::shutdown) also waits for the requests already taken.
    pub struct ControlServer {
        path: PathBuf,
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
        }
    }

    /// Listens on the data directory's control socket, answering each request with `handler` (run
    /// off the async threads: it may read the store). A socket file left by a host that died is
    /// replaced; one a live host answers on is not (AddrInUse). Call inside a tokio runtime.
    pub fn serve(data_dir: &Path, handler: Handler) -> std::io::Result<ControlServer> {
        let path = socket_path(data_dir);
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
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let owner = std::fs::metadata(&path)?.uid();
        let stop = CancellationToken::new();
        let requests = TaskTracker::new();
        let (stopped, taken) = (stop.clone(), requests.clone());
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = stopped.cancelled() => return,
                    accepted = listener.accept() => accepted,
                };
                match accepted {
                    Ok((stream, _)) => {
                        let handler = handler.clone();
                        taken.spawn(async move { answer(stream, owner, handler).await });
                    }
                    // Out of descriptors and the like: wait rather than spin on the error.
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
        Ok(ControlServer { path, stop, requests })
    }

    async fn answer(stream: UnixStream, owner: u32, handler: Handler) {
        let same_user = stream.peer_cred().is_ok_and(|peer| peer.uid() == owner);
        let (read, mut write) = stream.into_split();
        let mut reader = AsyncBufReader::new(read);
        let reply = if same_user {
            let mut line = Vec::new();
            let mut limited = (&mut reader).take(REQUEST_LIMIT as u64 + 1);
            match tokio::time::timeout(READ_TIMEOUT, limited.read_until(b'\n', &mut line)).await {
                Ok(Ok(_)) if line.len() > REQUEST_LIMIT => refused("BAD_REQUEST", "the request is too long"),
                Ok(Ok(_)) => {
                    let handler = handler.clone();
                    tokio::task::spawn_blocking(move || reply_to(&line, &handler))
                        .await
                        .unwrap_or_else(|e| refused("INTERNAL", format!("the host could not finish the request: {e}")))
                }
                Ok(Err(e)) => refused("BAD_REQUEST", format!("reading the request failed: {e}")),
                Err(_) => refused("BAD_REQUEST", "no request within 10 s"),
            }
        } else {
            refused("PEER_REFUSED", "the control socket answers only the user running Hark")
        };
        if let Ok(mut text) = serde_json::to_vec(&reply) {
            text.push(b'\n');
            let _ = write.write_all(&text).await;
            let _ = write.shutdown().await;
        }
        // What the peer sent and was not read (a refused request) is drained before the socket
        // closes: closing with unread input resets it, and the peer would lose the reply.
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, tokio::io::copy(&mut reader, &mut tokio::io::sink())).await;
    }

    /// Sends `request` to the host of `data_dir` and waits for its reply (blocking).
    pub fn request(data_dir: &Path, request: &Request) -> Result<Reply, ControlError> {
        let path = socket_path(data_dir);
        let io = |e: std::io::Error| ControlError::Io { path: path.clone(), detail: e.to_string() };
        let mut stream = match StdStream::connect(&path) {
            Ok(s) => s,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused) => {
                return Err(ControlError::Unavailable { path: path.clone() })
            }
            Err(e) => return Err(io(e)),
        };
        stream.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(READ_TIMEOUT)).map_err(io)?;
        let mut line = serde_json::to_vec(request).map_err(|e| ControlError::Protocol(e.to_string()))?;
        line.push(b'\n');
        stream.write_all(&line).map_err(io)?;
        let mut reply = String::new();
        BufReader::new(stream).read_line(&mut reply).map_err(io)?;
        serde_json::from_str(&reply).map_err(|e| ControlError::Protocol(format!("{e}: {reply:?}")))
    }
}
