//! Values on the command line that hark-core has the rule for: clap checks them with the core's own
//! parsing, so the terminal, the app and `hark setup`'s entries accept the same spellings and refuse
//! the rest with the same words, and clap lists the choices in `--help` and the completions.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use hark_core::agent_setup::Agent;
use hark_core::launch::RunOptions;

/// An agent Hark connects to, by its command-line name (`claude-code`, `codex`).
#[derive(Clone)]
pub struct AgentName;

impl TypedValueParser for AgentName {
    type Value = Agent;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<Agent, clap::Error> {
        let names = Agent::ALL.map(Agent::name);
        clap::builder::PossibleValuesParser::new(names)
            .try_map(|name| Agent::from_name(&name).ok_or("not an agent"))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Agent::ALL.into_iter().map(|a| PossibleValue::new(a.name()).help(a.label()))))
    }
}

/// The value of one of the options every front door that runs sessions takes (`--provider`,
/// `--timeout`, ...), checked by [`RunOptions::take`]; `choices` are listed in help and completions.
#[derive(Clone)]
pub struct RunOptionValue {
    pub flag: &'static str,
    pub choices: fn() -> Vec<&'static str>,
}

impl RunOptionValue {
    pub const fn new(flag: &'static str) -> Self {
        RunOptionValue { flag, choices: Vec::new }
    }

    pub const fn with_choices(flag: &'static str, choices: fn() -> Vec<&'static str>) -> Self {
        RunOptionValue { flag, choices }
    }
}

impl TypedValueParser for RunOptionValue {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, _: Option<&clap::Arg>, value: &OsStr) -> Result<String, clap::Error> {
        let text = value.to_str().ok_or_else(|| clap::Error::new(ErrorKind::InvalidUtf8).with_cmd(cmd))?.to_string();
        // The core's message already names the option and says what it takes.
        match RunOptions::default().take(self.flag, &mut || Ok(text.clone())) {
            Ok(_) => Ok(text),
            // Reported with the subcommand's usage, as clap reports its own refusals.
            Err(problem) => Err(cmd.clone().error(ErrorKind::ValueValidation, problem)),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let choices = (self.choices)();
        (!choices.is_empty()).then(|| Box::new(choices.into_iter().map(PossibleValue::new)) as Box<_>)
    }
}
