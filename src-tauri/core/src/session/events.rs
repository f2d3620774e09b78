//! The typed events of a session log. The `type` tag is the stored wire name; renaming a variant's
//! tag is a schema change (old rows would be read as unknown and skipped), so tags only ever get added.

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::BoundaryError;
use crate::question::{AnswerBatch, FormOutcome, Question, ToolMode};

/// A session id: uuid v4 text.
pub type SessionId = String;

/// A closed set the log stores as strings. Each spelling is written once: serde and `as_str` take it
/// from here, `parse` reads it back, and a value this build does not know (a newer build wrote it)
/// reads as `Other`, which is never written.
macro_rules! stored_names {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant,)*
            /// A value a newer build recorded: read, and shown as `other`, never written to the log.
            #[serde(other, rename = "other")]
            Other,
        }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Other => "other",
                }
            }

            /// A known value by its stored spelling (`Other` is never parsed).
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

stored_names! {
    /// What kind of message a [`MessageSource`] describes.
    pub enum SourceKind {
        /// A late answer to a continued question.
        QuestionReply = "user-question-reply",
        /// A message the person typed.
        Typed = "user-typed",
    }
}

stored_names! {
    /// How a late answer's question ended; unset for a typed message.
    #[derive(Default)]
    pub enum SourceOutcome {
        Answered = "answered",
        /// Written as `""`: earlier builds require the field.
        #[default]
        Unset = "",
    }
}

