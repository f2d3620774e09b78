//! `hark`: the terminal front door over hark-core.
//!
//! This file holds the command line as clap reads it and dispatches: each subcommand is a module
//! with its own arguments (a clap `Args` type, documented where it is defined) and
//! `run(args) -> ExitCode`, so adding one is a new module and a variant of [`Shown`].

mod answer;
#[cfg(any(unix, windows))]
mod app_link;
mod args;
mod chat;
mod data;
#[cfg(any(unix, windows))]
mod hook;
#[cfg(any(unix, windows))]
mod mcp;
mod phone;
mod prompt_hook;
mod questions;
#[cfg(unix)]
mod remote;
mod schema;
mod sessions;
mod setup;
mod show;
mod stdio_provider;
mod tui;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Chat with an agent that can stop and ask you a structured question, and keep working while the
/// question stays answerable.
///
/// Other agents (Claude Code, Codex, ...) ask through Hark too: see `hark setup` and `hark mcp`.
/// Run `hark <command> --help` for a command's options.
#[derive(Parser)]
// `bin_name`: usage reads `hark` on every system, not the file name (`hark.exe` on Windows).
#[command(name = "hark", bin_name = "hark", version, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up: the size of the value does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Shown(Shown),
    /// Print hark's manual page (roff), or with DIR write it and one page per command there.
    #[command(hide = true)]
    Man {
        /// The folder to write hark.1 and hark-<command>.1 into.
        dir: Option<PathBuf>,
    },
}

/// The command line as the completions offer it: clap_complete lists hidden commands too, so they
/// are left out of this one.
#[derive(Parser)]
#[command(name = "hark", bin_name = "hark", version)]
struct Completed {
    #[command(subcommand)]
    command: Shown,
}

/// The commands a person is shown.
#[derive(Subcommand)]
enum Shown {
    /// Chat with the agent in this terminal; its questions are answered on stdin.
    ///
    /// Without PROMPT, the first line typed starts the session; with it, the session runs until the
    /// agent is idle and the command ends. A question is answered by option numbers (2, or 1,3 for
    /// several), `/other TEXT` or `/skip`.
    Chat(chat::ChatFlags),
    /// The same chat in a full-screen terminal UI, where a question is an overlay.
    ///
    /// Keys: 1-9 choose or toggle · arrows · Space · o other · s skip · Enter submit · Esc close ·
    /// h hide · t take your time. Tab answers a hidden question or one that went on; Ctrl-O lists
    /// the sessions; Ctrl-C stops the turn, and again (or when idle) quits. While the Hark app runs,
    /// this works its sessions through it.
    Tui(chat::ChatFlags),
    /// Answer a continued question late and let the agent continue.
    ///
    /// While another Hark hosts the data directory (the app, hark chat, hark tui), it takes the
    /// answer and carries the session on. Exit codes: 0 admitted (or taken by the running Hark),
    /// 3 NOT_PENDING, 4 BAD_ANSWER, 5 REPLY_QUEUED (the coded error as JSON on stderr), 1 anything
    /// else, 2 a usage mistake.
    Answer(answer::AnswerArgs),
    /// List the stored sessions, most recently active first.
    Sessions(sessions::SessionsArgs),
    /// Print a session's events, one line each.
    Show(data::SessionArgs),
    /// Print a session's questions: open, continued or settled, with their answers.
    Questions(data::SessionArgs),
    /// Print the ask_user_question tool definition as JSON.
    Schema(schema::SchemaArgs),
    /// Serve Hark over MCP on stdio, for other agents (Claude Code, Codex, ...) to ask you through it.
    ///
    /// It offers ask_user_question and get_answers, shown by the running Hark app (started if
    /// needed). The question mode is the app's Settings unless a flag chooses it. A client with MCP
    /// Tasks gets a task that completes when you answer, however late; one without gets a pending
    /// result after --budget seconds, and progress notifications while it waits.
    #[cfg(any(unix, windows))]
    Mcp(mcp::McpArgs),
    /// An agent's hook: its question tool is asked in Hark (the event comes on stdin).
    ///
    /// On PreToolUse, Claude Code's AskUserQuestion or Codex's request_user_input is shown in Hark
    /// and the agent gets your answers. Unanswered after --timeout seconds, the agent is told the
    /// question waits in Hark (it collects the answer later with get_answers). On Claude Code's
    /// UserPromptSubmit, a late answer it was notified of is confirmed as yours. Any other event or
    /// tool: no output, exit 0; a failure: no output, the coded error on stderr, exit 1.
    #[cfg(any(unix, windows))]
    Hook(hook::HookArgs),
    /// Register this hark with an agent, in the agent's own settings.
    ///
    /// Adds the hook that shows the agent's question tool in Hark and Hark's MCP server (`hark mcp`).
    /// claude-code: ~/.claude/settings.json and ~/.claude.json ($CLAUDE_CONFIG_DIR); codex:
    /// ~/.codex/config.toml ($CODEX_HOME). Each changed file's previous content is kept in
    /// <file>.hark-backup.
    Setup(setup::SetupArgs),
    /// Questions reach your phone over Telegram: pair, show the state, unpair.
    ///
    /// The relay runs in whichever Hark hosts the data directory (the app, hark chat, hark tui).
    #[command(subcommand)]
    Phone(phone::PhoneCommand),
    /// Agents on another machine you reach over SSH ask you here.
    ///
    /// The running Hark keeps an `ssh -N -R` tunnel to each host with your own ssh (HARK_SSH
    /// overrides the command), forwarding ~/.hark/agents.sock there to a door that can only ask
    /// you; the same `hark` on the host finds it by itself.
    #[cfg(unix)]
    #[command(subcommand)]
    Remote(remote::RemoteCommand),
    /// Print shell completions for hark.
    ///
    /// For example `hark completions bash > ~/.local/share/bash-completion/completions/hark`,
    /// `hark completions zsh > ~/.zfunc/_hark` (with ~/.zfunc in fpath) or
    /// `hark completions fish > ~/.config/fish/completions/hark.fish`. The .deb installs them.
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Print the version.
    Version,
}

