//! What crash repair appends, decided from the log alone.

use std::collections::HashSet;

use crate::session::events::{Event, ToolOutcome};

/// The events that close what a dead run left open: a `TOOL_OUTCOME_UNKNOWN` result for every call
/// without a result (in call order), then an "interrupted" end for every turn without one. Results
/// come first so they land inside the turn they belong to. Empty when nothing is open, which makes
/// repair idempotent.
pub fn repairs_needed<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<Event> {
    let mut calls: Vec<&str> = Vec::new();
    let mut seen_calls: HashSet<&str> = HashSet::new();
    let mut resolved: HashSet<&str> = HashSet::new();
    let mut turns: Vec<&str> = Vec::new();
    for event in events {
        match event {
            Event::ToolCall { call_id, .. } if seen_calls.insert(call_id) => calls.push(call_id),
            Event::ToolResult { call_id, .. } => {
                resolved.insert(call_id);
            }
            Event::TurnStarted { turn_id, .. } => turns.push(turn_id),
            Event::TurnEnded { turn_id, .. } => turns.retain(|t| t != turn_id),
            _ => {}
        }
    }
    let results = calls
        .into_iter()
        .filter(|c| !resolved.contains(c))
        .map(|c| Event::ToolResult { call_id: c.to_string(), outcome: ToolOutcome::Unknown });
    let ends =
        turns.into_iter().map(|t| Event::TurnEnded { turn_id: t.to_string(), reason: "interrupted".to_string() });
    results.chain(ends).collect()
}
