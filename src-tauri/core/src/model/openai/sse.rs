//! A small Server-Sent Events parser over raw body bytes.
//!
//! Lines end in `\n` or `\r\n`; `data:` lines accumulate until a blank line dispatches the event;
//! comment lines (`: keep-alive`) are skipped. Bytes are split on line ends before UTF-8 decoding, so
//! a multi-byte character cut across two network reads is reassembled intact.

use crate::model::error::ModelError;

use super::excerpt;

/// A line longer than this without a newline is not an event stream worth buffering.
const MAX_BUFFERED_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SseEvent {
    /// The `event:` field, when the server named the event (some send `event: error`).
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub(super) struct SseParser {
    buf: Vec<u8>,
    /// Bytes of `buf` already consumed as lines; compacted when the buffer runs dry.
    start: usize,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ModelError> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() - self.start > MAX_BUFFERED_BYTES {
            return Err(ModelError::BadStream {
                message: format!("A stream line exceeded {MAX_BUFFERED_BYTES} bytes without a line break"),
            });
        }
        Ok(())
    }

    /// The next complete event in the buffered bytes, if any.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, ModelError>> {
        while let Some(offset) = self.buf[self.start..].iter().position(|&b| b == b'\n') {
            let end = self.start + offset;
            let line_result = decode_line(&self.buf[self.start..end]);
            self.start = end + 1;
            let line = match line_result {
                Ok(line) => line,
                Err(e) => return Some(Err(e)),
            };
            if let Some(event) = self.take_line(&line) {
                return Some(Ok(event));
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
            match decode_line(&rest) {
                Ok(line) => {
                    if let Some(event) = self.take_line(&line) {
                        return Some(Ok(event));
                    }
                }
                Err(e) => return Some(Err(e)),
            }
        }
        self.dispatch().map(Ok)
    }

    fn take_line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            // `id` and `retry` only matter to reconnecting EventSource clients.
            _ => {}
        }
        None
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
        let mut p = SseParser::default();
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
        let mut p = SseParser::default();
        p.push(&text[..9]).unwrap();
        assert!(drain(&mut p).is_empty());
        p.push(&text[9..]).unwrap();
        assert_eq!(drain(&mut p)[0].data, "héllo ✓");
    }

    #[test]
    fn unterminated_last_event_is_kept_at_eof() {
        let mut p = SseParser::default();
        p.push(b"data: [DONE]").unwrap();
        assert!(drain(&mut p).is_empty());
        let last = p.finish().map(|r| r.map(|e| e.data));
        assert_eq!(last, Some(Ok("[DONE]".to_string())));
        assert!(p.finish().is_none());
    }

    #[test]
    fn invalid_utf8_is_a_bad_stream() {
        let mut p = SseParser::default();
        p.push(b"data: \xff\xfe\n\n").unwrap();
        let err = p.next_event().map(|r| r.map_err(|e| e.code()));
        assert_eq!(err, Some(Err("MODEL_BAD_STREAM")));
    }
}
