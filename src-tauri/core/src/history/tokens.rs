//! What a message costs in the model's context, estimated from its size: the token estimate and the
//! shape of each message (its role and size) that fitting a request plans with.
//!
//! Tokens are estimated, not counted: see [`estimate_tokens`].

use crate::model::{ChatMessage, ToolCallRequest};

/// Bytes of UTF-8 per estimated token. Tokenizers differ per model (DeepSeek, Qwen, Llama and OpenAI
/// each have their own) and a bundled one would be megabytes of vocabulary that is right for one
/// family only. Real rates are about 4 bytes per token for English prose and 3 to 3.5 for code and
/// JSON, which is what tool results mostly hold; 3 errs on the large side for all of them. A server
/// that still finds the request too long answers with a context-length error, which compaction
/// handles.
const BYTES_PER_TOKEN: usize = 3;

/// Per message: the role and the separators chat templates wrap around it (OpenAI documents 3 to 4).
pub(crate) const MESSAGE_OVERHEAD_TOKENS: usize = 4;

/// The estimated tokens of `text`.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    estimate_tokens_of(text.len())
}

/// The estimated tokens of a text of `bytes` bytes.
pub(crate) fn estimate_tokens_of(bytes: usize) -> usize {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The estimated tokens of one message as a provider sends it (reasoning is not sent back).
pub(crate) fn message_tokens(message: &ChatMessage) -> usize {
    shape(message).tokens
}

/// What fitting reads of a message: its role and size, so a request is planned before anything is
/// copied and only what survives is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) role: Role,
    /// As [`message_tokens`] counts them.
    pub(crate) tokens: usize,
    /// Of the content (what eliding or shortening replaces).
    pub(crate) bytes: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Shape {
    pub(crate) fn text(role: Role, bytes: usize) -> Shape {
        Shape { role, tokens: MESSAGE_OVERHEAD_TOKENS + estimate_tokens_of(bytes), bytes }
    }

    pub(crate) fn tokens(&self) -> usize {
        self.tokens
    }

    pub(crate) fn user(bytes: usize) -> Shape {
        Shape::text(Role::User, bytes)
    }

    /// An assistant message of `bytes` of text making `calls`.
    pub(crate) fn assistant<'a>(bytes: usize, calls: impl IntoIterator<Item = &'a ToolCallRequest>) -> Shape {
        let mut shape = Shape::text(Role::Assistant, bytes);
        shape.tokens += calls
            .into_iter()
            .map(|c| {
                MESSAGE_OVERHEAD_TOKENS
                    + estimate_tokens(&c.id)
                    + estimate_tokens(&c.name)
                    + estimate_tokens(&c.arguments)
            })
            .sum::<usize>();
        shape
    }

    pub(crate) fn tool(call_id: &str, bytes: usize) -> Shape {
        let mut shape = Shape::text(Role::Tool, bytes);
        shape.tokens += estimate_tokens(call_id);
        shape
    }
}

pub(crate) fn shape(message: &ChatMessage) -> Shape {
    match message {
        ChatMessage::System { content } => Shape::text(Role::System, content.len()),
        ChatMessage::User { content } => Shape::user(content.len()),
        ChatMessage::Assistant { content, tool_calls, .. } => Shape::assistant(content.len(), tool_calls),
        ChatMessage::Tool { call_id, content } => Shape::tool(call_id, content.len()),
    }
}
