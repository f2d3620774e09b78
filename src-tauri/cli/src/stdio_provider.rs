//! Questions on the terminal: each request is rendered (header, question, numbered options with
//! descriptions) and answered one line per question. Requests queue on the stdin lock, so one
//! prompt owns the terminal at a time. Model text is untrusted: control characters are escaped.

use std::io::Write;
use std::sync::Arc;

use hark_core::question::limits::MAX_CUSTOM_CHARS;
use hark_core::question::{
    validate_answers, Answer, AnswerBatch, ErrorCode, Intent, PlanVerdict, Question, UserInteractionError,
};
use hark_core::service::{BoxFuture, InteractionProvider, InteractionRequest};
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;
use tokio::sync::{mpsc, Mutex};
use tokio::time::Instant;

/// Lines read from stdin; `None` once stdin is closed.
pub struct Lines {
    rx: mpsc::UnboundedReceiver<String>,
    closed: bool,
}

impl Lines {
    /// Starts the one reader of stdin.
    pub fn stdin() -> Arc<Mutex<Lines>> {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Arc::new(Mutex::new(Lines { rx, closed: false }))
    }

    pub async fn next(&mut self) -> Option<String> {
        if self.closed {
            return None;
        }
        let line = self.rx.recv().await;
        self.closed = line.is_none();
        line
    }
}

/// Escapes terminal control characters in untrusted text.
pub fn safe(text: &str) -> String {
    text.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
}

/// [`safe`] line by line: the newlines stay, every other control character is escaped.
pub fn safe_lines(text: &str) -> String {
    text.split('\n').map(safe).collect::<Vec<_>>().join("\n")
}

/// Writes to the terminal at once (prompts and streamed text end without a newline).
pub(crate) fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Tool calls the terminal printer has shown; a question waits for its call so the assistant text
/// streamed before it is on screen first.
#[derive(Default)]
pub struct Shown {
    calls: std::sync::Mutex<std::collections::HashSet<String>>,
    changed: Notify,
}

impl Shown {
    pub fn mark(&self, call_id: &str) {
        if let Ok(mut calls) = self.calls.lock() {
            calls.insert(call_id.to_string());
        }
        self.changed.notify_waiters();
    }

    fn has(&self, call_id: &str) -> bool {
        self.calls.lock().map(|c| c.contains(call_id)).unwrap_or(true)
    }

    async fn wait(&self, call_id: &str) {
        let wait = async {
            loop {
                let changed = self.changed.notified();
                if self.has(call_id) {
                    return;
                }
                changed.await;
            }
        };
        // Only cosmetic ordering: never let it hold up a question for long.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), wait).await;
    }
}

pub struct StdioProvider {
    lines: Arc<Mutex<Lines>>,
    shown: Arc<Shown>,
    /// Fired when stdin closes while a question waits: the front door aborts the turn.
    eof: Arc<Notify>,
}

impl StdioProvider {
    pub fn new(lines: Arc<Mutex<Lines>>, shown: Arc<Shown>, eof: Arc<Notify>) -> Self {
        StdioProvider { lines, shown, eof }
    }
}

/// Prints why a prompt went away when its wait ends without an answer from here (timeout,
/// answered elsewhere, aborted): the future is dropped, so this runs on drop.
struct Withdrawn {
    armed: bool,
    call_id: String,
}

impl Drop for Withdrawn {
    fn drop(&mut self) {
        if self.armed {
            say(&format!("\n(question {} withdrawn: no answer needed here any more)\n", self.call_id));
        }
    }
}

fn aborted(message: &str) -> UserInteractionError {
    UserInteractionError::new(ErrorCode::AskAborted, message)
}

