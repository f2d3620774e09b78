//! What `hark tui` draws: a header, the transcript (newest at the bottom), the composer or the
//! question overlay, and a line of keys. Model and person text goes through `safe` (no terminal
//! control sequences reach the screen); with `NO_COLOR` only bold and reverse video mark things.

use hark_core::question::{Countdown, Question};
use hark_core::session::{QuestionState, ToolOutcome, TranscriptItem};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::overlay::{Draft, Overlay, CONTEXT_ROWS};
use super::{Screen, Shown};
use crate::stdio_provider::{safe, safe_lines};

pub(super) fn draw(frame: &mut Frame, screen: &Screen) {
    let bottom = match (&screen.picker, &screen.shown) {
        (Some(_), _) => u16::try_from(screen.sessions.len().clamp(1, 10) + 2).unwrap_or(12),
        (None, Some(shown)) => overlay_height(&shown.overlay),
        (None, None) => 3,
    };
    let [header, body, dock, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(bottom),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(header_line(screen)).style(Style::new().add_modifier(Modifier::BOLD)), header);
    draw_transcript(frame, screen, body);
    match (&screen.picker, &screen.shown) {
        (Some(row), _) => draw_picker(frame, screen, *row, dock),
        (None, Some(shown)) => draw_overlay(frame, screen, shown, dock),
        (None, None) => draw_composer(frame, screen, dock),
    }
    frame.render_widget(Paragraph::new(keys_line(screen)), keys);
}

fn header_line(screen: &Screen) -> String {
    let title = screen.transcript.as_ref().and_then(|t| t.title.clone()).unwrap_or_else(|| "New session".into());
    let mut line = format!("Hark · {}", safe(&title));
    if let Some(label) = &screen.model_label {
        line.push_str(&format!(" · {}", safe(label)));
    }
    let waiting = screen.waiting.len() + screen.continued.len();
    if waiting > 0 {
        line.push_str(&format!(" · {waiting} waiting"));
    }
    if screen.busy {
        line.push_str(" · working…");
    }
    if screen.through_app() {
        line.push_str(" · in the Hark app");
    }
    line
}

fn keys_line(screen: &Screen) -> String {
    if let Some(status) = &screen.status {
        return safe(status);
    }
    if screen.picker.is_some() {
        return "↑↓ move · Enter open · n new session · Esc back".into();
    }
    match &screen.shown {
        Some(shown) if shown.overlay.approval => {
            "1-9/Space choose · ↑↓ · o deny with a reason · h hide · Enter submit · Esc close".into()
        }
        Some(_) => "1-9/Space choose · ↑↓ · o other · s skip · h hide · Enter submit · Esc close".into(),
        None if !screen.hidden.is_empty() || screen.continued.iter().any(|q| q.reply_queued.is_none()) => {
            "Enter send · Tab answer a waiting question · Ctrl-O sessions · Ctrl-C stop".into()
        }
        None => "Enter send · Ctrl-O sessions · Ctrl-C stop, again to quit".into(),
    }
}

