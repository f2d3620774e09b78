//! Seeds one long session for the desktop benchmarks: `seed_session DATA_DIR [EVENTS]` (default
//! 100 000 events, `session/created` included) writes it into `DATA_DIR` with `hark_core::session::Store`
//! and prints its id on stdout (nothing else goes to stdout).
//!
//! The log reads like a long agent run: ~1 000 turns, each a user request, then rounds of assistant
//! text (Markdown, reasoning, usage) + `list_dir` / `read_file` / `write_file` calls and their results,
//! a closing summary and `turn/ended`. Every fourth turn asks an `ask_user_question`: most are answered
//! in the foreground, some go pending and are answered late (the next turn starts with the queued late
//! answer), the last two are still waiting (continued), and a few turns end in a model error. The mix is
//! deterministic, so every run measures the same session.

use std::path::PathBuf;
use std::time::Instant;

use hark_core::error::BoundaryError;
use hark_core::question::{
    answered_result_text, late_answer_text, pending_result_text, Answer, AnswerBatch, Question, ToolMode, TOOL_NAME,
};
use hark_core::session::{Event, MessageSource, ModelRef, Store, ToolOutcome};
use serde_json::json;

const DEFAULT_EVENTS: usize = 100_000;
/// Events in one append transaction.
const CHUNK: usize = 5_000;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), count) = (args.next(), args.next()) else {
        eprintln!("usage: seed_session DATA_DIR [EVENTS]");
        std::process::exit(2);
    };
    let total = match count.map(|c| c.parse::<usize>()) {
        None => DEFAULT_EVENTS,
        Some(Ok(n)) if n >= 100 => n,
        Some(_) => {
            eprintln!("seed_session: EVENTS must be a whole number >= 100");
            std::process::exit(2);
        }
    };
    let dir = PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("seed_session: cannot create {}: {e}", dir.display());
        std::process::exit(1);
    }
    let start = Instant::now();
    let store = Store::open(&dir).unwrap_or_else(|e| fail("open the store", e));
    let model = ModelRef {
        provider: hark_core::session::ModelKind::Demo,
        base_url: None,
        model: None,
        script: Some("batch".into()),
    };
    let id = store
        .create_session("Port the billing service to Rust (benchmark session)", Some("/work/billing"), Some(model))
        .unwrap_or_else(|e| fail("create the session", e));
    // `session/created` is the first of `total`.
    let events = Seeder::new().session(total - 1);
    assert_eq!(events.len(), total - 1);
    for chunk in events.chunks(CHUNK) {
        store.append_batch(&id, chunk.to_vec()).unwrap_or_else(|e| fail("append", e));
    }
    let stored = store.events(&id).unwrap_or_else(|e| fail("read back", e)).len();
    if stored != total {
        eprintln!("seed_session: stored {stored} events, expected {total}");
        std::process::exit(1);
    }
    eprintln!("seed_session: {total} events in session {id} ({:.1} s)", start.elapsed().as_secs_f64());
    println!("{id}");
}

fn fail(what: &str, error: impl std::fmt::Display) -> ! {
    eprintln!("seed_session: cannot {what}: {error}");
    std::process::exit(1);
}

/// A small deterministic generator (xorshift64*), so the session is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }
}

const REQUESTS: [&str; 8] = [
    "Port the invoice module to Rust and keep the public API the same.",
    "The tests in billing/tax are failing after the last change, can you look?",
    "Add pagination to the customer list endpoint.",
    "Write a migration that splits the address column into street, city and postcode.",
    "Please review the retry logic in the payment gateway client and simplify it.",
    "Rename `Account::balance_cents` to `balance` everywhere and update the docs.",
    "Can you add structured logging to the webhook handler?",
    "Summarise what changed in the ledger crate this week.",
];

const MODULES: [&str; 10] =
    ["invoice", "ledger", "tax", "customer", "webhook", "gateway", "currency", "report", "account", "audit"];

const NOTES: [&str; 6] = [
    "Reading the module first to see how it is wired.",
    "That file only re-exports; the logic must be one level down.",
    "Found it. The rounding happens before the currency conversion, which explains the off-by-one cents.",
    "I'll keep the existing error type so callers don't change.",
    "Checking the tests that cover this path before editing.",
    "The change compiles in my head; writing it out now.",
];

struct Seeder {
    rng: Rng,
    turn: usize,
    call: usize,
    /// A question asked in the previous turn that went pending and is answered late in the next one.
    late: Option<(String, Vec<Question>)>,
}

impl Seeder {
    fn new() -> Self {
        Seeder { rng: Rng(0x9e37_79b9_7f4a_7c15), turn: 0, call: 0, late: None }
    }

