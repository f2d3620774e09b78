//! `hark sessions [--json]`: every stored session, most recently active first.

use std::process::ExitCode;

use hark_core::session::SessionSummary;

use crate::data::{self, safe_text};

/// `hark sessions`' options.
#[derive(clap::Args)]
pub struct SessionsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SessionsArgs) -> ExitCode {
    let sessions = match data::open_store() {
        Ok(Some(store)) => match store.list_sessions() {
            Ok(list) => list,
            Err(e) => return data::Failure::from(e).exit(),
        },
        Ok(None) => Vec::new(),
        Err(failure) => return failure.exit(),
    };
    if args.json {
        data::emit_json(&sessions)
    } else {
        data::emit(&table(&sessions))
    }
}

fn table(sessions: &[SessionSummary]) -> String {
    if sessions.is_empty() {
        return "no sessions\n".to_string();
    }
    let mut out =
        format!("{:<36}  {:<19}  {:>6}  {:>4}  {:>9}  TITLE\n", "ID", "UPDATED (UTC)", "EVENTS", "OPEN", "CONTINUED");
    for s in sessions {
        out.push_str(&format!(
            "{:<36}  {}  {:>6}  {:>4}  {:>9}  {}\n",
            s.id,
            s.updated_at.format("%Y-%m-%d %H:%M:%S"),
            s.event_count,
            s.open_questions,
            s.continued_questions,
            safe_text(&s.title, 80),
        ));
    }
    out
}
