//! A batch being answered on the phone, item by item: what each question got so far and which
//! options of a multi-select are ticked. Submitted once every item is answered or skipped.

use crate::question::{Answer, AnswerBatch, PlanVerdict, Question};

/// What the person did on the phone to one card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Choose option `option` of single-select question `item`: that item is answered.
    Pick {
        item: usize,
        option: usize,
    },
    /// Tick or untick an option of a multi-select.
    Toggle {
        item: usize,
        option: usize,
    },
    /// Send a multi-select's ticks.
    Submit {
        item: usize,
    },
    Skip {
        item: usize,
    },
    /// Answer in their own words: the transport asks for a reply.
    Other {
        item: usize,
    },
    Approve,
    /// Request changes to a plan: the transport asks for the feedback.
    Changes,
}

impl Action {
    /// The short text a button carries (Telegram allows 64 bytes).
    pub fn encode(&self) -> String {
        match self {
            Action::Pick { item, option } => format!("p{item}.{option}"),
            Action::Toggle { item, option } => format!("t{item}.{option}"),
            Action::Submit { item } => format!("s{item}"),
            Action::Skip { item } => format!("k{item}"),
            Action::Other { item } => format!("o{item}"),
            Action::Approve => "a".into(),
            Action::Changes => "c".into(),
        }
    }

    pub fn decode(text: &str) -> Option<Action> {
        let (kind, rest) = text.split_at_checked(1)?;
        let pair = || {
            let (item, option) = rest.split_once('.')?;
            Some((item.parse().ok()?, option.parse().ok()?))
        };
        match kind {
            "p" => pair().map(|(item, option)| Action::Pick { item, option }),
            "t" => pair().map(|(item, option)| Action::Toggle { item, option }),
            "s" => rest.parse().ok().map(|item| Action::Submit { item }),
            "k" => rest.parse().ok().map(|item| Action::Skip { item }),
            "o" => rest.parse().ok().map(|item| Action::Other { item }),
            "a" if rest.is_empty() => Some(Action::Approve),
            "c" if rest.is_empty() => Some(Action::Changes),
            _ => None,
        }
    }
}

/// What the card does after an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Show the card again (a tick changed, or the next item is up).
    Redraw,
    /// Every item is answered: send this batch.
    Send(AnswerBatch),
    /// Ask for text: the custom answer to `item`, or (for a plan) the feedback.
    AskText { item: Option<usize> },
    /// The action does not fit the card (an old button, nothing ticked): say why.
    Refuse(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    answers: Vec<Option<Answer>>,
    ticked: Vec<Vec<bool>>,
}

impl Draft {
    pub fn new(questions: &[Question]) -> Draft {
        Draft {
            answers: vec![None; questions.len()],
            ticked: questions.iter().map(|q| vec![false; q.options.len()]).collect(),
        }
    }

    /// The item shown with buttons: the first one not answered yet.
    pub fn current(&self) -> Option<usize> {
        self.answers.iter().position(Option::is_none)
    }

    pub fn answer(&self, item: usize) -> Option<&Answer> {
        self.answers.get(item).and_then(Option::as_ref)
    }

    pub fn is_ticked(&self, item: usize, option: usize) -> bool {
        self.ticked.get(item).and_then(|t| t.get(option)).copied().unwrap_or(false)
    }

    /// Starts over (the answer was refused).
    pub fn reset(&mut self, questions: &[Question]) {
        *self = Draft::new(questions);
    }

