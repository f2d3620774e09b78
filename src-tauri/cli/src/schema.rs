//! `hark schema [--timed]`: the exact tool definition a model is offered, for inspection and for
//! wiring Hark's question tool into other harnesses.

use std::io::Write;
use std::process::ExitCode;

use hark_core::question::{tool_definition, ToolMode};

/// The timed schema's advertised default, matching the app's default setting.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

pub fn run(args: &[String]) -> ExitCode {
    let mut mode = ToolMode::Legacy;
    for arg in args {
        match arg.as_str() {
            "--timed" => mode = ToolMode::Timed,
            other => return crate::usage_error(&format!("schema: unknown option {other:?}")),
        }
    }
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
