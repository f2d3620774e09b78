//! A server's `elicitation/create` as a Hark question: the form's fields become questions (an enum
//! its options, a multi-select enum a `multi_select` question, a boolean Yes/No, text and numbers
//! free-form), asked through the question service like any question, so the panel, notifications
//! and first-answer-wins hold. The person's answer goes back as `accept` with typed content, the
//! Decline button as `decline`, closing the question (or the turn stopping) as `cancel`. A schema
//! Hark cannot show is refused to the server with the reason, never guessed at.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ElicitationSchema, EnumSchema, FormElicitationCapability, Implementation, MultiSelectEnumSchema,
    PrimitiveSchemaDefinition, SingleSelectEnumSchema, StringFormat, UrlElicitationCapability,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::ErrorData;
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::error::CodedError;
use crate::open_session::AgentEvent;
use crate::open_session::Session;
use crate::question::{
    form_content, ErrorCode, FieldKind, FormField, FormOutcome, Intent, Question, QuestionOption, NO_LABEL, YES_LABEL,
};
use crate::service::{lock, AskParams, Caller, UserQuestionService};
use crate::session::Event;

/// The one question of a form without fields (or of a link): go ahead, or not.
const CONFIRM_ID: &str = "confirm";
const ACCEPT_LABEL: &str = "Accept";
const LINK_QUESTION: &str = "The server asks you to open a link (Open link… shows it first). Go ahead?";

/// Who answers a server's forms: the session the server works for, where they are recorded.
#[derive(Clone)]
pub struct Asker {
    pub service: UserQuestionService,
    pub caller: Caller,
    pub session: Arc<Session>,
}

/// The most forms one server may have open for the person at once.
pub const MAX_OPEN_FORMS: usize = 3;

/// One server's side of its forms: who to ask, which turn a form belongs to, and how many wait for
/// the person now (a tool call's timeout does not run while one does).
pub(crate) struct Forms {
    server: String,
    asker: Option<Asker>,
    /// The abort signal of the turn whose tool calls run on this server, and how many run.
    turn: Mutex<Option<(CancellationToken, usize)>>,
    waiting: watch::Sender<usize>,
    /// Cancelled when the server stops: a form still open ends with it.
    stopped: CancellationToken,
}

impl Forms {
    pub(crate) fn new(server: &str, asker: Option<Asker>) -> Arc<Forms> {
        Arc::new(Forms {
            server: server.to_string(),
            asker,
            turn: Mutex::new(None),
            waiting: watch::channel(0).0,
            stopped: CancellationToken::new(),
        })
    }

    pub(crate) fn stop(&self) {
        self.stopped.cancel();
    }