/// Defines [`Event`] and, from the same variant list, [`StoredBody`]: an externally tagged twin the
/// store decodes rows into, with the tag taken from the `type` column. Decoding `Event` itself goes
/// through a buffered map first; the twin skips that and roughly halves the time to read a long
/// session.
///
/// Besides the listed variants, `Event` has [`Event::Unknown`]: a row whose type a newer build
/// added. It is read back (so that build's session still opens here) and skipped by every reader.
macro_rules! events {
    ($(
        $(#[$vmeta:meta])*
        $tag:literal => $variant:ident { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
    ),* $(,)?) => {
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum Event {
            $( $(#[$vmeta])* #[serde(rename = $tag)] $variant { $( $(#[$fmeta])* $field: $ty ),* }, )*
            /// An event of a type this build does not know, as a newer build stored it: `body` is the
            /// stored JSON. Never written by this build; serialized as the body with its `type`.
            #[serde(untagged, serialize_with = "serialize_unknown")]
            Unknown { type_name: String, body: serde_json::Value },
        }

        impl Event {
            /// The stored `type` tag, kept in its own column so rows can be filtered without parsing JSON.
            pub fn type_name(&self) -> &str {
                match self {
                    $( Event::$variant { .. } => $tag, )*
                    Event::Unknown { type_name, .. } => type_name,
                }
            }

            /// Whether this build has a variant for the `type` tag.
            pub(crate) fn is_known_type(tag: &str) -> bool {
                matches!(tag, $( $tag )|*)
            }
        }

        /// [`Event`] keyed by an external tag (the `type` column); the `type` key inside a stored
        /// body is ignored as an unknown field.
        #[derive(Deserialize)]
        pub(crate) enum StoredBody {
            $( #[serde(rename = $tag)] $variant { $( $(#[$fmeta])* $field: $ty ),* }, )*
        }

        impl From<StoredBody> for Event {
            fn from(body: StoredBody) -> Event {
                match body { $( StoredBody::$variant { $($field),* } => Event::$variant { $($field),* }, )* }
            }
        }
    };
}

events! {
    "session/created" => SessionCreated {
        title: String,
        #[serde(default)]
        workspace: Option<String>,
        #[serde(default)]
        model: Option<ModelRef>,
        /// The outside agent (an MCP client of `hark mcp`, by the name it gave) whose questions the
        /// session holds; such a session has no agent of Hark's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        /// The front door that started the session when it is not the window or terminal the person
        /// works in (`hark tui` through the app, another program over the control socket), so a
        /// session nobody watched start is still seen to have come from somewhere else.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        started_by: Option<String>,
    },
    /// The tools and question schema in force for the requests that follow.
    "request/header" => RequestHeader {
        tools: Vec<String>,
        question_mode: ToolMode,
        default_timeout_secs: u64,
        /// The turn stops when a timed question's wait runs out (see `QuestionSettings::stop_turn`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stop_turn: bool,
    },
    "turn/started" => TurnStarted { turn_id: String, run_id: String },
    /// An admitted user message (a plain one, or a late answer when `source` says so).
    "user/message" => UserMessage {
        message_id: String,
        text: String,
        #[serde(default)]
        source: Option<MessageSource>,
    },
    "assistant/message" => AssistantMessage {
        text: String,
        #[serde(default)]
        reasoning: Option<String>,
        /// Call ids, in the order the model made them.
        #[serde(default)]
        tool_calls: Vec<String>,
        #[serde(default)]
        usage: Option<serde_json::Value>,
    },
    /// `arguments` is the parsed JSON, or the raw text as a JSON string when the model sent invalid JSON.
    "tool/call" => ToolCall { call_id: String, name: String, arguments: serde_json::Value },
    "tool/result" => ToolResult { call_id: String, outcome: ToolOutcome },
    /// A tool call a `run_code` script made (`parent_call_id` is the `run_code` call). The model never
    /// sees it as a call of its own; it reads the script's result.
    "tool/ptc-dispatch" => PtcDispatch { parent_call_id: String, call_id: String, name: String, arguments: serde_json::Value },
    /// The result of a `tool/ptc-dispatch` call, as the script got it.
    "tool/ptc-result" => PtcResult { call_id: String, outcome: ToolOutcome },
    /// A message waiting in the session inbox for admission: a late answer, or a message the person
    /// typed (recorded when the agent accepts it, admitted as `user/message` under the same id).
    "inbox/queued" => InboxQueued { message_id: String, text: String, source: MessageSource },
    "inbox/discarded" => InboxDiscarded { message_id: String, reason: String },
    "turn/ended" => TurnEnded { turn_id: String, reason: TurnEndReason },
    /// `error` is `{name, code, message}`.
    "model/error" => ModelError { error: BoundaryError },
    /// An MCP server could not be started for this turn, which ran without its tools.
    "mcp/unavailable" => McpUnavailable { server: String, error: BoundaryError },
    /// An MCP server's form (elicitation) and how the person ended it, recorded before the server is
    /// told. The model reads only what the server's tool then returns.
    "mcp/form" => McpForm { server: String, message: String, questions: Vec<Question>, outcome: FormOutcome },
    /// The server said a request did not fit the model's context: from here on, the conversation up
    /// to and including `through_seq` reaches the model as `summary` (the model's own, or `None` when
    /// it could not write one and the older turns are left out), and every request is fitted to
    /// `window_tokens`, the window the server was found to have (in the agent's estimated tokens).
    "history/compacted" => HistoryCompacted { through_seq: u64, summary: Option<String>, window_tokens: u64 },
    /// The outside agent of a client session took these late answers (through `get_answers`): each
    /// is returned once.
    "client/answers-returned" => AnswersReturned { call_ids: Vec<String> },
    /// Which run of an outside agent made the call (one `hark mcp` process, one agent session of a
    /// hook): its late answer is returned to that asker alone, never to another agent that shares
    /// the client's name and folder.
    "client/asked" => ClientAsked { call_id: String, asker: String },
    /// The agent that asked a continued question took it back (it no longer needs the answer): the
    /// question ends unanswered, and a later answer is refused with `reason`.
    "question/withdrawn" => QuestionWithdrawn { call_id: String, reason: String },
}

/// An unknown event as JSON: its `type`, then the fields of its stored body (a body that is not an
/// object is kept whole under `body`), so it reads like the event that was stored.
fn serialize_unknown<S: Serializer>(type_name: &str, body: &Value, s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    map.serialize_entry("type", type_name)?;
    match body {
        Value::Object(fields) => {
            for (key, value) in fields.iter().filter(|(key, _)| key.as_str() != "type") {
                map.serialize_entry(key, value)?;
            }
        }
        other => map.serialize_entry("body", other)?,
    }
    map.end()
}

/// An event from its self-describing JSON (`type` inside). A `type` this build does not know gives
/// [`Event::Unknown`] holding the whole object.
impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Event, D::Error> {
        let mut fields = Map::<String, Value>::deserialize(d)?;
        let tag = match fields.get("type") {
            Some(Value::String(tag)) => tag.clone(),
            Some(_) => return Err(D::Error::custom("an event's `type` must be a string")),
            None => return Err(D::Error::missing_field("type")),
        };
        if !Event::is_known_type(&tag) {
            return Ok(Event::Unknown { type_name: tag, body: Value::Object(fields) });
        }
        fields.remove("type");
        let tagged = Value::Object(Map::from_iter([(tag, Value::Object(fields))]));
        StoredBody::deserialize(tagged).map(Event::from).map_err(D::Error::custom)
    }
}

stored_names! {
    /// Which kind of model a session names: the scripted demo, or any OpenAI-compatible server
    /// (DeepSeek, OpenAI, Ollama... differ only in base URL and model). `parse` is what `--provider`
    /// accepts; an `Other` session is not runnable here.
    pub enum ModelKind {
        Demo = "demo",
        Openai = "openai",
    }
}

/// Which model a session was created with. Never carries a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelRef {
    pub provider: ModelKind,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub script: Option<String>,
}

/// Where an inbox message (or a user message that is not plain typed text) came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageSource {
    pub kind: SourceKind,
    /// Empty for a typed message. Always written: earlier builds require the field.
    #[serde(default)]
    pub call_id: String,
    #[serde(default)]
    pub outcome: SourceOutcome,
    /// A late answer's answers as the person gave them, so nothing has to read them back out of the
    /// text the model gets. Absent in logs written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<AnswerBatch>,
}

impl MessageSource {
    /// The source of a late answer to `call_id`, with its answers.
    pub fn question_reply(call_id: impl Into<String>, answers: AnswerBatch) -> Self {
        MessageSource {
            kind: SourceKind::QuestionReply,
            call_id: call_id.into(),
            outcome: SourceOutcome::Answered,
            answers: Some(answers),
        }
    }

    /// A late answer's answers: as recorded with it, or (in logs from before they were) read from
    /// its `text`, which the model got. `None` when neither says them for this call.
    pub fn reply_answers(&self, text: &str) -> Option<AnswerBatch> {
        let call_id = self.reply_call_id()?;
        match &self.answers {
            Some(answers) => Some(answers.clone()),
            None => crate::question::parse_late_answer_text(text).filter(|(id, _)| id == call_id).map(|(_, b)| b),
        }
    }

    /// The source of a message the person typed.
    pub fn typed() -> Self {
        MessageSource { kind: SourceKind::Typed, call_id: String::new(), outcome: SourceOutcome::Unset, answers: None }
    }

    /// The call this message answers late, when it is a late answer.
    pub fn reply_call_id(&self) -> Option<&str> {
        (self.kind == SourceKind::QuestionReply).then_some(self.call_id.as_str())
    }

    pub fn is_typed(&self) -> bool {
        self.kind == SourceKind::Typed
    }
}

stored_names! {
    /// Why a turn ended, as `turn/ended` stores it and the stream reports it.
    pub enum TurnEndReason {
        /// The model answered without asking for more tool calls.
        Completed = "completed",
        /// The person pressed Stop, or the app quit.
        Aborted = "aborted",
        /// The model or the store failed (`model/error` says why).
        Error = "error",
        /// The turn took as many steps as one turn may.
        StepLimit = "step_limit",
        /// Recorded by crash repair: the run that owned the turn died.
        Interrupted = "interrupted",
        /// A timed question's wait ran out and the session stops its turn then; the question stays
        /// open, and its answer starts the next turn.
        QuestionTimedOut = "question_timed_out",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ToolOutcome {
    Ok {
        content: String,
        /// A question's or a plan review's answers as the person gave them: what its record is
        /// settled with, so nothing reads them back out of `content`, which is written for the
        /// model. Absent for other tools, and in logs of builds before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        answers: Option<AnswerBatch>,
    },
    /// The foreground wait ended without an answer; the call stays answerable.
    Pending {
        content: String,
        /// When the wait ended, as the tool said in `content`; absent in logs of builds before it
        /// was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        since: Option<chrono::DateTime<chrono::Utc>>,
    },
    Error {
        error: BoundaryError,
    },
    /// Recorded by crash repair: the run that made the call died before it produced a result.
    #[serde(rename = "TOOL_OUTCOME_UNKNOWN")]
    Unknown,
}

impl ToolOutcome {
    /// A finished call's text, with no answers.
    pub fn ok(content: impl Into<String>) -> ToolOutcome {
        ToolOutcome::Ok { content: content.into(), answers: None }
    }

    /// A pending result's text, with no time.
    pub fn pending(content: impl Into<String>) -> ToolOutcome {
        ToolOutcome::Pending { content: content.into(), since: None }
    }
}

/// An event as stored: its place in the session (`seq` from 1, gapless) and when it was appended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    pub session_id: SessionId,
    pub seq: u64,
    pub at: chrono::DateTime<chrono::Utc>,
    #[serde(flatten)]
    pub event: Event,
}

/// In TypeScript a stored event is its envelope and `type`: the window reads no more of it, and the
/// log's many event bodies are the store's format, not part of the IPC contract.
impl ts_rs::TS for StoredEvent {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        Some("/**\n * A stored session event as the shell streams it: its envelope and `type`; the body's fields\n * follow the log's format.\n */\n".into())
    }

    fn name(_: &ts_rs::Config) -> String {
        "StoredEvent".into()
    }

    fn inline(_: &ts_rs::Config) -> String {
        "{ session_id: string, seq: number, at: string, type: string, [field: string]: unknown }".into()
    }

    fn decl(cfg: &ts_rs::Config) -> String {
        format!("type StoredEvent = {};", Self::inline(cfg))
    }

    fn output_path() -> Option<std::path::PathBuf> {
        Some("StoredEvent.ts".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_the_type_column() {
        let samples = vec![
            Event::SessionCreated {
                title: "t".into(),
                workspace: None,
                model: None,
                client: Some("Claude Code".into()),
                started_by: None,
            },
            Event::AnswersReturned { call_ids: vec!["c".into()] },
            Event::RequestHeader {
                tools: vec![],
                question_mode: ToolMode::Timed,
                default_timeout_secs: 120,
                stop_turn: true,
            },
            Event::TurnStarted { turn_id: "t".into(), run_id: "r".into() },
            Event::UserMessage { message_id: "m".into(), text: "hi".into(), source: None },
            Event::AssistantMessage { text: "a".into(), reasoning: None, tool_calls: vec![], usage: None },
            Event::ToolCall { call_id: "c".into(), name: "x".into(), arguments: serde_json::json!({}) },
            Event::ToolResult { call_id: "c".into(), outcome: ToolOutcome::Unknown },
            Event::InboxQueued {
                message_id: "m".into(),
                text: "x".into(),
                source: MessageSource::question_reply("c", crate::question::AnswerBatch { answers: Vec::new() }),
            },
            Event::InboxQueued { message_id: "t".into(), text: "typed".into(), source: MessageSource::typed() },
            Event::InboxDiscarded { message_id: "m".into(), reason: "r".into() },
            Event::TurnEnded { turn_id: "t".into(), reason: TurnEndReason::Completed },
            Event::ModelError { error: crate::error::BoundaryError::new("E", "C", "m") },
            Event::HistoryCompacted { through_seq: 7, summary: Some("s".into()), window_tokens: 32_768 },
            Event::HistoryCompacted { through_seq: 7, summary: None, window_tokens: 32_768 },
        ];
        for event in samples {
            let json = serde_json::to_value(&event).unwrap();
            assert_eq!(json["type"], event.type_name());
            let back: Event = serde_json::from_value(json).unwrap();
            assert_eq!(back, event);
        }
    }

    #[test]
    fn an_unknown_event_reads_and_writes_as_the_json_it_was() {
        let json = serde_json::json!({"type": "future/thing", "call_id": "c", "detail": {"x": 1}});
        let event: Event = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(event, Event::Unknown { type_name: "future/thing".into(), body: json.clone() });
        assert_eq!(event.type_name(), "future/thing");
        assert_eq!(serde_json::to_value(&event).unwrap(), json);
        // A body that is not an object keeps its place under `body`.
        let odd = Event::Unknown { type_name: "future/list".into(), body: serde_json::json!([1]) };
        assert_eq!(serde_json::to_value(&odd).unwrap(), serde_json::json!({"type": "future/list", "body": [1]}));
        // A known type still has to decode as that type.
        assert!(serde_json::from_str::<Event>(r#"{"type":"turn/started","turn_id":"t"}"#).is_err());
        assert!(serde_json::from_str::<Event>(r#"{"turn_id":"t"}"#).is_err());
    }

    #[test]
    fn a_typed_source_keeps_every_field_an_earlier_build_requires() {
        let json = serde_json::to_value(MessageSource::typed()).unwrap();
        assert_eq!(json, serde_json::json!({"kind": "user-typed", "call_id": "", "outcome": ""}));
        let source: MessageSource = serde_json::from_value(serde_json::json!({"kind": "user-typed"})).unwrap();
        assert!(source.is_typed() && source.reply_call_id().is_none());
        assert!(!MessageSource::question_reply("c", crate::question::AnswerBatch { answers: Vec::new() }).is_typed());
    }

    #[test]
    fn outcomes_use_the_documented_status_tags() {
        let unknown = serde_json::to_value(ToolOutcome::Unknown).unwrap();
        assert_eq!(unknown, serde_json::json!({"status": "TOOL_OUTCOME_UNKNOWN"}));
        let pending = serde_json::to_value(ToolOutcome::pending("later")).unwrap();
        assert_eq!(pending["status"], "pending");
    }

    #[test]
    fn optional_fields_may_be_absent_in_old_rows() {
        let e: Event = serde_json::from_str(r#"{"type":"user/message","message_id":"m","text":"hi"}"#).unwrap();
        assert_eq!(e, Event::UserMessage { message_id: "m".into(), text: "hi".into(), source: None });
        let e: Event = serde_json::from_str(r#"{"type":"assistant/message","text":"a"}"#).unwrap();
        assert!(matches!(e, Event::AssistantMessage { tool_calls, .. } if tool_calls.is_empty()));
    }

    #[test]
    fn stored_event_flattens_the_event() {
        let stored = StoredEvent {
            session_id: "s".into(),
            seq: 3,
            at: chrono::DateTime::from_timestamp_micros(1_700_000_000_000_000).unwrap(),
            event: Event::TurnStarted { turn_id: "t".into(), run_id: "r".into() },
        };
        let json = serde_json::to_value(&stored).unwrap();
        assert_eq!(json["type"], "turn/started");
        assert_eq!(json["seq"], 3);
        let back: StoredEvent = serde_json::from_value(json).unwrap();
        assert_eq!(back, stored);

        let body = serde_json::json!({"type": "future/thing", "n": 1});
        let unknown = StoredEvent { event: Event::Unknown { type_name: "future/thing".into(), body }, ..stored };
        let json = serde_json::to_value(&unknown).unwrap();
        assert_eq!((&json["type"], &json["n"], &json["seq"]), (&"future/thing".into(), &1.into(), &3.into()));
        let back: StoredEvent = serde_json::from_value(json).unwrap();
        assert_eq!(back, unknown);
    }

    #[test]
    fn turn_end_reasons_read_as_stored_and_a_newer_one_reads_as_other() {
        for reason in [
            TurnEndReason::Completed,
            TurnEndReason::Aborted,
            TurnEndReason::Error,
            TurnEndReason::StepLimit,
            TurnEndReason::Interrupted,
        ] {
            let stored = serde_json::to_value(reason).unwrap();
            assert_eq!(stored, serde_json::json!(reason.as_str()));
            assert_eq!(serde_json::from_value::<TurnEndReason>(stored).unwrap(), reason);
        }
        let newer: Event =
            serde_json::from_value(serde_json::json!({"type": "turn/ended", "turn_id": "t", "reason": "paused"}))
                .unwrap();
        assert_eq!(newer, Event::TurnEnded { turn_id: "t".into(), reason: TurnEndReason::Other });
    }
}
