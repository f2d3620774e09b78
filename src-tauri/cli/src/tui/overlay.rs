//! The question overlay's state: which item and row the keyboard is on, each item's draft, and
//! what a key does, with the window panel's keys. Number keys choose (and toggle in a multi-select),
//! arrows move, Space toggles the highlighted option, `o` types an "Other" answer, `s` skips the
//! item (earlier drafts stay), Enter submits once every item is answered or skipped, Esc closes,
//! `t` takes your time on a timed question. Pure: the screen and the host are elsewhere.

use hark_core::question::{Answer, AnswerBatch, Intent, Question};

/// How many lines of a plan (or a form's reason and link) the overlay shows at once.
pub const CONTEXT_ROWS: usize = 6;
/// The width a plan is wrapped to, so every word of it is on the screen when its line is (the
/// narrowest terminal Hark is tried in is 60 columns, the overlay's border takes two).
pub const CONTEXT_WIDTH: usize = 56;

/// `text`'s lines wrapped to [`CONTEXT_WIDTH`], each keeping its indentation.
fn wrapped(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|line| {
            let body = line.trim_start_matches(' ');
            let indent = (line.len() - body.len()).min(CONTEXT_WIDTH / 2);
            let pad = " ".repeat(indent);
            super::view::wrap(body, CONTEXT_WIDTH - indent).into_iter().map(move |piece| format!("{pad}{piece}"))
        })
        .collect()
}

/// One item's answer so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Draft {
    Empty,
    /// Option indexes, in the order the options are listed.
    Chosen(Vec<usize>),
    Other(String),
    Skipped,
}

/// What a key asks of the overlay's owner.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Nothing beyond redrawing.
    None,
    Submit(AnswerBatch),
    /// Esc: the question is closed (`ASK_CANCELLED`).
    Close,
    /// `t` on a timed question: pause its deadline while it is shown.
    TakeTime,
}

/// A key, as the overlay reads it (so it can be tested without a terminal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Up,
    Down,
    Left,
    Right,
    Tab,
    BackTab,
    Enter,
    Esc,
    Backspace,
    PageUp,
    PageDown,
}

#[derive(Debug, Clone)]
pub struct Overlay {
    pub call_id: String,
    pub questions: Vec<Question>,
    /// The question continued: an answer now is a late one.
    pub late: bool,
    pub timed: bool,
    pub item: usize,
    /// The highlighted row of the item: an option, or the "Other" row after them.
    pub row: usize,
    pub drafts: Vec<Draft>,
    /// The "Other" text being typed for the item, while typing.
    pub typing: Option<String>,
    /// Why the last key did not do what it seemed to (shown under the overlay).
    pub notice: Option<String>,
    /// What the person must see with the question: the plan under review, or a form's reason and
    /// link. Model and server text: the view makes it safe.
    pub context: Vec<String>,
    /// The first line of `context` shown (PageUp / PageDown move it).
    pub context_top: usize,
    /// A plan review: Enter never chooses for the person, and Approve waits until the whole plan
    /// has been on the screen.
    pub review: bool,
    /// An approval: Allow or Deny only. Typed text is a reason to deny, and nothing is skipped (a
    /// skip would deny without saying so).
    pub approval: bool,
    /// How far into `context` the person has been shown.
    seen: usize,
}

impl Overlay {
    pub fn new(call_id: &str, questions: Vec<Question>, timed: bool, late: bool) -> Overlay {
        let drafts = vec![Draft::Empty; questions.len()];
        let mut overlay = Overlay {
            call_id: call_id.to_string(),
            questions,
            late,
            timed,
            item: 0,
            row: 0,
            drafts,
            typing: None,
            notice: None,
            context: Vec::new(),
            context_top: 0,
            review: false,
            approval: false,
            seen: 0,
        };
        overlay.enter_item(0);
        overlay
    }

