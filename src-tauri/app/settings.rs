//! The person's settings: which model new sessions use, how questions are asked, notifications and
//! the tray. Stored as `settings.json` in the data directory; the API key is not here (see
//! [`crate::secrets`]). A file that cannot be read is set aside, never overwritten, and reported.

use std::path::{Path, PathBuf};

use hark_core::error::CodedError;
use hark_core::model::{demo_scripts, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL, DEFAULT_DEMO_SCRIPT};
use hark_core::question::limits::{is_default_timeout, MAX_TIMEOUT_SECS, MIN_TIMEOUT_SECS};
use hark_core::question::ToolMode;
use hark_core::session::{ModelKind, ModelRef};
use serde::{Deserialize, Serialize};

pub const SETTINGS_FILE: &str = "settings.json";

/// Where the model comes from. DeepSeek, OpenAI-compatible and Ollama are all the `openai` provider
/// of hark-core with different defaults; the choice is kept so the form shows what was picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    Demo,
    Deepseek,
    Openai,
    Ollama,
}

impl Provider {
    /// The name settings files use, which is the core catalogue's id for it.
    pub fn id(self) -> &'static str {
        match self {
            Provider::Demo => "demo",
            Provider::Deepseek => "deepseek",
            Provider::Openai => "openai",
            Provider::Ollama => "ollama",
        }
    }
}

/// Fields missing from the file (an older version wrote it) take their defaults, and fields this
/// version does not know are ignored, so upgrading or downgrading never resets anyone's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Settings {
    pub provider: Provider,
    pub base_url: String,
    pub model: String,
    pub demo_script: String,
    pub question_mode: ToolMode,
    pub timeout_secs: u64,
    /// With timed questions: the turn stops when a question's wait runs out (the question stays
    /// open, and its answer starts the next turn) instead of the agent working on.
    pub stop_turn_on_timeout: bool,
    /// New sessions work plan first: the agent submits a plan for review before it may change the
    /// workspace. A session keeps the way it started.
    pub plan_first: bool,
    /// New sessions use programmatic tool calls: the agent writes scripts (`run_code`) that call the
    /// tools, instead of calling them one by one.
    pub ptc: bool,
    pub notifications: bool,
    pub do_not_disturb: bool,
    /// Closing the window leaves Hark in the tray (its window gone, its agents and questions kept)
    /// once the person has used it: a session exists, or a question waits. Before that, closing quits,
    /// so a first look leaves nothing running. Read from files of versions that kept Hark in the tray
    /// only while questions waited, so someone who turned that off keeps it off.
    #[serde(alias = "keep_running_in_tray")]
    pub run_in_background: bool,
    /// Hark starts hidden in the tray when the person logs in (an XDG autostart entry on Linux, a
    /// login item on macOS, the Run key on Windows). The entry is the truth: it is read back from the OS.
    pub start_at_login: bool,
}

impl Default for Settings {
    /// Nothing configured: the demo model, so the first launch works offline and says so.
    fn default() -> Self {
        Settings {
            provider: Provider::Demo,
            base_url: DEEPSEEK_BASE_URL.to_string(),
            model: DEEPSEEK_MODEL.to_string(),
            demo_script: DEFAULT_DEMO_SCRIPT.to_string(),
            question_mode: ToolMode::Timed,
            timeout_secs: hark_core::tools::QuestionSettings::default().default_timeout_secs,
            stop_turn_on_timeout: false,
            plan_first: false,
            ptc: false,
            notifications: true,
            do_not_disturb: false,
            run_in_background: true,
            start_at_login: false,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error("{field}: {problem}")]
    Invalid { field: &'static str, problem: String },
    #[error("Could not save the settings to {path}: {reason}")]
    Write { path: String, reason: String },
    #[error("The settings file {path} could not be read ({reason}); it was kept as {kept} and defaults are used")]
    Corrupt { path: String, reason: String, kept: String },
}

impl SettingsError {
    pub fn code(&self) -> &'static str {
        match self {
            SettingsError::Invalid { .. } => "INVALID_SETTINGS",
            SettingsError::Write { .. } => "SETTINGS_WRITE",
            SettingsError::Corrupt { .. } => "SETTINGS_CORRUPT",
        }
    }
}

impl CodedError for SettingsError {
    fn name(&self) -> &str {
        "SettingsError"
    }
    fn code(&self) -> &str {
        SettingsError::code(self)
    }
}

impl Settings {
    /// Refuses what would only fail later, naming the field.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let invalid = |field, problem: &str| Err(SettingsError::Invalid { field, problem: problem.to_string() });
        if !is_default_timeout(self.timeout_secs) {
            return invalid(
                "timeout_secs",
                &format!("must be between {MIN_TIMEOUT_SECS} and {MAX_TIMEOUT_SECS} seconds"),
            );
        }
        if self.provider == Provider::Demo {
            if !demo_scripts().contains(&self.demo_script.as_str()) {
                return invalid("demo_script", &format!("must be one of {}", demo_scripts().join(", ")));
            }
            return Ok(());
        }
        match url::Url::parse(self.base_url.trim()) {
            Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
            _ => return invalid("base_url", "must be an http:// or https:// URL"),
        }
        if self.model.trim().is_empty() {
            return invalid("model", "must name a model");
        }
        Ok(())
    }

