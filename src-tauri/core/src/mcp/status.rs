//! How each configured server's last start went, across the agents that started it: what Settings
//! shows beside each server.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;

use crate::error::{BoundaryError, CodedError};
use crate::sync::lock;

use super::McpError;

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerStatus {
    /// No session has needed it since Hark started (servers start with a session's first turn).
    NotStarted,
    Running {
        tools: u32,
    },
    /// The last start failed, or the server cannot be used here, with the coded reason.
    Failed {
        error: BoundaryError,
    },
}

#[derive(Debug, Default)]
pub struct StatusBoard {
    servers: Mutex<BTreeMap<String, ServerStatus>>,
}

impl StatusBoard {
    pub(crate) fn started(&self, server: &str, tools: usize) {
        let tools = u32::try_from(tools).unwrap_or(u32::MAX);
        lock(&self.servers).insert(server.to_string(), ServerStatus::Running { tools });
    }

    pub(crate) fn failed(&self, error: &McpError) {
        lock(&self.servers).insert(error.server().to_string(), ServerStatus::Failed { error: error.boundary() });
    }

    /// The status of `server`; [`ServerStatus::NotStarted`] when nothing was reported.
    pub fn get(&self, server: &str) -> ServerStatus {
        lock(&self.servers).get(server).cloned().unwrap_or(ServerStatus::NotStarted)
    }
}