    /// The overlay of a question asked with `intent`: a plan review shows its plan, a form its
    /// reason and (in URL mode) its link.
    pub fn with_intent(mut self, intent: &Intent) -> Overlay {
        match intent {
            Intent::Question => {}
            Intent::PlanReview { plan } => {
                self.context = wrapped(plan);
                self.review = true;
            }
            Intent::Approval { agent, tool, detail, .. } => {
                self.context = wrapped(&format!("{agent} asks to use {tool}:\n{detail}"));
                self.approval = true;
            }
            Intent::Form { server, message, url, .. } => {
                self.context = wrapped(&format!("The MCP server “{server}” asks: {message}"));
                self.context.extend(url.iter().flat_map(|url| wrapped(&format!("Link: {url}"))));
            }
        }
        self.seen = self.context.len().min(CONTEXT_ROWS);
        self
    }

    /// Whether every line of `context` has been on the screen.
    pub fn context_seen(&self) -> bool {
        self.seen >= self.context.len()
    }

    fn scroll(&mut self, down: bool) {
        let last_top = self.context.len().saturating_sub(CONTEXT_ROWS);
        self.context_top = if down {
            (self.context_top + CONTEXT_ROWS).min(last_top)
        } else {
            self.context_top.saturating_sub(CONTEXT_ROWS)
        };
        self.seen = self.seen.max((self.context_top + CONTEXT_ROWS).min(self.context.len()));
    }

    fn question(&self) -> &Question {
        &self.questions[self.item]
    }

    /// Rows of the current item: its options, then "Other".
    fn rows(&self) -> usize {
        self.question().options.len() + 1
    }

    /// Moves to item `item`, on its first row (a free-form item's only row is its text).
    fn enter_item(&mut self, item: usize) {
        self.item = item.min(self.questions.len().saturating_sub(1));
        self.row = 0;
        self.typing = None;
    }

    /// The next item without an answer after the current one (wrapping), if any.
    fn next_open(&self) -> Option<usize> {
        let n = self.questions.len();
        (1..=n).map(|step| (self.item + step) % n).find(|&i| self.drafts[i] == Draft::Empty)
    }

    fn advance(&mut self) {
        if let Some(next) = self.next_open() {
            self.enter_item(next);
        }
    }

    pub fn key(&mut self, key: Key) -> Action {
        self.notice = None;
        // The host never asks an empty batch; were one shown, any key closes it.
        if self.questions.is_empty() {
            return Action::Close;
        }
        if let Key::PageUp | Key::PageDown = key {
            self.scroll(key == Key::PageDown);
            return Action::None;
        }
        if self.typing.is_some() {
            return self.type_key(key);
        }
        match key {
            Key::Esc => return Action::Close,
            Key::Up => self.row = (self.row + self.rows() - 1) % self.rows(),
            Key::Down => self.row = (self.row + 1) % self.rows(),
            Key::Right | Key::Tab => self.enter_item((self.item + 1) % self.questions.len()),
            Key::Left | Key::BackTab => self.enter_item((self.item + self.questions.len() - 1) % self.questions.len()),
            Key::Char(' ') => self.pick_row(),
            Key::Char('o') => self.start_typing(),
            Key::Char('s') if self.approval => {
                self.notice = Some("An approval is allowed or denied: o types a reason to deny.".into());
            }
            Key::Char('s') => {
                self.drafts[self.item] = Draft::Skipped;
                self.advance();
            }
            Key::Char('t') if self.timed && !self.late => return Action::TakeTime,
            Key::Char(c) if c.is_ascii_digit() && c != '0' => {
                let index = c as usize - '1' as usize;
                if index < self.question().options.len() {
                    self.row = index;
                    self.pick_row();
                }
            }
            Key::Enter => return self.enter(),
            _ => {}
        }
        Action::None
    }

