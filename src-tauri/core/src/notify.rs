//! When and what to tell a person who is not looking: the OS-notification and tray policy. Pure, so
//! it is unit-tested here; the desktop shell only renders its decisions (notify-rust, tray menu).

use serde::Serialize;

use crate::question::{Answer, AnswerBatch, Question, QuestionOption, RECOMMENDED_MARK};
use crate::session::SessionSummary;

/// A notification's body is cut here (in characters): servers show two or three lines at most.
pub const BODY_MAX_CHARS: usize = 180;
/// Questions with more options than this get "Answer…" only: servers show few buttons well.
pub const MAX_OPTION_ACTIONS: usize = 3;

pub const ACTION_ANSWER: &str = "answer";
/// What the server reports when the body itself is clicked.
pub const ACTION_DEFAULT: &str = "default";
/// The action servers with `inline-reply` draw as a text field; what is typed comes back as
/// `NotificationReplied`.
pub const ACTION_INLINE_REPLY: &str = "inline-reply";
const OPTION_PREFIX: &str = "option:";

/// What the person chose about notifications, and what the desktop knows right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotifyContext {
    pub enabled: bool,
    pub do_not_disturb: bool,
    /// The window has focus (the person sees the panel and the rows change).
    pub window_focused: bool,
    /// The notification server advertises the `actions` capability.
    pub server_has_actions: bool,
    /// It also advertises `inline-reply` (KDE Plasma, swaync): text can be typed into the notice.
    pub server_has_inline_reply: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    /// A question waits in the foreground.
    Asked,
    /// A timed question's foreground wait ended; it stays answerable.
    Continued,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotifyAction {
    /// The id the server reports back on `ActionInvoked`.
    pub id: String,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    pub session_id: String,
    pub call_id: String,
    pub kind: NotificationKind,
    pub title: String,
    pub body: String,
    /// In display order, the default (body click) first; empty when the server cannot show actions.
    pub actions: Vec<NotifyAction>,
}

/// Whether to show anything now.
pub fn should_notify(ctx: &NotifyContext) -> bool {
    ctx.enabled && !ctx.do_not_disturb && !ctx.window_focused
}

/// The notification for a question of `session_title`, or `None` when the context says to stay quiet.
pub fn notice(
    ctx: &NotifyContext,
    kind: NotificationKind,
    session_id: &str,
    session_title: &str,
    call_id: &str,
    questions: &[Question],
) -> Option<Notice> {
    notice_from(ctx, kind, session_id, session_title, call_id, questions, "The agent")
}

/// The notification for an outside agent's question (`hark mcp`): the agent is named, in the title
/// and where it went on, since the question is not from Hark's own agent.
pub fn client_notice(
    ctx: &NotifyContext,
    kind: NotificationKind,
    session_id: &str,
    client: &str,
    call_id: &str,
    questions: &[Question],
) -> Option<Notice> {
    let mut notice = notice_from(ctx, kind, session_id, "", call_id, questions, client)?;
    let title = match (questions, questions.first().and_then(|q| q.header.as_deref()).map(str::trim)) {
        ([_], Some(header)) if !header.is_empty() => format!("{client} asks · {header}"),
        _ => format!("{client} asks"),
    };
    notice.title = truncate(&one_line(&title), 80);
    Some(notice)
}

fn notice_from(
    ctx: &NotifyContext,
    kind: NotificationKind,
    session_id: &str,
    session_title: &str,
    call_id: &str,
    questions: &[Question],
    who: &str,
) -> Option<Notice> {
    if !should_notify(ctx) || questions.is_empty() {
        return None;
    }
    let first = &questions[0];
    let title = match (questions.len(), first.header.as_deref().map(str::trim)) {
        (1, Some(h)) if !h.is_empty() => h.to_string(),
        _ if !session_title.trim().is_empty() => session_title.trim().to_string(),
        _ => "Hark".to_string(),
    };
    let asked = match questions.len() {
        1 => first.question.clone(),
        n => format!("{n} questions: {}", first.question),
    };
    let body = match kind {
        NotificationKind::Asked => asked,
        NotificationKind::Continued => {
            format!("{who} went on without your answer — answer any time. {asked}")
        }
    };
    let mut actions = Vec::new();
    if ctx.server_has_actions {
        // The default action is what clicking the body reports; servers do not draw it as a button.
        actions.push(NotifyAction { id: ACTION_DEFAULT.into(), label: "Open".into() });
        actions.extend(option_actions(questions).unwrap_or_default());
        // Typed text answers one question as its "Other"; a batch is answered in the window.
        if ctx.server_has_inline_reply && questions.len() == 1 {
            actions.push(NotifyAction { id: ACTION_INLINE_REPLY.into(), label: "Reply…".into() });
        }
        actions.push(NotifyAction { id: ACTION_ANSWER.into(), label: "Answer…".into() });
    }
    Some(Notice {
        session_id: session_id.to_string(),
        call_id: call_id.to_string(),
        kind,
        title: truncate(&one_line(&title), 80),
        body: truncate(&one_line(&body), BODY_MAX_CHARS),
        actions,
    })
}

