//! Settings → Phone: the Telegram relay's `phone.json` as a form, whether a bot token is there (never
//! the token), how the link stands, and pairing. Everything here but [`Relay`] is plain file work on
//! hark-core's phone settings, the same file `hark phone` reads and writes.

use std::path::Path;
use std::sync::{Arc, Mutex};

use hark_core::error::{BoundaryError, CodedError};
use hark_core::host::Host;
use hark_core::model::KeySource;
use hark_core::phone::{self, settings, BotToken, Link, PairedUser, Phone, PhoneError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, ts_rs::TS)]
pub struct PhoneView {
    /// The Bot API server (`https://`, or `http://` to this machine only).
    pub api_url: String,
    /// How long a question waits in Hark before it goes to the phone; 0 = at once.
    pub delay_secs: u64,
    /// The phone is told only that a question waits, never its text.
    pub only_that_it_waits: bool,
    /// The one Telegram user questions go to; null until someone paired.
    pub paired: Option<PairedUser>,
    /// A pairing under way: the line to send to the bot, until it is sent or runs out.
    pub pairing: Option<PairingView>,
    /// Where the relay's bot token comes from: the keyring, `HARK_TELEGRAM_TOKEN`, or none.
    pub token: KeySource,
    /// How the running relay's link stands (offline, token refused, bot blocked, ...).
    pub link: Link,
    /// `phone.json` cannot be read: shown instead of its values (saving writes it afresh).
    pub error: Option<BoundaryError>,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct PairingView {
    pub code: String,
    /// What the person sends to the bot: `/start <code>`.
    pub line: String,
    #[ts(type = "string")]
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

impl From<&phone::Pairing> for PairingView {
    fn from(p: &phone::Pairing) -> Self {
        PairingView { code: p.code.clone(), line: format!("/start {}", p.code), expires_at: p.expires_at }
    }
}

/// What the form saves; who is paired is changed only by pairing and unpairing.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct PhoneForm {
    pub api_url: String,
    pub delay_secs: u64,
    pub only_that_it_waits: bool,
}

/// What Settings shows, given where the token comes from and the relay's link.
pub fn view(dir: &Path, token: KeySource, link: Link) -> PhoneView {
    let (s, error) = match settings::load(dir) {
        Ok(s) => (s, None),
        Err(e) => (settings::PhoneSettings::default(), Some(e.boundary())),
    };
    // An expired code is no longer worth showing: sending it would do nothing.
    let pairing = s.pairing.as_ref().filter(|p| p.expires_at > chrono::Utc::now()).map(PairingView::from);
    PhoneView {
        api_url: s.api_url,
        delay_secs: s.delay_secs,
        only_that_it_waits: s.only_that_it_waits,
        paired: s.paired,
        pairing,
        token,
        link,
        error,
    }
}

/// Writes the form's fields, keeping who is paired and a pairing under way. Returns whether the Bot
/// API server changed (the relay then has to start again to talk to the new one).
pub fn save(dir: &Path, form: &PhoneForm) -> Result<bool, PhoneError> {
    check_form(form)?;
    let api_url = form.api_url.trim().to_string();
    // A file that cannot be read is replaced by the form, as the form shows the defaults for it.
    let mut moved = false;
    settings::update_over_unreadable(dir, |s| {
        moved = s.api_base() != api_url.trim_end_matches('/');
        s.api_url = api_url;
        s.delay_secs = form.delay_secs;
        s.only_that_it_waits = form.only_that_it_waits;
    })?;
    Ok(moved)
}

/// Refuses what `phone.json` would not take, naming the field, before anything is stored.
pub fn check_form(form: &PhoneForm) -> Result<(), PhoneError> {
    let s = settings::PhoneSettings {
        api_url: form.api_url.trim().to_string(),
        delay_secs: form.delay_secs,
        ..Default::default()
    };
    s.validate()
}

/// Starts a pairing; the running relay completes it when the code reaches the bot. Without a token,
/// or with one Telegram refused, no relay reads the bot's messages, so a code would go nowhere. An
/// offline link still pairs once it is back, and a blocked bot once the person sends the code.
pub fn pair(dir: &Path, link: &Link) -> Result<PairingView, PhoneError> {
    match link {
        Link::NoToken => return Err(PhoneError::NoToken),
        Link::TokenRejected { reason } => return Err(PhoneError::TokenRejected(reason.clone())),
        _ => {}
    }
    Ok(PairingView::from(&phone::pairing_code(dir)?))
}

/// Forgets the paired person and any pairing under way: no question goes to a phone any more.
pub fn unpair(dir: &Path) -> Result<(), PhoneError> {
    settings::update(dir, |s| {
        s.paired = None;
        s.pairing = None;
    })
    .map(|_| ())
}

/// A token as pasted: trimmed; refused when empty or when it could not be part of a URL's path (the
/// Bot API carries it there). The message never repeats it.
pub fn check_token(token: &str) -> Result<BotToken, PhoneError> {
    let invalid = |problem: &str| PhoneError::Invalid { field: "token", problem: problem.to_string() };
    let trimmed = token.trim();
    if trimmed.chars().any(|c| c.is_whitespace() || c == '/' || c == '?' || c == '#') {
        return Err(invalid("a bot token has no spaces, slashes, ? or #: paste it as @BotFather shows it"));
    }
    BotToken::new(trimmed).ok_or_else(|| invalid("is empty"))
}

/// The host's running relay, started again when its token or server changes (the settings it reads
/// per question — delay, privacy, who is paired — need no restart).
pub struct Relay {
    phone: Mutex<Phone>,
}

impl Relay {
    pub fn new(phone: Phone) -> Self {
        Relay { phone: Mutex::new(phone) }
    }

