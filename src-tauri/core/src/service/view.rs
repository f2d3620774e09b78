//! Which waiting question a surface may answer and which it shows next: decided here, once, for
//! the tray, the terminal and every surface that shows questions.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ContinuedQuestion, InteractionRequest, WaitInfo};
use crate::question::{Intent, Question};

/// Where a waiting question stands for the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// The call waits for the answer now; `wait` is its countdown when it is timed.
    Foreground { wait: Option<WaitInfo> },
    /// The agent went on without it: an answer now is a late one. `reply_queued` is the inbox id
    /// of a late reply already on its way.
    Continued { reply_queued: Option<String> },
}

/// One waiting question as a surface shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct QuestionView {
    pub session_id: String,
    pub call_id: String,
    pub intent: Intent,
    pub questions: Vec<Question>,
    #[serde(flatten)]
    pub phase: Phase,
    /// Whether an answer is taken now: always in the foreground; a continued question until a late
    /// reply of it is queued (the first reply wins, and nobody is asked twice).
    pub answerable: bool,
    /// When it was asked, as the log recorded its call.
    pub asked_at: Option<DateTime<Utc>>,
}

/// A session's waiting questions at one moment, as a surface that is sent them again and again
/// receives them. `revision` orders the lists: of two, the one with the higher revision was read
/// after the other's last change, so a surface keeps the list with the highest it has seen (a list
/// read earlier but delivered later must not bring back what a newer one no longer has).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionQuestions {
    pub revision: u64,
    pub questions: Vec<QuestionView>,
}

impl QuestionView {
    pub fn foreground(request: &InteractionRequest) -> QuestionView {
        QuestionView {
            session_id: request.session_id.clone(),
            call_id: request.call_id.clone(),
            intent: request.intent.clone(),
            questions: request.questions.clone(),
            phase: Phase::Foreground { wait: request.wait.clone() },
            answerable: true,
            asked_at: None,
        }
    }

    pub fn continued(question: &ContinuedQuestion) -> QuestionView {
        QuestionView {
            session_id: question.session_id.clone(),
            call_id: question.call_id.clone(),
            intent: question.intent.clone(),
            questions: question.questions.clone(),
            phase: Phase::Continued { reply_queued: question.reply_queued.clone() },
            answerable: question.reply_queued.is_none(),
            asked_at: question.asked_at,
        }
    }

    pub fn is_foreground(&self) -> bool {
        matches!(self.phase, Phase::Foreground { .. })
    }
}

/// Questions as surfaces list them: the foreground ones first, in the order asked, then the
/// continued ones. A question in both lists (its foreground wait ended a moment ago and its pending
/// result is being recorded) is listed once, in the foreground.
pub fn questions_view(foreground: &[InteractionRequest], continued: &[ContinuedQuestion]) -> Vec<QuestionView> {
    let mut views: Vec<QuestionView> = foreground.iter().map(QuestionView::foreground).collect();
    let listed =
        |q: &ContinuedQuestion| foreground.iter().any(|f| f.session_id == q.session_id && f.call_id == q.call_id);
    views.extend(continued.iter().filter(|q| !listed(q)).map(QuestionView::continued));
    views
}

/// The question a surface shows next: the first answerable one in the foreground, else (with
/// `continued`) the first answerable continued one, passing over those `skip` names (what the person
/// hid or closed on that surface).
pub fn next_to_show(
    views: &[QuestionView],
    continued: bool,
    skip: impl Fn(&QuestionView) -> bool,
) -> Option<&QuestionView> {
    let open = |v: &&QuestionView| v.answerable && !skip(v);
    views
        .iter()
        .filter(open)
        .find(|v| v.is_foreground())
        .or_else(|| views.iter().filter(open).find(|v| continued && !v.is_foreground()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::Caller;

    fn asked(call: &str, timed: bool) -> InteractionRequest {
        InteractionRequest {
            session_id: "s".into(),
            call_id: call.into(),
            caller: Caller { session_id: "s".into(), agent_instance_id: "a".into(), parent: None },
            intent: Intent::Question,
            questions: vec![],
            wait: timed.then(|| WaitInfo { call_id: call.into(), timed: true, timeout_ms: 1000 }),
            abort: Default::default(),
        }
    }

    fn went_on(call: &str, queued: Option<&str>) -> ContinuedQuestion {
        ContinuedQuestion {
            session_id: "s".into(),
            call_id: call.into(),
            intent: Intent::Question,
            questions: vec![],
            reply_queued: queued.map(str::to_string),
            asked_at: None,
        }
    }

    #[test]
    fn foreground_first_then_continued_and_a_queued_reply_is_not_answerable() {
        let views = questions_view(
            &[asked("f1", true), asked("f2", false)],
            &[went_on("f1", None), went_on("c1", Some("m1")), went_on("c2", None)],
        );
        let order: Vec<(&str, bool)> = views.iter().map(|v| (v.call_id.as_str(), v.answerable)).collect();
        assert_eq!(order, [("f1", true), ("f2", true), ("c1", false), ("c2", true)]);
        assert_eq!(next_to_show(&views, false, |_| false).map(|v| v.call_id.as_str()), Some("f1"));
        let hidden = |v: &QuestionView| v.call_id.starts_with('f');
        assert_eq!(next_to_show(&views, false, hidden), None, "only the foreground ones open by themselves");
        assert_eq!(next_to_show(&views, true, hidden).map(|v| v.call_id.as_str()), Some("c2"), "c1 is answered");
    }
}