/// The notification for a plan review: what the plan begins with, and only ways to open the window.
/// A plan is approved where it can be read, never from a button beside its first line.
pub fn review_notice(
    ctx: &NotifyContext,
    session_id: &str,
    session_title: &str,
    call_id: &str,
    plan: &str,
) -> Option<Notice> {
    if !should_notify(ctx) {
        return None;
    }
    let opening = plan.lines().map(|l| l.trim_start_matches(['#', ' ', '-', '*', '>'])).find(|l| !l.trim().is_empty());
    let body = format!("The agent asks you to review its plan: {}", opening.unwrap_or("(empty)"));
    let title = if session_title.trim().is_empty() { "Hark" } else { session_title.trim() };
    let mut actions = Vec::new();
    if ctx.server_has_actions {
        actions.push(NotifyAction { id: ACTION_DEFAULT.into(), label: "Open".into() });
        actions.push(NotifyAction { id: ACTION_ANSWER.into(), label: "Review plan…".into() });
    }
    Some(Notice {
        session_id: session_id.to_string(),
        call_id: call_id.to_string(),
        kind: NotificationKind::Asked,
        title: truncate(&one_line(title), 80),
        body: truncate(&one_line(&body), BODY_MAX_CHARS),
        actions,
    })
}

/// The notification for an MCP server's form: who asks and why, with the same buttons as a plain
/// question (one per option when the form is a single choice).
pub fn form_notice(
    ctx: &NotifyContext,
    session_id: &str,
    server: &str,
    message: &str,
    call_id: &str,
    questions: &[Question],
) -> Option<Notice> {
    let mut notice = notice(ctx, NotificationKind::Asked, session_id, "", call_id, questions)?;
    notice.title = truncate(&one_line(&format!("MCP server {server} asks")), 80);
    let asked = match questions {
        [q] if !q.options.is_empty() && q.question != message => format!("{message} — {}", q.question),
        _ => message.to_string(),
    };
    notice.body = truncate(&one_line(&asked), BODY_MAX_CHARS);
    Some(notice)
}

/// The notification for an agent's permission request: titled with the agent and the folder it
/// works in (its session is "<agent> · <folder>"), its body the question (what the agent will do), a
/// button per answer (Allow once, Always allow where offered, Deny); a typed reply denies with that
/// reason.
pub fn approval_notice(
    ctx: &NotifyContext,
    session_id: &str,
    session_title: &str,
    agent: &str,
    call_id: &str,
    questions: &[Question],
) -> Option<Notice> {
    let mut notice = notice(ctx, NotificationKind::Asked, session_id, "", call_id, questions)?;
    let folder = session_title.strip_prefix(&format!("{agent} · ")).unwrap_or(session_title).trim();
    let title = match folder {
        "" => format!("{agent} asks permission"),
        folder => format!("{agent} asks permission · {folder}"),
    };
    notice.title = truncate(&one_line(&title), 80);
    Some(notice)
}

/// One button per option: only for a single single-select question with few options.
fn option_actions(questions: &[Question]) -> Option<Vec<NotifyAction>> {
    let [q] = questions else { return None };
    if q.multi_select || q.options.is_empty() || q.options.len() > MAX_OPTION_ACTIONS {
        return None;
    }
    Some(
        q.options
            .iter()
            .enumerate()
            .map(|(i, o)| NotifyAction { id: format!("{OPTION_PREFIX}{i}"), label: action_label(o) })
            .collect(),
    )
}

