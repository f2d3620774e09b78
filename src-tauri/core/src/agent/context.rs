//! Fitting every request into the model's context window. The conversation comes from the session's
//! history fold, which is a function of the log alone, so the fitting is a pure function of the log
//! and the configuration: a reopened session sends the same request, and nothing but a compaction
//! (see `compact`) is recorded.
//!
//! Over budget, in this order: the content of older large tool results gives way to a short marker
//! (the model can call the tool again); then the oldest whole turns go, never parting an assistant
//! message from its tool results and always keeping the conversation's opening message and the
//! latest turn; last, the latest step's own results and the opening message are cut too.
//!
//! Tokens are estimated, not counted: see [`estimate_tokens`].

use std::sync::Arc;

use serde_json::Value;

use super::AgentConfig;
use crate::history::tokens::{
    estimate_tokens, estimate_tokens_of, message_tokens, shape, Role, Shape, MESSAGE_OVERHEAD_TOKENS,
};
use crate::history::{self, Entry, HistoryFold};
use crate::model::{ChatMessage, ModelRequest};

/// The context window assumed for the model, in tokens. Smaller than DeepSeek's and OpenAI's
/// current models hold, so that a long session stays fast and cheap; a server with less says so
/// (a context-length error) and the session adapts to it.
pub const DEFAULT_CONTEXT_WINDOW_TOKENS: u32 = 65_536;

/// Room kept for the reply, in tokens: the `max_tokens` the OpenAI provider sends by default
/// (`OpenAiConfig::max_tokens`), which DeepSeek and vLLM count against the window together with the
/// messages.
pub const DEFAULT_REPLY_RESERVE_TOKENS: u32 = 8_192;

/// The smallest prompt budget, so that a tiny window does not leave room for nothing at all.
const MIN_PROMPT_TOKENS: usize = 1024;

/// Tool results up to this size stay when older results are elided: the marker would save little,
/// and short results (errors, confirmations, answers) are what the model needs to remember.
const ELIDE_ABOVE_BYTES: usize = 1024;

/// How much of the conversation's opening message survives when nothing else can go.
const HEAD_KEEP_BYTES: usize = 4096;

/// The estimated tokens of a whole request, as the agent counts them to fit it: its messages and its
/// tool definitions.
pub fn request_tokens(request: &ModelRequest) -> usize {
    request.messages.iter().map(|m| message_tokens(m)).sum::<usize>() + tools_tokens(&request.tools)
}

fn tools_tokens(tools: &[Value]) -> usize {
    tools.iter().map(|t| estimate_tokens(&t.to_string())).sum()
}

/// The window requests of this session are fitted to: the configured one, or less when a
/// compaction found that the server holds less.
pub(super) fn window(config: &AgentConfig, history: &HistoryFold) -> u64 {
    let configured = u64::from(config.context_window_tokens);
    history.compacted_window().map_or(configured, |found| found.min(configured))
}

/// How much of the conversation a session keeps in memory for requests under `config`: twice what
/// one request may hold, so that older large results can give way to markers and whole turns need
/// to go only past that.
pub fn history_keep_tokens(config: &AgentConfig) -> usize {
    prompt_budget(u64::from(config.context_window_tokens), config).saturating_mul(2)
}

/// What the messages and tools of a request may take in `window`, after the reply's reserve.
pub(super) fn prompt_budget(window: u64, config: &AgentConfig) -> usize {
    let prompt = window.saturating_sub(u64::from(config.reply_reserve_tokens));
    usize::try_from(prompt).unwrap_or(usize::MAX).max(MIN_PROMPT_TOKENS)
}

/// The request for the conversation `history` holds, fitted to the session's window.
pub(super) fn request_for(config: &AgentConfig, tools: Vec<Value>, history: &HistoryFold) -> ModelRequest {
    let budget = prompt_budget(window(config, history), config);
    let mut messages: Vec<Arc<ChatMessage>> =
        config.system_prompt.as_deref().map(|s| Arc::new(ChatMessage::system(s))).into_iter().collect();
    let fixed = messages.iter().map(|m| message_tokens(m)).sum::<usize>() + tools_tokens(&tools);
    let (shapes, left_out) = history.shapes();
    let plan = plan(shapes, left_out, budget.saturating_sub(fixed));
    // What survives the plan is shared with the history, not copied; only changed messages are new.
    messages.reserve(shapes.len() - plan.drop.len() + 1);
    plan.apply_into(&mut messages, history.messages_outside(plan.drop.clone()).map(|(i, m)| (i, Arc::clone(m))));
    ModelRequest { messages, tools }
}

