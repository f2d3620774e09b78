//! What Hark's tests share, in one crate that every other crate takes as a dev-dependency (instead of
//! copying files into each other's tests with `#[path]`):
//!
//! - [`server`]: the one fake OpenAI-compatible server, strict by default;
//! - [`agent`]: the agent harness over that server, a real store and question service;
//! - [`models`]: the one demo [`hark_core::host::ModelSource`];
//! - [`pane`]: a real terminal (tmux) for `hark tui`;
//! - [`ssh_lab`]: a remote host over a real OpenSSH server, for agents on other machines;
//! - [`telegram`]: a local Telegram Bot API and a person using it, for the phone relay;
//! - [`real_agents`]: the real Claude Code and Codex CLI, offline in a home of their own;
//! - [`vendor_models`]: scripted Anthropic Messages and OpenAI Responses servers, for the real agents;
//! - [`wait`]: waiting on emitted events instead of polling.
//!
//! Test code only: it may panic with a clear message wherever a test would. It must never depend on
//! tauri, since hark-core's dev-dependency tree is checked to have none.

pub mod agent;
pub mod models;
pub mod pane;
pub mod real_agents;
pub mod server;
#[cfg(unix)]
pub mod ssh_lab;
pub mod telegram;
pub mod vendor_models;
pub mod wait;

pub use server::{Reply, Strict, TestServer};
pub use wait::{wait_for, Events, WAIT};