    /// A key while "Other" text is typed: Enter keeps the text (empty text keeps the draft there
    /// was) and takes up the next open item, or submits when none is left; Esc stops typing.
    fn type_key(&mut self, key: Key) -> Action {
        let Some(text) = self.typing.as_mut() else { return Action::None };
        match key {
            Key::Char(c) => text.push(c),
            Key::Backspace => {
                text.pop();
            }
            Key::Enter => {
                let typed = text.trim().to_string();
                self.typing = None;
                if !typed.is_empty() {
                    self.drafts[self.item] = Draft::Other(typed);
                }
                if self.drafts[self.item] != Draft::Empty {
                    if self.next_open().is_none() {
                        return self.submit_or_point();
                    }
                    self.advance();
                }
            }
            Key::Esc => self.typing = None,
            Key::Tab | Key::Right => self.enter_item((self.item + 1) % self.questions.len()),
            Key::BackTab | Key::Left => self.enter_item((self.item + self.questions.len() - 1) % self.questions.len()),
            Key::Up | Key::Down | Key::PageUp | Key::PageDown => {}
        }
        Action::None
    }

    fn start_typing(&mut self) {
        self.row = self.rows() - 1;
        let text = match &self.drafts[self.item] {
            Draft::Other(text) => text.clone(),
            _ => String::new(),
        };
        self.typing = Some(text);
    }

    /// Space or a number on the highlighted row: a single choice is made (and the next item taken
    /// up), a multi-select option toggled, "Other" typed.
    fn pick_row(&mut self) {
        if self.row == self.rows() - 1 {
            return self.start_typing();
        }
        let row = self.row;
        // Approving a plan means having read it: the rest of a long one is shown first.
        if self.review && !self.context_seen() {
            self.notice = Some("Read the whole plan before you approve it: PageDown shows the rest.".into());
            return;
        }
        if self.question().multi_select {
            let mut chosen = match &self.drafts[self.item] {
                Draft::Chosen(chosen) => chosen.clone(),
                _ => Vec::new(),
            };
            match chosen.iter().position(|&i| i == row) {
                Some(at) => {
                    chosen.remove(at);
                }
                None => {
                    chosen.push(row);
                    chosen.sort_unstable();
                }
            }
            self.drafts[self.item] = if chosen.is_empty() { Draft::Empty } else { Draft::Chosen(chosen) };
        } else {
            self.drafts[self.item] = Draft::Chosen(vec![row]);
            self.advance();
        }
    }

    fn enter(&mut self) -> Action {
        if self.row == self.rows() - 1 && self.drafts[self.item] == Draft::Empty {
            self.start_typing();
            return Action::None;
        }
        // Enter alone never approves a plan: the person chooses with a number or Space.
        if self.review && self.drafts[self.item] == Draft::Empty {
            self.notice = Some("Choose 1 to approve the plan, or o to say what to change.".into());
            return Action::None;
        }
        if self.drafts[self.item] == Draft::Empty && !self.question().multi_select {
            self.pick_row();
        }
        self.submit_or_point()
    }

    /// Submits when every item is answered or skipped; else points at the first that is not.
    fn submit_or_point(&mut self) -> Action {
        match self.drafts.iter().position(|d| *d == Draft::Empty) {
            None => Action::Submit(self.batch()),
            Some(open) => {
                self.enter_item(open);
                self.notice = Some("Answer or skip (s) every question before Enter submits.".into());
                Action::None
            }
        }
    }

    pub fn batch(&self) -> AnswerBatch {
        let answers = self
            .questions
            .iter()
            .zip(&self.drafts)
            .map(|(q, draft)| {
                let (selected, custom) = match draft {
                    Draft::Chosen(chosen) => {
                        (chosen.iter().filter_map(|&i| q.options.get(i)).map(|o| o.label.clone()).collect(), None)
                    }
                    Draft::Other(text) => (Vec::new(), Some(text.clone())),
                    Draft::Empty | Draft::Skipped => (Vec::new(), None),
                };
                Answer { id: q.id.clone(), selected, custom }
            })
            .collect();
        AnswerBatch { answers }
    }

