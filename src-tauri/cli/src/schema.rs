//! `hark schema [--timed]`: the exact tool definition a model is offered, for inspection and for
//! wiring Hark's question tool into other harnesses.

use std::io::Write;
use std::process::ExitCode;

use hark_core::question::{tool_definition, ToolMode};

/// The timed schema's advertised default, matching the app's default setting.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// `hark schema`'s options.
#[derive(clap::Args)]
pub struct SchemaArgs {
    /// The timed schema, with `timeout` (default 120 s): the agent keeps working when a question
    /// is not answered in time.
    #[arg(long)]
    timed: bool,
}

pub fn run(args: SchemaArgs) -> ExitCode {
    let mode = if args.timed { ToolMode::Timed } else { ToolMode::Legacy };
    let definition = tool_definition(mode, DEFAULT_TIMEOUT_SECS);
    let text = match serde_json::to_string_pretty(&definition) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("hark: could not render the schema: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Written by hand rather than println! so a closed pipe (`hark schema | head`) ends quietly
    // instead of panicking.
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hark: could not write the schema: {e}");
            ExitCode::FAILURE
        }
    }
}
