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
use super::limits::{too_large, Limits, Part};
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
    limits: Limits,
    key: Option<ApiKey>,
) {
    // Every way out of here drops the response, which closes a connection whose body was not read
    // to the end: a stream stopped at a limit stops costing the server too.
    let outcome = tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(ModelError::Cancelled),
        // A caller that drops the receiver while the server is silent should not keep the connection.
        _ = tx.closed() => Ok(()),
        outcome = read(response, &tx, read_timeout, limits) => outcome,
    };
    match outcome {
        Ok(()) => {}
        // The receiver may be gone already (that is how callers often stop); nobody to tell then.
        Err(ModelError::Cancelled) => {
            let _ = tx.try_send(Err(ModelError::Cancelled));
        }
        // This is how the receiver learns why the stream ended, and the events delivered just before
        // may have filled its buffer: wait for room, until it goes away or cancels.
        Err(error) => {
            tokio::select! {
                _ = tx.send(Err(redact(error, key.as_ref()))) => {}
                _ = cancel.cancelled() => {}
            }
        }
    }
}

/// Reads until the stream completes. `Ok` also covers "the caller stopped listening".
async fn read(response: Response, tx: &Sender, read_timeout: Duration, limits: Limits) -> Result<(), ModelError> {
    let whole_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if whole_json {
        let body = tokio::time::timeout(read_timeout, whole_body(response, limits.output))
            .await
            .map_err(|_| idle_timeout(read_timeout))??;
        let mut events = Vec::new();
        let read = events_from_completion(&body, limits, &mut events);
        deliver(tx, events).await;
        return read;
    }

    let mut body = response.bytes_stream();
    let mut parser = SseParser::new(limits.event);
    let mut assembler = StreamAssembler::new(limits);
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
            let mut events = Vec::new();
            let applied = assembler.on_event(&event?, &mut events);
            if !deliver(tx, events).await {
                return Ok(());
            }
            applied?;
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

/// A body sent whole, read only as far as `limit`: it holds the whole step.
async fn whole_body(mut response: Response, limit: usize) -> Result<Vec<u8>, ModelError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| lost(&e))? {
        if body.len().saturating_add(chunk.len()) > limit {
            return Err(too_large(Part::Body, limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
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
