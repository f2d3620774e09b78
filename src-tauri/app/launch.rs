//! Launch options: `hark-desktop [--data-dir DIR] [--provider demo|openai] [--script NAME]
//! [--base-url URL] [--model NAME] [--timed [--timeout S]] [--plan] [--ptc] [--workspace DIR] [--session ID]
//! [--prompt TEXT]`.
//! The same options as `hark chat`; they override the settings for this run only.

use std::path::PathBuf;

use hark_core::model::demo_scripts;
use hark_core::question::limits::parse_timeout_secs;
use hark_core::question::ToolMode;
use hark_core::session::{ModelKind, ModelRef};
use hark_core::tools::QuestionSettings;

use crate::settings::Settings;

pub const USAGE: &str = "usage: hark-desktop [--data-dir DIR] [--provider demo|openai] [--script NAME] \
[--base-url URL] [--model NAME] [--timed [--timeout S]] [--plan] [--ptc] [--workspace DIR] [--session ID] \
[--prompt TEXT]";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    pub data_dir: Option<PathBuf>,
    pub provider: Option<ModelKind>,
    pub script: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub timed: bool,
    pub timeout: Option<u64>,
    /// Plan first for every session of this run, new or resumed.
    pub plan_first: bool,
    /// Programmatic tool calls (`run_code`) for every session of this run, new or resumed.
    pub ptc: bool,
    /// The folder a session started by `--prompt` may read and write.
    pub workspace: Option<PathBuf>,
    pub session: Option<String>,
    pub prompt: Option<String>,
}

