//! Settings → Phone in the real window, against a local Telegram Bot API (npm `telegram-test-api`)
//! and a Secret Service of the test's own: the token typed there goes to the keyring (and nowhere
//! else), the running relay starts again with it, and the `/start CODE` line the section shows pairs
//! the person who sends it. A question asked in the window then reaches the phone at once (delay 0,
//! set in the section) and the tap there answers it: the window shows the agent's reply. Unpair
//! forgets the person.

use std::time::Duration;

use hark_test_support::telegram::Emulator;

use crate::flows::start_keyring;
use crate::mcp::{in_view, set_value};
use crate::support::{e2e_enabled, App, Launch};

const WAIT: Duration = Duration::from_secs(30);
const TOKEN: &str = "4242:e2e-phone-SECRET-token";
const MESSAGE_BOX: &str = "textarea[aria-label='Message']";
const ENTER: &str = "\u{E007}";
const SECTION: &str = "//*[@role='dialog']//fieldset[legend[normalize-space(.)='Phone']]";

async fn phone_text(app: &App, testid: &str) -> Option<String> {
    if !app.exists(&format!("[data-testid='{testid}']")).await {
        return None;
    }
    Some(app.text_of(&format!("[data-testid='{testid}']")).await)
}

async fn set_field(app: &App, label: &str, value: &str) {
    set_value(app, &format!("{SECTION}//label[.//span[normalize-space(.)='{label}']]//input"), value).await;
}

async fn press(app: &App, name: &str) {
    let xpath = format!("{SECTION}//button[normalize-space(.)='{name}']");
    in_view(app, &xpath).await.click().await.unwrap_or_else(|e| panic!("click {name:?}: {e}"));
}

#[tokio::test]
async fn a_phone_is_paired_from_settings_with_the_token_in_the_keyring() {
    if !e2e_enabled("a_phone_is_paired_from_settings_with_the_token_in_the_keyring") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut keyring = start_keyring(&tmp.path().join("keyring"));
    let emulator = Emulator::start().await;
    let data_dir = tmp.path().join("hark-data");
    // New sessions play the demo script that asks one question and waits for the answer.
    let mut launch = Launch::with_args(&data_dir, &["--provider", "demo", "--script", "blocking"]);
    // No token from the test's own environment: the relay starts off, as on a first run.
    launch.env = vec![("HARK_TELEGRAM_TOKEN".into(), String::new())];
    let app = App::launch("phone", launch).await;

    app.settings_section("phone").await;
    app.find_x(SECTION).await;
    app.wait_until("the relay to say it has no token", WAIT, || async {
        phone_text(&app, "phone-link").await.as_deref() == Some("Off: no bot token.")
    })
    .await;

    // The emulator is this machine's, so plain http is allowed; the token is typed, never shown.
    set_field(&app, "Bot API server", &emulator.url).await;
    set_field(&app, "Send to the phone after (seconds; 0 = at once)", "0").await;
    in_view(&app, &format!("{SECTION}//input[@type='password']")).await.send_keys(TOKEN).await.expect("type the token");
    press(&app, "Save").await;
    app.wait_until("the relay to reach the emulator with the new token", WAIT, || async {
        phone_text(&app, "phone-link").await.as_deref() == Some("Connected to Telegram.")
    })
    .await;
    let token_note = phone_text(&app, "phone-token").await.unwrap_or_default();
    assert!(token_note.contains("stored in the system keyring"), "{token_note}");

    press(&app, "Pair a phone").await;
    // The click returns before the shell answered with the code.
    app.wait_until("the /start line", WAIT, || async {
        app.text_of("[data-testid='phone-start-line']").await.starts_with("/start ")
    })
    .await;
    let line = app.text_of("[data-testid='phone-start-line']").await;
    let code = line.strip_prefix("/start ").unwrap_or_else(|| panic!("a /start line: {line:?}")).to_string();
    assert_eq!(code.len(), 8, "{line}");
    app.screenshot("pairing").await;
    emulator.person(TOKEN, 9001, "ada").send(&line).await;
    app.wait_until("the section to say who is paired", WAIT, || async {
        phone_text(&app, "phone-paired").await.is_some_and(|t| t.contains("Paired with @ada"))
    })
    .await;
    assert!(!app.exists("[data-testid='phone-start-line']").await);
    emulator.wait_message(TOKEN, "the bot's welcome", |m| m.text.starts_with("Paired with Hark")).await;
    app.screenshot("paired").await;
    let page = app.client.source().await.expect("page source");
    assert!(!page.contains(TOKEN), "the token never comes back to the window");

    let phone_json = std::fs::read_to_string(data_dir.join("phone.json")).expect("phone.json");
    assert!(phone_json.contains("\"9001\"") && phone_json.contains(&emulator.url), "{phone_json}");

    // A question asked in the window goes to the phone at once; a tap there answers it.
    app.click_button("//*[@role='dialog']", "Close").await;
    app.wait_until("the dialog to close", WAIT, || async { !app.exists("[role='dialog']").await }).await;
    app.find(MESSAGE_BOX).await.send_keys(&format!("publish it{ENTER}")).await.expect("send a message");
    let card = emulator.wait_message(TOKEN, "the question's card", |m| m.text.starts_with("❓")).await;
    assert!(card.text.contains("Publish the demo site to production now?"), "{card:?}");
    emulator.person(TOKEN, 9001, "ada").press(&card, "Publish now").await;
    app.wait_until("the agent's reply to the phone's answer", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("You chose deploy: \"Publish now\"")
    })
    .await;
    app.screenshot("answered-from-phone").await;

    app.settings_section("phone").await;
    app.find("[data-testid='phone-paired']").await;
    press(&app, "Unpair").await;
    app.wait_until("nobody to be paired", WAIT, || async { !app.exists("[data-testid='phone-paired']").await }).await;
    let phone_json = std::fs::read_to_string(data_dir.join("phone.json")).expect("phone.json");
    assert!(!phone_json.contains("\"9001\""), "unpaired: {phone_json}");
    app.close().await;
    let _ = keyring.kill();
    let _ = keyring.wait();

    crate::support::assert_secret_not_in_files(&data_dir, TOKEN);
}
