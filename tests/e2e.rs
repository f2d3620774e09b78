//! End-to-end tests of the real desktop window. See `support/mod.rs` for how they run and are gated.

mod support;

use support::{e2e_enabled, App, Launch};

#[tokio::test]
async fn shell_renders_and_shows_app_info() {
    if !e2e_enabled("shell_renders_and_shows_app_info") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch("shell", Launch::new(&data_dir)).await;

    assert_eq!(app.client.title().await.expect("title"), "Hark");
    let sidebar = app.find("nav[aria-label='Sessions']").await;
    assert!(sidebar.text().await.expect("sidebar text").contains("No sessions yet"));
    app.find("section[aria-label='Transcript']").await;
    app.find("textarea[aria-label='Message']").await;

    // app_info went through real IPC: the data dir shown is the one this launch was given.
    let shown = app.find("[data-testid='data-dir']").await.text().await.expect("data dir text");
    let expected = data_dir.canonicalize().expect("the app created its data dir");
    assert_eq!(shown, expected.display().to_string());
    let version = app.find("[data-testid='app-version']").await.text().await.expect("version text");
    assert_eq!(version, format!("Hark {}", env!("CARGO_PKG_VERSION")));

    let shot = app.screenshot("empty-shell").await;
    eprintln!("screenshot: {}", shot.display());
    app.close().await;
}

#[tokio::test]
async fn unusable_data_dir_is_reported_in_the_window() {
    if !e2e_enabled("unusable_data_dir_is_reported_in_the_window") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let blocker = tmp.path().join("not-a-directory");
    std::fs::write(&blocker, b"a file where the data dir should be").expect("write blocker");
    let app = App::launch("bad-data-dir", Launch::new(blocker.join("data"))).await;

    let banner = app.find("[role='alert']").await.text().await.expect("banner text");
    assert!(banner.contains("cannot use its data directory"), "banner: {banner}");
    assert!(banner.contains("not-a-directory"), "banner names the path: {banner}");
    assert!(banner.contains("DATA_DIR_UNUSABLE"), "banner: {banner}");
    app.screenshot("banner").await;
    app.close().await;
}
