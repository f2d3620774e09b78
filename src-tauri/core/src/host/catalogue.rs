//! What a front door offers the person to choose from: the model providers with their defaults, the
//! shipped demo scripts and the bounds of a question's default timeout. The core owns these facts,
//! so a window or terminal lists them from here instead of keeping copies that drift.

use serde::Serialize;

use crate::model::{demo_scripts, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL};
use crate::question::limits::{MAX_TIMEOUT_SECS, MIN_TIMEOUT_SECS};

/// OpenAI's own endpoint, for the OpenAI-compatible preset.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub const OPENAI_MODEL: &str = "gpt-4o-mini";
/// Ollama's OpenAI-compatible endpoint on this machine.
pub const OLLAMA_BASE_URL: &str = "http://localhost:11434/v1";
pub const OLLAMA_MODEL: &str = "llama3.1";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ProviderPreset {
    /// As settings files and launch options name it.
    pub id: &'static str,
    pub label: &'static str,
    /// The default endpoint and model ("" for the demo, which has neither).
    pub base_url: &'static str,
    pub model: &'static str,
    /// Whether it takes an API key (kept in the OS keyring).
    pub uses_key: bool,
    /// Whether a base URL and a model apply.
    pub uses_endpoint: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Bounds {
    pub min: u64,
    pub max: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Catalogue {
    /// In the order a front door lists them.
    pub providers: Vec<ProviderPreset>,
    pub demo_scripts: Vec<&'static str>,
    pub timeout_secs: Bounds,
}

impl Catalogue {
    pub fn provider(&self, id: &str) -> Option<&ProviderPreset> {
        self.providers.iter().find(|p| p.id == id)
    }
}

pub fn catalogue() -> Catalogue {
    let endpoint = |id, label, base_url, model, uses_key| ProviderPreset {
        id,
        label,
        base_url,
        model,
        uses_key,
        uses_endpoint: true,
    };
    Catalogue {
        providers: vec![
            endpoint("deepseek", "DeepSeek", DEEPSEEK_BASE_URL, DEEPSEEK_MODEL, true),
            endpoint("openai", "OpenAI-compatible", OPENAI_BASE_URL, OPENAI_MODEL, true),
            endpoint("ollama", "Ollama (local)", OLLAMA_BASE_URL, OLLAMA_MODEL, false),
            ProviderPreset {
                id: "demo",
                label: "Demo (scripted, no AI)",
                base_url: "",
                model: "",
                uses_key: false,
                uses_endpoint: false,
            },
        ],
        demo_scripts: demo_scripts(),
        timeout_secs: Bounds { min: MIN_TIMEOUT_SECS, max: MAX_TIMEOUT_SECS },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_demo_script_is_listed_and_each_one_loads() {
        let listed = catalogue().demo_scripts;
        assert!(listed.contains(&crate::model::DEFAULT_DEMO_SCRIPT));
        for name in listed {
            assert!(crate::model::DemoScript::builtin(name).is_ok(), "{name} is listed but does not load");
        }
    }

    #[test]
    fn the_timeout_bounds_are_the_ones_launch_options_accept() {
        let Bounds { min, max } = catalogue().timeout_secs;
        assert!(crate::question::limits::parse_timeout_secs(&min.to_string()).is_ok());
        assert!(crate::question::limits::parse_timeout_secs(&max.to_string()).is_ok());
        assert!(crate::question::limits::parse_timeout_secs(&(min - 1).to_string()).is_err());
        assert!(crate::question::limits::parse_timeout_secs(&(max + 1).to_string()).is_err());
    }
}
