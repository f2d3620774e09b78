//! The one rule for which MCP tools a model is offered: the agent builds its requests with it and
//! Settings shows its outcome, so what the person sees there is what the model gets.
//!
//! A tool the person turned off (`disabled_tools` in `mcp.json`) is never offered. The others are
//! taken by server name, then by the server's tool name, until the room left beside Hark's own tools
//! is full; the rest are left out. Turning some tools off therefore lets the next ones in that order
//! in, which the person can predict from the list.

use std::collections::BTreeSet;

use serde::Serialize;

/// The most tools offered to the model in one request: OpenAI refuses a request with more (HTTP 400),
/// which would fail every turn of a session whose MCP servers list many tools.
pub const MAX_MODEL_TOOLS: usize = 128;

/// What becomes of one MCP tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolOffer {
    Offered,
    /// The person turned it off.
    Disabled,
    /// It did not fit under [`MAX_MODEL_TOOLS`].
    LeftOut,
}

/// One MCP tool as the rule sees it: its server, its name as the server lists it, and whether the
/// person turned it off.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub server: &'a str,
    pub tool: &'a str,
    pub disabled: bool,
}

impl<'a> Candidate<'a> {
    /// `tool` of `server`, turned off when `disabled_tools` names it.
    pub fn new(server: &'a str, tool: &'a str, disabled_tools: &BTreeSet<String>) -> Candidate<'a> {
        Candidate { server, tool, disabled: disabled_tools.contains(tool) }
    }
}

/// How many MCP tools fit beside `own` tools of Hark's.
pub fn room(own: usize) -> usize {
    MAX_MODEL_TOOLS.saturating_sub(own)
}

/// What becomes of each of `tools` (in the same order) when `room` of them fit. The order the room
/// is filled in is decided here, by server then tool name, whatever order the caller has them in.
pub fn offer(room: usize, tools: &[Candidate<'_>]) -> Vec<ToolOffer> {
    let mut order: Vec<(usize, &Candidate<'_>)> = tools.iter().enumerate().collect();
    order.sort_by(|(_, a), (_, b)| (a.server, a.tool).cmp(&(b.server, b.tool)));
    let mut offers = vec![ToolOffer::Offered; tools.len()];
    let mut taken = 0usize;
    for (i, tool) in order {
        let offer = if tool.disabled {
            ToolOffer::Disabled
        } else if taken < room {
            taken += 1;
            ToolOffer::Offered
        } else {
            ToolOffer::LeftOut
        };
        if let Some(slot) = offers.get_mut(i) {
            *slot = offer;
        }
    }
    offers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers(room: usize, tools: &[(&str, &str, bool)]) -> Vec<ToolOffer> {
        let candidates: Vec<Candidate> =
            tools.iter().map(|&(server, tool, disabled)| Candidate { server, tool, disabled }).collect();
        offer(room, &candidates)
    }

    #[test]
    fn the_room_is_filled_by_server_then_tool_name_whatever_the_given_order() {
        use ToolOffer::*;
        let tools = [("b", "x", false), ("a", "z", false), ("a", "y", false), ("c", "w", false)];
        assert_eq!(offers(2, &tools), [LeftOut, Offered, Offered, LeftOut]);
        assert_eq!(offers(3, &tools), [Offered, Offered, Offered, LeftOut]);
        assert_eq!(offers(0, &tools), [LeftOut; 4]);
    }

    #[test]
    fn a_tool_turned_off_is_never_offered_and_makes_room_for_the_next() {
        use ToolOffer::*;
        let tools = [("a", "y", true), ("a", "z", false), ("b", "x", false)];
        assert_eq!(offers(2, &tools), [Disabled, Offered, Offered]);
        assert_eq!(offers(100, &tools), [Disabled, Offered, Offered]);
        let off: BTreeSet<String> = ["y".to_string()].into();
        assert!(Candidate::new("a", "y", &off).disabled && !Candidate::new("a", "z", &off).disabled);
        assert_eq!(room(5), MAX_MODEL_TOOLS - 5);
        assert_eq!(room(500), 0);
    }
}
