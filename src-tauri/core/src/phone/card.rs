//! What the phone shows for one waiting question: plain text (model text is untrusted, so no markup
//! is ever parsed) and rows of buttons. Transport-neutral: Telegram draws the rows as an inline
//! keyboard; another messenger would draw them its own way.

use super::draft::{Action, Draft};
use crate::question::{Intent, Question};
use crate::service::{Phase, QuestionView};

/// Telegram's limit for a message is 4096 characters; the plan is cut well before it.
pub const MAX_TEXT_CHARS: usize = 4000;
const MAX_PLAN_CHARS: usize = 3000;
/// A button's text is cut here, so a long label still leaves room for its neighbours.
const MAX_BUTTON_CHARS: usize = 60;
/// An item that is not up, in a batch too long for one message, is one line of at most this.
const MAX_LINE_CHARS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    pub label: String,
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub text: String,
    /// Empty once the question ended: the message keeps only its text.
    pub rows: Vec<Vec<Button>>,
}

/// Whose question it is, as its first line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asker {
    /// The agent: Hark's own, or the outside agent (`hark mcp`) by name.
    pub agent: String,
    pub session_title: String,
}

/// How a question left the phone's hands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "how", content = "summary", rename_all = "snake_case")]
pub enum Ended {
    /// Answered from this phone; the summary of what was sent.
    HereAnswered(String),
    /// Answered in Hark (the window, the terminal, another surface) before the phone did.
    Elsewhere,
    /// It ended without an answer (cancelled, aborted, the asker went away).
    Closed,
    /// The agent took it back: no answer is needed.
    Withdrawn,
    /// Found no longer waiting when Hark came back (it ended while Hark was closed).
    Gone,
}

/// The card of a question still open: the asker, the question(s) with their options and where the
/// batch stands, and the buttons of the item that is up.
pub fn open_card(view: &QuestionView, asker: &Asker, draft: &Draft, only_that_it_waits: bool) -> Card {
    if only_that_it_waits {
        return Card { text: waiting_text(view), rows: Vec::new() };
    }
    let mut text = heading(view, asker);
    match &view.intent {
        Intent::PlanReview { plan } => {
            text.push_str("\n\nThe plan:\n");
            text.push_str(&cut(plan, MAX_PLAN_CHARS, "\n… (open Hark for the rest)"));
            let rows = vec![vec![
                Button { label: "Approve".into(), action: Action::Approve },
                Button { label: "Request changes…".into(), action: Action::Changes },
            ]];
            Card { text: cut(&text, MAX_TEXT_CHARS, "…"), rows }
        }
        Intent::Form { .. } => {
            text.push_str("\n\nA form from an MCP server waits: open Hark to fill it in.");
            Card { text: cut(&text, MAX_TEXT_CHARS, "…"), rows: Vec::new() }
        }
        // An approval is its one question (Allow once, Always allow, Deny, or a typed reason) under
        // what the agent will do.
        Intent::Approval { .. } | Intent::Question => {
            if let Intent::Approval { detail, .. } = &view.intent {
                text.push_str("\n\n");
                text.push_str(&cut(detail, MAX_PLAN_CHARS, "\n… (open Hark for the rest)"));
            }
            let current = draft.current();
            let count = view.questions.len();
            let mut whole = text.clone();
            for (item, q) in view.questions.iter().enumerate() {
                whole.push_str("\n\n");
                whole.push_str(&question_text(q, item, count, draft, current, None));
            }
            let text =
                if whole.chars().count() <= MAX_TEXT_CHARS { whole } else { compact(text, view, draft, current) };
            let approval = view.intent.is_approval();
            let rows = current
                .and_then(|item| view.questions.get(item).map(|q| buttons(q, item, draft, approval)))
                .unwrap_or_default();
            Card { text: cut(&text, MAX_TEXT_CHARS, "…"), rows }
        }
    }
}

