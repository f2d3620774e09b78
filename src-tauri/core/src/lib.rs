//! Hark's core. Everything with a policy lives here; the desktop shell and the CLI are adapters.
//!
//! This crate must never depend on Tauri: `cargo tree -p hark-core | grep tauri` stays empty.

pub mod agent;
pub mod agent_setup;
pub mod control;
pub mod data_dir;
pub mod error;
pub mod first_run;
pub mod front_door;
pub mod history;
pub mod host;
pub mod launch;
pub mod mcp;
pub mod model;
pub mod notify;
pub mod open_session;
pub mod phone;
pub mod ptc;
pub mod question;
pub mod remote_hosts;
pub mod safe_env;
pub mod service;
pub mod session;
pub mod sync;
mod tool_definition;
pub mod tools;
pub mod workspace;
