//! A local Telegram Bot API (npm `telegram-test-api`, started from `tests/mcp/telegram-emulator.mjs`,
//! which `make test` installs) and a person using it: sending `/start CODE`, pressing a message's
//! buttons, replying. What the bot sent is read back from the emulator's history, edits included.
//! The emulator is external, so reading it is polling over HTTP, bounded by [`crate::WAIT`].

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::WAIT;

/// The emulator's process, stopped (by its own handle) when this is dropped.
pub struct Emulator {
    _child: Child,
    pub url: String,
    http: reqwest::Client,
}

/// One message the bot sent, as the emulator holds it now (after any edits).
#[derive(Debug, Clone)]
pub struct BotMessage {
    pub message_id: i64,
    pub chat_id: String,
    pub text: String,
    /// Each button's label and callback data, row by row, flattened.
    pub buttons: Vec<(String, String)>,
    /// How many of `buttons` each row of the keyboard holds, top to bottom.
    pub row_lengths: Vec<usize>,
    pub force_reply: bool,
}

impl BotMessage {
    /// Draws the message as a chat app shows a bot's message with an inline keyboard (its text,
    /// then its buttons row by row) into the PNG `path`, with ImageMagick, for whoever reads the
    /// run: no Telegram client runs here, so this is what the person's phone would show, from
    /// exactly what the emulator holds.
    pub fn draw(&self, path: &Path) {
        const WIDTH: usize = 400;
        const GAP: usize = 6;
        let font = ["-font", "DejaVu-Sans", "-pointsize", "15"];
        let mut args: Vec<String> = vec!["-background".into(), "#ffffff".into(), "-fill".into(), "#17212b".into()];
        args.extend(font.iter().map(|s| s.to_string()));
        // The text as the person reads it, wrapped to the bubble; `@` would name a file, `\\` an escape.
        let text = self.text.replace('\\', "\\\\").replace('%', "%%");
        let text = if text.starts_with('@') { format!(" {text}") } else { text };
        args.extend(["-size".into(), format!("{WIDTH}x"), format!("caption:{text}")]);
        let mut at = 0;
        for &n in &self.row_lengths {
            let width = (WIDTH - GAP * (n.saturating_sub(1))) / n.max(1);
            args.extend(["-size".into(), format!("{WIDTH}x{GAP}"), "xc:#ffffff".into(), "(".into()]);
            for (i, (label, _)) in self.buttons[at..at + n].iter().enumerate() {
                if i > 0 {
                    args.extend(["-size".into(), format!("{GAP}x36"), "xc:#ffffff".into()]);
                }
                let label = label.replace('\\', "\\\\").replace('%', "%%");
                args.extend(["-size".into(), format!("{width}x36"), "-background".into(), "#e4ecf5".into()]);
                args.extend(["-fill".into(), "#2b5278".into(), "-gravity".into(), "center".into()]);
                args.push(format!("label:{label}"));
            }
            args.extend(["+append".into(), ")".into()]);
            at += n;
        }
        args.extend(["-background".into(), "#ffffff".into(), "-gravity".into(), "northwest".into(), "-append".into()]);
        args.extend(["-bordercolor".into(), "#ffffff".into(), "-border".into(), "14".into()]);
        args.extend(["-bordercolor".into(), "#9fb7cc".into(), "-border".into(), "12".into()]);
        let status = std::process::Command::new("convert")
            .args(&args)
            .arg(path)
            .status()
            .expect("run ImageMagick's convert (make test installs it)");
        assert!(status.success(), "drawing the message failed: {args:?}");
    }

    pub fn button(&self, label: &str) -> &str {
        self.buttons
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, d)| d.as_str())
            .unwrap_or_else(|| panic!("no button {label:?} on {self:?}"))
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp/telegram-emulator.mjs")
}

impl Emulator {
    pub async fn start() -> Emulator {
        let mut child = Command::new("node")
            .arg(script())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("start the Telegram emulator (node; make test installs tests/mcp/node_modules)");
        let stdout = child.stdout.take().expect("its stdout");
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("the emulator says where it listens")
            .expect("read its stdout")
            .expect("a line");
        let url = serde_json::from_str::<Value>(&line).expect("json")["url"].as_str().expect("url").to_string();
        Emulator { _child: child, url, http: reqwest::Client::new() }
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let response =
            self.http.post(format!("{}{path}", self.url)).json(&body).send().await.expect("reach the emulator");
        response.json().await.expect("a json reply")
    }

