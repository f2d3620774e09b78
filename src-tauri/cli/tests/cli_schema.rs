//! Runs the real `hark` binary.

use std::process::{Command, Output};

use hark_core::question::{tool_definition, ToolMode};
use serde_json::Value;

fn hark(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_hark")).args(args).output() {
        Ok(out) => out,
        Err(e) => panic!("could not run hark: {e}"),
    }
}

fn json_stdout(out: &Output) -> Value {
    assert!(out.status.success(), "exit {:?}, stderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn schema_prints_the_legacy_definition() {
    let out = hark(&["schema"]);
    let v = json_stdout(&out);
    assert_eq!(v, tool_definition(ToolMode::Legacy, 120));
    assert_eq!(v["name"], "ask_user_question");
    assert!(v["parameters"]["properties"].get("timeout").is_none());
    assert_eq!(v["parameters"]["properties"]["questions"]["maxItems"], 8);
    // Pretty-printed, for humans reading it in a terminal.
    assert!(String::from_utf8_lossy(&out.stdout).contains("\n  \"name\""));
}

#[test]
fn schema_timed_adds_timeout_with_the_default() {
    let v = json_stdout(&hark(&["schema", "--timed"]));
    assert_eq!(v, tool_definition(ToolMode::Timed, 120));
    assert_eq!(v["parameters"]["properties"]["timeout"]["default"], 120);
    assert_eq!(v["parameters"]["properties"]["timeout"]["type"], "integer");
}

#[test]
fn usage_errors_exit_2_with_usage_on_stderr() {
    for (args, usage) in [
        (&["frobnicate"][..], "Usage: hark <COMMAND>"),
        (&[][..], "Usage: hark <COMMAND>"),
        (&["schema", "--timid"][..], "Usage: hark schema"),
    ] {
        let out = hark(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(usage), "{args:?}: {err}");
    }
    // With no command at all, the whole help: every command with what it does.
    let err = String::from_utf8_lossy(&hark(&[]).stderr).into_owned();
    assert!(err.contains("schema") && err.contains("Print the ask_user_question tool definition"), "{err}");
    let err = String::from_utf8_lossy(&hark(&["frobnicate"]).stderr).into_owned();
    assert!(err.contains("unrecognized subcommand 'frobnicate'"), "{err}");
    let err = String::from_utf8_lossy(&hark(&["schema", "--timid"]).stderr).into_owned();
    assert!(err.contains("unexpected argument '--timid'") && err.contains("'--timed'"), "{err}");
}

#[test]
fn help_and_version_succeed() {
    let out = hark(&["help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: hark <COMMAND>"));
    let out = hark(&["--version"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("hark {}", env!("CARGO_PKG_VERSION")));
}
