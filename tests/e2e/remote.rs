//! Settings → Remote hosts in the real window: a host ssh would read as an option is refused under
//! the field; a host that does not exist is added, and the tunnel the app keeps to it (the real
//! `ssh`, without the machine's ssh config) shows ssh's own reason within the wait; Remove takes it
//! out of `remote-hosts.json` and closes its tunnel. And an agent on another machine, through the
//! tunnel to a real sshd, answered in the window and from the phone.

use std::time::Duration;

use hark_core::remote_hosts::{self, TunnelState};
use hark_test_support::ssh_lab::{self, SshLab};
use hark_test_support::telegram::Emulator;

use crate::mcp::{in_view, set_value};
use crate::support::{e2e_enabled, hark_cli, row_state, App, Launch, PANEL};

/// ssh resolves the name and gives up at once; the host follows the list every 2 s and waits a
/// second before trying again.
const WAIT: Duration = Duration::from_secs(30);
const SECTION: &str = "//*[@role='dialog']//fieldset[legend[normalize-space(.)='Remote hosts']]";
const FIELD: &str = "//label[.//span[normalize-space(.)='Host, as ssh names it']]//input";
/// A name that never resolves (RFC 2606), so ssh fails the same way with or without a network.
const NOWHERE: &str = "nosuchhost.invalid";

async fn press(app: &App, xpath: &str) {
    in_view(app, xpath).await.click().await.unwrap_or_else(|e| panic!("click {xpath:?}: {e}"));
}

async fn host_state(app: &App, host: &str) -> String {
    app.text_of(&format!("[data-testid='remote-host'][data-host='{host}'] [data-testid='remote-host-state']")).await
}