    pub fn link(&self) -> Link {
        hark_core::sync::lock(&self.phone).link()
    }

    /// Stops the relay, then starts it with `token`. The old one stops first so two never read the
    /// bot's updates at once (Telegram hands each update to one reader). Call inside the runtime.
    pub fn restart(&self, host: &Arc<Host>, token: Option<BotToken>) {
        let mut phone = hark_core::sync::lock(&self.phone);
        drop(std::mem::replace(&mut *phone, phone::start(host, None)));
        *phone = phone::start(host, token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(api_url: &str) -> PhoneForm {
        PhoneForm { api_url: api_url.into(), delay_secs: 5, only_that_it_waits: true }
    }

    #[test]
    fn saving_keeps_who_is_paired_and_says_when_the_server_moved() {
        let dir = tempfile::tempdir().unwrap();
        let person = PairedUser { user_id: "7".into(), chat_id: "7".into(), name: "@ada".into() };
        settings::update(dir.path(), |s| s.paired = Some(person.clone())).unwrap();

        assert!(!save(dir.path(), &form(" https://api.telegram.org/ ")).unwrap(), "same server");
        let v = view(dir.path(), KeySource::None, Link::NoToken);
        assert_eq!((v.delay_secs, v.only_that_it_waits, v.paired), (5, true, Some(person)));
        assert_eq!(v.api_url, "https://api.telegram.org/");

        assert!(save(dir.path(), &form("http://127.0.0.1:9001")).unwrap(), "another server");
    }

    #[test]
    fn plain_http_elsewhere_and_a_too_long_delay_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let e = save(dir.path(), &form("http://10.0.0.2:8081")).unwrap_err();
        assert_eq!(e.code(), "INVALID_SETTINGS");
        assert!(e.to_string().starts_with("api_url:"), "{e}");
        let long = PhoneForm { delay_secs: settings::MAX_DELAY_SECS + 1, ..form("https://api.telegram.org") };
        assert!(save(dir.path(), &long).unwrap_err().to_string().starts_with("delay_secs:"));
        assert!(!dir.path().join(phone::PHONE_FILE).exists());
    }

    #[test]
    fn pairing_needs_a_token_then_shows_the_line_until_unpaired() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(pair(dir.path(), &Link::NoToken).unwrap_err().code(), "NO_TOKEN");
        let refused = Link::TokenRejected { reason: "Unauthorized".into() };
        assert_eq!(pair(dir.path(), &refused).unwrap_err().code(), "TOKEN_REJECTED");
        assert!(view(dir.path(), KeySource::Keyring, refused).pairing.is_none(), "no code was made");
        let pairing = pair(dir.path(), &Link::Offline { reason: "timed out".into() }).unwrap();
        assert_eq!(pairing.line, format!("/start {}", pairing.code));
        let shown = view(dir.path(), KeySource::Keyring, Link::Online).pairing.unwrap();
        assert_eq!(shown.code, pairing.code);

        settings::update(dir.path(), |s| {
            s.paired = Some(PairedUser { user_id: "1".into(), chat_id: "1".into(), name: "x".into() })
        })
        .unwrap();
        unpair(dir.path()).unwrap();
        let v = view(dir.path(), KeySource::Keyring, Link::Online);
        assert!(v.paired.is_none() && v.pairing.is_none());
    }

