//! The options every front door that runs sessions takes (`hark-desktop`, `hark chat`, `hark tui`),
//! parsed once and laid over the saved settings or a session's recorded model the same way for
//! each: `--provider demo|openai`, `--script NAME`, `--base-url URL`, `--model NAME`, `--timed`,
//! `--timeout S`, `--on-timeout keep-working|wait|stop-turn`, `--plan`, `--ptc`, `--workspace DIR`, `--session ID`. A front door adds its own
//! (`--data-dir`, `--prompt`, `--mcp-config`, a prompt in words) and refuses what nobody knows.

use std::path::PathBuf;

use crate::model::{demo_scripts, DEEPSEEK_BASE_URL, DEEPSEEK_MODEL, DEFAULT_DEMO_SCRIPT};
use crate::question::limits::parse_timeout_secs;
use crate::question::ToolMode;
use crate::session::{ModelKind, ModelRef};
use crate::tools::{OnTimeout, QuestionSettings};

/// The model the command line chose, field by field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFlags {
    pub provider: Option<ModelKind>,
    pub script: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
}

impl ModelFlags {
    /// Whether the command line chose a model at all.
    pub fn any_given(&self) -> bool {
        self.provider.is_some() || self.script.is_some() || self.base_url.is_some() || self.model.is_some()
    }

    /// `base` with the flags laid over it. A flag wins; `--script` alone means the demo model. A field
    /// no flag sets keeps `base`'s while the provider stays the same, and otherwise gets the
    /// provider's default (the demo's default script, DeepSeek's address and model).
    pub fn over(&self, base: ModelRef) -> ModelRef {
        let provider = self.provider.or_else(|| self.script.as_ref().map(|_| ModelKind::Demo)).unwrap_or(base.provider);
        let same = provider == base.provider;
        let kept = |flag: &Option<String>, base: Option<String>| flag.clone().or(if same { base } else { None });
        if provider == ModelKind::Demo {
            let script = kept(&self.script, base.script).unwrap_or_else(|| DEFAULT_DEMO_SCRIPT.to_string());
            ModelRef { provider, base_url: None, model: None, script: Some(script) }
        } else {
            ModelRef {
                provider,
                base_url: Some(kept(&self.base_url, base.base_url).unwrap_or_else(|| DEEPSEEK_BASE_URL.to_string())),
                model: Some(kept(&self.model, base.model).unwrap_or_else(|| DEEPSEEK_MODEL.to_string())),
                script: None,
            }
        }
    }

    /// The model an existing session runs on: what it recorded (a session keeps its model when the
    /// settings change later), with the flags over it; `new` when it recorded none.
    pub fn for_existing(&self, recorded: Option<ModelRef>, new: impl FnOnce() -> ModelRef) -> ModelRef {
        match recorded {
            Some(recorded) => self.over(recorded),
            None => new(),
        }
    }
}

/// The options shared by every front door that runs sessions; they change this run only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    pub model: ModelFlags,
    /// `--timed`: every session of this run asks timed questions, new or resumed.
    pub timed: bool,
    /// `--timeout S`: the default timeout of this run's timed questions (implies `--timed`).
    pub timeout: Option<u64>,
    /// `--on-timeout keep-working|wait|stop-turn`: what every session of this run does when a timed
    /// question's wait runs out (`wait`: questions have no timeout at all).
    pub on_timeout: Option<OnTimeout>,
    /// `--plan`: plan first, for every session of this run.
    pub plan_first: bool,
    /// `--ptc`: programmatic tool calls (`run_code`), for every session of this run.
    pub ptc: bool,
    /// The folder a session this run starts may read and write.
    pub workspace: Option<PathBuf>,
    /// The session to open (an id or a prefix).
    pub session: Option<String>,
}

