//! How each configured server's last start went, across the agents that started it: what Settings
//! shows beside each server, with the tools it listed then and which of them a model is offered.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde::Serialize;

use crate::error::{BoundaryError, CodedError};
use crate::sync::lock;

use super::offer::{offer, Candidate, ToolOffer, MAX_MODEL_TOOLS};
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
    /// The tools each server listed at its last successful start, by the server's names, sorted.
    listed: Mutex<BTreeMap<String, Vec<String>>>,
    /// The room the last agent that offered MCP tools had for them (see [`super::offer::room`]);
    /// it depends on that session's own tools, so Settings shows what the last session got.
    room: Mutex<Option<usize>>,
}

impl StatusBoard {
    /// `server` started and listed `tools` (its own names).
    pub(crate) fn started(&self, server: &str, tools: Vec<String>) {
        let count = u32::try_from(tools.len()).unwrap_or(u32::MAX);
        lock(&self.servers).insert(server.to_string(), ServerStatus::Running { tools: count });
        lock(&self.listed).insert(server.to_string(), tools);
    }

    /// An agent offered MCP tools with `room` for them.
    pub(crate) fn set_room(&self, room: usize) {
        *lock(&self.room) = Some(room);
    }

    /// Per server of `servers` (its name and the tools the person turned off), the tools it listed
    /// at its last start and what [`offer`] makes of each, with the last agent's room. A server that
    /// never started has no entry: its tools are not known yet.
    pub fn offers(&self, servers: &[(&str, &BTreeSet<String>)]) -> BTreeMap<String, Vec<(String, ToolOffer)>> {
        let listed = lock(&self.listed);
        let room = lock(&self.room).unwrap_or(MAX_MODEL_TOOLS);
        let known: Vec<(&str, &BTreeSet<String>, &Vec<String>)> =
            servers.iter().filter_map(|&(server, off)| listed.get(server).map(|tools| (server, off, tools))).collect();
        let candidates: Vec<Candidate<'_>> = known
            .iter()
            .flat_map(|&(server, off, tools)| tools.iter().map(move |tool| Candidate::new(server, tool, off)))
            .collect();
        let offers = offer(room, &candidates);
        let mut by_server: BTreeMap<String, Vec<(String, ToolOffer)>> =
            known.iter().map(|(server, _, _)| (server.to_string(), Vec::new())).collect();
        for (candidate, offer) in candidates.iter().zip(offers) {
            if let Some(tools) = by_server.get_mut(candidate.server) {
                tools.push((candidate.tool.to_string(), offer));
            }
        }
        by_server
    }

    pub(crate) fn failed(&self, error: &McpError) {
        lock(&self.servers).insert(error.server().to_string(), ServerStatus::Failed { error: error.boundary() });
        // What it listed before no longer reaches a model; Settings should not count it as offered.
        lock(&self.listed).remove(error.server());
    }

    /// The status of `server`; [`ServerStatus::NotStarted`] when nothing was reported.
    pub fn get(&self, server: &str) -> ServerStatus {
        lock(&self.servers).get(server).cloned().unwrap_or(ServerStatus::NotStarted)
    }
}
