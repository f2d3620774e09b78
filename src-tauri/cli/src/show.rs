//! `hark show SESSION [--json]`: a session's event log, one line per event.

use std::process::ExitCode;

use hark_core::session::{Event, StoredEvent, ToolOutcome};

use crate::data::{self, safe_text};

/// How much of a recorded text one line shows.
const TEXT_CHARS: usize = 100;

pub fn run(args: data::SessionArgs) -> ExitCode {
    match data::load_events(&args.session) {
        Ok(events) if args.json => data::emit_json(&events),
        Ok(events) => data::emit(&events.iter().map(|e| line(e) + "\n").collect::<String>()),
        Err(failure) => failure.exit(),
    }
}

/// `seq  time  type  details`.
pub fn line(e: &StoredEvent) -> String {
    format!("{:>5}  {}  {:<17}  {}", e.seq, e.at.format("%Y-%m-%d %H:%M:%S"), e.event.type_name(), details(&e.event))
}

fn details(event: &Event) -> String {
    let text = |t: &str| safe_text(t, TEXT_CHARS);
    match event {
        Event::SessionCreated { title, workspace, model, client, started_by } => {
            let mut s = format!("title={}", text(title));
            if let Some(w) = workspace {
                s.push_str(&format!(" workspace={}", text(w)));
            }
            if let Some(c) = client {
                s.push_str(&format!(" client={}", text(c)));
            }
            if let Some(by) = started_by {
                s.push_str(&format!(" started_by={}", text(by)));
            }
            if let Some(m) = model {
                s.push_str(&format!(" provider={}", m.provider));
                if let Some(name) = &m.model {
                    s.push_str(&format!(" model={}", text(name)));
                }
            }
            s
        }
        Event::RequestHeader { tools, question_mode, default_timeout_secs, stop_turn } => {
            let mode = serde_json::to_value(question_mode).ok().and_then(|v| v.as_str().map(str::to_string));
            format!(
                "question_mode={}{} default_timeout={default_timeout_secs}s tools={}",
                mode.unwrap_or_default(),
                if *stop_turn { " stop_turn" } else { "" },
                text(&tools.join(","))
            )
        }
        Event::TurnStarted { turn_id, run_id } => format!("turn={} run={}", text(turn_id), text(run_id)),
        Event::TurnEnded { turn_id, reason } => format!("turn={} reason={}", text(turn_id), reason),
        Event::UserMessage { message_id, text: body, source } => {
            match source.as_ref().and_then(|s| s.reply_call_id()) {
                Some(call) => format!("id={} late answer to {}: {}", text(message_id), text(call), text(body)),
                None => format!("id={} {}", text(message_id), text(body)),
            }
        }
        Event::AssistantMessage { text: body, tool_calls, .. } if !tool_calls.is_empty() => {
            format!("{} [calls {}]", text(body), text(&tool_calls.join(",")))
        }
        Event::AssistantMessage { text: body, .. } => text(body),
        Event::ToolCall { call_id, name, arguments } => {
            format!("{} {} {}", text(call_id), text(name), text(&arguments.to_string()))
        }
        Event::ToolResult { call_id, outcome } | Event::PtcResult { call_id, outcome } => {
            format!("{} {}", text(call_id), outcome_text(outcome))
        }
        Event::PtcDispatch { parent_call_id, call_id, name, arguments } => {
            format!("{} {} {} (from {})", text(call_id), text(name), text(&arguments.to_string()), text(parent_call_id))
        }
        Event::InboxQueued { message_id, source, .. } => match source.reply_call_id() {
            Some(call_id) => format!("id={} {} for {}", text(message_id), source.kind.as_str(), text(call_id)),
            None => format!("id={} {}", text(message_id), source.kind.as_str()),
        },
        Event::InboxDiscarded { message_id, reason } => format!("id={} reason={}", text(message_id), text(reason)),
        Event::ModelError { error } => format!("{}: {}", text(&error.code), text(&error.message)),
        Event::McpUnavailable { server, error } => {
            format!("{}: {}: {}", text(server), text(&error.code), text(&error.message))
        }
        Event::AnswersReturned { call_ids } => format!("returned to the client: {}", text(&call_ids.join(","))),
        Event::ClientAsked { call_id, asker } => format!("{} asked by {}", text(call_id), text(asker)),
        Event::QuestionWithdrawn { call_id, reason } => format!("{} withdrawn: {}", text(call_id), text(reason)),
        Event::McpForm { server, message, outcome, .. } => {
            let outcome = match outcome {
                hark_core::question::FormOutcome::Accept { answers } => {
                    format!("accept {}", text(&serde_json::to_string(answers).unwrap_or_default()))
                }
                hark_core::question::FormOutcome::Decline => "decline".to_string(),
                hark_core::question::FormOutcome::Cancel => "cancel".to_string(),
            };
            format!("{}: {} -> {outcome}", text(server), text(message))
        }
        Event::HistoryCompacted { through_seq, summary, window_tokens } => {
            let summary = summary.as_deref().map_or("(none: left out)".to_string(), text);
            format!("through={through_seq} window={window_tokens} summary={summary}")
        }
        Event::Unknown { body, .. } => format!("(from a newer Hark) {}", text(&body.to_string())),
    }
}

fn outcome_text(outcome: &ToolOutcome) -> String {
    match outcome {
        ToolOutcome::Ok { content, .. } => format!("ok {}", safe_text(content, TEXT_CHARS)),
        ToolOutcome::Pending { .. } => "pending".to_string(),
        ToolOutcome::Error { error } => {
            format!("error {}", safe_text(&error.code, 40))
        }
        ToolOutcome::Unknown => "TOOL_OUTCOME_UNKNOWN".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use hark_core::session::{Event, MessageSource};

    use super::details;

    #[test]
    fn a_queued_message_names_its_call_only_when_it_answers_one() {
        let typed =
            Event::InboxQueued { message_id: "m1".into(), text: "also docker".into(), source: MessageSource::typed() };
        assert_eq!(details(&typed), "id=m1 user-typed");
        let reply = Event::InboxQueued {
            message_id: "m2".into(),
            text: "x".into(),
            source: MessageSource::question_reply("c1", hark_core::question::AnswerBatch { answers: Vec::new() }),
        };
        assert_eq!(details(&reply), "id=m2 user-question-reply for c1");
    }
}
