//! Launch options: `hark-desktop [--data-dir DIR] [--provider demo|openai] [--script NAME]
//! [--base-url URL] [--model NAME] [--timed [--timeout S]] [--on-timeout keep-working|wait|stop-turn] [--plan] [--ptc]
//! [--workspace DIR] [--session ID] [--prompt TEXT] [--hidden]`.
//! The same options as `hark chat`; they override the settings for this run only.

use std::path::PathBuf;

use hark_core::launch::RunOptions;
use hark_core::session::ModelRef;
use hark_core::tools::QuestionSettings;

use crate::settings::Settings;

pub const USAGE: &str = "usage: hark-desktop [--data-dir DIR] [--provider demo|openai] [--script NAME] \
[--base-url URL] [--model NAME] [--timed [--timeout S]] [--on-timeout keep-working|wait|stop-turn] [--plan] [--ptc] \
[--workspace DIR] [--session ID] [--prompt TEXT] [--hidden] [--version]";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    pub data_dir: Option<PathBuf>,
    /// What every front door that runs sessions takes (parsed and applied in hark-core).
    pub run: RunOptions,
    /// The first message of a session this launch starts (or sends to `--session`).
    pub prompt: Option<String>,
    /// Start in the tray with no window (what the start-at-login entry passes); a second launch
    /// with it leaves the window as it is.
    pub hidden: bool,
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
            let mut inline = inline;
            let mut value = || {
                inline
                    .take()
                    .or_else(|| it.next())
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            if o.run.take(&name, &mut value)? {
                continue;
            }
            match name.as_str() {
                "--data-dir" => o.data_dir = Some(PathBuf::from(value()?)),
                "--prompt" => o.prompt = Some(value()?),
                "--hidden" => o.hidden = true,
                // Passed by some launchers and by WebDriver; not ours to refuse.
                a if a.starts_with("-psn_") => {}
                other => return Err(format!("unknown option {other:?}")),
            }
        }
        Ok(o)
    }

    /// The options as the person would read them back ("This run uses: --provider demo ...").
    pub fn describe(&self) -> Vec<String> {
        self.run.describe()
    }

    /// The model a new session uses: the options over the settings.
    pub fn model_for_new(&self, settings: &Settings) -> ModelRef {
        self.run.model.over(settings.model_ref())
    }

    /// The model an existing session runs on: what it recorded, unless options say otherwise. A
    /// session keeps its model when the settings change later; new sessions use the new settings.
    pub fn model_for_existing(&self, recorded: Option<ModelRef>, settings: &Settings) -> ModelRef {
        self.run.model.for_existing(recorded, || self.model_for_new(settings))
    }

    /// The question settings for this run: `--timed`/`--timeout` over the saved mode and timeout.
    pub fn questions(&self, settings: &Settings) -> QuestionSettings {
        self.run.questions(saved_questions(settings))
    }

    /// The question settings every session of this run is held to (`--timed`), new or resumed.
    pub fn forced_questions(&self, settings: &Settings) -> Option<QuestionSettings> {
        self.run.forced_questions(saved_questions(settings))
    }
}

fn saved_questions(settings: &Settings) -> QuestionSettings {
    QuestionSettings {
        mode: settings.question_mode,
        default_timeout_secs: settings.timeout_secs,
        stop_turn: settings.stop_turn_on_timeout,
    }
}

#[cfg(test)]
mod tests {
    use hark_core::question::ToolMode;
    use hark_core::session::ModelKind;

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
            "--hidden",
        ])
        .unwrap();
        assert!(o.run.plan_first && o.run.ptc && o.hidden);
        assert!(!parse(&[]).unwrap().hidden);
        assert_eq!(o.data_dir, Some(PathBuf::from("/tmp/d")));
        assert_eq!(o.run.model.script.as_deref(), Some("timed"));
        assert_eq!(o.run.timeout, Some(3));
        assert_eq!(o.run.session.as_deref(), Some("abc"));
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