/// A button's text: the option's label, its recommendation mark kept whole however short the
/// button (a notification has no badge to draw, so the mark is the badge).
fn action_label(option: &QuestionOption) -> String {
    const MAX: usize = 40;
    if !option.is_recommended() {
        return truncate(&one_line(&option.label), MAX);
    }
    let room = MAX - RECOMMENDED_MARK.len() - 1;
    format!("{} {RECOMMENDED_MARK}", truncate(&one_line(option.shown_label()), room))
}

/// Whether choosing the action answers the question by itself (an option's button), rather than
/// opening the window: a system that may report some action on its own must report one that does not.
pub fn answers_directly(action: &str) -> bool {
    action.starts_with(OPTION_PREFIX)
}

/// What an action the server reported means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionChoice {
    /// Answer with this batch, through the same path as the panel.
    Answer(AnswerBatch),
    /// Bring the window up on the question.
    Focus,
    /// "Answer…": the person wants to answer; with several questions waiting the window opens on
    /// its inbox of all of them (see [`answer_opens_inbox`]), else on this question.
    Choose,
    /// Closed or unknown: nothing to do.
    Ignore,
}

/// Maps an action id back to an answer for `questions` (the ones the notice was built from).
pub fn interpret(action: &str, questions: &[Question]) -> ActionChoice {
    match action {
        ACTION_ANSWER => return ActionChoice::Choose,
        ACTION_DEFAULT => return ActionChoice::Focus,
        _ => {}
    }
    let Some(index) = action.strip_prefix(OPTION_PREFIX).and_then(|i| i.parse::<usize>().ok()) else {
        return ActionChoice::Ignore;
    };
    match option_actions(questions).and(questions.first()) {
        Some(q) => match q.options.get(index) {
            Some(option) => ActionChoice::Answer(AnswerBatch {
                answers: vec![Answer { id: q.id.clone(), selected: vec![option.label.clone()], custom: None }],
            }),
            None => ActionChoice::Ignore,
        },
        None => ActionChoice::Ignore,
    }
}

/// Whether "Answer…" opens the inbox: when more questions than this one wait, the person answers
/// them in one place rather than session by session.
pub fn answer_opens_inbox(waiting: usize) -> bool {
    waiting > 1
}

/// What text typed into a notice's inline reply does: it answers its one question in the person's
/// own words (as "Other"); empty text, or a notice of several questions, opens the window instead.
pub fn interpret_reply(text: &str, questions: &[Question]) -> ActionChoice {
    let text = text.trim();
    match questions {
        [q] if !text.is_empty() && text.chars().count() <= crate::question::limits::MAX_CUSTOM_CHARS => {
            ActionChoice::Answer(AnswerBatch {
                answers: vec![Answer { id: q.id.clone(), selected: Vec::new(), custom: Some(text.to_string()) }],
            })
        }
        _ => ActionChoice::Focus,
    }
}

/// What the window says when an answer given from a notification was refused (`code`, `message`: the
/// refusal). A click on a notification still on screen is the person answering; it must never vanish.
pub fn refusal_text(code: &str, message: &str) -> String {
    let why = match code {
        "NOT_PENDING" => "this question was already answered or closed".to_string(),
        "REPLY_QUEUED" => "an answer to this question is already waiting to reach the agent".to_string(),
        _ => message.to_string(),
    };
    format!("Your answer from the notification was not taken: {why}.")
}

/// Notification servers that advertise `body-markup` read `<b>`, `<a href>` and `<img>` in the body:
/// model text must reach them as text.
pub fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts at a character boundary, preferring the last word break, and marks the cut.
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let at_word = match cut.rfind(' ') {
        Some(i) if i > cut.len() / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", at_word.trim_end())
}

/// The tray: how many questions wait, and in which sessions (most recent first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraySummary {
    pub waiting: u32,
    pub sessions: Vec<TrayEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrayEntry {
    pub session_id: String,
    pub label: String,
    pub waiting: u32,
}

/// Menu entries are capped so the menu stays usable; the count still covers every session.
pub const TRAY_MAX_ENTRIES: usize = 10;

pub fn tray_summary(sessions: &[SessionSummary]) -> TraySummary {
    let waiting_in = |s: &SessionSummary| s.open_questions + s.continued_questions;
    let waiting = sessions.iter().map(waiting_in).sum();
    let entries = sessions
        .iter()
        .filter(|s| waiting_in(s) > 0)
        .take(TRAY_MAX_ENTRIES)
        .map(|s| {
            let n = waiting_in(s);
            let title = truncate(&one_line(&s.title), 40);
            let label = format!("{title} — {n} question{} waiting", if n == 1 { "" } else { "s" });
            TrayEntry { session_id: s.id.clone(), label, waiting: n }
        })
        .collect();
    TraySummary { waiting, sessions: entries }
}