    /// `count` events: a request header, then whole turns (the last one sized to land exactly on `count`).
    fn session(&mut self, count: usize) -> Vec<Event> {
        let mut events = vec![Event::RequestHeader {
            tools: vec![TOOL_NAME.into(), "list_dir".into(), "read_file".into(), "write_file".into()],
            question_mode: ToolMode::Timed,
            default_timeout_secs: 120,
            stop_turn: false,
        }];
        while events.len() < count {
            let left = count - events.len();
            let size = if left <= 320 { left } else { self.rng.range(40, 160) };
            // The last two questions of the session stay waiting.
            let final_stretch = left <= 600;
            let turn = self.turn(size, final_stretch);
            debug_assert_eq!(turn.len(), size, "turn {}", self.turn);
            events.extend(turn);
        }
        events
    }

    /// One turn of exactly `size` events (`size` >= 12).
    fn turn(&mut self, size: usize, final_stretch: bool) -> Vec<Event> {
        self.turn += 1;
        let t = self.turn;
        let turn_id = format!("turn-{t}");
        let mut out = Vec::with_capacity(size);
        let mut fixed = 4; // turn/started, user/message, closing assistant/message, turn/ended

        if let Some((call_id, questions)) = self.late.take() {
            let batch = self.answers(&questions);
            let text = late_answer_text(&call_id, &hark_core::question::Intent::Question, &questions, &batch, None);
            let message_id = format!("late-{call_id}");
            let source = MessageSource::question_reply(&call_id, batch.clone());
            out.push(Event::InboxQueued { message_id: message_id.clone(), text: text.clone(), source: source.clone() });
            out.push(Event::TurnStarted { turn_id: turn_id.clone(), run_id: format!("run-{t}") });
            out.push(Event::UserMessage { message_id, text, source: Some(source) });
            fixed += 1;
        } else {
            out.push(Event::TurnStarted { turn_id: turn_id.clone(), run_id: format!("run-{t}") });
            let text = format!("{} (request {t})", self.rng.pick(&REQUESTS));
            out.push(Event::UserMessage { message_id: format!("msg-{t}"), text, source: None });
        }

        let model_error = t % 97 == 0 && !final_stretch;
        let asks = t % 4 == 0;
        // Rounds of assistant text + tool call + tool result (3 events each); a question is one round.
        let rounds = (size - fixed) / 3;
        let ask_at = if asks { rounds / 2 } else { usize::MAX };
        for r in 0..rounds {
            if r == ask_at {
                out.extend(self.question(t, final_stretch));
            } else {
                out.extend(self.tool_round(r));
            }
        }
        // Pad with short progress notes to land on `size` exactly.
        while out.len() < size - 2 {
            let text = self.rng.pick(&NOTES).to_string();
            out.push(Event::AssistantMessage { text, reasoning: None, tool_calls: vec![], usage: None });
        }
        if model_error {
            out.push(Event::ModelError {
                error: BoundaryError::new(
                    "ModelError",
                    "RATE_LIMITED",
                    "The provider answered 429 Too Many Requests; try again in a moment.",
                ),
            });
            out.push(Event::TurnEnded { turn_id, reason: hark_core::session::TurnEndReason::Error });
        } else {
            out.push(Event::AssistantMessage {
                text: self.summary(t),
                reasoning: Some("Wrap up with what changed and what is left.".into()),
                tool_calls: vec![],
                usage: Some(json!({"prompt_tokens": 18_000 + t * 13 % 9_000, "completion_tokens": 420})),
            });
            out.push(Event::TurnEnded { turn_id, reason: hark_core::session::TurnEndReason::Completed });
        }
        out
    }

    fn next_call(&mut self) -> String {
        self.call += 1;
        format!("call_{:06}", self.call)
    }

    fn tool_round(&mut self, round: usize) -> [Event; 3] {
        let call_id = self.next_call();
        let module = self.rng.pick(&MODULES);
        let (name, arguments, content) = match (round + self.rng.range(0, 3)) % 6 {
            0 => (
                "list_dir",
                json!({"path": format!("src/{module}")}),
                ["mod.rs", "model.rs", "service.rs", "repository.rs", "errors.rs", "tests/"]
                    .iter()
                    .map(|f| format!("src/{module}/{f}\n"))
                    .collect::<String>(),
            ),
            1 => {
                let lines = self.rng.range(4, 12);
                let content = self.code(module, lines);
                (
                    "write_file",
                    json!({"path": format!("src/{module}/service.rs"), "content": content}),
                    format!("wrote src/{module}/service.rs"),
                )
            }
            _ => {
                let lines = self.rng.range(6, 40);
                (
                    "read_file",
                    json!({"path": format!("src/{module}/{}.rs", self.rng.pick(&["mod", "model", "service"]))}),
                    self.code(module, lines),
                )
            }
        };
        let note = self.rng.pick(&NOTES);
        [
            Event::AssistantMessage {
                text: note.to_string(),
                reasoning: Some(format!("Next: {name} on the {module} module.")),
                tool_calls: vec![call_id.clone()],
                usage: Some(json!({"prompt_tokens": 9_000 + round * 150, "completion_tokens": 60})),
            },
            Event::ToolCall { call_id: call_id.clone(), name: name.into(), arguments },
            Event::ToolResult { call_id, outcome: ToolOutcome::ok(content) },
        ]
    }

