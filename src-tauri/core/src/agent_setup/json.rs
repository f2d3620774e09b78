//! JSON that keeps its object keys in the order of the file.
//!
//! `serde_json::Value` sorts object keys (the workspace does not enable its `preserve_order`
//! feature, and turning it on would change every JSON Hark prints). Writing a person's settings back
//! sorted would reorder everything they and their agent wrote, so these files are read into this
//! small tree instead, and printed back in the file's own layout ([`Style`]).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Object),
}

/// An object's members in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Object(Vec<(String, Json)>);

impl Object {
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`, in its place when it is there, else at the end.
    pub(crate) fn insert(&mut self, key: &str, value: Json) {
        match self.get_mut(key) {
            Some(slot) => *slot = value,
            None => self.0.push((key.to_string(), value)),
        }
    }

    /// `key`'s value, set to `default` first when it is missing.
    pub(crate) fn entry(&mut self, key: &str, default: Json) -> &mut Json {
        let at = match self.0.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                self.0.push((key.to_string(), default));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    pub(crate) fn remove(&mut self, key: &str) -> Option<Json> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn into_pairs(self) -> Vec<(String, Json)> {
        self.0
    }

    pub(crate) fn from_pairs(pairs: Vec<(&str, Json)>) -> Object {
        Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

impl Json {
    pub(crate) fn str(text: &str) -> Json {
        Json::String(text.to_string())
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub(crate) fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub(crate) fn as_array_mut(&mut self) -> Option<&mut Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// What this value is, for a message that says what was expected instead.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// Reads a whole file's text; a file with nothing but whitespace is an empty object, as a file
    /// that does not exist yet.
    pub(crate) fn parse(text: &str) -> Result<Json, serde_json::Error> {
        if text.trim().is_empty() {
            return Ok(Json::Object(Object::default()));
        }
        serde_json::from_str(text)
    }

    /// The text of a file laid out in `style`.
    pub(crate) fn print(&self, style: &Style) -> String {
        let mut out = Vec::new();
        // Printing a tree of strings, numbers and containers into memory cannot fail.
        let _ = match &style.indent {
            None => serde_json::to_writer(&mut out, self),
            Some(indent) => {
                let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                self.serialize(&mut serde_json::Serializer::with_formatter(&mut out, formatter))
            }
        };
        let mut text = String::from_utf8(out).unwrap_or_default();
        if style.final_newline {
            text.push('\n');
        }
        // JSON escapes a line break inside a string, so every one in the text is between tokens.
        if style.crlf {
            text = text.replace('\n', "\r\n");
        }
        text
    }
}

/// How a file lays its JSON out, so that rewriting it changes only what changed: the indentation
/// of one level, the line ending, and whether the text ends with a line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Style {
    /// `None`: the whole value on one line.
    indent: Option<String>,
    crlf: bool,
    final_newline: bool,
}

impl Style {
    /// The layout of `old`. A new or blank file (and one too plain to tell, `{}`) gets Claude Code's
    /// own: two spaces, `\n`, a final line break.
    pub(crate) fn of(old: Option<&str>) -> Style {
        let usual = Style { indent: Some("  ".to_string()), crlf: false, final_newline: true };
        let Some(text) = old.filter(|t| !t.trim().is_empty()) else {
            return usual;
        };
        let crlf = text.find('\n').is_some_and(|at| text[..at].ends_with('\r'));
        let body = text.trim();
        let indent = if body.contains('\n') {
            // The first indented line is one level in: its leading white space is one level.
            let first =
                body.lines().skip(1).map(|line| &line[..line.len() - line.trim_start().len()]).find(|w| !w.is_empty());
            Some(first.unwrap_or("  ").to_string())
        } else if body.len() > 2 {
            None
        } else {
            usual.indent.clone()
        };
        Style { indent, crlf, final_newline: text.ends_with('\n') }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.0.len()))?;
                for (key, value) in &object.0 {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(n).map(Json::Number).ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::str(s))
    }

    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    /// A repeated key keeps its first place and its last value, as JavaScript's `JSON.parse` does.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut object = Object::default();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            object.insert(&key, value);
        }
        Ok(Json::Object(object))
    }
}