    /// Marks a tool call as running on this server until the guard drops, so a form it asks for ends
    /// when that call's turn stops.
    pub(crate) fn enter_call(&self, abort: CancellationToken) -> CallGuard<'_> {
        let mut turn = lock(&self.turn);
        let running = turn.as_ref().map_or(0, |(_, n)| *n);
        *turn = Some((abort, running + 1));
        CallGuard { forms: self }
    }

    /// Resolves once `limit` has passed without a form waiting for the person: the time someone
    /// spends answering is theirs, not the tool's.
    pub(crate) async fn elapsed(&self, limit: Duration) {
        let mut waiting = self.waiting.subscribe();
        let mut left = limit;
        loop {
            if *waiting.borrow_and_update() > 0 {
                if waiting.changed().await.is_err() {
                    return std::future::pending().await;
                }
                continue;
            }
            let started = tokio::time::Instant::now();
            tokio::select! {
                _ = tokio::time::sleep(left) => return,
                changed = waiting.changed() => {
                    if changed.is_err() {
                        return std::future::pending().await;
                    }
                    left = left.saturating_sub(started.elapsed());
                }
            }
        }
    }

    async fn ask(&self, request: ElicitRequestParams, cancelled: CancellationToken) -> Result<ElicitResult, ErrorData> {
        let Some(asker) = &self.asker else {
            return Err(ErrorData::internal_error("Hark has no session to show this form in", None));
        };
        // A form belongs to a call the agent made: a server may not ask the person out of the blue,
        // and not more than a few things at once.
        let Some(turn) = lock(&self.turn).as_ref().map(|(abort, _)| abort.clone()) else {
            return Err(ErrorData::invalid_request(
                "Hark shows a server's forms only while one of its tool calls runs",
                None,
            ));
        };
        let mut admitted = false;
        self.waiting.send_if_modified(|open| {
            admitted = *open < MAX_OPEN_FORMS;
            *open += usize::from(admitted);
            admitted
        });
        if !admitted {
            return Err(ErrorData::invalid_request(
                format!("this server already has {MAX_OPEN_FORMS} forms open; Hark shows no more at once"),
                None,
            ));
        }
        // Counted out however the ask ends, also when its future is dropped.
        let _open = OpenForm(&self.waiting);
        self.ask_admitted(asker, request, cancelled, turn).await
    }

    /// [`ask`](Self::ask) once the form was admitted (it is counted in `waiting`).
    async fn ask_admitted(
        &self,
        asker: &Asker,
        request: ElicitRequestParams,
        cancelled: CancellationToken,
        turn: CancellationToken,
    ) -> Result<ElicitResult, ErrorData> {
        let form = form(&request).map_err(|e| ErrorData::invalid_params(e, None))?;
        let abort = CancellationToken::new();
        // Whatever ends the form's wait (the server cancelling, the server stopping, the turn that
        // asked stopping) aborts the question, so the service settles it and tells every surface.
        let watcher = {
            let (abort, stopped) = (abort.clone(), self.stopped.clone());
            tokio::spawn(async move {
                tokio::select! {
                    _ = cancelled.cancelled() => {}
                    _ = stopped.cancelled() => {}
                    _ = turn.cancelled() => {}
                }
                abort.cancel();
            })
        };
        let params = AskParams {
            call_id: format!("mcp-form-{}", uuid::Uuid::new_v4().simple()),
            caller: asker.caller.clone(),
            intent: form.intent(&self.server),
            questions: form.questions.clone(),
            abort,
        };
        let answered = asker.service.ask(params).await;
        watcher.abort();
        let (outcome, reply) = form.ended(answered).map_err(|failure| match failure {
            FormFailure::CannotShow(why) => ErrorData::invalid_params(why, None),
            FormFailure::Failed(why) => ErrorData::internal_error(why, None),
        })?;
        // What the person gave is in the log before the server hears it. A log that cannot take it
        // does not keep the answer from its server; the failure is reported like any failed write.
        if let Err(e) = asker.session.record_one(form.event(&self.server, outcome)) {
            asker.session.emit(AgentEvent::Error { session_id: asker.caller.session_id.clone(), error: e.boundary() });
        }
        Ok(reply)
    }
}

/// Why a form's question gave the server no reply.
#[derive(Debug)]
pub(crate) enum FormFailure {
    /// Its questions break Hark's limits (too many fields or options, overlong text).
    CannotShow(String),
    /// The person could not be asked at all.
    Failed(String),
}

impl Form {
    /// What the form is for, as the question service asks it.
    pub(crate) fn intent(&self, server: &str) -> Intent {
        Intent::Form {
            server: server.to_string(),
            message: self.message.clone(),
            url: self.url.clone(),
            fields: self.fields.clone(),
        }
    }

    pub(crate) fn questions(&self) -> &[Question] {
        &self.questions
    }

