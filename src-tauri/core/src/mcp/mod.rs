//! MCP servers' tools for the agent, through the official Rust SDK (`rmcp`): servers come from an
//! `mcp.json` in the format other MCP hosts read, start when a session's first turn needs its tools,
//! and stop with the session's agent. Each server tool is offered as `mcp__<server>__<tool>` (with a
//! `_2`, `_3`, ... suffix when two tools' names are one once made model-safe) and runs through the
//! registry like any tool, so its calls and results are in the session log.
//!
//! A server that cannot start, dies or does not answer in time is a coded [`McpError`], never a hang:
//! a server that fails to start is recorded (`mcp/unavailable`, shown in the transcript) and its tools
//! are left out for the agent's life; a call to a dead server
//! ends with `MCP_SERVER_CLOSED`, and the next turn starts it again.
//!
//! A server's forms (elicitation) are Hark questions ([`elicit`]); each is recorded (`mcp/form`)
//! with how the person ended it before the server hears the answer.

mod config;
mod connection;
mod editor;
mod elicit;
mod error;
mod offer;
mod status;
mod tool;

#[cfg(test)]
mod tests;

pub use config::{invalid, read_text, McpConfig, ServerSpec, ServerTransport, CONFIG_FILE, KEYRING_PREFIX};
pub use connection::McpServers;
pub use editor::{read_entries, secret_name, write_entries, EntryTransport, HeaderEntry, McpEntry, SecretWrite};
pub(crate) use elicit::{outside_form, FormFailure};
pub use elicit::{outside_form_problem, Asker, MAX_OPEN_FORMS};
pub use error::McpError;
pub use offer::{offer, room, Candidate, ToolOffer, MAX_MODEL_TOOLS};
pub use status::{ServerStatus, StatusBoard};
pub use tool::{tool_name, McpTool};
