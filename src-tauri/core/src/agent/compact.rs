//! What the agent does when the server refuses a request as too long for the model's context: it
//! learns the window the server has, asks the model to summarise the older turns (one extra
//! request), and records both as `history/compacted`, so this step can be tried again and every
//! later request, also after a restart, is built the same way. When the summary request fails too,
//! the older turns are left out without one.

use tokio_util::sync::CancellationToken;

use super::context;
use super::driver::append;
use super::step::stream;
use super::{AgentError, Shared};
use crate::history::tokens::message_tokens;
use crate::history::{self, Entry};
use crate::model::{ChatMessage, ModelError};
use crate::session::{Event, StoredEvent};
use crate::tools::ToolRegistry;

/// What the model is asked for in the summary request.
const SUMMARY_REQUEST: &str = "Hark has to shorten this conversation to fit your context window. Summarise \
everything above for your own later use: what the user asked for (quote their first request if it is short), \
the decisions and answers given, what tool calls found out that still matters (file names, findings, results), \
and what is still open. Reply with the summary only, in at most 400 words, and call no tools.";

/// The most of a summary that is kept: a model that rambles must not refill the context.
const MAX_SUMMARY_BYTES: usize = 16 * 1024;

/// A smaller window is learned as this share of the refused request when the server's message
/// names no usable limit.
const SHRINK_NUMERATOR: u64 = 3;
const SHRINK_DENOMINATOR: u64 = 4;

pub(super) enum Compacted {
    Done,
    Aborted,
}

/// Records a compaction after the server refused a request of `sent_tokens` (the agent's estimate)
/// with `error`.
pub(super) async fn compact(
    shared: &Shared,
    tools: &ToolRegistry,
    sent_tokens: usize,
    error: &ModelError,
    abort: &CancellationToken,
) -> Result<Compacted, AgentError> {
    // Rare (the server refused a request), so the log is read whole here rather than kept.
    let events = shared.session.store().events(&shared.session_id)?;
    let reserve = u64::from(shared.config.reply_reserve_tokens);
    let requested = u64::try_from(sent_tokens).unwrap_or(u64::MAX).saturating_add(reserve);
    let window = learned_window(
        shared.session.with_folds(|f| context::window(&shared.config, f.history())),
        requested,
        reserve,
        error.message(),
    );
    let budget = context::prompt_budget(window, &shared.config);
    let entries = history::entries(&events);
    let (through_seq, summary) = match cut(&entries, budget) {
        Some(cut) => {
            let summary = summarise(shared, tools, entries[..cut].to_vec(), budget, abort).await;
            if abort.is_cancelled() {
                return Ok(Compacted::Aborted);
            }
            (entries[cut].seq - 1, summary)
        }
        // Only the latest turn is left: what was compacted stays so, in the smaller window.
        None => previous(&events),
    };
    drop(events);
    append(shared, Event::HistoryCompacted { through_seq, summary, window_tokens: window })?;
    Ok(Compacted::Done)
}

/// The window to fit requests to from now on. A server that states its limit below what was sent is
/// believed; otherwise (no limit stated, or the estimate undercounted this text) the window shrinks
/// to a share of what was sent. Never more than the window in force, never so small that no prompt
/// fits.
fn learned_window(current: u64, requested: u64, reserve: u64, message: &str) -> u64 {
    let shrunk = requested / SHRINK_DENOMINATOR * SHRINK_NUMERATOR;
    let window = match stated_limit(message) {
        Some(limit) if limit < requested => limit,
        _ => shrunk,
    };
    let floor = reserve.saturating_add(1024);
    window.min(current).max(floor)
}

/// The token limit a server's message states after the word "context" ("maximum context length is
/// 65536 tokens", "context length of only 4096 tokens"), if any.
fn stated_limit(message: &str) -> Option<u64> {
    let lower = message.to_lowercase();
    lower.match_indices("context").find_map(|(at, word)| {
        let after = &lower[at + word.len()..];
        let near: String = after.chars().take(40).collect();
        let digits: String = near
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok().filter(|n| *n >= 256)
    })
}

/// Where the kept part of the conversation begins: at a user message, keeping the latest turn and
/// as many turns before it as fit in half the budget. `None` when no turn precedes the latest.
fn cut(entries: &[Entry], budget: usize) -> Option<usize> {
    let starts: Vec<usize> =
        (1..entries.len()).filter(|&i| matches!(entries[i].message, ChatMessage::User { .. })).collect();
    let latest = *starts.last()?;
    let mut kept = latest;
    for &start in starts.iter().rev().skip(1) {
        let tokens: usize = entries[start..].iter().map(|e| message_tokens(&e.message)).sum();
        if tokens > budget / 2 {
            break;
        }
        kept = start;
    }
    Some(kept)
}

/// The compaction already in force, kept when there is nothing more to compact.
fn previous(events: &[StoredEvent]) -> (u64, Option<String>) {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            Event::HistoryCompacted { through_seq, summary, .. } => Some((*through_seq, summary.clone())),
            _ => None,
        })
        .unwrap_or((0, None))
}

/// The model's summary of `older`, or `None` when it could not give one. Its text is not streamed
/// to the front doors: it is not a reply, and it shows as the compaction entry once recorded.
async fn summarise(
    shared: &Shared,
    tools: &ToolRegistry,
    older: Vec<Entry>,
    budget: usize,
    abort: &CancellationToken,
) -> Option<String> {
    let ask = ChatMessage::user(SUMMARY_REQUEST);
    let room = budget.saturating_sub(message_tokens(&ask));
    // The tools stay declared: some servers refuse a history with tool calls for tools they were not
    // given.
    let mut request = context::build(shared.config.system_prompt.as_deref(), older, tools.definitions(), room);
    request.messages.push(std::sync::Arc::new(ask));
    let (streamed, failure) = stream(shared, request, abort, false).await;
    let text = streamed.text.trim();
    (failure.is_none() && !text.is_empty()).then(|| history::shorten(text, MAX_SUMMARY_BYTES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_limit_is_read_from_the_servers_message() {
        let deepseek = "HTTP 400: This model's maximum context length is 65536 tokens. However, you requested 70123 \
                        tokens (61931 in the messages, 8192 in the completion).";
        assert_eq!(stated_limit(deepseek), Some(65_536));
        let lm_studio = "the model is loaded with context length of only 4,096 tokens, which is not enough.";
        assert_eq!(stated_limit(lm_studio), Some(4096));
        assert_eq!(stated_limit("the request exceeds the available context size, try increasing it"), None);
        assert_eq!(stated_limit("HTTP 400: prompt is too long: 210000 tokens > 200000 maximum"), None);
    }

    #[test]
    fn the_learned_window_believes_a_stated_limit_below_the_request_and_shrinks_otherwise() {
        let stated = "This model's maximum context length is 32768 tokens.";
        assert_eq!(learned_window(65_536, 50_000, 8192, stated), 32_768);
        // The server counts more than the estimate did: its limit is no guide, so shrink.
        assert_eq!(learned_window(65_536, 30_000, 8192, stated), 22_500);
        assert_eq!(learned_window(65_536, 40_000, 8192, "context size exceeded"), 30_000);
        // Never above the window in force, never below the reply's reserve plus a minimal prompt.
        assert_eq!(learned_window(20_000, 1_000_000, 8192, "context size exceeded"), 20_000);
        assert_eq!(learned_window(65_536, 9_000, 8192, "context size exceeded"), 8192 + 1024);
    }
}