    /// How the form's question ended, for the log and for the server: the person's answer is
    /// `accept` with the typed content, the Decline button `decline`, closing it (or the wait being
    /// ended) `cancel`.
    pub(crate) fn ended(
        &self,
        answered: Result<crate::question::AnswerBatch, crate::question::UserInteractionError>,
    ) -> Result<(FormOutcome, ElicitResult), FormFailure> {
        let confirm_only = self.fields.len() == 1 && self.fields[0].id == CONFIRM_ID;
        Ok(match answered {
            Ok(batch) => {
                let content = form_content(&self.fields, &self.questions, &batch);
                match content.get(CONFIRM_ID).and_then(Value::as_str) {
                    Some("decline") if confirm_only => {
                        (FormOutcome::Decline, ElicitResult::new(ElicitationAction::Decline))
                    }
                    _ if confirm_only => {
                        (FormOutcome::Accept { answers: batch }, ElicitResult::new(ElicitationAction::Accept))
                    }
                    _ => (
                        FormOutcome::Accept { answers: batch },
                        ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)),
                    ),
                }
            }
            Err(e) if e.code == ErrorCode::AskDeclined => {
                (FormOutcome::Decline, ElicitResult::new(ElicitationAction::Decline))
            }
            Err(e) if matches!(e.code, ErrorCode::AskCancelled | ErrorCode::AskAborted) => {
                (FormOutcome::Cancel, ElicitResult::new(ElicitationAction::Cancel))
            }
            Err(e) if e.code == ErrorCode::InvalidRequest => {
                return Err(FormFailure::CannotShow(format!("Hark cannot show this form: {}", e.message)));
            }
            Err(e) => return Err(FormFailure::Failed(format!("Hark could not ask the person: {e}"))),
        })
    }

    /// How the session's log records the form and how it ended.
    pub(crate) fn event(&self, server: &str, outcome: FormOutcome) -> Event {
        Event::McpForm {
            server: server.to_string(),
            message: self.message.clone(),
            questions: self.questions.clone(),
            outcome,
        }
    }
}

/// One admitted form in `Forms::waiting`, until it ends.
struct OpenForm<'a>(&'a watch::Sender<usize>);

impl Drop for OpenForm<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

pub(crate) struct CallGuard<'a> {
    forms: &'a Forms,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        let mut turn = lock(&self.forms.turn);
        *turn = match turn.take() {
            Some((abort, n)) if n > 1 => Some((abort, n - 1)),
            _ => None,
        };
    }
}

/// The client side of one server connection: says Hark shows forms and links, and asks them.
#[derive(Clone)]
pub(crate) struct Elicitor(pub(crate) Arc<Forms>);

impl ClientHandler for Elicitor {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.0.ask(request, context.ct.clone()).await
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        // Hark checks answers against the form before they go back, so the server gets typed values.
        let form = FormElicitationCapability::new().with_schema_validation(true);
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(form).with_url(UrlElicitationCapability::new()));
        ClientConfig::new(capabilities, Implementation::new("hark", env!("CARGO_PKG_VERSION")))
    }
}

/// An elicitation as Hark asks it: the server's message and link, one question per field.
pub(crate) struct Form {
    message: String,
    url: Option<String>,
    questions: Vec<Question>,
    fields: Vec<FormField>,
}

/// The questions and fields for an elicitation, or why Hark cannot show it.
pub(crate) fn form(request: &ElicitRequestParams) -> Result<Form, String> {
    let (message, url, schema) = match request {
        ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
            (message, None, Some(requested_schema))
        }
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => (message, Some(url.clone()), None),
        _ => return Err("Hark does not know this kind of elicitation".into()),
    };
    let mut questions = Vec::new();
    let mut fields = Vec::new();
    if let Some(schema) = schema {
        let required = schema.required.clone().unwrap_or_default();
        for name in property_order(schema) {
            let Some(property) = schema.properties.get(&name) else { continue };
            let (question, field) = field(&name, property, required.contains(&name))?;
            questions.push(question);
            fields.push(field);
        }
    }
    if questions.is_empty() {
        let labels = [ACCEPT_LABEL.to_string(), "Decline".to_string()];
        questions.push(Question {
            id: CONFIRM_ID.into(),
            question: if url.is_some() { LINK_QUESTION.into() } else { message.clone() },
            header: None,
            options: options(&labels, &[]),
            multi_select: false,
        });
        fields.push(FormField {
            id: CONFIRM_ID.into(),
            kind: FieldKind::Choice { values: vec!["accept".into(), "decline".into()] },
            required: true,
            default: None,
        });
    }
    Ok(Form { message: message.clone(), url, questions, fields })
}