fn main() -> ExitCode {
    // A `run_code` script runs in a process of this program, started with the worker argument.
    if let Some(code) = hark_core::ptc::worker::main_if_worker() {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version print to stdout and exit 0; a usage mistake prints the error, naming the
        // option and what was meant, to stderr and exits 2 (distinct from 1, a failed operation).
        Err(e) => return print_clap(&e),
    };
    match cli.command {
        Command::Shown(command) => run(command),
        Command::Man { dir } => man(dir.as_deref()),
    }
}

fn run(command: Shown) -> ExitCode {
    match command {
        Shown::Chat(flags) => chat::run(flags),
        Shown::Tui(flags) => tui::run(flags),
        Shown::Answer(args) => answer::run(args),
        Shown::Sessions(args) => sessions::run(args),
        Shown::Show(args) => show::run(args),
        Shown::Questions(args) => questions::run(args),
        Shown::Schema(args) => schema::run(args),
        #[cfg(any(unix, windows))]
        Shown::Mcp(args) => mcp::run(args),
        #[cfg(any(unix, windows))]
        Shown::Hook(args) => hook::run(args),
        Shown::Setup(args) => setup::run(args),
        Shown::Phone(command) => phone::run(command),
        #[cfg(unix)]
        Shown::Remote(command) => remote::run(command),
        Shown::Completions { shell } => completions(shell),
        Shown::Version => data::emit(&format!("hark {}\n", env!("CARGO_PKG_VERSION"))),
    }
}

/// Prints what clap has to say (help, version or a usage error) and returns its exit code.
fn print_clap(e: &clap::Error) -> ExitCode {
    // A closed stdout (`hark --help | head`) is nothing to report.
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

/// A usage mistake found after clap parsed the line (a combination of options it cannot express),
/// reported the way clap reports its own: the problem and the subcommand's usage, exit 2.
pub(crate) fn usage_error(subcommand: &str, problem: &str) -> ExitCode {
    let mut command = Cli::command();
    // Built, so the subcommand's usage reads `hark <subcommand> ...`.
    command.build();
    let mut found = command.find_subcommand(subcommand).cloned().unwrap_or(command);
    print_clap(&found.error(clap::error::ErrorKind::ArgumentConflict, problem))
}

fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Completed::command(), "hark", &mut script);
    data::emit(&String::from_utf8_lossy(&script))
}

/// hark.1 on stdout; with `dir`, every page (hark.1, hark-chat.1, hark-phone-pair.1, ...) written
/// there, as the package installs them: hark.1 refers to the others.
fn man(dir: Option<&Path>) -> ExitCode {
    // Every page's header says the version; on the command line only `hark --version` does (a
    // `--version` on each command would be what clap suggests for a misspelt option).
    let command = Cli::command().propagate_version(true);
    let rendered = match dir {
        Some(dir) => clap_mangen::generate_to(command, dir).map(|()| None),
        None => {
            let mut page = Vec::new();
            // No page of its own for `help`, as in the folder's pages.
            clap_mangen::Man::new(command.disable_help_subcommand(true)).render(&mut page).map(|()| Some(page))
        }
    };
    match rendered {
        Ok(Some(page)) => data::emit(&String::from_utf8_lossy(&page)),
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => data::Failure::failed(format!("could not write the manual pages: {e}")).exit(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        // clap's own checks: no two arguments share a name or a flag, every `requires` names one.
        Cli::command().debug_assert();
        Completed::command().debug_assert();
    }
}