/// A batch too long for one message: every item but the one up is a line, and the one up is shown
/// whole, its question cut to the room left, so the buttons always stand beside their question.
fn compact(heading: String, view: &QuestionView, draft: &Draft, current: Option<usize>) -> String {
    let count = view.questions.len();
    let line = |item: usize, q: &Question| {
        let name = q.header.as_deref().map(str::trim).filter(|h| !h.is_empty()).unwrap_or(&q.question);
        let mut line = format!("{}/{count} {}", item + 1, cut(&one_line(name), MAX_LINE_CHARS, "…"));
        if let Some(answer) = draft.answer(item) {
            line.push_str(&format!(" ✓ {}", cut(&summary_of(answer), MAX_LINE_CHARS, "…")));
        }
        line
    };
    let others: usize = view
        .questions
        .iter()
        .enumerate()
        .filter(|(item, _)| Some(*item) != current)
        .map(|(item, q)| line(item, q).chars().count() + 2)
        .sum();
    let room = MAX_TEXT_CHARS.saturating_sub(heading.chars().count() + others + 2);
    let mut text = heading;
    for (item, q) in view.questions.iter().enumerate() {
        text.push_str("\n\n");
        if Some(item) == current {
            text.push_str(&question_text(q, item, count, draft, current, Some(room)));
        } else {
            text.push_str(&line(item, q));
        }
    }
    text
}

/// The card once the question ended: what it asked, and how it ended; no buttons.
pub fn ended_card(view: &QuestionView, asker: &Asker, ended: &Ended, only_that_it_waits: bool) -> Card {
    let first = if only_that_it_waits { "A question waited in Hark.".to_string() } else { heading_line(view, asker) };
    let last = match ended {
        Ended::HereAnswered(summary) if only_that_it_waits => format!("✓ Answered: {summary}"),
        Ended::HereAnswered(summary) => format!("✓ Answered from this phone: {summary}"),
        Ended::Elsewhere => "✓ Already answered in Hark.".to_string(),
        Ended::Closed => "This question ended without an answer.".to_string(),
        Ended::Withdrawn => "The agent withdrew this question: no answer is needed.".to_string(),
        Ended::Gone => "This question is no longer waiting.".to_string(),
    };
    let middle = if only_that_it_waits {
        String::new()
    } else {
        view.questions.iter().map(|q| format!("\n{}", q.question)).collect::<String>()
    };
    Card { text: cut(&format!("{first}{middle}\n\n{last}"), MAX_TEXT_CHARS, "…"), rows: Vec::new() }
}

fn waiting_text(view: &QuestionView) -> String {
    let continued = matches!(view.phase, Phase::Continued { .. });
    if continued {
        "A question waits in Hark (the agent went on without your answer). Open Hark to answer it.".into()
    } else {
        "A question waits for you in Hark. Open Hark to answer it.".into()
    }
}

fn heading_line(view: &QuestionView, asker: &Asker) -> String {
    let kind = match &view.intent {
        Intent::PlanReview { .. } => "Plan review",
        Intent::Approval { .. } => "Approval",
        _ => "Question",
    };
    let title = asker.session_title.trim();
    if title.is_empty() {
        format!("❓ {kind} from {}", asker.agent)
    } else {
        format!("❓ {kind} from {} · {}", asker.agent, one_line(title))
    }
}

fn heading(view: &QuestionView, asker: &Asker) -> String {
    let mut text = heading_line(view, asker);
    if matches!(view.phase, Phase::Continued { .. }) {
        text.push_str("\nThe agent went on without your answer: answer any time, it reaches the agent as a message.");
    }
    text
}

