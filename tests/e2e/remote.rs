//! Settings → Remote hosts in the real window: a host ssh would read as an option is refused under
//! the field; a host that does not exist is added, and the tunnel the app keeps to it (the real
//! `ssh`, without the machine's ssh config) shows ssh's own reason within the wait; Remove takes it
//! out of `remote-hosts.json` and closes its tunnel.

use std::time::Duration;

use hark_core::remote_hosts::{self, TunnelState};

use crate::mcp::{in_view, set_value};
use crate::support::{e2e_enabled, App, Launch};

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
