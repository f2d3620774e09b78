//! `hark`: the terminal front door over hark-core.
//!
//! This file only dispatches: each subcommand is a module with `run(args) -> ExitCode`, so adding one
//! is a new module, a match arm and a usage line.

mod answer;
#[cfg(any(unix, windows))]
mod app_link;
mod chat;
mod data;
#[cfg(any(unix, windows))]
mod hook;
#[cfg(any(unix, windows))]
mod mcp;
mod phone;
mod questions;
#[cfg(unix)]
mod remote;
mod schema;
mod sessions;
mod setup;
mod show;
mod stdio_provider;
mod tui;

use std::process::ExitCode;

const USAGE: &str = "\
usage: hark <command> [options]

commands:
  schema [--timed]   print the ask_user_question tool definition as JSON
                     (--timed: the timed schema with `timeout`, default 120 s)
  sessions [--json]  list stored sessions, most recently active first
  show SESSION [--json]
                     print a session's events, one line each (SESSION: id or unique prefix)
  questions SESSION [--json]
                     print a session's questions: open, continued or settled, with answers
  chat [--session ID] [--provider openai|demo] [--base-url URL] [--model NAME]
       [--script NAME] [--timed [--timeout SECONDS]] [--on-timeout keep-working|wait|stop-turn]
       [--plan] [--ptc] [--workspace DIR] [--mcp-config FILE] [PROMPT]
                     chat with the agent; questions are answered on stdin
                     (option numbers like 2 or 1,3 · /other TEXT · /skip)
                     (--on-timeout: when a timed question runs out, keep working
                     (default), wait (no timeout), or stop the turn until the answer)
                     (--plan: plan first; a plan review asks \"approve? [y / your feedback]\")
                     (--ptc: the agent writes scripts, run_code, that call the tools)
                     (--mcp-config: MCP servers from FILE instead of <data dir>/mcp.json)
  tui [same options as chat]
                     the same in a full-screen terminal UI: a question is an overlay
                     (1-9 choose/toggle · arrows · Space · o other · s skip · Enter
                     submit · Esc close · h hide · t take your time); Tab answers a
                     hidden question or one that went on; Ctrl-O lists the sessions;
                     Ctrl-C stops the turn, again (or when idle) quits
  answer SESSION CALL_ID ANSWERS_JSON
                     answer a continued question late and let the agent continue
                     (exit 3 NOT_PENDING, 4 BAD_ANSWER, 5 REPLY_QUEUED)
  mcp [--timed [--timeout SECONDS] | --blocking] [--budget SECONDS]
                     serve Hark over MCP on stdio for other agents (Claude Code,
                     Codex, ...): ask_user_question and get_answers, shown by the
                     running Hark app (started if needed); the question mode is
                     the app's Settings unless a flag chooses it; a client with
                     MCP Tasks gets a task that completes when the person answers,
                     however late; one without gets a pending result after
                     --budget seconds (default 45; 0: no limit) and progress
                     notifications while it waits
  hook claude-code|codex [--timeout SECONDS] [--approval-budget SECONDS]
                     an agent's PreToolUse hook (event on stdin): Claude Code's
                     AskUserQuestion or Codex's request_user_input is asked in
                     Hark and the agent gets the person's answers; unanswered
                     after SECONDS (default 3300) the agent is told the question
                     waits in Hark (collect it later with get_answers);
                     its PermissionRequest hook: asked in Hark as an approval
                     (Allow once, Always allow, Deny), unanswered after the
                     approval budget (default 300 s Claude Code, 60 s Codex)
                     the agent asks in its own terminal and Hark withdraws it
  setup claude-code|codex [--approvals] [--undo]
                     register this hark with the agent, in its own settings:
                     the hook that shows its question tool in Hark and the MCP
                     server (`hark mcp`); claude-code: ~/.claude/settings.json and
                     ~/.claude.json ($CLAUDE_CONFIG_DIR), codex: ~/.codex/config.toml
                     ($CODEX_HOME); --undo removes only Hark's entries; each changed
                     file's previous content is kept in <file>.hark-backup;
                     --approvals also sends the agent's permission requests to
                     Hark (its PermissionRequest hook; Claude Code: and the hooks
                     that tell Hark a call was answered in its own terminal)
  phone pair [--delay SECONDS] [--api-url URL] | status | unpair
                     questions reach your phone over Telegram: pair prints
                     `/start CODE` to send to your bot (token in HARK_TELEGRAM_TOKEN,
                     from @BotFather) and exits once paired; --delay: how long a
                     question waits before it goes to the phone (default 60, 0: at
                     once); the relay runs in whichever Hark hosts the data
                     directory (the app, hark chat, hark tui)
  remote add HOST | list | remove HOST
                     agents on another machine you reach over SSH ask here: the
                     running Hark keeps an `ssh -N -R` tunnel to HOST with your own
                     ssh (HARK_SSH overrides the command), forwarding
                     ~/.hark/agents.sock there to a door that can only ask you;
                     the same `hark` on HOST finds it by itself; list shows each
                     tunnel's state
  help               show this help
  version            print the version
";

fn main() -> ExitCode {
    // A `run_code` script runs in a process of this program, started with the worker argument.
    if let Some(code) = hark_core::ptc::worker::main_if_worker() {
        return code;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        return usage_error("no command given");
    };
    match command.as_str() {
        "schema" => schema::run(rest),
        "chat" => chat::run(rest),
        "tui" => tui::run(rest),
        "answer" => answer::run(rest),
        "sessions" => sessions::run(rest),
        "show" => show::run(rest),
        "questions" => questions::run(rest),
        #[cfg(any(unix, windows))]
        "mcp" => mcp::run(rest),
        #[cfg(any(unix, windows))]
        "hook" => hook::run(rest),
        "setup" => setup::run(rest),
        "phone" => phone::run(rest),
        #[cfg(unix)]
        "remote" => remote::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        "version" | "--version" | "-V" => {
            println!("hark {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        other => usage_error(&format!("unknown command {other:?}")),
    }
}

/// Reports a command-line mistake with the usage on stderr; exit code 2 as is conventional for
/// usage errors, distinct from 1 for a failed operation.
pub(crate) fn usage_error(problem: &str) -> ExitCode {
    eprintln!("hark: {problem}\n\n{USAGE}");
    ExitCode::from(2)
}
