//! The test files of `hark` that cannot run on Windows, each named with why, so a Windows run lists
//! them as ignored instead of leaving them out unsaid. Their own files are `#![cfg(unix)]`.
#![cfg(windows)]

#[test]
#[ignore = "cli_remote: the tunnel is OpenSSH's ssh -R to a Unix socket, with Debian's sshd and a user of its own"]
fn cli_remote() {}

#[test]
#[ignore = "cli_tui: hark tui is driven in tmux, which Windows lacks"]
fn cli_tui() {}

#[test]
#[ignore = "real_claude_code: the real Claude Code is installed as a Linux binary and driven in tmux"]
fn real_claude_code() {}

#[test]
#[ignore = "real_codex: the real Codex CLI is installed as a Linux binary"]
fn real_codex() {}

#[test]
#[ignore = "real_claude_approvals: the real Claude Code is installed as a Linux binary and driven in tmux"]
fn real_claude_approvals() {}

#[test]
#[ignore = "real_claude_phone_approval: the real Claude Code (a Linux binary, in tmux) and the node Telegram emulator"]
fn real_claude_phone_approval() {}

#[test]
#[ignore = "real_codex_approvals: the real Codex CLI is installed as a Linux binary and driven in tmux"]
fn real_codex_approvals() {}

#[test]
#[ignore = "real_claude_forms: the real Claude Code is installed as a Linux binary and driven in tmux"]
fn real_claude_forms() {}
