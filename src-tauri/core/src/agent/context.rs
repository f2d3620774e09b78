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

use serde_json::Value;

use super::history::{self, Entry, HistoryFold};
use super::AgentConfig;
use crate::model::{ChatMessage, ModelRequest};

/// The context window assumed for the model, in tokens. Smaller than DeepSeek's and OpenAI's
/// current models hold, so that a long session stays fast and cheap; a server with less says so
/// (a context-length error) and the session adapts to it.
pub const DEFAULT_CONTEXT_WINDOW_TOKENS: u32 = 65_536;

/// Room kept for the reply, in tokens: the `max_tokens` the OpenAI provider sends by default
/// (`OpenAiConfig::max_tokens`), which DeepSeek and vLLM count against the window together with the
/// messages.
pub const DEFAULT_REPLY_RESERVE_TOKENS: u32 = 8_192;

/// Bytes of UTF-8 per estimated token. Tokenizers differ per model (DeepSeek, Qwen, Llama and OpenAI
/// each have their own) and a bundled one would be megabytes of vocabulary that is right for one
/// family only. Real rates are about 4 bytes per token for English prose and 3 to 3.5 for code and
/// JSON, which is what tool results mostly hold; 3 errs on the large side for all of them. A server
/// that still finds the request too long answers with a context-length error, which compaction
/// handles.
const BYTES_PER_TOKEN: usize = 3;

/// Per message: the role and the separators chat templates wrap around it (OpenAI documents 3 to 4).
const MESSAGE_OVERHEAD_TOKENS: usize = 4;

/// The smallest prompt budget, so that a tiny window does not leave room for nothing at all.
const MIN_PROMPT_TOKENS: usize = 1024;

/// Tool results up to this size stay when older results are elided: the marker would save little,
/// and short results (errors, confirmations, answers) are what the model needs to remember.
const ELIDE_ABOVE_BYTES: usize = 1024;

/// How much of the conversation's opening message survives when nothing else can go.
const HEAD_KEEP_BYTES: usize = 4096;

/// The estimated tokens of `text`.
pub(super) fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(BYTES_PER_TOKEN)
}

/// The estimated tokens of one message as a provider sends it (reasoning is not sent back).
pub(super) fn message_tokens(message: &ChatMessage) -> usize {
    MESSAGE_OVERHEAD_TOKENS
        + match message {
            ChatMessage::System { content } | ChatMessage::User { content } => estimate_tokens(content),
            ChatMessage::Assistant { content, tool_calls, .. } => {
                let calls: usize = tool_calls
                    .iter()
                    .map(|c| {
                        MESSAGE_OVERHEAD_TOKENS
                            + estimate_tokens(&c.id)
                            + estimate_tokens(&c.name)
                            + estimate_tokens(&c.arguments)
                    })
                    .sum();
                estimate_tokens(content) + calls
            }
            ChatMessage::Tool { call_id, content } => estimate_tokens(call_id) + estimate_tokens(content),
        }
}

/// The estimated tokens of a whole request, as the agent counts them to fit it: its messages and its
/// tool definitions.
pub fn request_tokens(request: &ModelRequest) -> usize {
    request.messages.iter().map(message_tokens).sum::<usize>() + tools_tokens(&request.tools)
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
    let kept = history.kept();
    build_after(config.system_prompt.as_deref(), kept.entries, kept.left_out, tools, budget)
}

/// A request of the system prompt, `entries` and `tools`, fitted to `budget` tokens.
pub(super) fn build(system: Option<&str>, entries: Vec<Entry>, tools: Vec<Value>, budget: usize) -> ModelRequest {
    build_after(system, entries, 0, tools, budget)
}

/// [`build`] for entries whose head (`entries[0]`) is followed by `left_out` messages that are not
/// among them.
fn build_after(
    system: Option<&str>,
    entries: Vec<Entry>,
    left_out: usize,
    tools: Vec<Value>,
    budget: usize,
) -> ModelRequest {
    let mut messages: Vec<ChatMessage> = system.map(ChatMessage::system).into_iter().collect();
    let fixed = messages.iter().map(message_tokens).sum::<usize>() + tools_tokens(&tools);
    messages.extend(fit(entries.into_iter().map(|e| e.message).collect(), left_out, budget.saturating_sub(fixed)));
    ModelRequest { messages, tools }
}

