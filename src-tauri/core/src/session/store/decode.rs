//! Decoding a stored row into an [`Event`] with the variant chosen by the `type` column.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, EnumAccess, VariantAccess, Visitor};
use serde::Deserialize;

use crate::session::events::{Event, StoredBody};

/// Decodes `body` as the variant named by `tag`. If that fails, a body whose own `type` key names
/// another known variant is taken as that one; otherwise the error is the tag's.
///
/// A tag this build does not know is a newer build's event: it decodes to [`Event::Unknown`], so the
/// session stays readable, as long as the body is JSON at all.
pub fn event(tag: &str, body: &str) -> Result<Event, serde_json::Error> {
    if !Event::is_known_type(tag) {
        let body = serde_json::from_str(body)?;
        return Ok(Event::Unknown { type_name: tag.to_string(), body });
    }
    match StoredBody::deserialize(ColumnTagged { tag, body }) {
        Ok(stored) => Ok(stored.into()),
        Err(e) => match serde_json::from_str::<Event>(body) {
            Ok(Event::Unknown { .. }) | Err(_) => Err(e),
            Ok(event) => Ok(event),
        },
    }
}

/// A deserializer that presents `(tag, body)` as an externally tagged enum.
struct ColumnTagged<'a> {
    tag: &'a str,
    body: &'a str,
}

impl<'de> de::Deserializer<'de> for ColumnTagged<'de> {
    type Error = serde_json::Error;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("a stored event decodes only as an enum"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for ColumnTagged<'de> {
    type Error = serde_json::Error;
    type Variant = Body<'de>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Body<'de>), Self::Error> {
        let tag = BorrowedStrDeserializer::<serde_json::Error>::new(self.tag);
        Ok((seed.deserialize(tag)?, Body(self.body)))
    }
}

struct Body<'a>(&'a str);

impl<'de> VariantAccess<'de> for Body<'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        Err(de::Error::custom("events have fields"))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, Self::Error> {
        Err(de::Error::custom("events have named fields"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("events have named fields"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let mut de = serde_json::Deserializer::from_str(self.0);
        let value = de::Deserializer::deserialize_struct(&mut de, "Event", fields, visitor)?;
        de.end()?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::ToolMode;
    use crate::session::events::{MessageSource, ToolOutcome};

    fn every_variant() -> Vec<Event> {
        vec![
            Event::SessionCreated {
                title: "t".into(),
                workspace: Some("/w".into()),
                model: None,
                client: None,
                started_by: None,
            },
            Event::RequestHeader {
                tools: vec!["a".into()],
                question_mode: ToolMode::Timed,
                default_timeout_secs: 9,
                stop_turn: false,
            },
            Event::TurnStarted { turn_id: "t".into(), run_id: "r".into() },
            Event::UserMessage {
                message_id: "m".into(),
                text: "hi".into(),
                source: Some(MessageSource::question_reply("c", crate::question::AnswerBatch { answers: Vec::new() })),
            },
            Event::AssistantMessage {
                text: "a".into(),
                reasoning: Some("r".into()),
                tool_calls: vec!["c".into()],
                usage: Some(serde_json::json!({"n": 1})),
            },
            Event::ToolCall { call_id: "c".into(), name: "x".into(), arguments: serde_json::json!({"k": [1, 2]}) },
            Event::ToolResult { call_id: "c".into(), outcome: ToolOutcome::Unknown },
            Event::ToolResult { call_id: "c".into(), outcome: ToolOutcome::ok("{\"answers\":[]}") },
            Event::InboxQueued {
                message_id: "m".into(),
                text: "x".into(),
                source: MessageSource::question_reply("c", crate::question::AnswerBatch { answers: Vec::new() }),
            },
            Event::InboxDiscarded { message_id: "m".into(), reason: "r".into() },
            Event::TurnEnded { turn_id: "t".into(), reason: crate::session::TurnEndReason::Completed },
            Event::ModelError { error: crate::error::BoundaryError::new("E", "C", "m") },
        ]
    }

    #[test]
    fn the_column_path_decodes_every_variant_like_the_body_does() {
        for event in every_variant() {
            let body = serde_json::to_string(&event).unwrap();
            let fast = StoredBody::deserialize(ColumnTagged { tag: event.type_name(), body: &body }).map(Event::from);
            assert_eq!(fast.unwrap(), event, "{body}");
        }
    }

    #[test]
    fn a_tag_the_body_disagrees_with_falls_back_to_the_body() {
        let event = Event::TurnStarted { turn_id: "t".into(), run_id: "r".into() };
        let body = serde_json::to_string(&event).unwrap();
        assert_eq!(super::event("turn/ended", &body).unwrap(), event);
        assert!(super::event("no/such", "{not json").is_err());
    }

    #[test]
    fn a_tag_this_build_does_not_know_keeps_the_body_as_it_is() {
        let body = r#"{"type":"future/thing","n":[1,2]}"#;
        let event = super::event("future/thing", body).unwrap();
        let expected = serde_json::from_str(body).unwrap();
        assert_eq!(event, Event::Unknown { type_name: "future/thing".into(), body: expected });
        // A body of a known tag that claims an unknown type is a damaged row, not a newer event.
        let claimed = super::event("user/message", r#"{"type":"future/thing"}"#).unwrap_err();
        assert!(claimed.to_string().contains("message_id"), "the tag's own error: {claimed}");
    }
}