#[tokio::test]
async fn a_remote_host_is_added_shows_why_ssh_cannot_reach_it_and_is_removed() {
    if !e2e_enabled("a_remote_host_is_added_shows_why_ssh_cannot_reach_it_and_is_removed") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let mut launch = Launch::new(&data_dir);
    // The real ssh, reading no ssh config of this machine's (a ProxyCommand there would change what
    // it says about the host).
    launch.env = vec![(remote_hosts::SSH_ENV.into(), "ssh -F none".into())];
    let app = App::launch("remote", launch).await;

    app.settings_section("remote").await;
    in_view(&app, SECTION).await;
    app.wait_until("the remote hosts read", WAIT, || async { app.exists("[data-testid='remote-none']").await }).await;

    let ran = tmp.path().join("ran");
    set_value(&app, &format!("{SECTION}{FIELD}"), &format!("-oProxyCommand=touch {}", ran.display())).await;
    press(&app, &format!("{SECTION}//button[normalize-space(.)='Add']")).await;
    app.wait_until("the refusal under the field", WAIT, || async {
        app.text_of("[data-testid='remote-add-error']").await.contains("BAD_HOST")
    })
    .await;
    let refusal = app.text_of("[data-testid='remote-add-error']").await;
    assert!(refusal.contains("which ssh would read as an option"), "{refusal}");
    assert!(remote_hosts::load(&data_dir).expect("remote-hosts.json").is_empty(), "nothing was stored");
    in_view(&app, SECTION).await;
    app.screenshot("1-bad-host").await;

    set_value(&app, &format!("{SECTION}{FIELD}"), NOWHERE).await;
    press(&app, &format!("{SECTION}//button[normalize-space(.)='Add']")).await;
    app.wait_until("the host listed", WAIT, || async { !host_state(&app, NOWHERE).await.is_empty() }).await;
    assert!(!app.exists("[data-testid='remote-add-error']").await, "the refusal went with the next Add");
    let kept: Vec<String> =
        remote_hosts::load(&data_dir).expect("remote-hosts.json").into_iter().map(|h| h.host).collect();
    assert_eq!(kept, [NOWHERE]);

    // The window reads the state the app's own tunnel wrote: ssh's words, not the window's.
    app.wait_until("ssh's reason", WAIT, || async {
        let shown = host_state(&app, NOWHERE).await;
        (shown.starts_with("Refused (") || shown.starts_with("Reconnecting ("))
            && shown.contains("Could not resolve hostname")
    })
    .await;
    let shown = host_state(&app, NOWHERE).await;
    let written = remote_hosts::status(&data_dir).remove(NOWHERE).expect("the tunnel's state");
    let reason = match &written {
        TunnelState::Refused { reason } | TunnelState::Reconnecting { reason } => reason.clone(),
        other => panic!("the tunnel is {other:?}"),
    };
    assert!(shown.contains(&reason), "the window shows {shown:?}, the tunnel wrote {written:?}");
    assert!(!ran.exists(), "the refused host ran nothing");
    in_view(&app, SECTION).await;
    let shot = app.screenshot("2-unreachable").await;
    eprintln!("screenshot: {}", shot.display());

    press(&app, &format!("{SECTION}//li[@data-host='{NOWHERE}']//button[normalize-space(.)='Remove']")).await;
    app.wait_until("the host gone from the list", WAIT, || async { app.exists("[data-testid='remote-none']").await })
        .await;
    assert!(remote_hosts::load(&data_dir).expect("remote-hosts.json").is_empty());
    // The app follows the list: the tunnel closes and its state goes.
    let closed = std::time::Instant::now();
    while remote_hosts::status(&data_dir).contains_key(NOWHERE) {
        assert!(closed.elapsed() < WAIT, "the tunnel's state is still written: {:?}", remote_hosts::status(&data_dir));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    in_view(&app, SECTION).await;
    app.screenshot("3-removed").await;
    app.close().await;
}

const TOKEN: &str = "4343:e2e-remote-relay-token";
const PERSON: i64 = 5002;
const SESSION_ROW: &str = "nav[aria-label='Sessions'] button[data-session-id]";

/// The output of a hook on the remote host, waited for off the test's runtime.
async fn hook_output(hook: std::process::Child) -> std::process::Output {
    tokio::task::spawn_blocking(move || ssh_lab::finished(hook, WAIT)).await.expect("the hook's output")
}

/// A hook on another machine, reached over a real OpenSSH tunnel the app keeps (the SSH lab: sshd on
/// 127.0.0.1 and a remote user with its own home, running the same `hark`): its question shows in
/// the desk's window and inbox naming the host, is answered by clicking, and the hook hands the answer
/// to the agent; the next one is answered by a tap on the phone, whose card names the host.
#[tokio::test]
async fn a_remote_agents_question_is_answered_in_the_desks_window_and_from_the_phone() {
    if !e2e_enabled("a_remote_agents_question_is_answered_in_the_desks_window_and_from_the_phone") {
        return;
    }
    let Some(lab) = SshLab::start() else { return };
    let data_dir = lab.dir.path().join("desk");
    std::fs::create_dir_all(&data_dir).expect("the desk's data dir");
    // The desk's phone: a local Telegram Bot API, the person paired, questions sent at once.
    let emulator = Emulator::start().await;
    hark_core::phone::settings::update(&data_dir, |s| {
        s.api_url = emulator.url.clone();
        s.delay_secs = 0;
        s.paired = Some(hark_core::phone::PairedUser {
            user_id: PERSON.to_string(),
            chat_id: PERSON.to_string(),
            name: "@ada".into(),
        });
    })
    .expect("the phone settings");
    let mut launch = Launch::new(&data_dir);
    launch.env = vec![
        (remote_hosts::SSH_ENV.into(), lab.ssh_command()),
        (hark_core::phone::TOKEN_VARIABLE.into(), TOKEN.into()),
    ];
    let app = App::launch("remote-agent", launch).await;

    // The person adds the host in Settings; the app's tunnel comes up.
    app.settings_section("remote").await;
    in_view(&app, SECTION).await;
    app.wait_until("the remote hosts read", WAIT, || async { app.exists("[data-testid='remote-none']").await }).await;
    set_value(&app, &format!("{SECTION}{FIELD}"), ssh_lab::HOST).await;
    press(&app, &format!("{SECTION}//button[normalize-space(.)='Add']")).await;
    app.wait_until("the tunnel up", WAIT, || async { host_state(&app, ssh_lab::HOST).await == "Connected" }).await;
    // The host has no hark yet: its row says so, and how to copy this one there.
    let note = format!("{SECTION}//li[@data-host='{}']//*[@data-testid='remote-host-hark']", ssh_lab::HOST);
    let said = in_view(&app, &note).await.text().await.expect("the row's note");
    assert_eq!(said, "No hark on this host: run hark remote add devbox in a terminal to copy this one there.");
    app.screenshot("1-connected-no-hark").await;
    // The person puts this hark there (as `hark remote add devbox --copy` does) and runs `hark remote
    // add` again, which looks: the note goes.
    let hark = lab.install_hark(&hark_cli());
    let added = tokio::process::Command::new(hark_cli())
        .args(["remote", "add", ssh_lab::HOST])
        .env("HARK_DATA_DIR", &data_dir)
        .env(remote_hosts::SSH_ENV, lab.ssh_command())
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run hark remote add");
    let said = String::from_utf8_lossy(&added.stdout);
    assert!(said.contains("devbox has this hark"), "{said}{}", String::from_utf8_lossy(&added.stderr));
    app.wait_until("the note to go", WAIT, || async { !app.exists("[data-testid='remote-host-hark']").await }).await;
    in_view(&app, SECTION).await;
    app.screenshot("2-connected").await;
    app.click_button("//*[@role='dialog']", "Close").await;
    app.wait_until("the dialog to close", WAIT, || async { !app.exists("[role='dialog']").await }).await;

    // Claude Code on the remote host asks; the desk's inbox and sidebar say where from.
    let hook = lab.hook(&hark, "Deploy the release now?");
    app.wait_until("Inbox (1)", WAIT, || async { app.text_of("[data-testid='inbox-open']").await == "Inbox (1)" })
        .await;
    app.find("[data-testid='inbox-open']").await.click().await.expect("open the inbox");
    app.wait_until("the remote question in the inbox", WAIT, || async {
        app.text_of("section[aria-label='Inbox']").await.contains("Deploy the release now?")
    })
    .await;
    let inbox = app.text_of("section[aria-label='Inbox']").await;
    assert!(inbox.contains("Claude Code on devbox"), "the inbox names the host: {inbox}");
    app.screenshot("3-inbox").await;
    let sidebar = app.find("nav[aria-label='Sessions']").await.prop("textContent").await.ok().flatten();
    let sidebar = sidebar.unwrap_or_default();
    assert!(sidebar.contains("Claude Code on devbox · notes-app"), "the session names the host: {sidebar}");

    // Answered in the session by clicking; the hook on the remote host gives the agent the answer.
    app.find(SESSION_ROW).await.click().await.expect("open the remote agent's session");
    app.wait_until("the question panel", WAIT, || async {
        app.text_of("section[aria-label='Question']").await.contains("Deploy the release now?")
    })
    .await;
    app.screenshot("4-asked").await;
    app.click_option("Ship it").await;
    app.click_button(PANEL, "Submit").await;
    let out = hook_output(hook).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let decision: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON decision");
    let output = &decision["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "allow", "{decision}");
    assert_eq!(output["updatedInput"]["answers"]["Deploy the release now?"], "Ship it", "{decision}");
    app.wait_until("the answered row", WAIT, || async { row_state(&app).await == "settled" }).await;
    app.screenshot("5-answered-in-the-window").await;

    // The next question is answered by a tap on the phone; its card names the host.
    let hook = lab.hook(&hark, "Roll back the canary?");
    let card =
        emulator.wait_message(TOKEN, "the remote question's card", |m| m.text.contains("Roll back the canary?")).await;
    assert!(card.text.starts_with("❓ Question from Claude Code on devbox"), "{}", card.text);
    emulator.person(TOKEN, PERSON, "ada").press(&card, "Wait").await;
    let out = hook_output(hook).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let decision: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON decision");
    assert_eq!(decision["hookSpecificOutput"]["updatedInput"]["answers"]["Roll back the canary?"], "Wait");
    app.wait_until("Inbox (0)", WAIT, || async { app.text_of("[data-testid='inbox-open']").await == "Inbox (0)" })
        .await;
    app.screenshot("6-answered-from-the-phone").await;
    app.close().await;
}