/// One item of the card. `room`: the most characters it may take (the item up in a compact card):
/// its options are kept whole (descriptions shortened) and its question is cut to what is left.
fn question_text(
    q: &Question,
    item: usize,
    count: usize,
    draft: &Draft,
    current: Option<usize>,
    room: Option<usize>,
) -> String {
    let mut text = String::new();
    if count > 1 {
        text.push_str(&format!("{}/{count} ", item + 1));
    }
    if let Some(header) = q.header.as_deref().map(str::trim).filter(|h| !h.is_empty()) {
        text.push_str(&format!("{}: ", one_line(header)));
    }
    if let Some(answer) = draft.answer(item) {
        text.push_str(q.question.trim());
        text.push_str(&format!("\n✓ {}", summary_of(answer)));
        return text;
    }
    if current != Some(item) {
        text.push_str(q.question.trim());
        return text;
    }
    let mut options = String::new();
    if q.multi_select {
        options.push_str("\n(choose any, then Submit)");
    }
    for (i, option) in q.options.iter().enumerate() {
        let mark = if draft.is_ticked(item, i) { "☑" } else { "•" };
        options.push_str(&format!("\n{mark} {}", one_line(option.shown_label())));
        if option.is_recommended() {
            options.push_str(" (recommended)");
        }
        if let Some(d) = option.description.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
            let d = one_line(d);
            options.push_str(&format!(" — {}", if room.is_some() { cut(&d, MAX_LINE_CHARS, "…") } else { d }));
        }
    }
    let question = match room {
        Some(room) => {
            let left = room.saturating_sub(text.chars().count() + options.chars().count());
            cut(q.question.trim(), left.max(MAX_LINE_CHARS), "… (open Hark for the rest)")
        }
        None => q.question.trim().to_string(),
    };
    text.push_str(&question);
    text.push_str(&options);
    text
}

/// An approval's typed text is a reason to deny, and it has no skip: its own Deny says no.
fn buttons(q: &Question, item: usize, draft: &Draft, approval: bool) -> Vec<Vec<Button>> {
    let mut rows: Vec<Vec<Button>> = q
        .options
        .iter()
        .enumerate()
        .map(|(option, o)| {
            let shown = cut(&one_line(o.shown_label()), MAX_BUTTON_CHARS, "…");
            let button = if q.multi_select {
                let mark = if draft.is_ticked(item, option) { "☑ " } else { "☐ " };
                Button { label: format!("{mark}{shown}"), action: Action::Toggle { item, option } }
            } else {
                Button { label: shown, action: Action::Pick { item, option } }
            };
            vec![button]
        })
        .collect();
    if q.multi_select {
        rows.push(vec![Button { label: "Submit".into(), action: Action::Submit { item } }]);
    }
    if approval {
        rows.push(vec![Button { label: "Deny with a reason…".into(), action: Action::Other { item } }]);
        return rows;
    }
    let other = if q.is_free_form() { "Answer…" } else { "Other…" };
    rows.push(vec![
        Button { label: other.into(), action: Action::Other { item } },
        Button { label: "Skip".into(), action: Action::Skip { item } },
    ]);
    rows
}