fn accent(screen: &Screen) -> Style {
    if screen.no_color {
        Style::new().add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
}

/// The transcript as plain lines, wrapped to `width`, newest last.
fn transcript_lines(screen: &Screen, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<(String, Style)> = Vec::new();
    let dim = if screen.no_color { Style::new() } else { Style::new().fg(Color::DarkGray) };
    let strong = accent(screen);
    if let Some(transcript) = &screen.transcript {
        if transcript.earlier_turns > 0 {
            lines.push((format!("({} earlier turns: hark show)", transcript.earlier_turns), dim));
        }
        for item in transcript.turns.iter().flat_map(|t| &t.items) {
            item_lines(item, &mut lines, dim, strong);
        }
    }
    if !screen.streaming.is_empty() {
        lines.push((safe_lines(&screen.streaming), Style::new()));
    }
    let mut wrapped = Vec::new();
    for (text, style) in lines {
        for line in text.split('\n') {
            for chunk in wrap(line, width.max(10)) {
                wrapped.push(Line::styled(chunk, style));
            }
        }
    }
    wrapped
}

fn item_lines(item: &TranscriptItem, out: &mut Vec<(String, Style)>, dim: Style, strong: Style) {
    match item {
        TranscriptItem::UserMessage { text, .. } => out.push((format!("> {}", safe_lines(text)), strong)),
        TranscriptItem::AssistantMessage { text, .. } if !text.trim().is_empty() => {
            out.push((safe_lines(text), Style::new()))
        }
        TranscriptItem::AssistantMessage { .. } | TranscriptItem::HistoryCompacted { .. } => {}
        TranscriptItem::LateAnswer { answers, questions, .. } => {
            let said = answers.as_ref().map(|a| answer_text(questions, a)).unwrap_or_default();
            out.push((format!("> Your late answer: {said}"), strong));
        }
        TranscriptItem::ToolCall { name, question: Some(record), result, .. } => {
            let state = match (record.state, record.answered_late) {
                (QuestionState::Open, _) => "waiting for your answer".to_string(),
                (QuestionState::Continued, _) if record.reply_queued.is_some() => "late answer queued".into(),
                (QuestionState::Continued, _) => "went on — Tab answers it".into(),
                (QuestionState::Settled, _) if record.withdrawn.is_some() => {
                    format!("withdrawn by the agent: {}", safe(record.withdrawn.as_deref().unwrap_or_default()))
                }
                (QuestionState::Settled, true) => "answered late".into(),
                (QuestionState::Settled, false) => "answered".into(),
            };
            let asked: Vec<String> = record.questions.iter().map(|q| safe(&q.question)).collect();
            let kind = if name == hark_core::question::PLAN_TOOL_NAME { "Plan review" } else { "Question" };
            out.push((format!("? {kind} ({state}): {}", asked.join(" / ")), strong));
            // A plan is read where it is reviewed.
            if let hark_core::question::Intent::PlanReview { plan } = &record.intent {
                out.push((safe_lines(plan), Style::new()));
            }
            if let Some(batch) = &record.answers {
                out.push((format!("  {}", answer_text(&record.questions, batch)), Style::new()));
            } else if let Some(ToolOutcome::Error { error }) = result.as_ref().map(|r| &r.outcome) {
                out.push((format!("  {}: {}", safe(&error.code), safe(&error.message)), dim));
            }
        }
        TranscriptItem::ToolCall { name, result, .. } => {
            let asked = name == hark_core::question::TOOL_NAME || name == hark_core::question::PLAN_TOOL_NAME;
            let status = match result.as_ref().map(|r| &r.outcome) {
                None => "running".to_string(),
                Some(ToolOutcome::Ok { .. }) => "done".into(),
                Some(ToolOutcome::Pending { .. }) => "pending".into(),
                Some(ToolOutcome::Error { error }) => safe(&error.code),
                Some(ToolOutcome::Unknown) => "outcome unknown".into(),
            };
            // A question no longer in the projection ended without an answer (closed, refused).
            let shown = if asked { format!("? Question ({status})") } else { format!("· {} ({status})", safe(name)) };
            out.push((shown, dim));
        }
        TranscriptItem::OrphanResult { call_id, .. } => out.push((format!("· result of {}", safe(call_id)), dim)),
        TranscriptItem::ModelError { error, .. } | TranscriptItem::McpUnavailable { error, .. } => {
            out.push((format!("! {}: {}", safe(&error.code), safe(&error.message)), strong))
        }
        TranscriptItem::McpForm { server, message, .. } => {
            out.push((format!("? MCP server {} asked: {}", safe(server), safe(message)), dim))
        }
    }
}

fn answer_text(questions: &[Question], batch: &hark_core::question::AnswerBatch) -> String {
    batch
        .answers
        .iter()
        .map(|a| {
            let asked = questions.iter().find(|q| q.id == a.id).map(|q| q.header.clone().unwrap_or(q.question.clone()));
            let said = match (&a.custom, a.selected.is_empty()) {
                (Some(custom), _) => custom.clone(),
                (None, false) => a.selected.join(", "),
                (None, true) => "skipped".into(),
            };
            format!("{}: {}", safe(&asked.unwrap_or_else(|| a.id.clone())), safe(&said))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Breaks `line` into pieces of at most `width` characters, at spaces where it can.
pub(super) fn wrap(line: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for word in line.split(' ') {
        let fits = current.chars().count() + word.chars().count() + usize::from(!current.is_empty()) <= width;
        if !fits && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        let mut word = word.to_string();
        while word.chars().count() > width {
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            out.push(head);
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&word);
    }
    out.push(current);
    out
}

fn draw_transcript(frame: &mut Frame, screen: &Screen, area: Rect) {
    let lines = transcript_lines(screen, usize::from(area.width));
    let skip = lines.len().saturating_sub(usize::from(area.height));
    frame.render_widget(Paragraph::new(lines.into_iter().skip(skip).collect::<Vec<_>>()), area);
}

fn draw_composer(frame: &mut Frame, screen: &Screen, area: Rect) {
    let title = if screen.session.is_some() { "Message the agent" } else { "What should the agent do?" };
    let block = Block::new().borders(Borders::ALL).title(title);
    let text = format!("{}▏", screen.composer);
    frame.render_widget(Paragraph::new(text).block(block), area);
}

/// Rows the overlay needs: what it shows the question with, the question, its options and
/// "Other", the notice, borders.
fn overlay_height(overlay: &Overlay) -> u16 {
    let options = overlay.questions.get(overlay.item).map_or(0, |q| q.options.len());
    let context = match overlay.context.len() {
        0 => 0,
        n if n > CONTEXT_ROWS => CONTEXT_ROWS + 2,
        n => n + 1,
    };
    let rows = context + options + 1 + 2 + 1 + 2;
    u16::try_from(rows).unwrap_or(u16::MAX).min(16 + u16::try_from(context).unwrap_or(0))
}

fn draw_overlay(frame: &mut Frame, screen: &Screen, shown: &Shown, area: Rect) {
    let overlay = &shown.overlay;
    let Some(q) = overlay.questions.get(overlay.item) else { return };
    let strong = accent(screen);
    let asker = if screen.session.as_deref() == Some(shown.session_id.as_str()) {
        "The agent asks".to_string()
    } else {
        format!("“{}” asks", safe(&screen.title_of(&shown.session_id)).chars().take(24).collect::<String>())
    };
    let mut title = format!(
        " {} · question {}/{} · {} answered ",
        if overlay.late { "Answer late (the agent went on)" } else { asker.as_str() },
        overlay.item + 1,
        overlay.questions.len(),
        overlay.done()
    );
    if overlay.timed && !overlay.late && shown.hold.is_some() {
        let now = screen.now();
        let left = shown.countdown.remaining(now).map(|ms| ms.div_ceil(1000));
        match (shown.countdown, left) {
            (Countdown::Paused { .. }, Some(left)) => {
                title.push_str(&format!("· {left}s left, paused while you start "))
            }
            (_, Some(left)) => title.push_str(&format!("· {left}s left — t takes your time ")),
            (Countdown::Frozen { .. }, None) => title.push_str("· taking your time "),
            _ => {}
        }
    }
    let more = screen.waiting.len().saturating_sub(1);
    let block = Block::new().borders(Borders::ALL).title(title).title_bottom(if more > 0 {
        format!(" {more} more question{} waiting ", if more == 1 { "" } else { "s" })
    } else {
        String::new()
    });
    let mut lines = Vec::new();
    // The plan under review (a page at a time) or the form's reason and link, before its choices.
    let shown_context = overlay.context.iter().skip(overlay.context_top).take(CONTEXT_ROWS);
    lines.extend(shown_context.map(|line| Line::raw(safe(line))));
    if overlay.context.len() > CONTEXT_ROWS {
        let last = (overlay.context_top + CONTEXT_ROWS).min(overlay.context.len());
        let more = if last < overlay.context.len() { " · PageDown for more" } else { "" };
        let from = overlay.context_top + 1;
        lines.push(Line::styled(
            format!("lines {from}–{last} of {}{more} · PageUp back", overlay.context.len()),
            strong,
        ));
    }
    if !overlay.context.is_empty() {
        lines.push(Line::raw(""));
    }
    let header = q.header.as_deref().map(|h| format!("{} · ", safe(h))).unwrap_or_default();
    let how = if q.multi_select { " (choose any)" } else { "" };
    lines.push(Line::styled(format!("{header}{}{how}", safe(&q.question)), strong));
    let draft = &overlay.drafts[overlay.item];
    for (i, option) in q.options.iter().enumerate() {
        let picked = matches!(draft, Draft::Chosen(c) if c.contains(&i));
        let mark = match (q.multi_select, picked) {
            (true, true) => "[x]",
            (true, false) => "[ ]",
            (false, true) => "(•)",
            (false, false) => "( )",
        };
        let description = option.description.as_deref().map(|d| format!(" — {}", safe(d))).unwrap_or_default();
        let text = format!("{mark} {} {}{description}", i + 1, safe(&option.label));
        lines.push(row_line(text, overlay.row == i, screen.no_color));
    }
    let other = match (&overlay.typing, draft) {
        (Some(text), _) if q.options.is_empty() => format!("Answer: {text}▏  (Enter keeps it)"),
        (Some(text), _) => format!("Other: {text}▏  (Enter keeps it, Esc stops typing)"),
        (None, Draft::Other(text)) if q.options.is_empty() => format!("Answer: {}", safe(text)),
        (None, Draft::Other(text)) => format!("Other: {}", safe(text)),
        (None, _) if q.options.is_empty() => "Type your answer (Enter)".into(),
        (None, _) => "Other… (o)".into(),
    };
    lines.push(row_line(other, overlay.row == q.options.len(), screen.no_color));
    if *draft == Draft::Skipped {
        lines.push(Line::raw("Skipped (choose to answer after all)"));
    }
    if let Some(notice) = &overlay.notice {
        lines.push(Line::styled(safe(notice), strong));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The sessions, newest first, each with its waiting questions; the shown one is marked.
fn draw_picker(frame: &mut Frame, screen: &Screen, row: usize, area: Rect) {
    let block = Block::new().borders(Borders::ALL).title(" Sessions ");
    let first = row.saturating_sub(9);
    let lines: Vec<Line> = screen
        .sessions
        .iter()
        .enumerate()
        .skip(first)
        .take(10)
        .map(|(i, s)| {
            let waiting = s.open_questions + s.continued_questions;
            let badge = if waiting > 0 { format!("  ({waiting} waiting)") } else { String::new() };
            let mark = if screen.session.as_deref() == Some(s.id.as_str()) { "• " } else { "  " };
            row_line(format!("{mark}{}{badge}", safe(&s.title)), i == row, screen.no_color)
        })
        .collect();
    let lines = if lines.is_empty() { vec![Line::raw("No sessions yet: n starts one")] } else { lines };
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn row_line(text: String, highlighted: bool, no_color: bool) -> Line<'static> {
    if !highlighted {
        return Line::from(Span::raw(format!("  {text}")));
    }
    let style = if no_color {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new().fg(Color::Black).bg(Color::Cyan)
    };
    Line::from(Span::styled(format!("› {text}"), style))
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wraps_at_spaces_and_breaks_long_words() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
    }
}
