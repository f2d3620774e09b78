//! Every waiting question of every session in one list: whose it is, when it was asked, whether it
//! waits live or continued. The one order every surface shows them in is decided here.

use chrono::{DateTime, Utc};

use super::{plain_name, Host, HostError};
pub use crate::control::InboxEntry;
use crate::service::QuestionView;

/// Who asks in a session of Hark's own agent.
pub const HARK_ASKER: &str = "Hark";

impl Host {
    /// Every question that waits for the person, across sessions and askers: grouped by asker (the
    /// group whose oldest question is oldest first), oldest first within a group. A question whose
    /// late reply is already on its way is listed, not answerable, so the count matches the tray's.
    pub fn inbox(&self) -> Result<Vec<InboxEntry>, HostError> {
        let mut entries = Vec::new();
        // An MCP server's form waits in the foreground only: it is in no count of the log.
        let live: Vec<String> = self.service.foreground(None).into_iter().map(|r| r.session_id).collect();
        for summary in self.store.list_sessions()? {
            if summary.open_questions + summary.continued_questions == 0 && !live.contains(&summary.id) {
                continue;
            }
            let (asker, own_agent) = self.asker_of(&summary.id)?;
            for question in self.questions(&summary.id) {
                let session_title = summary.title.clone();
                entries.push(InboxEntry { question: timed(question), asker: asker.clone(), own_agent, session_title });
            }
        }
        order(&mut entries);
        Ok(entries)
    }

    /// One waiting question as the inbox lists it; `None` once it no longer waits.
    pub fn inbox_entry(&self, session: &str, call_id: &str) -> Result<Option<InboxEntry>, HostError> {
        let Some(question) = self.questions(session).into_iter().find(|v| v.call_id == call_id) else {
            return Ok(None);
        };
        let title = self.store.list_sessions()?.into_iter().find(|s| s.id == session).map(|s| s.title);
        let (asker, own_agent) = self.asker_of(session)?;
        Ok(Some(InboxEntry { question: timed(question), asker, own_agent, session_title: title.unwrap_or_default() }))
    }

    /// Who asks in `session`, and whether that is Hark's own agent: else the outside agent whose
    /// session it is.
    fn asker_of(&self, session: &str) -> Result<(String, bool), HostError> {
        Ok(match self.store.client_of(session)? {
            Some(client) => (plain_name(&client), false),
            None => (HARK_ASKER.to_string(), true),
        })
    }
}

/// A question the log has no time for is either a form (asked now, live) or one asked before times
/// were kept (among the oldest).
fn timed(mut question: QuestionView) -> QuestionView {
    if question.asked_at.is_none() && question.is_foreground() {
        question.asked_at = Some(Utc::now());
    }
    question
}

/// Grouped by asker, oldest group first; oldest first within one. A question with no recorded time
/// (asked before times were kept) counts as oldest, which is what it is.
fn order(entries: &mut [InboxEntry]) {
    let when = |e: &InboxEntry| e.question.asked_at.unwrap_or(DateTime::<Utc>::MIN_UTC);
    let mut oldest: Vec<(String, DateTime<Utc>)> = Vec::new();
    for entry in entries.iter() {
        match oldest.iter_mut().find(|(asker, _)| *asker == entry.asker) {
            Some((_, at)) => *at = (*at).min(when(entry)),
            None => oldest.push((entry.asker.clone(), when(entry))),
        }
    }
    let group = |e: &InboxEntry| oldest.iter().find(|(a, _)| *a == e.asker).map(|(a, at)| (*at, a.clone()));
    entries.sort_by(|a, b| group(a).cmp(&group(b)).then(when(a).cmp(&when(b))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::Intent;
    use crate::service::Phase;

    fn entry(asker: &str, call: &str, secs: i64) -> InboxEntry {
        InboxEntry {
            question: QuestionView {
                session_id: format!("s-{asker}"),
                call_id: call.into(),
                intent: Intent::Question,
                questions: vec![],
                phase: Phase::Continued { reply_queued: None },
                answerable: true,
                asked_at: DateTime::from_timestamp(secs, 0),
            },
            asker: asker.into(),
            own_agent: asker == HARK_ASKER,
            session_title: "t".into(),
        }
    }

    #[test]
    fn grouped_by_asker_oldest_group_first_and_oldest_first_within() {
        let mut entries =
            vec![entry("Hark", "h2", 40), entry("Codex", "c1", 20), entry("Hark", "h1", 10), entry("Codex", "c2", 30)];
        order(&mut entries);
        let calls: Vec<&str> = entries.iter().map(|e| e.question.call_id.as_str()).collect();
        assert_eq!(calls, ["h1", "h2", "c1", "c2"]);
    }
}