    /// Applies a tap. Only the current item's buttons count: an older message's button for an item
    /// already answered is refused rather than changing it behind the person's back.
    pub fn apply(&mut self, questions: &[Question], action: Action) -> Step {
        match action {
            Action::Approve => Step::Send(PlanVerdict::Approved.batch()),
            Action::Changes => Step::AskText { item: None },
            Action::Pick { item, option } => {
                let Some(q) = self.open(questions, item) else { return Step::Refuse(STALE) };
                let Some(chosen) = q.options.get(option) else { return Step::Refuse(STALE) };
                if q.multi_select {
                    return Step::Refuse(STALE);
                }
                let answer = Answer { id: q.id.clone(), selected: vec![chosen.label.clone()], custom: None };
                self.set(questions, item, answer)
            }
            Action::Toggle { item, option } => {
                if self.open(questions, item).is_none() {
                    return Step::Refuse(STALE);
                }
                match self.ticked.get_mut(item).and_then(|t| t.get_mut(option)) {
                    Some(tick) => {
                        *tick = !*tick;
                        Step::Redraw
                    }
                    None => Step::Refuse(STALE),
                }
            }
            Action::Submit { item } => {
                let Some(q) = self.open(questions, item) else { return Step::Refuse(STALE) };
                let selected: Vec<String> = q
                    .options
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| self.is_ticked(item, *i))
                    .map(|(_, o)| o.label.clone())
                    .collect();
                if selected.is_empty() {
                    return Step::Refuse("Tick at least one option, or Skip");
                }
                let answer = Answer { id: q.id.clone(), selected, custom: None };
                self.set(questions, item, answer)
            }
            Action::Skip { item } => match self.open(questions, item) {
                Some(q) => {
                    let answer = Answer::skip(q.id.clone());
                    self.set(questions, item, answer)
                }
                None => Step::Refuse(STALE),
            },
            Action::Other { item } if self.open(questions, item).is_some() => Step::AskText { item: Some(item) },
            Action::Other { .. } => Step::Refuse(STALE),
        }
    }

    /// Typed text: `item`'s own words, or (`None`) a plan's feedback.
    pub fn text(&mut self, questions: &[Question], item: Option<usize>, text: &str) -> Step {
        let text = text.trim();
        let Some(item) = item else {
            return Step::Send(PlanVerdict::ChangesRequested { feedback: Some(text.to_string()) }.batch());
        };
        if text.is_empty() {
            return Step::Refuse("The answer is empty");
        }
        let Some(q) = self.open(questions, item) else { return Step::Refuse(STALE) };
        let answer = Answer { id: q.id.clone(), selected: Vec::new(), custom: Some(text.to_string()) };
        self.set(questions, item, answer)
    }

    fn open<'q>(&self, questions: &'q [Question], item: usize) -> Option<&'q Question> {
        (self.current() == Some(item)).then(|| questions.get(item)).flatten()
    }

    fn set(&mut self, questions: &[Question], item: usize, answer: Answer) -> Step {
        if let Some(slot) = self.answers.get_mut(item) {
            *slot = Some(answer);
        }
        if self.current().is_some() {
            return Step::Redraw;
        }
        let answers = self.answers.iter().flatten().cloned().collect::<Vec<_>>();
        debug_assert_eq!(answers.len(), questions.len());
        Step::Send(AnswerBatch { answers })
    }
}

const STALE: &str = "That button is from an earlier step; use the newest one";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::QuestionOption;

    fn q(id: &str, options: &[&str], multi: bool) -> Question {
        Question {
            id: id.into(),
            question: format!("{id}?"),
            header: None,
            options: options.iter().map(|l| QuestionOption { label: (*l).into(), description: None }).collect(),
            multi_select: multi,
        }
    }

    #[test]
    fn actions_round_trip_through_their_button_text() {
        for a in [
            Action::Pick { item: 2, option: 11 },
            Action::Toggle { item: 0, option: 3 },
            Action::Submit { item: 1 },
            Action::Skip { item: 4 },
            Action::Other { item: 0 },
            Action::Approve,
            Action::Changes,
        ] {
            assert_eq!(Action::decode(&a.encode()), Some(a));
        }
        for junk in ["", "p1", "x0", "a1", "t1.", "s-1"] {
            assert_eq!(Action::decode(junk), None, "{junk}");
        }
    }

    #[test]
    fn a_batch_is_answered_item_by_item_and_sent_once_complete() {
        let questions =
            [q("db", &["SQLite", "Postgres"], false), q("extras", &["Docs", "Tests"], true), q("name", &[], false)];
        let mut d = Draft::new(&questions);
        assert_eq!(d.apply(&questions, Action::Toggle { item: 1, option: 0 }), Step::Refuse(STALE), "not its turn");
        assert_eq!(d.apply(&questions, Action::Pick { item: 0, option: 1 }), Step::Redraw);
        assert_eq!(d.apply(&questions, Action::Submit { item: 1 }), Step::Refuse("Tick at least one option, or Skip"));
        assert_eq!(d.apply(&questions, Action::Toggle { item: 1, option: 1 }), Step::Redraw);
        assert_eq!(d.apply(&questions, Action::Submit { item: 1 }), Step::Redraw);
        assert_eq!(d.apply(&questions, Action::Other { item: 2 }), Step::AskText { item: Some(2) });
        let Step::Send(batch) = d.text(&questions, Some(2), " notes ") else { panic!("sent") };
        let got: Vec<(&str, Vec<String>, Option<&str>)> =
            batch.answers.iter().map(|a| (a.id.as_str(), a.selected.clone(), a.custom.as_deref())).collect();
        assert_eq!(
            got,
            [
                ("db", vec!["Postgres".to_string()], None),
                ("extras", vec!["Tests".to_string()], None),
                ("name", vec![], Some("notes"))
            ]
        );
    }

    #[test]
    fn a_skip_answers_an_item_and_a_plan_takes_approve_or_feedback() {
        let questions = [q("a", &["x", "y"], false)];
        let mut d = Draft::new(&questions);
        assert_eq!(
            d.apply(&questions, Action::Skip { item: 0 }),
            Step::Send(AnswerBatch { answers: vec![Answer::skip("a")] })
        );
        let plan = crate::question::plan_review_questions();
        let mut d = Draft::new(&plan);
        assert_eq!(d.apply(&plan, Action::Approve), Step::Send(PlanVerdict::Approved.batch()));
        assert_eq!(d.apply(&plan, Action::Changes), Step::AskText { item: None });
        assert_eq!(
            d.text(&plan, None, "smaller steps"),
            Step::Send(PlanVerdict::ChangesRequested { feedback: Some("smaller steps".into()) }.batch())
        );
    }
}