/// One answer as the card repeats it.
pub fn summary_of(answer: &crate::question::Answer) -> String {
    match (&answer.custom, answer.selected.as_slice()) {
        (Some(custom), _) => format!("“{}”", cut(&one_line(custom), 200, "…")),
        (None, []) => "skipped".into(),
        (None, selected) => selected.join(", "),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `max` characters, `tail` included.
fn cut(text: &str, max: usize, tail: &str) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(tail.chars().count());
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::QuestionOption;

    fn view(questions: Vec<Question>) -> QuestionView {
        QuestionView {
            session_id: "s".into(),
            call_id: "c".into(),
            intent: Intent::Question,
            questions,
            phase: Phase::Foreground { wait: None },
            answerable: true,
            asked_at: None,
        }
    }

    #[test]
    fn the_recommendation_is_shown_never_chosen_and_descriptions_follow_labels() {
        let q = Question {
            id: "db".into(),
            question: "Which database?".into(),
            header: Some("Database".into()),
            options: vec![
                QuestionOption { label: "SQLite (Recommended)".into(), description: Some("one file".into()) },
                QuestionOption { label: "Postgres".into(), description: None },
            ],
            multi_select: false,
        };
        let v = view(vec![q.clone()]);
        let asker = Asker { agent: "Hark's agent".into(), session_title: "notes app".into() };
        let card = open_card(&v, &asker, &Draft::new(&v.questions), false);
        assert!(card.text.starts_with("❓ Question from Hark's agent · notes app"), "{}", card.text);
        assert!(
            card.text.contains("Database: Which database?\n• SQLite (recommended) — one file\n• Postgres"),
            "{}",
            card.text
        );
        let labels: Vec<&str> = card.rows.iter().flatten().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["SQLite", "Postgres", "Other…", "Skip"], "no button is marked chosen");
        let hidden = open_card(&v, &asker, &Draft::new(&v.questions), true);
        assert!(!hidden.text.contains("database") && !hidden.text.contains("notes app"), "{}", hidden.text);
    }

    #[test]
    fn an_approval_shows_what_the_agent_will_do_and_its_own_buttons() {
        let (intent, questions) = Intent::approval(
            "Claude Code",
            "Bash",
            &serde_json::json!({ "command": "npm publish --tag next", "description": "Publish" }),
            &serde_json::json!([{ "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "npm publish:*" }],
                                  "behavior": "allow", "destination": "localSettings" }]),
        );
        let v = QuestionView { intent, ..view(questions) };
        let asker = Asker { agent: "Claude Code".into(), session_title: "Claude Code · notes".into() };
        let card = open_card(&v, &asker, &Draft::new(&v.questions), false);
        assert!(card.text.starts_with("❓ Approval from Claude Code · Claude Code · notes"), "{}", card.text);
        assert!(card.text.contains("Publish\n$ npm publish --tag next"), "{}", card.text);
        assert!(card.text.contains("Allow Claude Code to run `npm publish --tag next`?"), "{}", card.text);
        let labels: Vec<&str> = card.rows.iter().flatten().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["Allow once", "Always allow", "Deny", "Deny with a reason…"]);
    }

    #[test]
    fn a_withdrawn_question_says_no_answer_is_needed() {
        let v = view(vec![]);
        let asker = Asker { agent: "Codex".into(), session_title: "Codex · notes".into() };
        let card = ended_card(&v, &asker, &Ended::Withdrawn, false);
        assert!(card.text.ends_with("The agent withdrew this question: no answer is needed."), "{}", card.text);
        assert!(card.rows.is_empty(), "no buttons left");
    }

    #[test]
    fn in_a_batch_too_long_for_one_message_the_item_up_keeps_its_question_beside_its_buttons() {
        let long = |n: usize| Question {
            id: format!("q{n}"),
            question: format!("Question {n}: {}", "words about it ".repeat(200)),
            header: None,
            options: vec![
                QuestionOption { label: format!("Yes {n}"), description: Some("d".repeat(300)) },
                QuestionOption { label: format!("No {n}"), description: None },
            ],
            multi_select: false,
        };
        let v = view(vec![long(1), long(2), long(3)]);
        let asker = Asker { agent: "Codex".into(), session_title: "notes".into() };
        let mut draft = Draft::new(&v.questions);
        let step = draft.apply(&v.questions, Action::Pick { item: 0, option: 0 });
        assert_eq!(step, crate::phone::Step::Redraw);
        let card = open_card(&v, &asker, &draft, false);
        assert!(card.text.chars().count() <= MAX_TEXT_CHARS, "{}", card.text.chars().count());
        assert!(card.text.contains("2/3 Question 2: words about it"), "the item up is there: {}", card.text);
        assert!(
            card.text.contains("\n• Yes 2 — ddd") && card.text.contains("\n• No 2"),
            "with its options: {}",
            card.text
        );
        assert!(card.text.contains("1/3 Question 1: words") && card.text.contains("✓ Yes 1"), "{}", card.text);
        let labels: Vec<&str> = card.rows.iter().flatten().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["Yes 2", "No 2", "Other…", "Skip"]);
    }

    #[test]
    fn a_long_plan_is_cut_with_a_pointer_to_hark() {
        let mut v = view(crate::question::plan_review_questions());
        v.intent = Intent::PlanReview { plan: "step\n".repeat(2000) };
        let asker = Asker { agent: "Hark's agent".into(), session_title: String::new() };
        let card = open_card(&v, &asker, &Draft::new(&v.questions), false);
        assert!(card.text.chars().count() <= MAX_TEXT_CHARS);
        assert!(card.text.contains("(open Hark for the rest)"));
        assert_eq!(card.rows[0].iter().map(|b| b.action).collect::<Vec<_>>(), [Action::Approve, Action::Changes]);
    }
}
