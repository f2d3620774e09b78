//! Which API key may go to which server. A key from the environment belongs to one vendor and goes
//! only to that vendor's host; no key ever crosses the network in plain `http://`, because anyone on
//! the path could read it — only a loopback server (Ollama, llama.cpp on this machine) may get one.

use reqwest::Url;
use serde::Serialize;

use super::error::ModelError;
use super::openai::ApiKey;

/// Each vendor's environment variable and the one host its key is for.
pub const ENV_KEYS: &[(&str, &str)] = &[("DEEPSEEK_API_KEY", "api.deepseek.com"), ("OPENAI_API_KEY", "api.openai.com")];

/// Where the key used for a server comes from, as Settings shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeySource {
    /// The OS keyring entry of that server.
    Keyring,
    /// A vendor's environment variable (named) whose host is this server's.
    Env {
        variable: String,
    },
    None,
}

/// Whether `url` points at this machine.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The environment's key for `base_url`: the variable bound to its host, over https only.
pub fn env_key_for(base_url: &str) -> Option<(ApiKey, &'static str)> {
    let url = Url::parse(base_url.trim()).ok()?;
    if url.scheme() != "https" {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    ENV_KEYS
        .iter()
        .filter(|(_, vendor)| host == *vendor)
        .find_map(|(variable, _)| ApiKey::from_optional(std::env::var(variable).ok()).map(|key| (key, *variable)))
}

/// Refuses to build a provider that would send a key in plain text to another machine.
pub fn check_key_transport(url: &Url, has_key: bool) -> Result<(), ModelError> {
    if !has_key || url.scheme() == "https" || is_loopback(url) {
        return Ok(());
    }
    Err(ModelError::Config {
        message: format!(
            "Hark does not send an API key over plain http:// to {}: anyone on the network could read it. \
             Use the server's https:// address, or remove the key for a server on this machine.",
            url.host_str().unwrap_or("this server")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn loopback_is_localhost_and_loopback_addresses_only() {
        for yes in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://127.9.9.9",
            "http://[::1]:1",
            "http://a.localhost",
        ] {
            assert!(is_loopback(&url(yes)), "{yes}");
        }
        for no in [
            "http://10.0.0.2",
            "http://localhost.evil.com",
            "http://192.168.1.5:11434",
            "http://[::2]",
            "http://example.com",
        ] {
            assert!(!is_loopback(&url(no)), "{no}");
        }
    }

    #[test]
    fn keys_never_go_in_plain_text_to_another_machine() {
        assert!(check_key_transport(&url("http://192.168.1.5:11434/v1"), true).is_err());
        let refused = check_key_transport(&url("http://example.com/v1"), true).unwrap_err();
        assert_eq!(refused.code(), "MODEL_CONFIG");
        assert!(refused.message().contains("http://") && refused.message().contains("example.com"));
        assert!(check_key_transport(&url("http://example.com/v1"), false).is_ok(), "no key, nothing to leak");
        assert!(check_key_transport(&url("http://127.0.0.1:8080/v1"), true).is_ok());
        assert!(check_key_transport(&url("https://example.com/v1"), true).is_ok());
    }

    // The only test in this crate that sets these variables, and it restores them: tests in one
    // binary share the environment.
    #[test]
    fn environment_keys_go_only_to_their_vendor_over_https() {
        let saved: Vec<_> = ENV_KEYS.iter().map(|(v, _)| (*v, std::env::var_os(v))).collect();
        // SAFETY (edition 2021: safe fns): no other test of this binary reads these variables.
        std::env::set_var("DEEPSEEK_API_KEY", "sk-deepseek-test");
        std::env::set_var("OPENAI_API_KEY", "sk-openai-test");
        let got = |u: &str| env_key_for(u).map(|(k, v)| (k.expose().to_string(), v));
        assert_eq!(got("https://api.deepseek.com"), Some(("sk-deepseek-test".into(), "DEEPSEEK_API_KEY")));
        assert_eq!(got("https://API.deepseek.com/v1/"), Some(("sk-deepseek-test".into(), "DEEPSEEK_API_KEY")));
        assert_eq!(got("https://api.openai.com/v1"), Some(("sk-openai-test".into(), "OPENAI_API_KEY")));
        for other in [
            "http://api.deepseek.com",
            "http://127.0.0.1:9999/v1",
            "https://api.deepseek.com.evil.net/v1",
            "https://openrouter.ai/api/v1",
            "not a url",
        ] {
            assert_eq!(got(other), None, "{other}");
        }
        std::env::remove_var("DEEPSEEK_API_KEY");
        assert_eq!(got("https://api.deepseek.com"), None, "the OpenAI key never stands in for DeepSeek's");
        for (v, value) in saved {
            match value {
                Some(value) => std::env::set_var(v, value),
                None => std::env::remove_var(v),
            }
        }
    }
}

#[cfg(test)]
mod provider_tests {
    use crate::model::{ApiKey, OpenAiConfig, OpenAiProvider};

    #[test]
    fn a_provider_with_a_key_for_plain_http_elsewhere_is_never_built() {
        let key = || Some(ApiKey::new("sk-test"));
        let refused = OpenAiProvider::new(OpenAiConfig::new("http://192.168.1.5:11434/v1", "m", key())).unwrap_err();
        assert_eq!(refused.code(), "MODEL_CONFIG");
        assert!(!refused.to_string().contains("sk-test"), "the key is never in the message");
        assert!(OpenAiProvider::new(OpenAiConfig::new("http://192.168.1.5:11434/v1", "m", None)).is_ok());
        assert!(OpenAiProvider::new(OpenAiConfig::new("http://localhost:11434/v1", "m", key())).is_ok());
    }
}