/// The tray's tooltip / label text.
pub fn tray_title(summary: &TraySummary) -> String {
    match summary.waiting {
        0 => "Hark".into(),
        1 => "Hark — 1 question waiting".into(),
        n => format!("Hark — {n} questions waiting"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::QuestionOption;

    fn ctx() -> NotifyContext {
        NotifyContext {
            enabled: true,
            do_not_disturb: false,
            window_focused: false,
            server_has_actions: true,
            server_has_inline_reply: false,
        }
    }

    fn single(options: &[&str]) -> Question {
        Question {
            id: "db".into(),
            question: "Which database should the notes app use?".into(),
            header: Some("Database".into()),
            options: options.iter().map(|l| QuestionOption { label: l.to_string(), description: None }).collect(),
            multi_select: false,
        }
    }

    #[test]
    fn only_an_options_button_answers_by_itself() {
        let ctx = NotifyContext { server_has_inline_reply: true, ..ctx() };
        let n = notice(&ctx, NotificationKind::Asked, "s1", "Notes", "c1", &[single(&["Postgres", "SQLite"])]).unwrap();
        let direct: Vec<&str> = n.actions.iter().map(|a| a.id.as_str()).filter(|id| answers_directly(id)).collect();
        assert_eq!(direct.len(), 2, "{:?}", n.actions);
        for id in direct {
            assert!(matches!(interpret(id, &[single(&["Postgres", "SQLite"])]), ActionChoice::Answer(_)));
        }
        for id in [ACTION_DEFAULT, ACTION_ANSWER, ACTION_INLINE_REPLY] {
            assert!(!answers_directly(id), "{id}");
        }
    }

    #[test]
    fn a_refused_notification_answer_is_explained_in_words() {
        assert_eq!(
            refusal_text("NOT_PENDING", "question call_1 is not waiting in the foreground"),
            "Your answer from the notification was not taken: this question was already answered or closed."
        );
        assert!(refusal_text("REPLY_QUEUED", "x").contains("already waiting to reach the agent"));
        assert_eq!(
            refusal_text("STORE_IO", "the disk is full"),
            "Your answer from the notification was not taken: the disk is full."
        );
    }

    fn asked(ctx: &NotifyContext, questions: &[Question]) -> Option<Notice> {
        notice(ctx, NotificationKind::Asked, "s1", "Plan the notes app", "call_1", questions)
    }

    #[test]
    fn an_outside_agents_question_names_it() {
        let q = [single(&["SQLite", "Postgres"])];
        let n = client_notice(&ctx(), NotificationKind::Asked, "s1", "Claude Code", "mcp-1", &q).unwrap();
        assert_eq!(n.title, "Claude Code asks · Database");
        assert_eq!(n.body, "Which database should the notes app use?");
        assert_eq!(n.actions.len(), 4, "Open, the two options, Answer: {:?}", n.actions);
        let later =
            client_notice(&ctx(), NotificationKind::Continued, "s1", "Codex", "mcp-1", &[q[0].clone(), q[0].clone()]);
        let later = later.unwrap();
        assert_eq!(later.title, "Codex asks");
        assert!(later.body.starts_with("Codex went on without your answer"), "{}", later.body);
        let quiet = NotifyContext { window_focused: true, ..ctx() };
        assert!(client_notice(&quiet, NotificationKind::Asked, "s1", "Codex", "mcp-1", &q).is_none());
    }

    #[test]
    fn quiet_when_focused_disabled_or_do_not_disturb() {
        let q = [single(&["SQLite", "Postgres"])];
        assert!(asked(&ctx(), &q).is_some());
        assert!(asked(&NotifyContext { window_focused: true, ..ctx() }, &q).is_none());
        assert!(asked(&NotifyContext { enabled: false, ..ctx() }, &q).is_none());
        assert!(asked(&NotifyContext { do_not_disturb: true, ..ctx() }, &q).is_none());
    }

    #[test]
    fn a_small_single_select_gets_one_action_per_option_then_answer() {
        let n = asked(&ctx(), &[single(&["SQLite", "Postgres", "None"])]).unwrap();
        assert_eq!(n.title, "Database");
        assert_eq!(n.body, "Which database should the notes app use?");
        let labels: Vec<&str> = n.actions.iter().map(|a| a.label.as_str()).collect();
        assert_eq!(labels, ["Open", "SQLite", "Postgres", "None", "Answer…"]);
        assert_eq!(n.actions[0].id, ACTION_DEFAULT);
        assert_eq!(
            interpret(&n.actions[2].id, &[single(&["SQLite", "Postgres", "None"])]),
            ActionChoice::Answer(AnswerBatch {
                answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }]
            })
        );
    }

    #[test]
    fn everything_else_gets_answer_only() {
        let four = [single(&["a", "b", "c", "d"])];
        let multi = [Question { multi_select: true, ..single(&["a", "b"]) }];
        let free = [single(&[])];
        let two = [single(&["a", "b"]), single(&["c", "d"])];
        for questions in [&four[..], &multi[..], &free[..], &two[..]] {
            let n = asked(&ctx(), questions).unwrap();
            let ids: Vec<&str> = n.actions.iter().map(|a| a.id.as_str()).collect();
            assert_eq!(ids, [ACTION_DEFAULT, ACTION_ANSWER]);
            assert_eq!(interpret("option:0", questions), ActionChoice::Ignore, "no option actions to map back");
        }
        let n = asked(&ctx(), &two).unwrap();
        assert_eq!(n.title, "Plan the notes app", "several questions: the session title");
        assert!(n.body.starts_with("2 questions: "), "{}", n.body);
    }

    #[test]
    fn without_the_actions_capability_the_notification_is_body_only() {
        let n = asked(&NotifyContext { server_has_actions: false, ..ctx() }, &[single(&["a", "b"])]).unwrap();
        assert!(n.actions.is_empty());
        assert!(!n.body.is_empty());
    }

    #[test]
    fn continued_says_so_and_long_text_is_cut_on_a_word() {
        let long = Question { question: format!("{} end", "word ".repeat(100)), ..single(&["a"]) };
        let n = notice(&ctx(), NotificationKind::Continued, "s", "t", "c", &[long]).unwrap();
        assert!(n.body.starts_with("The agent went on without your answer — answer any time."));
        assert!(n.body.chars().count() <= BODY_MAX_CHARS);
        assert!(n.body.ends_with("word…"), "{}", n.body);
        let newlines = Question { question: "line one\nline\ttwo".into(), header: None, ..single(&["a"]) };
        let n = asked(&ctx(), &[newlines]).unwrap();
        assert_eq!(n.body, "line one line two");
        assert_eq!(n.title, "Plan the notes app");
    }

    #[test]
    fn markup_in_model_text_is_escaped_for_the_server() {
        let escaped = escape_markup("<a href=\"https://x\">click</a> & <img src=x>");
        assert_eq!(escaped, "&lt;a href=\"https://x\"&gt;click&lt;/a&gt; &amp; &lt;img src=x&gt;");
    }

    #[test]
    fn a_recommended_option_keeps_its_mark_on_its_button_and_answers_with_its_whole_label() {
        let long = format!("{} (recommended)", "very ".repeat(12));
        let q = [single(&["Postgres (Recommended)", "SQLite", &long])];
        let n = asked(&ctx(), &q).unwrap();
        let labels: Vec<&str> = n.actions.iter().map(|a| a.label.as_str()).collect();
        assert_eq!(labels[1..3], ["Postgres (Recommended)", "SQLite"]);
        assert!(labels[3].ends_with("… (Recommended)") && labels[3].chars().count() <= 40, "{}", labels[3]);
        let ActionChoice::Answer(batch) = interpret(&n.actions[1].id, &q) else { panic!("an answer") };
        assert_eq!(batch.answers[0].selected, ["Postgres (Recommended)"]);
    }

    #[test]
    fn the_recommendation_mark_needs_a_label_before_it() {
        let option = |label: &str| QuestionOption { label: label.into(), description: None };
        assert!(option("Postgres (recommended) ").is_recommended());
        assert_eq!(option("Postgres (recommended) ").shown_label(), "Postgres");
        assert!(!option("(Recommended)").is_recommended());
        assert!(!option("(Recommended) Postgres").is_recommended());
        assert_eq!(option("Postgrés").shown_label(), "Postgrés");
    }

    #[test]
    fn an_approval_is_titled_with_the_agent_and_its_folder() {
        let q = [single(&["Allow once", "Deny"])];
        let n = approval_notice(&ctx(), "s", "Claude Code · notes-app", "Claude Code", "a1", &q).unwrap();
        assert_eq!(n.title, "Claude Code asks permission · notes-app");
        let n = approval_notice(&ctx(), "s", "", "Codex", "a1", &q).unwrap();
        assert_eq!(n.title, "Codex asks permission");
        let n = approval_notice(&ctx(), "s", "Renamed by the person", "Codex", "a1", &q).unwrap();
        assert_eq!(n.title, "Codex asks permission · Renamed by the person");
    }

    #[test]
    fn a_plan_review_notification_only_opens_the_window() {
        let plan = "## Plan\n\n1. Write notes.md\n2. Nothing else";
        let n = review_notice(&ctx(), "s", "Notes", "p1", plan).unwrap();
        assert_eq!(n.body, "The agent asks you to review its plan: Plan");
        let ids: Vec<&str> = n.actions.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, [ACTION_DEFAULT, ACTION_ANSWER]);
        assert_eq!(interpret(ACTION_DEFAULT, &[]), ActionChoice::Focus);
        assert_eq!(interpret(ACTION_ANSWER, &[]), ActionChoice::Choose);
        // Whatever a server reports, a review is never answered from the notification.
        assert_eq!(interpret("option:0", &[]), ActionChoice::Ignore);
        assert!(review_notice(&NotifyContext { window_focused: true, ..ctx() }, "s", "t", "p1", plan).is_none());
    }

    #[test]
    fn actions_map_back() {
        let q = [single(&["SQLite", "Postgres"])];
        assert_eq!(interpret(ACTION_DEFAULT, &q), ActionChoice::Focus);
        assert_eq!(interpret(ACTION_ANSWER, &q), ActionChoice::Choose);
        assert!(!answer_opens_inbox(1) && answer_opens_inbox(2));
        assert_eq!(interpret("option:7", &q), ActionChoice::Ignore);
        assert_eq!(interpret("__closed", &q), ActionChoice::Ignore);
    }

    fn summary(id: &str, title: &str, open: u32, continued: u32) -> SessionSummary {
        SessionSummary {
            id: id.into(),
            title: title.into(),
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
            open_questions: open,
            continued_questions: continued,
            event_count: 1,
        }
    }

    #[test]
    fn the_tray_counts_and_lists_waiting_sessions() {
        let s = [summary("a", "Notes", 1, 1), summary("b", "Idle", 0, 0), summary("c", "Deploy", 1, 0)];
        let t = tray_summary(&s);
        assert_eq!(t.waiting, 3);
        let labels: Vec<&str> = t.sessions.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["Notes — 2 questions waiting", "Deploy — 1 question waiting"]);
        assert_eq!(tray_title(&t), "Hark — 3 questions waiting");
        assert_eq!(tray_title(&tray_summary(&[])), "Hark");
    }

    #[test]
    fn an_inline_reply_is_offered_for_one_question_and_answers_it_as_other() {
        let q = [single(&["a", "b"])];
        let with_reply = NotifyContext { server_has_inline_reply: true, ..ctx() };
        let ids: Vec<String> = asked(&with_reply, &q).unwrap().actions.into_iter().map(|a| a.id).collect();
        assert_eq!(ids, [ACTION_DEFAULT, "option:0", "option:1", ACTION_INLINE_REPLY, ACTION_ANSWER]);
        let without: Vec<String> = asked(&ctx(), &q).unwrap().actions.into_iter().map(|a| a.id).collect();
        assert!(!without.iter().any(|id| id == ACTION_INLINE_REPLY), "only where the server can take text");
        let two = [single(&["a", "b"]), single(&["c", "d"])];
        let batch: Vec<String> = asked(&with_reply, &two).unwrap().actions.into_iter().map(|a| a.id).collect();
        assert!(!batch.iter().any(|id| id == ACTION_INLINE_REPLY), "a batch is answered in the window");

        match interpret_reply("  staging first ", &q) {
            ActionChoice::Answer(b) => {
                assert_eq!(b.answers[0].custom.as_deref(), Some("staging first"));
                assert!(b.answers[0].selected.is_empty());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(interpret_reply("   ", &q), ActionChoice::Focus);
        assert_eq!(interpret_reply("x", &two), ActionChoice::Focus);
    }
}
