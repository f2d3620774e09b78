//! A small Server-Sent Events parser over raw body bytes.
//!
//! Lines end in `\n` or `\r\n`; `data:` lines accumulate until a blank line dispatches the event;
//! comment lines (`: keep-alive`) are skipped. Bytes are split on line ends before UTF-8 decoding, so
//! a multi-byte character cut across two network reads is reassembled intact. A line or an event
//! longer than the configured limit ends the stream instead of being buffered without bound.

use crate::model::error::ModelError;

use super::excerpt;
use super::limits::{too_large, Part};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SseEvent {
    /// The `event:` field, when the server named the event (some send `event: error`).
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug)]
pub(super) struct SseParser {
    buf: Vec<u8>,
    /// Bytes of `buf` already consumed as lines; compacted when the buffer runs dry.
    start: usize,
    /// Length of the line still waiting for its line break, at the end of `buf`.
    unterminated: usize,
    /// The longest line, and the most data one event may gather.
    max_event_bytes: usize,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser { buf: Vec::new(), start: 0, unterminated: 0, max_event_bytes, event: None, data: None }
    }

    /// Buffers one network read. Only the new bytes are searched, so a long line costs no rescans.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ModelError> {
        self.unterminated = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(last) => bytes.len() - last - 1,
            None => self.unterminated.saturating_add(bytes.len()),
        };
        if self.unterminated > self.max_event_bytes {
            return Err(too_large(Part::Line, self.max_event_bytes));
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// The next complete event in the buffered bytes, if any.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, ModelError>> {
        while let Some(offset) = self.buf[self.start..].iter().position(|&b| b == b'\n') {
            // A long line that arrived whole in one read, with its line break.
            if offset > self.max_event_bytes {
                return Some(Err(too_large(Part::Line, self.max_event_bytes)));
            }
            let end = self.start + offset;
            let line_result = decode_line(&self.buf[self.start..end]);
            self.start = end + 1;
            let taken = line_result.and_then(|line| self.take_line(&line));
            match taken {
                Ok(Some(event)) => return Some(Ok(event)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        self.buf.drain(..self.start);
        self.start = 0;
        None
    }

    /// At end of body: the last unterminated line and event still count. Strict SSE would drop them,
    /// but servers that close right after `data: [DONE]` without a blank line are common enough.
    pub fn finish(&mut self) -> Option<Result<SseEvent, ModelError>> {
        if let Some(event) = self.next_event() {
            return Some(event);
        }
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            self.unterminated = 0;
            match decode_line(&rest).and_then(|line| self.take_line(&line)) {
                Ok(Some(event)) => return Some(Ok(event)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        self.dispatch().map(Ok)
    }

    fn take_line(&mut self, line: &str) -> Result<Option<SseEvent>, ModelError> {
        if line.is_empty() {
            return Ok(self.dispatch());
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    // Many short `data:` lines with no blank line between them are one growing event.
                    if data.len().saturating_add(1 + value.len()) > self.max_event_bytes {
                        return Err(too_large(Part::Event, self.max_event_bytes));
                    }
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            // `id` and `retry` only matter to reconnecting EventSource clients.
            _ => {}
        }
        Ok(None)
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        self.data.take().map(|data| SseEvent { event, data })
    }
}

fn decode_line(bytes: &[u8]) -> Result<String, ModelError> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8(bytes.to_vec()).map_err(|_| ModelError::BadStream {
        message: format!("A stream line is not valid UTF-8: {}", excerpt(&String::from_utf8_lossy(bytes))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(p: &mut SseParser) -> Vec<SseEvent> {
        let mut out = Vec::new();
        while let Some(e) = p.next_event() {
            out.push(e.unwrap_or_else(|e| panic!("{e}")));
        }
        out
    }

    #[test]
    fn events_split_across_reads_and_crlf() {
        let mut p = SseParser::new(1024);
        p.push(b"data: {\"a\":").unwrap();
        assert!(drain(&mut p).is_empty());
        p.push(b"1}\r\n\r\n: keep-alive\n\nevent: error\ndata: x\ndata: y\n\n").unwrap();
        let events = drain(&mut p);
        assert_eq!(
            events,
            vec![
                SseEvent { event: None, data: "{\"a\":1}".into() },
                SseEvent { event: Some("error".into()), data: "x\ny".into() },
            ]
        );
    }

    #[test]
    fn multibyte_character_cut_between_reads() {
        let text = "data: héllo ✓\n\n".as_bytes();
        let mut p = SseParser::new(1024);
        p.push(&text[..9]).unwrap();
        assert!(drain(&mut p).is_empty());
        p.push(&text[9..]).unwrap();
        assert_eq!(drain(&mut p)[0].data, "héllo ✓");
    }

    #[test]
    fn unterminated_last_event_is_kept_at_eof() {
        let mut p = SseParser::new(1024);
        p.push(b"data: [DONE]").unwrap();
        assert!(drain(&mut p).is_empty());
        let last = p.finish().map(|r| r.map(|e| e.data));
        assert_eq!(last, Some(Ok("[DONE]".to_string())));
        assert!(p.finish().is_none());
    }

    #[test]
    fn lines_and_events_past_the_limit_are_too_large() {
        let error = |p: &mut SseParser| match p.next_event() {
            Some(Err(e)) => (e.code(), e.message().to_string()),
            other => panic!("expected an error, got {other:?}"),
        };
        let mut p = SseParser::new(8);
        p.push(b"data: 12").unwrap();
        let err = p.push(b"3").expect_err("an unterminated line of 9 bytes");
        assert!(err.code() == "MODEL_OUTPUT_TOO_LARGE" && err.message().contains("line"), "{err}");
        let mut p = SseParser::new(8);
        p.push(b"data: 1\ndata: 123456789\n\n").unwrap();
        let (code, message) = error(&mut p);
        assert!(code == "MODEL_OUTPUT_TOO_LARGE" && message.contains("line"), "a whole long line: {message}");
        let mut p = SseParser::new(8);
        p.push(b"data:123\ndata:123\ndata:123\n").unwrap();
        let (code, message) = error(&mut p);
        assert!(code == "MODEL_OUTPUT_TOO_LARGE" && message.contains("event"), "many short lines: {message}");
        let mut p = SseParser::new(8);
        p.push(b"data: ab\n\ndata: cd\n\ndata: ef\n\ndata").unwrap();
        assert_eq!(drain(&mut p).len(), 3, "short events in one read are fine");
    }

    #[test]
    fn invalid_utf8_is_a_bad_stream() {
        let mut p = SseParser::new(1024);
        p.push(b"data: \xff\xfe\n\n").unwrap();
        let err = p.next_event().map(|r| r.map_err(|e| e.code()));
        assert_eq!(err, Some(Err("MODEL_BAD_STREAM")));
    }
}