/// The form an outside agent's MCP server asked for, as the agent passed it on: read as the server's
/// own `elicitation/create` would be, so it becomes the same questions as a form Hark's own MCP
/// client receives. Why Hark cannot show it, when it cannot.
pub(crate) fn outside_form(request: &crate::control::FormRequest) -> Result<Form, String> {
    let mut params = serde_json::json!({ "message": request.message });
    match request.mode.as_deref() {
        None | Some("form") => {
            params["mode"] = "form".into();
            // A form without a schema asks nothing but whether to go ahead.
            params["requestedSchema"] = request
                .requested_schema
                .clone()
                .unwrap_or_else(|| serde_json::json!({ "type": "object", "properties": {} }));
        }
        Some("url") => {
            let url = request.url.clone().ok_or("a URL-mode form carries no url")?;
            params["mode"] = "url".into();
            params["url"] = url.into();
            params["elicitationId"] = request.elicitation_id.clone().unwrap_or_default().into();
        }
        Some(other) => return Err(format!("{other:?} is not a kind of form Hark knows (\"form\" or \"url\")")),
    }
    let params: ElicitRequestParams =
        serde_json::from_value(params).map_err(|e| format!("Hark cannot show this form: {e}"))?;
    let form = form(&params).map_err(|e| format!("Hark cannot show this form: {e}"))?;
    crate::question::validate_questions(&form.questions).map_err(|e| format!("Hark cannot show this form: {e}"))?;
    Ok(form)
}

/// Why Hark cannot show an outside agent's form, if it cannot: checked where the agent's hook
/// runs, so a form that would be refused never starts the app.
pub fn outside_form_problem(request: &crate::control::FormRequest) -> Option<String> {
    outside_form(request).err()
}

/// The fields in the order the server wrote them, then any the order misses.
fn property_order(schema: &ElicitationSchema) -> Vec<String> {
    let mut order: Vec<String> = schema.property_order.clone().unwrap_or_default();
    for name in schema.properties.keys() {
        if !order.contains(name) {
            order.push(name.clone());
        }
    }
    order
}

fn options(labels: &[String], descriptions: &[Option<String>]) -> Vec<QuestionOption> {
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| QuestionOption { label: label.clone(), description: descriptions.get(i).cloned().flatten() })
        .collect()
}