impl InteractionProvider for StdioProvider {
    fn ask(&self, request: InteractionRequest) -> BoxFuture<'_, Result<AnswerBatch, UserInteractionError>> {
        Box::pin(async move {
            let mut lines = self.lines.lock().await;
            self.shown.wait(&request.call_id).await;
            // A deadline past what the clock can hold is never reached, so there is nothing to count down.
            let deadline = request
                .wait
                .as_ref()
                .and_then(|w| Instant::now().checked_add(std::time::Duration::from_millis(w.timeout_ms)));
            let mut guard = Withdrawn { armed: true, call_id: request.call_id.clone() };
            // Stdin closed: the front door aborts the turn, which rejects this question with
            // ASK_ABORTED before the model can take another step.
            let closed = || async {
                say("\n");
                self.eof.notify_one();
                let _ = tokio::time::timeout(std::time::Duration::from_secs(5), request.abort.cancelled()).await;
                Err(aborted("stdin closed before the question was answered"))
            };
            if let Intent::PlanReview { plan } = &request.intent {
                say(&render_review(plan));
                loop {
                    let Some(line) = lines.next().await else {
                        guard.armed = false;
                        return closed().await;
                    };
                    match parse_review_line(&line) {
                        Ok(verdict) => {
                            guard.armed = false;
                            return Ok(verdict.batch());
                        }
                        Err(reason) => say(&format!("  {reason}\n{REVIEW_PROMPT}")),
                    }
                }
            }
            let fields = match &request.intent {
                Intent::Form { server, message, url, fields } => {
                    say(&format!("\n[MCP server {}] {}\n", safe(server), safe(message)));
                    if let Some(url) = url {
                        say(&format!("  link: {}\n", safe(url)));
                    }
                    fields.as_slice()
                }
                Intent::Approval { agent, tool, detail, .. } => {
                    say(&format!("\n[{} asks to use {}]\n{}\n", safe(agent), safe(tool), safe_lines(detail)));
                    &[]
                }
                _ => &[],
            };
            let mut answers = Vec::new();
            let total = request.questions.len();
            for (i, q) in request.questions.iter().enumerate() {
                say(&render(q, i, total, deadline));
                loop {
                    let Some(line) = lines.next().await else {
                        guard.armed = false;
                        return closed().await;
                    };
                    let field = fields.iter().find(|f| f.id == q.id);
                    let parsed = parse_line(q, &line).and_then(|a| match field.and_then(|f| f.check(q, &a)) {
                        Some(problem) => Err(problem),
                        None => Ok(a),
                    });
                    match parsed {
                        Ok(answer) => {
                            answers.push(answer);
                            break;
                        }
                        Err(reason) => say(&format!("  {reason}\n{}", prompt(q, deadline))),
                    }
                }
            }
            guard.armed = false;
            let batch = AnswerBatch { answers };
            validate_answers(&request.questions, &batch)?;
            Ok(batch)
        })
    }
}

const REVIEW_PROMPT: &str = "? approve? [y / your feedback] > ";

/// A plan review: the plan as the model wrote it (Markdown stays plain text here), then the prompt.
fn render_review(plan: &str) -> String {
    let plan: Vec<String> = plan.lines().map(|l| format!("  {}", safe(l))).collect();
    format!("\n[Plan] The agent asks you to review its plan:\n{}\n{REVIEW_PROMPT}", plan.join("\n"))
}

/// One typed line → a verdict on a plan: `y` (or `yes`) approves, any other text is the feedback.
pub fn parse_review_line(line: &str) -> Result<PlanVerdict, String> {
    let line = line.trim();
    if line.is_empty() {
        return Err("type y to approve, or say what to change".into());
    }
    if ["y", "yes", "approve"].iter().any(|word| line.eq_ignore_ascii_case(word)) {
        return Ok(PlanVerdict::Approved);
    }
    if line.chars().count() > MAX_CUSTOM_CHARS {
        return Err(format!("feedback is limited to {MAX_CUSTOM_CHARS} characters; say it shorter"));
    }
    Ok(PlanVerdict::ChangesRequested { feedback: Some(line.to_string()) })
}

fn prompt(q: &Question, deadline: Option<Instant>) -> String {
    let how = if q.options.is_empty() {
        "type your answer, or /skip".to_string()
    } else if q.multi_select {
        "numbers like 1,3 · /other TEXT · /skip".to_string()
    } else {
        "a number · /other TEXT · /skip".to_string()
    };
    let time = deadline
        .map(|d| format!(" · {} s left", d.saturating_duration_since(Instant::now()).as_millis().div_ceil(1000)))
        .unwrap_or_default();
    format!("  [{how}{time}] > ")
}

