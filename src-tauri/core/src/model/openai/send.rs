//! Sending the request: one POST per attempt, bounded retries with backoff for 429, 5xx and failed
//! connections, and an error naming what went wrong for everything else. Retries happen only before
//! any byte of a successful body was read, so nothing already streamed is ever replayed.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, RETRY_AFTER};
use reqwest::{Client, Response, StatusCode, Url};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::{ApiKey, OpenAiConfig};
use super::{excerpt, host_label};
use crate::model::error::ModelError;

enum Attempt {
    Success(Response),
    Retry { error: ModelError, after: Option<Duration> },
    Fatal(ModelError),
}

/// Sends the request until a success status arrives, retrying transient failures within the bounds
/// of `config`. Returns the response with its body untouched.
pub(super) async fn send(
    client: &Client,
    config: &OpenAiConfig,
    url: &Url,
    body: &Value,
    cancel: &CancellationToken,
) -> Result<Response, ModelError> {
    let mut retries = 0u32;
    loop {
        let outcome = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            outcome = attempt(client, config, url, body) => outcome,
        };
        let (error, after) = match outcome {
            Attempt::Success(response) => return Ok(response),
            Attempt::Fatal(error) => return Err(error),
            Attempt::Retry { error, after } => (error, after),
        };
        if retries >= config.max_retries {
            if retries == 0 {
                return Err(error);
            }
            let attempts = retries + 1;
            return Err(error.map_message(|m| format!("{m} (gave up after {attempts} attempts)")));
        }
        let delay = after.map_or_else(|| config.backoff(retries), |d| d.min(config.max_retry_after));
        retries += 1;
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ModelError::Cancelled),
            _ = tokio::time::sleep(delay) => {}
        }
    }
}

async fn attempt(client: &Client, config: &OpenAiConfig, url: &Url, body: &Value) -> Attempt {
    let mut request = client.post(url.clone()).header(ACCEPT, "text/event-stream").json(body);
    if let Some(key) = &config.api_key {
        match bearer(key) {
            Ok(value) => request = request.header(AUTHORIZATION, value),
            Err(e) => return Attempt::Fatal(e),
        }
    }
    let wait = config.connect_timeout.saturating_add(config.read_timeout);
    let response = match tokio::time::timeout(wait, request.send()).await {
        // The server may be working on the request; sending it again could run it twice.
        Err(_) => {
            return Attempt::Fatal(ModelError::Timeout {
                message: format!("{} sent no response within {}", host_label(url), secs(wait)),
            })
        }
        Ok(Err(e)) => return transport_failure(&e, config, url),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    if status.is_success() {
        return Attempt::Success(response);
    }
    let after = retry_after(response.headers());
    let body = read_error_body(response, config.read_timeout, config.max_error_body_bytes).await;
    classify(status, &body, after, config, url)
}

fn bearer(key: &ApiKey) -> Result<HeaderValue, ModelError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| ModelError::Config {
        message: "The API key contains characters that cannot be sent in an HTTP header".into(),
    })?;
    // Keeps the header out of any Debug output of the request inside the HTTP stack.
    value.set_sensitive(true);
    Ok(value)
}

fn transport_failure(e: &reqwest::Error, config: &OpenAiConfig, url: &Url) -> Attempt {
    let host = host_label(url);
    let cause = error_chain(e);
    if e.is_connect() && e.is_timeout() {
        let message = format!("Connecting to {host} timed out after {}", secs(config.connect_timeout));
        return Attempt::Retry { error: ModelError::Timeout { message }, after: None };
    }
    if e.is_timeout() {
        return Attempt::Fatal(ModelError::Timeout { message: format!("{host} timed out: {cause}") });
    }
    if e.is_builder() {
        return Attempt::Fatal(ModelError::Config { message: format!("Cannot build a request to {url}: {cause}") });
    }
    // Refused, reset or closed before a response: nothing was streamed, so another attempt is safe.
    Attempt::Retry { error: ModelError::Connect { message: format!("Could not reach {url}: {cause}") }, after: None }
}