/// A request of the system prompt, `entries` and `tools`, fitted to `budget` tokens.
pub(super) fn build(system: Option<&str>, entries: Vec<Entry>, tools: Vec<Value>, budget: usize) -> ModelRequest {
    build_after(system, entries, 0, tools, budget)
}

fn build_after(
    system: Option<&str>,
    entries: Vec<Entry>,
    left_out: usize,
    tools: Vec<Value>,
    budget: usize,
) -> ModelRequest {
    let mut messages: Vec<Arc<ChatMessage>> = system.map(|s| Arc::new(ChatMessage::system(s))).into_iter().collect();
    let fixed = messages.iter().map(|m| message_tokens(m)).sum::<usize>() + tools_tokens(&tools);
    let fitted = fit(entries.into_iter().map(|e| e.message).collect(), left_out, budget.saturating_sub(fixed));
    messages.extend(fitted.into_iter().map(Arc::new));
    ModelRequest { messages, tools }
}

/// What fitting does to a list of messages (indexes into it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// Tool results whose content gives way to a marker.
    elide: Vec<usize>,
    /// Whole turns left out (after the head).
    pub drop: std::ops::Range<usize>,
    /// The head is shortened too.
    shorten_head: bool,
    /// Messages the note after the head names (0: no note).
    note: usize,
}

impl Plan {
    /// The fitted messages, from the messages outside `drop` with their index, added to `out`
    /// (which holds only what precedes the conversation: the system prompt).
    pub(super) fn apply_into(
        &self,
        out: &mut Vec<Arc<ChatMessage>>,
        messages: impl IntoIterator<Item = (usize, Arc<ChatMessage>)>,
    ) {
        let first = out.len();
        for (i, mut message) in messages {
            if self.drop.contains(&i) {
                continue;
            }
            if self.elide.binary_search(&i).is_ok() {
                if let ChatMessage::Tool { content, .. } = Arc::make_mut(&mut message) {
                    *content = elided(content.len());
                }
            }
            if i == 0 && self.shorten_head {
                if let ChatMessage::User { content } = Arc::make_mut(&mut message) {
                    *content = history::shorten(content, HEAD_KEEP_BYTES);
                }
            }
            out.push(message);
        }
        if self.note > 0 {
            note_left_out(out, first, self.note);
        }
    }
}

/// Cuts `messages` down to about `budget` tokens (see [`plan`]).
pub(super) fn fit(messages: Vec<ChatMessage>, left_out: usize, budget: usize) -> Vec<ChatMessage> {
    let shapes: Vec<Shape> = messages.iter().map(shape).collect();
    let mut fitted = Vec::with_capacity(messages.len() + 1);
    plan(&shapes, left_out, budget).apply_into(&mut fitted, messages.into_iter().map(Arc::new).enumerate());
    fitted.into_iter().map(Arc::unwrap_or_clone).collect()
}

