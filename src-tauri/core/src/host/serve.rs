//! What a host answers on its control socket: every request as its own surfaces would do it.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{Host, HostError};
use crate::control::{Handler, Reply, Request};
use crate::error::BoundaryError;

/// The handler the host's control socket serves with (see [`crate::control::serve`]).
pub fn control_handler(host: Arc<Host>) -> Handler {
    Arc::new(move |request, gone| {
        let host = Arc::clone(&host);
        Box::pin(async move { reply(host, request, gone).await.unwrap_or_else(|e| Reply::Refused { error: e }) })
    })
}

async fn reply(host: Arc<Host>, request: Request, gone: CancellationToken) -> Result<Reply, BoundaryError> {
    let refused = |e: HostError| BoundaryError::from(e);
    match request {
        Request::Ask { client, settings, arguments } => {
            let answer = host.client_ask(&client, settings, arguments, gone).await.map_err(refused)?;
            Ok(Reply::Asked { answer })
        }
        Request::Settings => Ok(Reply::Settings { settings: host.client_settings() }),
        Request::Answer { session, call_id, answers } => {
            off_thread(move || {
                let id = host.resolve(&session).map_err(refused)?;
                let path = host.answer_and_admit(&id, &call_id, answers, None).map_err(refused)?;
                Ok(Reply::Answered { session_id: id, path })
            })
            .await
        }
        Request::Answers { client } => {
            off_thread(move || Ok(Reply::Answers { answers: host.client_answers(&client).map_err(refused)? })).await
        }
    }
}

/// Work that reads and writes the store (an answer may also wait a moment for its question to
/// continue), run off the async threads.
async fn off_thread(
    work: impl FnOnce() -> Result<Reply, BoundaryError> + Send + 'static,
) -> Result<Reply, BoundaryError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(BoundaryError::new("ControlError", "INTERNAL", format!("the request failed: {e}"))))
}