fn classify(status: StatusCode, body: &[u8], after: Option<Duration>, config: &OpenAiConfig, url: &Url) -> Attempt {
    let host = host_label(url);
    let code = status.as_u16();
    let server = body_message(body).unwrap_or_else(|| status.canonical_reason().unwrap_or("no details").to_string());
    let shown = match body_code(body) {
        Some(kind) => format!("HTTP {code}: {server} [{kind}]"),
        None => format!("HTTP {code}: {server}"),
    };
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
            let message = if config.api_key.is_some() {
                format!("The API key was rejected by {host} ({shown}). Check the API key in the model settings.")
            } else {
                format!("{host} requires an API key ({shown}) and none is set. Add one in the model settings.")
            };
            Attempt::Fatal(ModelError::Auth { status: code, message })
        }
        StatusCode::TOO_MANY_REQUESTS => Attempt::Retry {
            error: ModelError::RateLimited { message: format!("{host} is rate limiting requests ({shown})") },
            after,
        },
        s if s.is_server_error() => Attempt::Retry {
            error: ModelError::Server { status: Some(code), message: format!("{host} failed ({shown})") },
            after,
        },
        StatusCode::NOT_FOUND => Attempt::Fatal(ModelError::Http {
            status: code,
            message: format!(
                "{host} has no such endpoint or model ({shown}). Requests go to {url}; check the base URL and the model name."
            ),
        }),
        _ => Attempt::Fatal(ModelError::Http { status: code, message: format!("{host} refused the request ({shown})") }),
    }
}

/// `Retry-After` in seconds. The HTTP-date form is rare for APIs and falls back to backoff.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let secs: f64 = text.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// An error body, read only as far as `max_bytes`: enough for any real message, not enough to hurt.
async fn read_error_body(mut response: Response, limit: Duration, max_bytes: usize) -> Vec<u8> {
    let mut body = Vec::new();
    let read = async {
        while let Ok(Some(chunk)) = response.chunk().await {
            let room = max_bytes.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() >= max_bytes {
                break;
            }
        }
    };
    // A server that stalls in the middle of its error page still gets its status reported.
    let _ = tokio::time::timeout(limit, read).await;
    body
}

/// The human part of an error body: the JSON message fields servers use, or the text itself.
fn body_message(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let message = serde_json::from_str::<Value>(text).ok().and_then(|v| server_message(&v));
    Some(excerpt(message.as_deref().unwrap_or(text)))
}

/// The machine-readable code of an OpenAI-style error (`{error:{code:"context_length_exceeded"}}`),
/// kept in the message because callers route on it (see [`ModelError::is_context_length`]).
fn body_code(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let code = value.pointer("/error/code")?.as_str()?.trim();
    let plain = !code.is_empty() && code.len() <= 64 && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    plain.then(|| code.to_string())
}

/// The message inside an error object: OpenAI/DeepSeek `{error:{message}}`, Ollama `{error:"..."}`,
/// vLLM `{message}`, FastAPI `{detail}`.
pub(super) fn server_message(value: &Value) -> Option<String> {
    let text = value
        .pointer("/error/message")
        .or_else(|| value.get("error").filter(|e| e.is_string()))
        .or_else(|| value.get("message"))
        .or_else(|| value.get("detail"))?;
    let text = match text {
        Value::String(s) => s.trim().to_string(),
        other => other.to_string(),
    };
    (!text.is_empty()).then(|| excerpt(&text))
}

/// The useful end of the error's cause chain ("tcp connect error: Connection refused", "dns error:
/// ..."): reqwest's outer messages repeat the URL and add wrapper words.
fn error_chain(e: &reqwest::Error) -> String {
    let mut causes: Vec<String> = Vec::new();
    let mut current = std::error::Error::source(e);
    while let Some(err) = current {
        let text = err.to_string();
        if !text.starts_with("client error") && !causes.iter().any(|c| c.contains(&text)) {
            causes.push(text);
        }
        current = err.source();
    }
    let tail = causes.len().saturating_sub(2);
    match causes.split_off(tail) {
        last if last.is_empty() => e.to_string(),
        last => last.join(": "),
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}