/// Cuts `messages` down to about `budget` tokens (see the module comment for the order).
/// `left_out` counts messages already missing after the head; the note that says what was left out
/// names them together with the turns dropped here.
///
/// Each stage frees a whole multiple of a quarter of the budget rather than just the excess. Were it
/// to free just enough, every step of a full session would elide one more result and change the
/// request's prefix, which servers cache; this way the prefix stays put until the conversation has
/// grown by another quarter.
pub(super) fn fit(mut messages: Vec<ChatMessage>, left_out: usize, budget: usize) -> Vec<ChatMessage> {
    let total: usize = messages.iter().map(message_tokens).sum();
    if total <= budget && left_out == 0 {
        return messages;
    }
    // Room for the note, whether or not one turns out to be needed.
    let budget = budget.saturating_sub(MESSAGE_OVERHEAD_TOKENS + estimate_tokens(&left_out_note(usize::MAX)));
    let dropped = cut_to(&mut messages, total, budget);
    if left_out + dropped > 0 {
        note_left_out(&mut messages, left_out + dropped);
    }
    messages
}

/// The stages of [`fit`]; returns how many messages whole dropped turns held.
fn cut_to(messages: &mut Vec<ChatMessage>, mut total: usize, budget: usize) -> usize {
    if total <= budget {
        return 0;
    }
    let step = (budget / 4).max(1);
    let goal = |total: usize| (total - budget).div_ceil(step) * step;
    let latest = latest_step(messages);

    let wanted = goal(total);
    let mut freed = 0;
    for i in (0..messages.len()).filter(|i| !latest.contains(i)) {
        if freed >= wanted {
            break;
        }
        freed += elide(&mut messages[i]);
    }
    total -= freed;
    if total <= budget {
        return 0;
    }

    let (after, dropped) = drop_oldest_turns(messages, goal(total), total);
    total = after;
    if total <= budget {
        return dropped;
    }

    let latest = latest_step(messages);
    for i in latest {
        if total <= budget {
            return dropped;
        }
        total -= elide(&mut messages[i]);
    }
    if total > budget {
        if let Some(ChatMessage::User { content }) = messages.first_mut() {
            *content = history::shorten(content, HEAD_KEEP_BYTES);
        }
    }
    dropped
}

/// The tool results of the last assistant message: what the model is about to read.
fn latest_step(messages: &[ChatMessage]) -> std::ops::Range<usize> {
    let Some(last) = messages.iter().rposition(|m| matches!(m, ChatMessage::Assistant { .. })) else {
        return 0..0;
    };
    let results = messages[last + 1..].iter().take_while(|m| matches!(m, ChatMessage::Tool { .. })).count();
    last + 1..last + 1 + results
}

/// Replaces a large tool result's content with a marker; returns the tokens that saved.
fn elide(message: &mut ChatMessage) -> usize {
    let ChatMessage::Tool { content, .. } = message else { return 0 };
    if content.len() <= ELIDE_ABOVE_BYTES {
        return 0;
    }
    let before = estimate_tokens(content);
    *content = format!(
        "[Hark elided this {}-byte tool result to fit the model's context; call the tool again if you need it]",
        content.len()
    );
    before - estimate_tokens(content)
}

/// Drops whole turns (a user message and everything up to the next one), oldest first, until about
/// `wanted` tokens are freed. The opening user message stays, and so does the latest turn. Returns
/// the new total and how many messages were dropped.
fn drop_oldest_turns(messages: &mut Vec<ChatMessage>, wanted: usize, total: usize) -> (usize, usize) {
    let head = usize::from(matches!(messages.first(), Some(ChatMessage::User { .. })));
    // Where each turn after the head begins; the head's own turn runs up to the first of them.
    let starts: Vec<usize> =
        (head..messages.len()).filter(|&i| matches!(messages[i], ChatMessage::User { .. })).collect();
    let mut cut = head;
    let mut freed = 0;
    // The last of these ends is where the latest turn begins, so that turn is never dropped.
    for end in starts.iter().copied().filter(|&s| s > head) {
        if freed >= wanted {
            break;
        }
        freed += messages[cut..end].iter().map(message_tokens).sum::<usize>();
        cut = end;
    }
    messages.drain(head..cut);
    (total - freed, cut - head)
}

fn left_out_note(count: usize) -> String {
    format!("[Hark left out the {count} messages that followed here to fit the model's context.]")
}

/// Says after the opening user message (or first, without one) that `count` messages were left out.
fn note_left_out(messages: &mut Vec<ChatMessage>, count: usize) {
    let note = left_out_note(count);
    match messages.first_mut() {
        Some(ChatMessage::User { content }) => {
            content.push_str("\n\n");
            content.push_str(&note);
        }
        _ => messages.insert(0, ChatMessage::user(note)),
    }
}

#[cfg(test)]
mod tests;