    #[test]
    fn an_expired_code_is_not_shown_and_an_unreadable_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let old =
            phone::Pairing { code: "ABCDEFGH".into(), expires_at: chrono::Utc::now() - chrono::Duration::seconds(1) };
        settings::update(dir.path(), |s| s.pairing = Some(old)).unwrap();
        assert!(view(dir.path(), KeySource::None, Link::NoToken).pairing.is_none());

        std::fs::write(dir.path().join(phone::PHONE_FILE), "{oops").unwrap();
        let v = view(dir.path(), KeySource::None, Link::NoToken);
        assert_eq!(v.error.map(|e| e.code), Some("PHONE_SETTINGS_READ".to_string()));
        save(dir.path(), &form("https://api.telegram.org")).unwrap();
        assert!(view(dir.path(), KeySource::None, Link::NoToken).error.is_none(), "saving writes it afresh");
    }

    /// Reads the relay's link until `want` says it is the one, or gives up.
    async fn until_link(relay: &Relay, what: &str, want: impl Fn(&Link) -> bool) {
        for _ in 0..500 {
            if want(&relay.link()) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("timed out waiting for {what}; the link is {:?}", relay.link());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_restarted_relay_reads_only_the_new_bot_and_pairs_through_it() {
        use hark_test_support::telegram::Emulator;
        const OLD: &str = "1111:relay-old-token";
        const NEW: &str = "2222:relay-new-token";
        let emulator = Emulator::start().await;
        let dir = tempfile::tempdir().unwrap();
        let model = hark_core::launch::ModelFlags { script: Some("hello".into()), ..Default::default() };
        let run = hark_core::launch::RunOptions { model, ..Default::default() };
        let launch = crate::launch::LaunchOptions { run, ..Default::default() };
        let hub = crate::hub::Hub::start(dir.path(), launch).expect("hub");
        let form = PhoneForm { api_url: emulator.url.clone(), delay_secs: 0, only_that_it_waits: false };
        assert!(save(dir.path(), &form).unwrap(), "the server moved to the emulator");

        let relay = Relay::new(phone::start(&hub.host(), None));
        assert_eq!(relay.link(), Link::NoToken);
        relay.restart(&hub.host(), BotToken::new(OLD));
        until_link(&relay, "the first bot online", |l| *l == Link::Online).await;
        relay.restart(&hub.host(), BotToken::new(NEW));
        until_link(&relay, "the new bot online", |l| *l == Link::Online).await;

        let pairing = pair(dir.path(), &relay.link()).unwrap();
        // The old bot is no longer read: its code goes nowhere.
        emulator.person(OLD, 7001, "mallory").send(&pairing.line).await;
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        assert!(view(dir.path(), KeySource::Keyring, relay.link()).paired.is_none(), "paired through the old bot");
        emulator.person(NEW, 7002, "ada").send(&pairing.line).await;
        emulator.wait_message(NEW, "the new bot's welcome", |m| m.text.starts_with("Paired with Hark")).await;
        let paired = view(dir.path(), KeySource::Keyring, relay.link()).paired.expect("paired");
        assert_eq!((paired.user_id.as_str(), paired.name.as_str()), ("7002", "@ada"));
        assert!(emulator.bot_messages(OLD).await.is_empty(), "the old bot said nothing");
        hub.shutdown().await;
    }

    #[test]
    fn a_token_is_trimmed_and_a_refusal_never_repeats_it() {
        assert!(check_token(" 123:abc ").is_ok());
        for bad in ["", "   ", "123:a b", "123:ab/cd", "123:secret?x"] {
            let e = check_token(bad).unwrap_err();
            assert_eq!(e.code(), "INVALID_SETTINGS");
            assert!(!e.to_string().contains("secret"), "{e}");
        }
    }
}
