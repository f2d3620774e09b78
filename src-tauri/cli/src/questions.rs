//! `hark questions SESSION [--json]`: the `ask_user_question` calls of a session and their state.

use std::process::ExitCode;

use hark_core::question::{AnswerBatch, Intent, Question};
use hark_core::session::{project_questions, QuestionRecord, QuestionState};

use crate::data::{self, safe_text};

pub fn run(args: data::SessionArgs) -> ExitCode {
    match load(&args.session) {
        Ok(records) if args.json => data::emit_json(&records),
        Ok(records) => data::emit(&render(&records)),
        Err(failure) => failure.exit(),
    }
}

fn load(typed: &str) -> Result<Vec<QuestionRecord>, data::Failure> {
    Ok(project_questions(&data::load_events(typed)?))
}

fn render(records: &[QuestionRecord]) -> String {
    if records.is_empty() {
        return "no questions\n".to_string();
    }
    let mut out = String::new();
    for r in records {
        let state = match r.state {
            QuestionState::Settled if r.withdrawn.is_some() => "withdrawn by the agent",
            QuestionState::Open => "open",
            QuestionState::Continued if r.reply_queued.is_some() => "continued (reply queued)",
            QuestionState::Continued => "continued",
            QuestionState::Settled if r.answered_late => "settled (answered late)",
            QuestionState::Settled => "settled",
        };
        let mode = match (&r.intent, r.timed) {
            (Intent::PlanReview { .. }, _) => "plan review: writes wait for the approval",
            (Intent::Form { .. }, _) => "an MCP server's form",
            (Intent::Approval { .. }, _) => "an agent's permission request: only Allow allows",
            (_, true) => "keeps working after a timeout",
            (_, false) => "waits for the answer",
        };
        out.push_str(&format!("{}  {state}  {mode}\n", safe_text(&r.call_id, 80)));
        let context = match &r.intent {
            Intent::PlanReview { plan } => Some(plan),
            Intent::Approval { detail, .. } => Some(detail),
            _ => None,
        };
        if let Some(context) = context {
            for line in context.lines().filter(|l| !l.trim().is_empty()).take(8) {
                out.push_str(&format!("  | {}\n", safe_text(line, 200)));
            }
        }
        for q in &r.questions {
            out.push_str(&format!("  {}: {}{}\n", safe_text(&q.id, 40), safe_text(&q.question, 200), options(q)));
            if let Some(batch) = &r.answers {
                out.push_str(&format!("    answer: {}\n", answer(batch, &q.id)));
            }
        }
    }
    out
}

fn options(q: &Question) -> String {
    if q.options.is_empty() {
        return String::new();
    }
    let labels: Vec<String> = q.options.iter().map(|o| safe_text(&o.label, 60)).collect();
    let multi = if q.multi_select { " (several)" } else { "" };
    format!(" [{}]{multi}", labels.join(" | "))
}

fn answer(batch: &AnswerBatch, id: &str) -> String {
    match batch.get(id) {
        None => "(none recorded)".to_string(),
        Some(a) => match &a.custom {
            Some(custom) => format!("other: {}", safe_text(custom, 200)),
            None if a.selected.is_empty() => "(skipped)".to_string(),
            None => a.selected.iter().map(|l| safe_text(l, 60)).collect::<Vec<_>>().join(", "),
        },
    }
}