    /// How many items are answered or skipped.
    pub fn done(&self) -> usize {
        self.drafts.iter().filter(|d| **d != Draft::Empty).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hark_core::question::QuestionOption;

    fn question(id: &str, options: &[&str], multi: bool) -> Question {
        Question {
            id: id.into(),
            question: format!("{id}?"),
            header: None,
            options: options.iter().map(|l| QuestionOption { label: l.to_string(), description: None }).collect(),
            multi_select: multi,
        }
    }

    fn batch() -> Vec<Question> {
        vec![
            question("db", &["SQLite", "Postgres", "None"], false),
            question("extras", &["Docs", "Tests", "CI"], true),
            question("name", &[], false),
        ]
    }

    fn keys(overlay: &mut Overlay, keys: &[Key]) -> Action {
        let mut last = Action::None;
        for key in keys {
            last = overlay.key(*key);
        }
        last
    }

    fn typed(text: &str) -> Vec<Key> {
        text.chars().map(Key::Char).collect()
    }

    #[test]
    fn a_plan_is_approved_only_by_a_choice_and_only_once_all_of_it_was_shown() {
        let plan: String = (1..=20).map(|n| format!("{n}. step {n}\n")).collect();
        let review = Intent::PlanReview { plan };
        let mut o = Overlay::new("p1", hark_core::question::plan_review_questions(), false, false).with_intent(&review);
        assert_eq!(o.context.len(), 20);
        assert_eq!(keys(&mut o, &[Key::Enter]), Action::None, "Enter alone approves nothing");
        assert!(o.notice.as_deref().unwrap_or_default().contains("Choose 1"), "{:?}", o.notice);
        assert_eq!(keys(&mut o, &[Key::Char('1')]), Action::None, "the rest is unseen");
        assert!(o.notice.as_deref().unwrap_or_default().contains("PageDown"), "{:?}", o.notice);
        assert_eq!(o.drafts[0], Draft::Empty);
        keys(&mut o, &[Key::PageDown, Key::PageDown]);
        assert!(!o.context_seen(), "lines 13 to 18 shown, not yet the last two");
        keys(&mut o, &[Key::PageDown, Key::PageDown]);
        assert_eq!(o.context_top, 14, "the last page: lines 15 to 20");
        assert!(o.context_seen());
        keys(&mut o, &[Key::PageUp]);
        assert_eq!(o.context_top, 8);
        match keys(&mut o, &[Key::Char('1'), Key::Enter]) {
            Action::Submit(batch) => assert_eq!(batch.answers[0].selected, vec!["Approve".to_string()]),
            other => panic!("approved once read: {other:?}"),
        }
        // Asking for changes needs no scrolling: the person says what to change.
        let mut o = Overlay::new("p2", hark_core::question::plan_review_questions(), false, false)
            .with_intent(&Intent::PlanReview { plan: "1. a\n".repeat(30) });
        let mut pressed = vec![Key::Char('o')];
        pressed.extend(typed("shorter"));
        pressed.push(Key::Enter);
        assert!(
            matches!(keys(&mut o, &pressed), Action::Submit(b) if b.answers[0].custom.as_deref() == Some("shorter"))
        );
    }

    #[test]
    fn a_long_plan_line_is_wrapped_so_all_of_it_is_paged_through() {
        let long = "1. Rewrite the storage layer so that every note is kept in SQLite with its history, and migrate the old files";
        let o = Overlay::new("p1", hark_core::question::plan_review_questions(), false, false)
            .with_intent(&Intent::PlanReview { plan: format!("{long}\n   - keep the old files") });
        assert!(o.context.iter().all(|l| l.chars().count() <= CONTEXT_WIDTH), "{:?}", o.context);
        assert_eq!(
            o.context.join(" ").split_whitespace().collect::<Vec<_>>().join(" "),
            format!("{long} - keep the old files")
        );
        assert_eq!(o.context.last().map(String::as_str), Some("   - keep the old files"), "indentation kept");
    }

    #[test]
    fn a_forms_reason_and_link_are_shown_with_it() {
        let form = Intent::Form {
            server: "deploy".into(),
            message: "Sign in".into(),
            url: Some("https://auth.example.com/x".into()),
            fields: Vec::new(),
        };
        let o = Overlay::new("f1", batch(), false, false).with_intent(&form);
        assert_eq!(o.context, ["The MCP server “deploy” asks: Sign in", "Link: https://auth.example.com/x"]);
        assert!(!o.review && o.context_seen());
    }

    #[test]
    fn an_approval_shows_who_asks_to_use_which_tool_and_what_it_will_do() {
        let (intent, questions) = Intent::approval(
            "Codex",
            "Bash",
            &serde_json::json!({ "command": "rm -rf build", "description": "Clean" }),
            &serde_json::Value::Null,
        );
        let mut o = Overlay::new("a1", questions, false, false).with_intent(&intent);
        assert_eq!(o.context, ["Codex asks to use Bash:", "Clean", "$ rm -rf build"]);
        assert!(!o.review);
        // Nothing is skipped: s says how to deny instead, and the draft stays empty.
        keys(&mut o, &[Key::Char('s')]);
        assert_eq!(o.drafts[0], Draft::Empty);
        assert!(o.notice.as_deref().is_some_and(|n| n.contains("deny")), "{:?}", o.notice);
    }

    #[test]
    fn a_batch_is_answered_with_numbers_space_arrows_and_typing() {
        let mut o = Overlay::new("c1", batch(), false, false);
        assert_eq!(keys(&mut o, &[Key::Char('2')]), Action::None);
        assert_eq!(o.item, 1, "a single choice takes up the next item");
        keys(&mut o, &[Key::Char('1'), Key::Down, Key::Down, Key::Char(' '), Key::Char('3'), Key::Tab]);
        assert_eq!(o.drafts[1], Draft::Chosen(vec![0]), "Space on CI toggled it on, then 3 toggled it off");
        assert_eq!(keys(&mut o, &[Key::Enter]), Action::None);
        assert!(o.typing.is_some(), "Enter on a free-form item types its answer");
        let mut rest = typed("notes");
        rest.push(Key::Enter);
        match keys(&mut o, &rest) {
            Action::Submit(batch) => {
                assert_eq!(batch.answers[0].selected, ["Postgres"]);
                assert_eq!(batch.answers[1].selected, ["Docs"]);
                assert_eq!(batch.answers[2].custom.as_deref(), Some("notes"));
            }
            other => panic!("the last answer submits: {other:?}"),
        }
    }

    #[test]
    fn enter_points_at_an_unanswered_item_and_skip_keeps_earlier_drafts() {
        let mut o = Overlay::new("c1", batch(), false, false);
        keys(&mut o, &[Key::Char('1'), Key::Char('2')]);
        assert_eq!(keys(&mut o, &[Key::Enter]), Action::None);
        assert!(o.notice.is_some(), "told why nothing was sent");
        assert_eq!(o.item, 2, "the free-form item still needs an answer");
        assert_eq!(o.key(Key::Esc), Action::Close);
        let mut o = Overlay::new("c1", batch(), false, false);
        keys(&mut o, &[Key::Char('1'), Key::Char('s'), Key::Left, Key::Left]);
        assert_eq!((o.item, &o.drafts[0]), (0, &Draft::Chosen(vec![0])), "back on the first item, its draft kept");
        match keys(&mut o, &[Key::Tab, Key::Tab, Key::Char('s'), Key::Enter]) {
            Action::Submit(batch) => {
                assert_eq!(batch.answers[0].selected, ["SQLite"], "the earlier draft stayed");
                assert!(batch.answers[1].selected.is_empty() && batch.answers[1].custom.is_none(), "skipped");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn other_text_replaces_a_choice_and_esc_closes() {
        let mut o = Overlay::new("c1", vec![question("db", &["SQLite", "Postgres"], false)], true, false);
        let mut k = vec![Key::Char('o')];
        k.extend(typed("DuckDB"));
        k.push(Key::Enter);
        match keys(&mut o, &k) {
            Action::Submit(batch) => assert_eq!(batch.answers[0].custom.as_deref(), Some("DuckDB")),
            other => panic!("{other:?}"),
        }
        let mut o = Overlay::new("c1", vec![question("db", &["SQLite"], false)], true, false);
        assert_eq!(o.key(Key::Char('t')), Action::TakeTime);
        assert_eq!(o.key(Key::Esc), Action::Close);
        let mut late = Overlay::new("c1", vec![question("db", &["SQLite"], false)], true, true);
        assert_eq!(late.key(Key::Char('t')), Action::None, "a continued question has no deadline to pause");
    }
}
