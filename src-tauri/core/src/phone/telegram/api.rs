//! The Bot API client: frankenstein's typed methods and types over the reqwest client Hark already
//! builds (no second HTTP or TLS stack). The token is part of every request's path, so nothing here
//! ever puts a URL into an error: reqwest's errors are stripped of theirs.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use frankenstein::response::ErrorResponse;
use frankenstein::AsyncTelegramApi;
use serde::de::DeserializeOwned;

use crate::phone::error::PhoneError;

/// How long `getUpdates` holds the connection open when nothing happens (Telegram's long poll).
pub const LONG_POLL_SECS: u32 = 25;

/// A bot's token. It never prints: Debug shows only that there is one.
#[derive(Clone, PartialEq, Eq)]
pub struct BotToken(String);

impl BotToken {
    /// `None` for an empty or blank value (an unset variable, a cleared field).
    pub fn new(token: impl Into<String>) -> Option<BotToken> {
        let token = token.into().trim().to_string();
        (!token.is_empty()).then_some(BotToken(token))
    }

    /// For the keyring that keeps it, and a test that checks it never leaked;
    /// never for output.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for BotToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BotToken(…)")
    }
}

pub struct Bot {
    client: reqwest::Client,
    base: String,
    token: BotToken,
}

impl Bot {
    /// A client of the Bot API at `base` (already checked: https, or http to this machine).
    pub fn new(base: &str, token: BotToken) -> Result<Bot, PhoneError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // Longer than the long poll, so a quiet poll is never taken for a dead connection.
            .timeout(Duration::from_secs(u64::from(LONG_POLL_SECS) + 15))
            .build()
            .map_err(|e| PhoneError::Network(e.without_url().to_string()))?;
        Ok(Bot { client, base: base.trim_end_matches('/').to_string(), token })
    }

    /// A call whose result the relay does not read (edits, acknowledgements): their results differ
    /// between servers (`true`, the message, or nothing), and only success matters.
    pub async fn call<P>(&self, method: &str, params: &P) -> Result<(), PhoneError>
    where
        P: serde::Serialize + std::fmt::Debug + Send + Sync,
    {
        let _: serde_json::Value = self.request(method, Some(params)).await?;
        Ok(())
    }
}

/// What a refused request means for the relay, by Telegram's error code.
fn refused(status: reqwest::StatusCode, body: &str) -> PhoneError {
    let parsed = serde_json::from_str::<ErrorResponse>(body).ok();
    let retry_after = parsed.as_ref().and_then(|e| e.parameters.as_ref()).and_then(|p| p.retry_after);
    let description =
        parsed.map(|e| e.description).unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_string());
    let description: String = description.chars().take(200).collect();
    match status.as_u16() {
        401 | 404 => PhoneError::TokenRejected(description),
        403 => PhoneError::Blocked(description),
        409 => PhoneError::InUseElsewhere(description),
        // Telegram names the wait; without it, a second is the least it asks.
        429 => PhoneError::RateLimited { retry_after: retry_after.map_or(1, u64::from).max(1) },
        _ => PhoneError::Api(format!("{} {description}", status.as_u16())),
    }
}

#[async_trait]
impl AsyncTelegramApi for Bot {
    type Error = PhoneError;

    async fn request<Params, Output>(&self, method: &str, params: Option<Params>) -> Result<Output, PhoneError>
    where
        Params: serde::ser::Serialize + std::fmt::Debug + std::marker::Send,
        Output: DeserializeOwned,
    {
        let url = format!("{}/bot{}/{method}", self.base, self.token.0);
        let mut request = self.client.post(url);
        if let Some(params) = params {
            request = request.json(&params);
        }
        let network = |e: reqwest::Error| PhoneError::Network(e.without_url().to_string());
        let response = request.send().await.map_err(network)?;
        let status = response.status();
        let body = response.text().await.map_err(network)?;
        if !status.is_success() {
            return Err(refused(status, &body));
        }
        // The reply's shape only: serde's message names a line and column, never the body.
        serde_json::from_str(&body).map_err(|e| PhoneError::Api(format!("{method}: unexpected reply ({e})")))
    }

    async fn request_with_form_data<Params, Output>(
        &self,
        method: &str,
        _params: Params,
        _files: Vec<(&str, PathBuf)>,
    ) -> Result<Output, PhoneError>
    where
        Params: serde::ser::Serialize + std::fmt::Debug + std::marker::Send,
        Output: DeserializeOwned,
    {
        // The relay sends text only; uploading files is never needed.
        Err(PhoneError::Api(format!("{method}: sending files is not supported")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_never_prints() {
        let token = BotToken::new(" 123:secret ").unwrap();
        assert_eq!(token.expose(), "123:secret");
        assert!(!format!("{token:?}").contains("secret"));
        assert!(BotToken::new("  ").is_none());
    }

    #[tokio::test]
    async fn a_network_error_does_not_carry_the_token() {
        // Nothing listens on port 9 of this machine (discard), so the connection is refused.
        let bot = Bot::new("http://127.0.0.1:9", BotToken::new("123:secret").unwrap()).unwrap();
        let err = bot.get_me().await.expect_err("nothing listens");
        assert!(matches!(err, PhoneError::Network(_)), "{err:?}");
        assert!(!err.to_string().contains("secret"), "{err}");
    }
}
