//! How much of a model's output this client will hold, and the MODEL_OUTPUT_TOO_LARGE error that
//! names the limit a runaway stream hit. The sizes come from [`OpenAiConfig`]; every reader of the
//! response checks them here, so "too large" means one thing everywhere.

use super::config::OpenAiConfig;
use super::excerpt;
use crate::model::error::ModelError;

/// The size limits of one request, copied out of the config for the reader task.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub output: usize,
    pub tool_arguments: usize,
    pub event: usize,
}

impl Limits {
    pub fn of(config: &OpenAiConfig) -> Limits {
        Limits {
            output: config.max_output_bytes,
            tool_arguments: config.max_tool_arguments_bytes,
            event: config.max_event_bytes,
        }
    }
}

/// What outgrew its limit.
#[derive(Debug, Clone, Copy)]
pub(super) enum Part<'a> {
    Text,
    Reasoning,
    ToolCalls,
    /// One call's arguments; the name is the model's and may still be empty.
    ToolArguments {
        name: &'a str,
    },
    Line,
    Event,
    /// A reply sent whole instead of streamed.
    Body,
}

/// The output one step has streamed so far, against `max_output_bytes`.
#[derive(Debug)]
pub(super) struct Budget {
    limits: Limits,
    used: usize,
}

impl Budget {
    pub fn new(limits: Limits) -> Budget {
        Budget { limits, used: 0 }
    }

    /// Counts `len` more bytes of `part`, or fails when they would take the step past the limit.
    /// Nothing is counted on failure: the bytes are never handed on.
    pub fn spend(&mut self, part: Part<'_>, len: usize) -> Result<(), ModelError> {
        let total = self.used.saturating_add(len);
        if total > self.limits.output {
            return Err(too_large(part, self.limits.output));
        }
        self.used = total;
        Ok(())
    }

    /// Fails when a call's arguments, grown to `len` bytes, pass their own limit.
    pub fn check_arguments(&self, name: &str, len: usize) -> Result<(), ModelError> {
        if len > self.limits.tool_arguments {
            return Err(too_large(Part::ToolArguments { name }, self.limits.tool_arguments));
        }
        Ok(())
    }
}

/// The error for `part` passing `limit` bytes: what happened, what is kept, what to do about it.
pub(super) fn too_large(part: Part<'_>, limit: usize) -> ModelError {
    let size = human_size(limit);
    let message = match part {
        Part::Text | Part::Reasoning | Part::ToolCalls => {
            let what = match part {
                Part::Text => "text",
                Part::Reasoning => "reasoning",
                _ => "tool calls",
            };
            format!(
                "The model's {what} took this step past {size} of output (text, reasoning and tool calls \
                 together), so the stream was stopped; what arrived before is kept. The model may be repeating \
                 itself: ask for a shorter answer or for the work in smaller steps (the limit is \
                 max_output_bytes)."
            )
        }
        Part::ToolArguments { name } => {
            let call = if name.is_empty() { "a tool call".to_string() } else { format!("the {} call", excerpt(name)) };
            format!(
                "The arguments of {call} grew past {size}, so the stream was stopped and the call was not run. \
                 Ask the model to send less per call, e.g. write a large file in parts (the limit is \
                 max_tool_arguments_bytes)."
            )
        }
        Part::Line => format!(
            "One line of the model stream grew past {size} without a line break, so the stream was stopped; what \
             arrived before is kept. This is not a normal event stream: check the base URL and the server (the \
             limit is max_event_bytes)."
        ),
        Part::Event => format!(
            "One event of the model stream gathered more than {size} of data without ending, so the stream was \
             stopped; what arrived before is kept. Check the server (the limit is max_event_bytes)."
        ),
        Part::Body => format!(
            "The server's reply, sent whole instead of streamed, grew past {size}, so reading it was stopped. Ask \
             for a shorter answer (the limit is max_output_bytes)."
        ),
    };
    ModelError::OutputTooLarge { limit, message }
}

/// `4 MiB`, `64 KiB`, or `1000 bytes` when the size is not a whole number of either.
fn human_size(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * KIB;
    match bytes {
        b if b >= MIB && b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= KIB && b % KIB == 0 => format!("{} KiB", b / KIB),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(4 * 1024 * 1024), "4 MiB");
        assert_eq!(human_size(64 * 1024), "64 KiB");
        assert_eq!(human_size(1536 * 1024), "1536 KiB");
        assert_eq!(human_size(1000), "1000 bytes");
    }

    #[test]
    fn the_budget_refuses_the_bytes_that_would_pass_the_limit() {
        let mut budget = Budget::new(Limits { output: 10, tool_arguments: 4, event: 100 });
        assert!(budget.spend(Part::Text, 6).is_ok());
        assert!(budget.spend(Part::Reasoning, 4).is_ok());
        let err = budget.spend(Part::Reasoning, 1).map_err(|e| e.code());
        assert_eq!(err, Err("MODEL_OUTPUT_TOO_LARGE"));
        assert!(budget.check_arguments("f", 4).is_ok());
        assert!(budget.check_arguments("f", 5).is_err());
    }
}