    /// What a new session records as its model.
    pub fn model_ref(&self) -> ModelRef {
        match self.provider {
            Provider::Demo => ModelRef {
                provider: ModelKind::Demo,
                base_url: None,
                model: None,
                script: Some(self.demo_script.clone()),
            },
            _ => ModelRef {
                provider: ModelKind::Openai,
                base_url: Some(self.base_url.trim().to_string()),
                model: Some(self.model.trim().to_string()),
                script: None,
            },
        }
    }
}

/// Reads the settings. A missing file is the defaults; an unreadable one is renamed aside (so the
/// next save cannot destroy what the person had) and reported with the defaults.
pub fn load(dir: &Path) -> (Settings, Option<SettingsError>) {
    let path = dir.join(SETTINGS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Settings::default(), None),
        Err(e) => return (Settings::default(), Some(set_aside(&path, e.to_string()))),
    };
    match serde_json::from_str::<Settings>(&text) {
        Ok(s) => match s.validate() {
            Ok(()) => (s, None),
            Err(e) => (Settings::default(), Some(set_aside(&path, e.to_string()))),
        },
        Err(e) => (Settings::default(), Some(set_aside(&path, e.to_string()))),
    }
}

fn set_aside(path: &Path, reason: String) -> SettingsError {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let kept = path.with_file_name(format!("{SETTINGS_FILE}.corrupt-{stamp}"));
    let kept_name = match std::fs::rename(path, &kept) {
        Ok(()) => kept.display().to_string(),
        // Could not move it: leave it where it is; saving will then refuse to overwrite it blindly.
        Err(_) => path.display().to_string(),
    };
    SettingsError::Corrupt { path: path.display().to_string(), reason, kept: kept_name }
}

/// Writes atomically (temp file + rename) so a crash mid-save leaves the old file or the new one.
pub fn save(dir: &Path, settings: &Settings) -> Result<(), SettingsError> {
    settings.validate()?;
    let path = dir.join(SETTINGS_FILE);
    // An unreadable file still in place could not be moved aside: never overwrite what was there.
    if let Ok(existing) = std::fs::read_to_string(&path) {
        if serde_json::from_str::<Settings>(&existing).is_err() {
            return Err(SettingsError::Write {
                path: path.display().to_string(),
                reason: "the file there cannot be read and was not moved aside; move or remove it first".into(),
            });
        }
    }
    let write_err =
        |e: std::io::Error| SettingsError::Write { path: path.display().to_string(), reason: e.to_string() };
    let text = serde_json::to_string_pretty(settings)
        .map_err(|e| SettingsError::Write { path: path.display().to_string(), reason: e.to_string() })?;
    let tmp: PathBuf = dir.join(format!("{SETTINGS_FILE}.tmp"));
    hark_core::data_dir::private::write(&tmp, text.as_bytes()).map_err(write_err)?;
    std::fs::rename(&tmp, &path).map_err(write_err)
}

#[cfg(test)]
mod catalogue_tests {
    use super::Provider;

    #[test]
    fn every_provider_is_in_the_core_catalogue_under_its_settings_name() {
        let catalogue = hark_core::host::catalogue();
        for provider in [Provider::Demo, Provider::Deepseek, Provider::Openai, Provider::Ollama] {
            let name = serde_json::to_value(provider).unwrap();
            assert_eq!(name, provider.id(), "the settings file names it as the catalogue does");
            assert!(catalogue.provider(provider.id()).is_some(), "{provider:?} is missing from the catalogue");
        }
        assert_eq!(catalogue.providers.len(), 4, "the catalogue lists only providers the settings know");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_is_the_demo_defaults_without_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let (s, warning) = load(dir.path());
        assert_eq!(s, Settings::default());
        assert_eq!(s.provider, Provider::Demo);
        assert!(warning.is_none());
    }