/// How to cut messages of these `shapes` down to about `budget` tokens (see the module comment for
/// the order). `left_out` counts messages already missing after the head; the note that says what
/// was left out names them together with the turns dropped here.
///
/// Each stage frees a whole multiple of a quarter of the budget rather than just the excess. Were it
/// to free just enough, every step of a full session would elide one more result and change the
/// request's prefix, which servers cache; this way the prefix stays put until the conversation has
/// grown by another quarter.
pub(super) fn plan(shapes: &[Shape], left_out: usize, budget: usize) -> Plan {
    let mut plan = Plan { drop: 0..0, ..Plan::default() };
    let mut total: usize = shapes.iter().map(|s| s.tokens).sum();
    if total <= budget && left_out == 0 {
        return plan;
    }
    plan.note = left_out;
    // Room for the note, whether or not one turns out to be needed.
    let budget = budget.saturating_sub(MESSAGE_OVERHEAD_TOKENS + estimate_tokens(&left_out_note(usize::MAX)));
    if total <= budget {
        return plan;
    }
    let step = (budget / 4).max(1);
    let goal = |total: usize| (total - budget).div_ceil(step) * step;
    let latest = latest_step(shapes);

    let wanted = goal(total);
    let mut freed = 0;
    for i in (0..shapes.len()).filter(|i| !latest.contains(i)) {
        if freed >= wanted {
            break;
        }
        freed += elide(&mut plan, shapes, i);
    }
    total -= freed;
    if total <= budget {
        return plan;
    }

    let (head, cut, dropped_tokens) = oldest_turns(shapes, &plan.elide, goal(total));
    plan.drop = head..cut;
    plan.note += cut - head;
    total -= dropped_tokens;
    if total <= budget {
        return plan;
    }

    for i in latest {
        if total <= budget {
            return plan;
        }
        total -= elide(&mut plan, shapes, i);
    }
    plan.shorten_head = total > budget && shapes.first().is_some_and(|s| s.role == Role::User);
    plan
}

/// The tool results of the last assistant message: what the model is about to read.
fn latest_step(shapes: &[Shape]) -> std::ops::Range<usize> {
    let Some(last) = shapes.iter().rposition(|s| s.role == Role::Assistant) else {
        return 0..0;
    };
    let results = shapes[last + 1..].iter().take_while(|s| s.role == Role::Tool).count();
    last + 1..last + 1 + results
}

/// What a large tool result's content gives way to.
fn elided(bytes: usize) -> String {
    format!(
        "[Hark elided this {bytes}-byte tool result to fit the model's context; call the tool again if you need it]"
    )
}

/// Plans to elide message `i` if it is a large tool result; returns the tokens that saves.
fn elide(plan: &mut Plan, shapes: &[Shape], i: usize) -> usize {
    let shape = shapes[i];
    if shape.role != Role::Tool || shape.bytes <= ELIDE_ABOVE_BYTES || plan.elide.binary_search(&i).is_ok() {
        return 0;
    }
    let at = plan.elide.partition_point(|&e| e < i);
    plan.elide.insert(at, i);
    elision_saves(shape)
}

/// The tokens eliding a large tool result of this shape saves.
fn elision_saves(shape: Shape) -> usize {
    estimate_tokens_of(shape.bytes).saturating_sub(estimate_tokens(&elided(shape.bytes)))
}

/// Whole turns (a user message and everything up to the next one) to drop, oldest first, until
/// about `wanted` tokens are freed, counting the results in `elided` (sorted) as their markers.
/// The opening user message stays, and so does the latest turn. Returns the head's length, where
/// the kept turns begin, and the tokens dropped.
fn oldest_turns(shapes: &[Shape], elided: &[usize], wanted: usize) -> (usize, usize, usize) {
    let head = usize::from(shapes.first().is_some_and(|s| s.role == Role::User));
    let (mut cut, mut freed, mut turn) = (head, 0, 0);
    let mut elided = elided.iter().peekable();
    for (i, &shape) in shapes.iter().enumerate().skip(head) {
        // Each turn after the head begins at a user message; the latest turn is never passed, so it
        // is never dropped.
        if i > head && shape.role == Role::User {
            if freed >= wanted {
                break;
            }
            freed += turn;
            turn = 0;
            cut = i;
        }
        turn += shape.tokens;
        while elided.next_if(|&&e| e < i).is_some() {}
        if elided.next_if_eq(&&i).is_some() {
            turn -= elision_saves(shape);
        }
    }
    (head, cut, freed)
}

fn left_out_note(count: usize) -> String {
    format!("[Hark left out the {count} messages that followed here to fit the model's context.]")
}

/// Says after the opening user message (`messages[first]`, or first of the conversation, without
/// one) that `count` messages were left out.
fn note_left_out(messages: &mut Vec<Arc<ChatMessage>>, first: usize, count: usize) {
    let note = left_out_note(count);
    if let Some(opening) = messages.get_mut(first) {
        if let ChatMessage::User { content } = Arc::make_mut(opening) {
            content.push_str("\n\n");
            content.push_str(&note);
            return;
        }
    }
    messages.insert(first, Arc::new(ChatMessage::user(note)));
}

#[cfg(test)]
mod tests;
