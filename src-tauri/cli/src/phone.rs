//! `hark phone pair | status | unpair`: the phone relay's pairing from the terminal. The bot's
//! token comes from `HARK_TELEGRAM_TOKEN` (the terminal reads no keyring, as with model keys); it is
//! never printed or stored.

use std::process::ExitCode;

use hark_core::host::HostLock;
use hark_core::phone::{self, settings, BotToken, PhoneError, TOKEN_VARIABLE};

use crate::chat::{chosen_dir, fail, on_runtime};

/// `hark phone`'s subcommands.
#[derive(clap::Subcommand)]
pub enum PhoneCommand {
    /// Pair your Telegram account: prints `/start CODE` to send to your bot, and exits once paired.
    ///
    /// The bot's token comes from HARK_TELEGRAM_TOKEN (create a bot with @BotFather); it is never
    /// printed or stored.
    Pair(PairOptions),
    /// Who is paired, the settings, and how the running Hark's relay stands now.
    Status,
    /// Stop sending questions to the phone until you pair again.
    Unpair,
}

pub fn run(command: PhoneCommand) -> ExitCode {
    match command {
        PhoneCommand::Pair(options) => on_runtime(pair(options)),
        PhoneCommand::Status => status(),
        PhoneCommand::Unpair => unpair(),
    }
}

#[derive(clap::Args)]
pub struct PairOptions {
    /// How long a question waits before it goes to the phone, in seconds (0: at once); saved, and
    /// left as it was when not given (60 at first).
    #[arg(long, value_name = "SECONDS")]
    delay: Option<u64>,
    /// The Telegram Bot API's address (a local Bot API server, or a test's).
    #[arg(long, value_name = "URL")]
    api_url: Option<String>,
}

fn token() -> Option<BotToken> {
    BotToken::new(std::env::var(TOKEN_VARIABLE).unwrap_or_default())
}

async fn pair(options: PairOptions) -> ExitCode {
    let dir = match chosen_dir() {
        Ok(d) => d,
        Err(code) => return code,
    };
    let Some(token) = token() else { return fail(&PhoneError::NoToken, 1) };
    let changed = settings::update(&dir, |s| {
        if let Some(delay) = options.delay {
            s.delay_secs = delay;
        }
        if let Some(url) = &options.api_url {
            s.api_url = url.trim().to_string();
        }
    });
    if let Err(e) = changed {
        return fail(&e, 1);
    }
    let pairing = match phone::pairing_code(&dir) {
        Ok(p) => p,
        Err(e) => return fail(&e, 1),
    };
    println!("Send this message to your bot in Telegram (within 10 minutes):");
    println!("/start {}", pairing.code);
    // While another process hosts the data directory, its relay reads the bot's updates and completes
    // the pairing (two readers would take updates from each other); otherwise this one reads them.
    let paired = match HostLock::acquire(&dir) {
        Ok(_lock) => phone::pair_here(&dir, token, &pairing).await,
        Err(_) => wait_for_host(&dir, &pairing).await,
    };
    match paired {
        Ok(user) => {
            println!("Paired with {} (Telegram user {}).", user.name, user.user_id);
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, 1),
    }
}

/// The running host's relay completes the pairing: watch the settings until it did, or the code ran out.
async fn wait_for_host(dir: &std::path::Path, pairing: &phone::Pairing) -> Result<phone::PairedUser, PhoneError> {
    loop {
        let now = settings::load(dir)?;
        if now.pairing.as_ref().is_none_or(|p| p.code != pairing.code) {
            return now.paired.ok_or(PhoneError::PairingExpired);
        }
        if chrono::Utc::now() > pairing.expires_at {
            return Err(PhoneError::PairingExpired);
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

fn status() -> ExitCode {
    let dir = match chosen_dir() {
        Ok(d) => d,
        Err(code) => return code,
    };
    let s = match settings::load(&dir) {
        Ok(s) => s,
        Err(e) => return fail(&e, 1),
    };
    match &s.paired {
        Some(p) => println!("paired: {} (Telegram user {})", p.name, p.user_id),
        None => println!("paired: nobody"),
    }
    println!("bot api: {}", s.api_base());
    println!("delay: {} s", s.delay_secs);
    println!("only that a question waits: {}", if s.only_that_it_waits { "yes" } else { "no" });
    let source = if token().is_some() { TOKEN_VARIABLE } else { "none in this terminal" };
    println!("token: {source}");
    println!("relay: {}", relay_line(&dir));
    ExitCode::SUCCESS
}

/// How the relay of the Hark hosting `dir` stands now, in words.
fn relay_line(dir: &std::path::Path) -> String {
    let running = hark_core::control::request(dir, &hark_core::control::Request::Settings).is_ok();
    if !running {
        return "not running (the Hark that hosts this data directory relays: the app, hark chat or hark tui)".into();
    }
    match phone::published_link(dir) {
        None => "unknown (the running Hark says nothing of its relay)".into(),
        Some(phone::Link::NoToken) => "off in the running Hark: it has no bot token".into(),
        Some(phone::Link::Connecting) => "connecting to Telegram…".into(),
        Some(link) => link.describe().unwrap_or_default(),
    }
}

fn unpair() -> ExitCode {
    let dir = match chosen_dir() {
        Ok(d) => d,
        Err(code) => return code,
    };
    match settings::update(&dir, |s| {
        s.paired = None;
        s.pairing = None;
    }) {
        Ok(_) => {
            println!("Unpaired: no question goes to a phone until you pair again.");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, 1),
    }
}
