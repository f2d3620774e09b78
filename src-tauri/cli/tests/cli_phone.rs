//! `hark phone pair | status | unpair` and the relay in `hark chat`, as real processes against a
//! local Telegram Bot API (npm telegram-test-api): the pairing line, the answer from the phone
//! reaching the model, and the token in no output and no file.

use std::path::Path;
use std::process::Stdio;

use hark_test_support::telegram::Emulator;
use hark_test_support::WAIT;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

const TOKEN: &str = "777:cli-phone-token-Xk3";
const PERSON: i64 = 9001;

fn hark(data_dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark"));
    cmd.args(args)
        .env("HARK_DATA_DIR", data_dir)
        .env("HARK_TELEGRAM_TOKEN", TOKEN)
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn output(data_dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = hark(data_dir, args).stdin(Stdio::null()).output().await.unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn no_token_in_files(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(!bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()), "the token is in {}", path.display());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(windows, ignore = "the Telegram Bot API emulator is a node script, a Linux program Wine cannot run")]
async fn pair_prints_the_start_line_exits_once_paired_and_chat_relays_the_question() {
    let emulator = Emulator::start().await;
    let data = tempfile::tempdir().unwrap();
    let mut pair = hark(data.path(), &["phone", "pair", "--delay", "0", "--api-url", &emulator.url])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(pair.stdout.take().unwrap()).lines();
    let mut printed = String::new();
    let code = loop {
        let line =
            tokio::time::timeout(WAIT, lines.next_line()).await.expect("the start line").unwrap().expect("a line");
        printed.push_str(&line);
        printed.push('\n');
        if let Some(code) = line.strip_prefix("/start ") {
            break code.to_string();
        }
    };
    assert_eq!(code.len(), 8, "{printed}");
    emulator.person(TOKEN, PERSON, "ada").send(&format!("/start {code}")).await;
    let status = tokio::time::timeout(WAIT, pair.wait()).await.expect("pair exits once paired").unwrap();
    while let Some(line) = lines.next_line().await.unwrap() {
        printed.push_str(&line);
        printed.push('\n');
    }
    let mut stderr = String::new();
    pair.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
    assert!(status.success(), "{printed}{stderr}");
    assert!(printed.contains("Paired with @ada (Telegram user 9001)."), "{printed}");
    assert!(!printed.contains(TOKEN) && !stderr.contains(TOKEN));

    let (ok, status, _) = output(data.path(), &["phone", "status"]).await;
    assert!(ok && status.contains("paired: @ada") && status.contains("delay: 0 s"), "{status}");
    assert!(status.contains("relay: not running"), "no Hark hosts the directory yet: {status}");

    // `hark chat` hosts the data directory: its relay sends the question, the tap answers it.
    let mut chat =
        hark(data.path(), &["chat", "--script", "blocking", "publish it"]).stdin(Stdio::piped()).spawn().unwrap();
    let card = emulator.wait_message(TOKEN, "the question's card", |m| m.text.starts_with("❓")).await;
    // While it runs, status tells the live link, as the running relay knows it.
    let (_, status, _) = output(data.path(), &["phone", "status"]).await;
    assert!(status.contains("relay: connected to Telegram"), "{status}");
    emulator.person(TOKEN, PERSON, "ada").press(&card, "Publish now").await;
    let out = tokio::time::timeout(WAIT, async {
        let mut stdout = String::new();
        let mut stderr = String::new();
        chat.stdout.take().unwrap().read_to_string(&mut stdout).await.unwrap();
        chat.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
        (chat.wait().await.unwrap(), stdout, stderr)
    })
    .await
    .expect("chat ends its turn once the phone answered");
    let (exit, stdout, stderr) = out;
    assert!(exit.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("You chose") && stdout.contains("Publish now"), "{stdout}");
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));
    no_token_in_files(data.path());

    let (ok, _, _) = output(data.path(), &["phone", "unpair"]).await;
    assert!(ok);
    let (_, status, _) = output(data.path(), &["phone", "status"]).await;
    assert!(status.contains("paired: nobody"), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pair_without_a_token_says_where_to_put_it() {
    let data = tempfile::tempdir().unwrap();
    let out = hark(data.path(), &["phone", "pair"]).env_remove("HARK_TELEGRAM_TOKEN").output().await.unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("NO_TOKEN") && stderr.contains("HARK_TELEGRAM_TOKEN"), "{stderr}");
}