impl RunOptions {
    /// Takes the option `name` when it is one of these, reading its value from `value` when it has
    /// one; `Ok(false)` leaves it to the front door (its own option, or unknown). An invalid value
    /// is refused with the reason.
    pub fn take(&mut self, name: &str, value: &mut dyn FnMut() -> Result<String, String>) -> Result<bool, String> {
        match name {
            "--provider" => {
                let typed = value()?;
                let kind =
                    ModelKind::parse(&typed).ok_or_else(|| format!("--provider {typed:?}: use demo or openai"))?;
                self.model.provider = Some(kind);
            }
            "--script" => {
                let script = value()?;
                if !demo_scripts().contains(&script.as_str()) {
                    return Err(format!("--script {script:?}: one of {}", demo_scripts().join(", ")));
                }
                self.model.script = Some(script);
            }
            "--base-url" => self.model.base_url = Some(value()?),
            "--model" => self.model.model = Some(value()?),
            "--timed" => self.timed = true,
            "--timeout" => {
                self.timeout = Some(parse_timeout_secs(&value()?)?);
                self.timed = true;
            }
            "--on-timeout" => {
                let typed = value()?;
                let choice = OnTimeout::parse_flag(&typed).ok_or_else(|| {
                    let all: Vec<&str> = OnTimeout::ALL.iter().map(OnTimeout::as_flag).collect();
                    format!("--on-timeout {typed:?}: one of {}", all.join(", "))
                })?;
                self.on_timeout = Some(choice);
            }
            "--plan" => self.plan_first = true,
            "--ptc" => self.ptc = true,
            "--workspace" => self.workspace = Some(PathBuf::from(value()?)),
            "--session" => self.session = Some(value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The question settings of this run: timed when asked for, with `--timeout` over `saved`'s.
    /// `--on-timeout` over `--timed` over `saved`.
    pub fn questions(&self, saved: QuestionSettings) -> QuestionSettings {
        let mode = if self.timed { ToolMode::Timed } else { saved.mode };
        let default_timeout_secs = self.timeout.unwrap_or(saved.default_timeout_secs);
        let settings = QuestionSettings { mode, default_timeout_secs, ..saved };
        match self.on_timeout {
            Some(choice) => settings.with_on_timeout(choice),
            None => settings,
        }
    }

    /// The question settings every session of this run is held to (`--timed`, `--on-timeout`), new
    /// or resumed.
    pub fn forced_questions(&self, saved: QuestionSettings) -> Option<QuestionSettings> {
        (self.timed || self.on_timeout.is_some()).then(|| self.questions(saved))
    }

    /// The options as the person would read them back ("This run uses: --provider demo ...").
    pub fn describe(&self) -> Vec<String> {
        let flags = [
            ("--provider", self.model.provider.map(|p| p.as_str().to_string())),
            ("--script", self.model.script.clone()),
            ("--base-url", self.model.base_url.clone()),
            ("--model", self.model.model.clone()),
        ];
        let mut out: Vec<String> = flags.iter().filter_map(|(f, v)| v.as_ref().map(|v| format!("{f} {v}"))).collect();
        if self.timed {
            out.push("--timed".into());
        }
        if let Some(t) = self.timeout {
            out.push(format!("--timeout {t}"));
        }
        if let Some(choice) = self.on_timeout {
            out.push(format!("--on-timeout {}", choice.as_flag()));
        }
        if self.plan_first {
            out.push("--plan".into());
        }
        if self.ptc {
            out.push("--ptc".into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<RunOptions, String> {
        let mut options = RunOptions::default();
        let mut it = args.iter().map(|s| s.to_string());
        while let Some(name) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{name} needs a value"));
            if !options.take(&name, &mut value)? {
                return Err(format!("unknown option {name:?}"));
            }
        }
        Ok(options)
    }

    fn model(provider: ModelKind, base_url: Option<&str>, model: Option<&str>, script: Option<&str>) -> ModelRef {
        ModelRef {
            provider,
            base_url: base_url.map(String::from),
            model: model.map(String::from),
            script: script.map(String::from),
        }
    }

    #[test]
    fn every_shared_option_parses_and_reads_back() {
        let o =
            parse(&["--provider", "demo", "--script", "timed", "--timeout", "3", "--plan", "--ptc", "--session", "ab"])
                .unwrap();
        assert_eq!(o.describe(), ["--provider demo", "--script timed", "--timed", "--timeout 3", "--plan", "--ptc"]);
        assert_eq!(o.session.as_deref(), Some("ab"));
        assert!(parse(&["--provider", "gpt"]).unwrap_err().contains("use demo or openai"));
        assert!(parse(&["--timeout", "0"]).unwrap_err().contains("seconds from 1"));
        assert!(parse(&["--script", "nope"]).unwrap_err().contains("one of"));
        assert!(parse(&["--model"]).unwrap_err().contains("needs a value"));
        assert!(parse(&["--frobnicate"]).unwrap_err().contains("unknown option"));
    }

    #[test]
    fn on_timeout_chooses_the_schema_and_whether_the_turn_stops() {
        let saved = QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false };
        let stop = parse(&["--on-timeout", "stop-turn", "--timeout", "9"]).unwrap();
        let forced = stop.forced_questions(saved).unwrap();
        assert_eq!(forced, QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 9, stop_turn: true });
        assert_eq!(forced.on_timeout(), OnTimeout::StopTurn);
        assert_eq!(stop.describe(), ["--timed", "--timeout 9", "--on-timeout stop-turn"]);
        let timed = QuestionSettings { mode: ToolMode::Timed, ..saved };
        let wait = parse(&["--on-timeout", "wait"]).unwrap().questions(timed);
        assert_eq!((wait.mode, wait.on_timeout()), (ToolMode::Legacy, OnTimeout::Wait));
        let keep = parse(&["--on-timeout", "keep-working"]).unwrap().questions(saved);
        assert_eq!((keep.mode, keep.stop_turn), (ToolMode::Timed, false));
        assert!(parse(&["--on-timeout", "pick"]).unwrap_err().contains("keep-working, wait, stop-turn"));
        // Settings saved before the choice existed read as keep working.
        let old: QuestionSettings = serde_json::from_str(r#"{"mode":"timed","default_timeout_secs":5}"#).unwrap();
        assert_eq!(old.on_timeout(), OnTimeout::KeepWorking);
    }

    #[test]
    fn a_timeout_alone_means_timed_over_the_saved_settings() {
        let saved = QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false };
        let o = parse(&["--timeout", "5"]).unwrap();
        assert_eq!(
            o.questions(saved),
            QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 5, stop_turn: false }
        );
        assert_eq!(
            o.forced_questions(saved),
            Some(QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 5, stop_turn: false })
        );
        let timed = parse(&["--timed"]).unwrap().questions(saved);
        assert_eq!((timed.mode, timed.default_timeout_secs), (ToolMode::Timed, 120));
        assert_eq!(parse(&[]).unwrap().questions(saved), saved);
        assert_eq!(parse(&[]).unwrap().forced_questions(saved), None);
    }

    #[test]
    fn flags_lay_over_a_model_field_by_field() {
        let deepseek = model(ModelKind::Openai, Some("https://api.deepseek.com"), Some("deepseek-chat"), None);
        let demo = model(ModelKind::Demo, None, None, Some("timed"));
        let o = |args: &[&str]| parse(args).unwrap().model;
        assert_eq!(o(&[]).over(deepseek.clone()), deepseek);
        // A script alone means the demo; the same provider keeps the base's other fields.
        assert_eq!(o(&["--script", "hello"]).over(deepseek.clone()), model(ModelKind::Demo, None, None, Some("hello")));
        assert_eq!(
            o(&["--model", "deepseek-reasoner"]).over(deepseek.clone()),
            model(ModelKind::Openai, Some("https://api.deepseek.com"), Some("deepseek-reasoner"), None)
        );
        // Another provider starts from its defaults, not from the base's fields.
        assert_eq!(o(&["--provider", "demo"]).over(deepseek), model(ModelKind::Demo, None, None, Some("batch")));
        assert_eq!(
            o(&["--provider", "openai"]).over(demo.clone()),
            model(ModelKind::Openai, Some(DEEPSEEK_BASE_URL), Some(DEEPSEEK_MODEL), None)
        );
        // An existing session keeps what it recorded unless a flag says otherwise.
        let never = || panic!("not asked: the session recorded a model");
        assert_eq!(o(&[]).for_existing(Some(demo.clone()), never), demo);
        assert_eq!(o(&["--script", "hello"]).for_existing(Some(demo), never).script.as_deref(), Some("hello"));
        assert_eq!(
            o(&[]).for_existing(None, || model(ModelKind::Demo, None, None, Some("x"))).script.as_deref(),
            Some("x")
        );
    }
}