fn field(name: &str, property: &PrimitiveSchemaDefinition, required: bool) -> Result<(Question, FormField), String> {
    // (title, description, labels, kind, default, whether the question is multi-select)
    type Parts<'a> = (Option<&'a str>, Option<&'a str>, Vec<String>, FieldKind, Option<Value>);
    let str_default = |d: &Option<String>| d.clone().map(Value::String);
    let (title, description, labels, kind, default): Parts = match property {
        PrimitiveSchemaDefinition::Enum(e) => match e {
            EnumSchema::Single(SingleSelectEnumSchema::Untitled(s)) => (
                s.title.as_deref(),
                s.description.as_deref(),
                s.enum_.clone(),
                FieldKind::Choice { values: s.enum_.clone() },
                str_default(&s.default),
            ),
            EnumSchema::Single(SingleSelectEnumSchema::Titled(s)) => (
                s.title.as_deref(),
                s.description.as_deref(),
                s.one_of.iter().map(|c| c.title.clone()).collect(),
                FieldKind::Choice { values: s.one_of.iter().map(|c| c.const_.clone()).collect() },
                str_default(&s.default),
            ),
            EnumSchema::Legacy(s) => (
                s.title.as_deref(),
                s.description.as_deref(),
                s.enum_names.clone().filter(|n| n.len() == s.enum_.len()).unwrap_or_else(|| s.enum_.clone()),
                FieldKind::Choice { values: s.enum_.clone() },
                str_default(&s.default),
            ),
            EnumSchema::Multi(MultiSelectEnumSchema::Untitled(s)) => (
                s.title.as_deref(),
                s.description.as_deref(),
                s.items.enum_.clone(),
                FieldKind::Multi { values: s.items.enum_.clone(), min_items: s.min_items, max_items: s.max_items },
                s.default.clone().map(|d| d.into_iter().map(Value::String).collect()),
            ),
            EnumSchema::Multi(MultiSelectEnumSchema::Titled(s)) => (
                s.title.as_deref(),
                s.description.as_deref(),
                s.items.any_of.iter().map(|c| c.title.clone()).collect(),
                FieldKind::Multi {
                    values: s.items.any_of.iter().map(|c| c.const_.clone()).collect(),
                    min_items: s.min_items,
                    max_items: s.max_items,
                },
                s.default.clone().map(|d| d.into_iter().map(Value::String).collect()),
            ),
            _ => return Err(format!("field {name:?} is a kind of enum Hark cannot show")),
        },
        PrimitiveSchemaDefinition::String(s) => (
            s.title.as_deref(),
            s.description.as_deref(),
            Vec::new(),
            FieldKind::Text { min_length: s.min_length, max_length: s.max_length, format: s.format.map(format_name) },
            str_default(&s.default),
        ),
        PrimitiveSchemaDefinition::Number(s) => (
            s.title.as_deref(),
            s.description.as_deref(),
            Vec::new(),
            FieldKind::Number { integer: false, minimum: s.minimum, maximum: s.maximum },
            s.default.and_then(serde_json::Number::from_f64).map(Value::Number),
        ),
        PrimitiveSchemaDefinition::Integer(s) => (
            s.title.as_deref(),
            s.description.as_deref(),
            Vec::new(),
            FieldKind::Number {
                integer: true,
                minimum: s.minimum.map(|v| v as f64),
                maximum: s.maximum.map(|v| v as f64),
            },
            s.default.map(Value::from),
        ),
        PrimitiveSchemaDefinition::Boolean(s) => (
            s.title.as_deref(),
            s.description.as_deref(),
            vec![YES_LABEL.to_string(), NO_LABEL.to_string()],
            FieldKind::Boolean,
            s.default.map(Value::Bool),
        ),
        _ => return Err(format!("field {name:?} has a type Hark cannot show")),
    };
    let multi_select = matches!(kind, FieldKind::Multi { .. });
    let default_shown = default.as_ref().map(|d| shown_default(d, &kind, &labels));
    let mut question = description.or(title).unwrap_or(name).to_string();
    match (&default_shown, required) {
        (Some(d), _) => question.push_str(&format!(" (skip for the default: {d})")),
        (None, true) => question.push_str(" (required)"),
        (None, false) => {}
    }
    let header =
        title.filter(|t| description.is_some() && t.chars().count() <= crate::question::limits::MAX_HEADER_CHARS);
    let question = Question {
        id: name.to_string(),
        question,
        header: header.map(str::to_string),
        options: options(&labels, &[]),
        multi_select,
    };
    Ok((question, FormField { id: name.to_string(), kind, required, default }))
}

/// A default as the person reads it: the option labels for values, Yes/No for a boolean.
fn shown_default(default: &Value, kind: &FieldKind, labels: &[String]) -> String {
    let label = |v: &Value| match (kind, v.as_str()) {
        (FieldKind::Choice { values } | FieldKind::Multi { values, .. }, Some(s)) => {
            values.iter().position(|x| x == s).and_then(|i| labels.get(i).cloned()).unwrap_or_else(|| s.to_string())
        }
        _ => match v {
            Value::Bool(true) => YES_LABEL.to_string(),
            Value::Bool(false) => NO_LABEL.to_string(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
    };
    match default {
        Value::Array(items) => items.iter().map(label).collect::<Vec<_>>().join(", "),
        other => label(other),
    }
}

fn format_name(format: StringFormat) -> String {
    match format {
        StringFormat::Email => "email",
        StringFormat::Uri => "uri",
        StringFormat::Date => "date",
        StringFormat::DateTime => "date-time",
        _ => "text",
    }
    .to_string()
}