    fn code(&mut self, module: &str, lines: usize) -> String {
        let mut s = format!("//! The {module} service.\n\nuse crate::{module}::model::*;\n\n");
        for i in 0..lines {
            match (i + self.rng.range(0, 4)) % 5 {
                0 => s.push_str(&format!("pub fn {module}_step_{i}(input: &Input) -> Result<Output, Error> {{\n")),
                1 => s.push_str(&format!(
                    "    let amount = input.amount_cents.checked_mul({i}).ok_or(Error::Overflow)?;\n"
                )),
                2 => s.push_str("    tracing::debug!(?amount, \"converted\");\n"),
                3 => s.push_str("    Ok(Output { amount, currency: input.currency.clone() })\n}\n\n"),
                _ => s.push_str(&format!("// TODO({module}): handle the legacy rounding mode here (case {i}).\n")),
            }
        }
        s
    }

    fn summary(&mut self, t: usize) -> String {
        let module = self.rng.pick(&MODULES);
        format!(
            "Done with request {t}. Here is what changed:\n\n\
             - `src/{module}/service.rs`: the conversion now rounds **after** applying the exchange rate.\n\
             - `src/{module}/model.rs`: `Output` carries its currency.\n\
             - Added tests for the zero and negative amount cases.\n\n\
             ```rust\nlet total = amounts.iter().try_fold(0i64, |acc, a| acc.checked_add(*a));\n```\n\n\
             Still open: the legacy rounding mode in `{module}` (see the TODO)."
        )
    }

    fn questions(&mut self, t: usize) -> Vec<Question> {
        let value = match t % 3 {
            0 => json!([{ "id": "db", "header": "Database", "question": "Which database should the ledger use?",
                "options": [{"label": "SQLite", "description": "embedded, one file"},
                            {"label": "Postgres", "description": "a server, what production uses"}] }]),
            1 => json!([
                { "id": "scope", "header": "Scope", "question": "Which modules should I port in this pass?",
                  "multi_select": true,
                  "options": [{"label": "invoice"}, {"label": "ledger"}, {"label": "tax"}, {"label": "webhook"}] },
                { "id": "name", "header": "Crate name", "question": "What should the new crate be called?" }]),
            _ => json!([{ "id": "rounding", "header": "Rounding",
                "question": "Keep the legacy half-up rounding or switch to banker's rounding?",
                "options": [{"label": "Half-up (legacy)"}, {"label": "Banker's rounding"}] }]),
        };
        serde_json::from_value(value).expect("valid questions")
    }

    fn answers(&mut self, questions: &[Question]) -> AnswerBatch {
        let answers = questions
            .iter()
            .map(|q| match q.options.len() {
                0 => Answer { id: q.id.clone(), selected: vec![], custom: Some("billing-core".into()) },
                n => {
                    let first = self.rng.range(0, n - 1);
                    let mut selected = vec![q.options[first].label.clone()];
                    if q.multi_select {
                        selected.push(q.options[(first + 1) % n].label.clone());
                    }
                    Answer { id: q.id.clone(), selected, custom: None }
                }
            })
            .collect();
        AnswerBatch { answers }
    }

    /// One question round: answered in the foreground, or pending (answered late in the next turn, or,
    /// near the end of the session, still waiting).
    fn question(&mut self, t: usize, final_stretch: bool) -> [Event; 3] {
        let call_id = self.next_call();
        let questions = self.questions(t);
        let arguments = json!({ "questions": questions, "timeout": 120 });
        let outcome = if final_stretch {
            ToolOutcome::pending(pending_result_text(
                &call_id,
                hark_core::question::PendingReason::TimedOut,
                std::time::Duration::from_secs(1),
            ))
        } else if t % 20 == 0 {
            self.late = Some((call_id.clone(), questions.clone()));
            ToolOutcome::pending(pending_result_text(
                &call_id,
                hark_core::question::PendingReason::TimedOut,
                std::time::Duration::from_secs(1),
            ))
        } else {
            let answers = self.answers(&questions);
            ToolOutcome::Ok { content: answered_result_text(&answers), answers: Some(answers) }
        };
        [
            Event::AssistantMessage {
                text: "Before I go on I need one decision from you.".into(),
                reasoning: None,
                tool_calls: vec![call_id.clone()],
                usage: None,
            },
            Event::ToolCall { call_id: call_id.clone(), name: TOOL_NAME.into(), arguments },
            Event::ToolResult { call_id, outcome },
        ]
    }
}
