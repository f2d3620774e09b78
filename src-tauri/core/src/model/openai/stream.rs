//! The task that reads the response body and feeds the caller's channel. It ends on `[DONE]`, on the
//! first error (after delivering everything before it), on cancel, or when the caller drops the
//! receiver; each of those drops the response, which closes the connection.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::CONTENT_TYPE;
use reqwest::Response;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::chunk::{events_from_completion, StreamAssembler};
use super::config::ApiKey;
use super::redact;
use super::sse::SseParser;
use crate::model::error::ModelError;
use crate::model::types::ModelEvent;

type Sender = mpsc::Sender<Result<ModelEvent, ModelError>>;

pub(super) async fn pump(
    response: Response,
    tx: Sender,
    cancel: CancellationToken,
    read_timeout: Duration,
    key: Option<ApiKey>,
) {
    let outcome = tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(ModelError::Cancelled),
        // A caller that drops the receiver while the server is silent should not keep the connection.
        _ = tx.closed() => Ok(()),
        outcome = read(response, &tx, read_timeout) => outcome,
    };
    if let Err(error) = outcome {
        // The receiver may be gone already (that is how callers often stop); nobody to tell then.
        let _ = tx.try_send(Err(redact(error, key.as_ref())));
    }
}

/// Reads until the stream completes. `Ok` also covers "the caller stopped listening".
async fn read(response: Response, tx: &Sender, read_timeout: Duration) -> Result<(), ModelError> {
    let whole_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if whole_json {
        let body = tokio::time::timeout(read_timeout, response.bytes())
            .await
            .map_err(|_| idle_timeout(read_timeout))?
            .map_err(|e| lost(&e))?;
        let events = events_from_completion(&body)?;
        deliver(tx, events).await;
        return Ok(());
    }

    let mut body = response.bytes_stream();
    let mut parser = SseParser::default();
    let mut assembler = StreamAssembler::default();
    loop {
        let next = tokio::time::timeout(read_timeout, body.next()).await.map_err(|_| idle_timeout(read_timeout))?;
        let at_end = match next {
            Some(Ok(bytes)) => {
                parser.push(&bytes)?;
                false
            }
            Some(Err(e)) if e.is_timeout() => return Err(idle_timeout(read_timeout)),
            Some(Err(e)) => return Err(lost(&e)),
            None => true,
        };
        loop {
            let event = if at_end { parser.finish() } else { parser.next_event() };
            let Some(event) = event else { break };
            let events = assembler.on_event(&event?)?;
            if !deliver(tx, events).await {
                return Ok(());
            }
            if assembler.is_done() {
                return Ok(());
            }
        }
        if at_end {
            let events = assembler.on_eof()?;
            deliver(tx, events).await;
            return Ok(());
        }
    }
}

/// False when the receiver is gone.
async fn deliver(tx: &Sender, events: Vec<ModelEvent>) -> bool {
    for event in events {
        if tx.send(Ok(event)).await.is_err() {
            return false;
        }
    }
    true
}

fn idle_timeout(limit: Duration) -> ModelError {
    ModelError::Timeout { message: format!("The model stream was silent for {:.1}s", limit.as_secs_f64()) }
}

fn lost(e: &reqwest::Error) -> ModelError {
    ModelError::Connect { message: format!("The connection was lost while streaming: {e}") }
}