fn render(q: &Question, index: usize, total: usize, deadline: Option<Instant>) -> String {
    let mut out = String::from("\n");
    let count = if total > 1 { format!("({}/{total}) ", index + 1) } else { String::new() };
    if let Some(h) = &q.header {
        out.push_str(&format!("{count}[{}]\n", safe(h)));
    } else if !count.is_empty() {
        out.push_str(&format!("{count}\n"));
    }
    out.push_str(&format!("? {}\n", safe(&q.question)));
    for (n, o) in q.options.iter().enumerate() {
        match &o.description {
            Some(d) => out.push_str(&format!("  {}. {} — {}\n", n + 1, safe(&o.label), safe(d))),
            None => out.push_str(&format!("  {}. {}\n", n + 1, safe(&o.label))),
        }
    }
    out.push_str(&prompt(q, deadline));
    out
}

/// One typed line → an answer for `q`, or why it does not fit (shown, then asked again).
pub fn parse_line(q: &Question, line: &str) -> Result<Answer, String> {
    let line = line.trim();
    let answer = |selected: Vec<String>, custom: Option<String>| Answer { id: q.id.clone(), selected, custom };
    if line == "/skip" {
        return Ok(answer(Vec::new(), None));
    }
    if let Some(text) = line.strip_prefix("/other") {
        let text = text.trim();
        if text.is_empty() {
            return Err("/other needs the answer text after it".into());
        }
        return Ok(answer(Vec::new(), Some(text.to_string())));
    }
    if line.starts_with('/') {
        return Err(format!("unknown command {line:?}: use /other TEXT or /skip"));
    }
    if q.options.is_empty() {
        if line.is_empty() {
            return Err("type an answer (or /skip)".into());
        }
        return Ok(answer(Vec::new(), Some(line.to_string())));
    }
    if line.is_empty() {
        return Err("type an option number, /other TEXT or /skip".into());
    }
    let mut selected = Vec::new();
    for part in line.split(',') {
        let part = part.trim();
        let n: usize = part
            .parse()
            .map_err(|_| format!("{part:?} is not an option number; for your own answer type /other {line}"))?;
        let option = n
            .checked_sub(1)
            .and_then(|i| q.options.get(i))
            .ok_or_else(|| format!("there is no option {n}; choose 1 to {}", q.options.len()))?;
        if selected.contains(&option.label) {
            return Err(format!("option {n} is listed twice"));
        }
        selected.push(option.label.clone());
    }
    if !q.multi_select && selected.len() > 1 {
        return Err("this question takes one option".into());
    }
    Ok(answer(selected, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hark_core::question::QuestionOption;

    fn q(multi: bool, options: &[&str]) -> Question {
        Question {
            id: "q".into(),
            question: "?".into(),
            header: None,
            options: options.iter().map(|l| QuestionOption { label: l.to_string(), description: None }).collect(),
            multi_select: multi,
        }
    }

    #[test]
    fn y_approves_a_plan_and_anything_else_is_feedback() {
        assert_eq!(parse_review_line(" Y "), Ok(PlanVerdict::Approved));
        assert_eq!(parse_review_line("yes"), Ok(PlanVerdict::Approved));
        let feedback = PlanVerdict::ChangesRequested { feedback: Some("use a table".into()) };
        assert_eq!(parse_review_line("use a table"), Ok(feedback));
        assert!(parse_review_line("  ").is_err());
        assert_eq!(parse_review_line("Approve"), Ok(PlanVerdict::Approved));
        assert!(parse_review_line(&"x".repeat(MAX_CUSTOM_CHARS + 1)).unwrap_err().contains("shorter"));
    }

    #[test]
    fn lines_map_to_answers() {
        let single = q(false, &["A", "B"]);
        assert_eq!(parse_line(&single, " 2 ").unwrap().selected, vec!["B"]);
        assert!(parse_line(&single, "1,2").unwrap_err().contains("one option"));
        assert!(parse_line(&single, "3").unwrap_err().contains("no option 3"));
        assert!(parse_line(&single, "maybe").is_err());
        assert_eq!(parse_line(&single, "/other C").unwrap().custom.as_deref(), Some("C"));
        let skip = parse_line(&single, "/skip").unwrap();
        assert!(skip.selected.is_empty() && skip.custom.is_none());
        let multi = q(true, &["A", "B", "C"]);
        assert_eq!(parse_line(&multi, "1, 3").unwrap().selected, vec!["A", "C"]);
        assert!(parse_line(&multi, "1,1").is_err());
        let free = q(false, &[]);
        assert_eq!(parse_line(&free, "hark-demo").unwrap().custom.as_deref(), Some("hark-demo"));
        assert!(parse_line(&free, "").is_err());
    }
}