    /// Everything the bot with `token` sent, oldest first, as it stands now.
    pub async fn bot_messages(&self, token: &str) -> Vec<BotMessage> {
        let history = self.post("/getUpdatesHistory", json!({ "token": token })).await;
        let items = history["result"].as_array().cloned().unwrap_or_default();
        items
            .iter()
            .filter(|item| item["message"].get("chat_id").is_some() && item.get("callbackQuery").is_none())
            .map(|item| {
                let m = &item["message"];
                let markup = &m["reply_markup"];
                let rows = markup["inline_keyboard"].as_array().cloned().unwrap_or_default();
                let rows: Vec<Vec<Value>> =
                    rows.iter().map(|row| row.as_array().cloned().unwrap_or_default()).collect();
                let row_lengths = rows.iter().map(Vec::len).collect();
                let buttons = rows
                    .into_iter()
                    .flatten()
                    .map(|b| {
                        (
                            b["text"].as_str().unwrap_or("").to_string(),
                            b["callback_data"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect();
                BotMessage {
                    message_id: item["messageId"].as_i64().expect("messageId"),
                    chat_id: m["chat_id"].to_string().trim_matches('"').to_string(),
                    text: m["text"].as_str().unwrap_or("").to_string(),
                    buttons,
                    row_lengths,
                    force_reply: markup["force_reply"].as_bool().unwrap_or(false),
                }
            })
            .collect()
    }

    /// The first message of the bot's, newest state, for which `test` holds; waits for it.
    pub async fn wait_message(&self, token: &str, what: &str, test: impl Fn(&BotMessage) -> bool) -> BotMessage {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let messages = self.bot_messages(token).await;
            if let Some(found) = messages.iter().find(|m| test(m)) {
                return found.clone();
            }
            if tokio::time::Instant::now() > deadline {
                panic!("the bot never sent {what}; it sent: {messages:#?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// What every tap was told (`answerCallbackQuery`'s text), in order.
    pub async fn acks(&self) -> Vec<Option<String>> {
        let acks = self.post("/acks", json!({})).await;
        acks["result"].as_array().into_iter().flatten().map(|a| a["text"].as_str().map(str::to_string)).collect()
    }

    /// Waits for the `n`th tap's answer (1-based) and returns its text.
    pub async fn ack(&self, n: usize) -> Option<String> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let acks = self.acks().await;
            if let Some(ack) = acks.get(n - 1) {
                return ack.clone();
            }
            if tokio::time::Instant::now() > deadline {
                panic!("tap {n} was never answered; answers so far: {acks:?}");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Makes the next `times` calls of the Bot API `method` fail as Telegram fails them: with
    /// `status` and, when given, `parameters.retry_after`.
    pub async fn fail(&self, method: &str, status: u16, retry_after: Option<u64>, times: u32) {
        let body = json!({ "method": method, "status": status, "retry_after": retry_after, "times": times });
        self.post("/fail", body).await;
    }

    /// The Bot API's own reply to a `getUpdates` for the bot with `token`, as another program
    /// polling the same bot would get it.
    pub async fn get_updates(&self, token: &str, timeout_secs: u64) -> Value {
        let url = format!("{}/bot{token}/getUpdates", self.url);
        let response = self.http.post(url).json(&json!({ "timeout": timeout_secs })).send().await.expect("poll");
        response.json().await.expect("a json reply")
    }

    pub fn person(&self, token: &str, id: i64, name: &str) -> Person<'_> {
        Person { emulator: self, token: token.to_string(), id, name: name.to_string() }
    }
}

/// A Telegram user in a private chat with the bot (the chat's id is theirs, as in Telegram).
pub struct Person<'a> {
    emulator: &'a Emulator,
    token: String,
    pub id: i64,
    name: String,
}

impl Person<'_> {
    fn from(&self) -> Value {
        json!({ "id": self.id, "is_bot": false, "first_name": self.name, "username": self.name })
    }

    fn chat(&self) -> Value {
        json!({ "id": self.id, "type": "private", "first_name": self.name })
    }

    fn now() -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
    }

    pub async fn send(&self, text: &str) {
        let body = json!({ "botToken": self.token, "from": self.from(), "chat": self.chat(), "date": Self::now(), "text": text });
        self.emulator.post("/sendMessage", body).await;
    }

    /// Sends `text` in a group chat `chat` the bot is in, not in the private chat with it.
    pub async fn send_in_group(&self, chat: i64, text: &str) {
        let group = json!({ "id": chat, "type": "group", "title": "team" });
        let body =
            json!({ "botToken": self.token, "from": self.from(), "chat": group, "date": Self::now(), "text": text });
        self.emulator.post("/sendMessage", body).await;
    }

    /// The id the emulator gives the next message anyone sends (what `send` or `reply` will get).
    pub async fn last_message_id(&self) -> i64 {
        let history = self.emulator.post("/getUpdatesHistory", json!({ "token": self.token })).await;
        let items = history["result"].as_array().cloned().unwrap_or_default();
        items
            .iter()
            .filter(|item| item["message"]["from"]["id"].as_i64() == Some(self.id))
            .filter_map(|item| item["messageId"].as_i64())
            .max()
            .expect("a message of theirs")
    }

    /// Edits the message `message_id` they sent to say `text` (Telegram's `edited_message`).
    pub async fn edit(&self, message_id: i64, text: &str) {
        let body = json!({
            "botToken": self.token, "message_id": message_id, "from": self.from(), "chat": self.chat(),
            "date": Self::now(), "text": text,
        });
        self.emulator.post("/sendEditedMessage", body).await;
    }

    /// Presses a button whose update Hark cannot read: the sender has no first name, which the
    /// Bot API always gives.
    pub async fn press_unreadable(&self, message: &BotMessage, label: &str) {
        let body = json!({
            "botToken": self.token, "from": { "id": self.id, "is_bot": false }, "data": message.button(label),
            "chat_instance": "1",
            "message": { "message_id": message.message_id, "date": Self::now(), "chat": self.chat(), "text": message.text },
        });
        self.emulator.post("/sendCallback", body).await;
    }

    pub async fn reply(&self, to: &BotMessage, text: &str) {
        let body = json!({
            "botToken": self.token, "from": self.from(), "chat": self.chat(), "date": Self::now(), "text": text,
            "reply_to_message": { "message_id": to.message_id, "date": Self::now(), "chat": self.chat(), "text": to.text },
        });
        self.emulator.post("/sendMessage", body).await;
    }

    /// Presses the button labelled `label` on `message`.
    pub async fn press(&self, message: &BotMessage, label: &str) {
        self.press_data(message, message.button(label)).await;
    }

    pub async fn press_data(&self, message: &BotMessage, data: &str) {
        let body = json!({
            "botToken": self.token, "from": self.from(), "data": data, "chat_instance": "1",
            "message": { "message_id": message.message_id, "date": Self::now(), "chat": self.chat(), "text": message.text },
        });
        self.emulator.post("/sendCallback", body).await;
    }
}

#[cfg(test)]
mod draw_tests {
    use super::BotMessage;

    #[test]
    fn a_card_is_drawn_with_its_text_and_every_button() {
        let card = BotMessage {
            message_id: 1,
            chat_id: "1".into(),
            text: "❓ Approval · Claude Code · notes-app\nClaude Code asks permission to use Bash\n\nClean the build\n$ rm -rf build 100% \\ @x".into(),
            buttons: ["Allow once", "Always allow", "Deny", "Deny with a reason…"].iter().map(|l| (l.to_string(), String::new())).collect(),
            row_lengths: vec![1, 1, 2],
            force_reply: false,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("card.png");
        card.draw(&path);
        let out = std::process::Command::new("identify").args(["-format", "%w %h"]).arg(&path).output().unwrap();
        let size = String::from_utf8_lossy(&out.stdout).to_string();
        let (w, h) = size.split_once(' ').unwrap();
        assert_eq!(w, "452", "400 wide with its borders: {size}");
        assert!(h.parse::<u32>().unwrap() > 4 * 36, "the text and three rows of buttons: {size}");
    }
}