impl LaunchOptions {
    /// Parses the arguments after the program name. Unknown options are refused (a typo should not
    /// silently run the wrong model).
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<LaunchOptions, String> {
        let mut o = LaunchOptions::default();
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = |inline: Option<String>| {
                inline.or_else(|| it.next()).filter(|v| !v.is_empty()).ok_or_else(|| format!("{name} needs a value"))
            };
            match name.as_str() {
                "--data-dir" => o.data_dir = Some(PathBuf::from(value(inline)?)),
                "--provider" => {
                    let p = value(inline)?;
                    let kind = ModelKind::parse(&p).ok_or_else(|| format!("--provider {p:?}: use demo or openai"))?;
                    o.provider = Some(kind);
                }
                "--script" => {
                    let s = value(inline)?;
                    if !demo_scripts().contains(&s.as_str()) {
                        return Err(format!("--script {s:?}: one of {}", demo_scripts().join(", ")));
                    }
                    o.script = Some(s);
                }
                "--base-url" => o.base_url = Some(value(inline)?),
                "--model" => o.model = Some(value(inline)?),
                "--timed" => o.timed = true,
                "--plan" => o.plan_first = true,
                "--ptc" => o.ptc = true,
                "--timeout" => o.timeout = Some(parse_timeout_secs(&value(inline)?)?),
                "--workspace" => o.workspace = Some(PathBuf::from(value(inline)?)),
                "--session" => o.session = Some(value(inline)?),
                "--prompt" => o.prompt = Some(value(inline)?),
                // Passed by some launchers and by WebDriver; not ours to refuse.
                a if a.starts_with("-psn_") => {}
                other => return Err(format!("unknown option {other:?}")),
            }
        }
        if o.timeout.is_some() && !o.timed {
            o.timed = true;
        }
        Ok(o)
    }

    /// The options as the person would read them back ("This run uses: --provider demo ...").
    pub fn describe(&self) -> Vec<String> {
        let timeout = self.timeout.map(|t| t.to_string());
        let flags = [
            ("--provider", self.provider.map(|p| p.as_str().to_string())),
            ("--script", self.script.clone()),
            ("--base-url", self.base_url.clone()),
            ("--model", self.model.clone()),
        ];
        let mut out: Vec<String> = flags.iter().filter_map(|(f, v)| v.as_ref().map(|v| format!("{f} {v}"))).collect();
        if self.timed {
            out.push("--timed".into());
        }
        if let Some(t) = timeout {
            out.push(format!("--timeout {t}"));
        }
        if self.plan_first {
            out.push("--plan".into());
        }
        if self.ptc {
            out.push("--ptc".into());
        }
        out
    }

    fn overrides_model(&self) -> bool {
        self.provider.is_some() || self.script.is_some() || self.base_url.is_some() || self.model.is_some()
    }

    /// The model a new session uses: the options over the settings.
    pub fn model_for_new(&self, settings: &Settings) -> ModelRef {
        self.apply(settings.model_ref())
    }

    /// The model an existing session runs on: what it recorded, unless options say otherwise. A
    /// session keeps its model when the settings change later; new sessions use the new settings.
    pub fn model_for_existing(&self, recorded: Option<ModelRef>, settings: &Settings) -> ModelRef {
        match recorded {
            Some(r) if !self.overrides_model() => r,
            Some(r) => self.apply(r),
            None => self.model_for_new(settings),
        }
    }

    fn apply(&self, base: ModelRef) -> ModelRef {
        let provider = self.provider.or_else(|| self.script.as_ref().map(|_| ModelKind::Demo)).unwrap_or(base.provider);
        let same = provider == base.provider;
        if provider == ModelKind::Demo {
            let script = self.script.clone().or(if same { base.script } else { None });
            ModelRef { provider, base_url: None, model: None, script: script.or(Some("batch".into())) }
        } else {
            ModelRef {
                provider,
                base_url: self.base_url.clone().or(if same { base.base_url } else { None }),
                model: self.model.clone().or(if same { base.model } else { None }),
                script: None,
            }
        }
    }

    /// The question settings for this run: `--timed`/`--timeout` over the saved mode and timeout.
    pub fn questions(&self, settings: &Settings) -> QuestionSettings {
        let mode = if self.timed { ToolMode::Timed } else { settings.question_mode };
        QuestionSettings { mode, default_timeout_secs: self.timeout.unwrap_or(settings.timeout_secs) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Provider;

    fn parse(args: &[&str]) -> Result<LaunchOptions, String> {
        LaunchOptions::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn every_option_parses() {
        let o = parse(&[
            "--data-dir",
            "/tmp/d",
            "--provider=demo",
            "--script",
            "timed",
            "--timed",
            "--timeout",
            "3",
            "--session",
            "abc",
            "--prompt",
            "plan the notes app",
            "--plan",
            "--ptc",
        ])
        .unwrap();
        assert!(o.plan_first && o.ptc);
        assert_eq!(o.data_dir, Some(PathBuf::from("/tmp/d")));
        assert_eq!(o.script.as_deref(), Some("timed"));
        assert_eq!(o.timeout, Some(3));
        assert_eq!(o.prompt.as_deref(), Some("plan the notes app"));
        assert_eq!(o.describe(), ["--provider demo", "--script timed", "--timed", "--timeout 3", "--plan", "--ptc"]);
    }

    #[test]
    fn bad_options_are_refused_with_the_reason() {
        assert!(parse(&["--provider", "gpt"]).unwrap_err().contains("use demo or openai"));
        assert!(parse(&["--timeout", "0"]).unwrap_err().contains("seconds from 1"));
        assert!(parse(&["--script", "nope"]).unwrap_err().contains("one of"));
        assert!(parse(&["--prompt"]).unwrap_err().contains("needs a value"));
        assert!(parse(&["--frobnicate"]).unwrap_err().contains("unknown option"));
    }

    #[test]
    fn options_override_settings_for_new_sessions_only_where_given() {
        let settings = Settings { provider: Provider::Deepseek, ..Settings::default() };
        assert_eq!(parse(&[]).unwrap().model_for_new(&settings).provider, ModelKind::Openai);
        let demo = parse(&["--script", "timed"]).unwrap().model_for_new(&settings);
        assert_eq!((demo.provider.as_str(), demo.script.as_deref()), ("demo", Some("timed")));
        let other_model = parse(&["--model", "deepseek-reasoner"]).unwrap().model_for_new(&settings);
        assert_eq!(other_model.base_url, settings.model_ref().base_url);
        assert_eq!(other_model.model.as_deref(), Some("deepseek-reasoner"));
    }

    #[test]
    fn an_existing_session_keeps_its_recorded_model() {
        let recorded =
            ModelRef { provider: ModelKind::Demo, base_url: None, model: None, script: Some("untrusted".into()) };
        let settings = Settings { provider: Provider::Deepseek, ..Settings::default() };
        assert_eq!(parse(&[]).unwrap().model_for_existing(Some(recorded.clone()), &settings), recorded);
        let switched = parse(&["--provider", "openai"]).unwrap().model_for_existing(Some(recorded), &settings);
        assert_eq!((switched.provider.as_str(), switched.script), ("openai", None));
    }

    #[test]
    fn timed_options_override_the_question_settings() {
        let settings = Settings { question_mode: ToolMode::Legacy, timeout_secs: 120, ..Settings::default() };
        let q = parse(&["--timeout", "5"]).unwrap().questions(&settings);
        assert_eq!((q.mode, q.default_timeout_secs), (ToolMode::Timed, 5));
        assert_eq!(parse(&[]).unwrap().questions(&settings).mode, ToolMode::Legacy);
    }
}
