//! Programmatic tool calls: the opt-in `run_code` tool runs model-written JavaScript that calls the
//! session's tools (`await tools.read_file({...})`) in one step, each call recorded as a
//! `tool/ptc-dispatch` event linked to the `run_code` call.

mod sandbox;
mod tool;
pub mod worker;

pub use sandbox::{run, CallFailure, CallHost, Limits, RunOutput, SandboxError};
pub use tool::{RunCodeArguments, RunCodeTool, MAX_CODE_CHARS, RUN_CODE_TOOL_NAME};

#[cfg(test)]
mod tests;