    #[test]
    fn saved_settings_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings {
            provider: Provider::Ollama,
            base_url: "http://localhost:11434/v1".into(),
            model: "llama3.1".into(),
            question_mode: ToolMode::Legacy,
            timeout_secs: 30,
            ..Settings::default()
        };
        save(dir.path(), &s).unwrap();
        assert_eq!(load(dir.path()), (s, None));
    }

    #[test]
    fn a_corrupt_file_is_kept_aside_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SETTINGS_FILE), "{ not json").unwrap();
        let (s, warning) = load(dir.path());
        assert_eq!(s, Settings::default());
        let warning = warning.unwrap();
        assert_eq!(warning.code(), "SETTINGS_CORRUPT");
        let kept: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("settings.json.corrupt-"))
            .collect();
        assert_eq!(kept.len(), 1);
        assert_eq!(std::fs::read_to_string(dir.path().join(&kept[0])).unwrap(), "{ not json");
        assert!(!dir.path().join(SETTINGS_FILE).exists());
        let json = serde_json::to_value(warning.boundary()).unwrap();
        assert_eq!(json["name"], "SettingsError");
        assert!(json["message"].as_str().unwrap().contains(&kept[0]));
    }

    #[test]
    fn out_of_range_values_count_as_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let text = serde_json::to_string(&Settings { timeout_secs: 0, ..Settings::default() }).unwrap();
        std::fs::write(dir.path().join(SETTINGS_FILE), text).unwrap();
        assert_eq!(load(dir.path()).1.unwrap().code(), "SETTINGS_CORRUPT");
    }

    #[test]
    fn files_of_other_versions_keep_what_they_have() {
        let dir = tempfile::tempdir().unwrap();
        let text = r#"{"provider":"ollama","base_url":"http://localhost:11434/v1","model":"qwen","future_field":1}"#;
        std::fs::write(dir.path().join(SETTINGS_FILE), text).unwrap();
        let (s, warning) = load(dir.path());
        assert!(warning.is_none());
        assert_eq!((s.provider, s.model.as_str()), (Provider::Ollama, "qwen"));
        assert_eq!(s.timeout_secs, Settings::default().timeout_secs, "missing fields take defaults");
    }

    #[test]
    fn the_old_tray_setting_carries_over_to_running_in_the_background() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SETTINGS_FILE), r#"{"keep_running_in_tray":false}"#).unwrap();
        let (s, warning) = load(dir.path());
        assert!(warning.is_none());
        assert!(!s.run_in_background, "turned off before, still off");
        assert!(Settings::default().run_in_background && !Settings::default().start_at_login);
    }

    #[test]
    fn an_unreadable_file_in_place_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SETTINGS_FILE), "{ half").unwrap();
        assert_eq!(save(dir.path(), &Settings::default()).unwrap_err().code(), "SETTINGS_WRITE");
        assert_eq!(std::fs::read_to_string(dir.path().join(SETTINGS_FILE)).unwrap(), "{ half");
    }

    #[test]
    fn validation_names_the_field() {
        let bad_url = Settings { provider: Provider::Openai, base_url: "ftp://x".into(), ..Settings::default() };
        assert!(matches!(bad_url.validate(), Err(SettingsError::Invalid { field: "base_url", .. })));
        let no_model = Settings { provider: Provider::Deepseek, model: "  ".into(), ..Settings::default() };
        assert!(matches!(no_model.validate(), Err(SettingsError::Invalid { field: "model", .. })));
        let script = Settings { demo_script: "nope".into(), ..Settings::default() };
        assert!(matches!(script.validate(), Err(SettingsError::Invalid { field: "demo_script", .. })));
        let dir = tempfile::tempdir().unwrap();
        assert!(save(dir.path(), &script).is_err());
        assert!(!dir.path().join(SETTINGS_FILE).exists(), "an invalid form is never written");
    }

    #[test]
    fn model_refs_follow_the_provider() {
        assert_eq!(Settings::default().model_ref().provider, ModelKind::Demo);
        let s = Settings { provider: Provider::Deepseek, ..Settings::default() };
        let m = s.model_ref();
        assert_eq!((m.provider.as_str(), m.base_url.as_deref()), ("openai", Some(DEEPSEEK_BASE_URL)));
    }
}
