//! The real `hark` binary's command line as a person meets it: every command's own `--help`, usage
//! mistakes that name the option and suggest the right one (exit 2, nothing on stdout), and the shell
//! completions and manual page generated from the same definition, checked by the shells and groff.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn hark(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_hark")).args(args).output() {
        Ok(out) => out,
        Err(e) => panic!("could not run hark: {e}"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The names under "Commands:" in a help text (clap lists `help` too; it has no `--help` of its own).
fn listed_commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .filter(|name| name != "help")
        .collect()
}

#[test]
fn answer_help_is_its_own_and_succeeds() {
    let out = hark(&["answer", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let help = text(&out.stdout);
    assert!(help.contains("Usage: hark answer <SESSION> <CALL_ID> <ANSWERS_JSON>"), "{help}");
    // What the command does and its exit codes, not the whole program's usage.
    assert!(help.starts_with("Answer a continued question late"), "{help}");
    assert!(help.contains("3 NOT_PENDING") && help.contains("5 REPLY_QUEUED"), "{help}");
    assert!(!help.contains("Commands:"), "{help}");
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

/// Every command and every subcommand, as the binary lists them, has a `--help` that describes it.
#[test]
fn every_command_has_a_help_of_its_own() {
    let top = hark(&["--help"]);
    assert_eq!(top.status.code(), Some(0));
    let mut pending: Vec<Vec<String>> = listed_commands(&text(&top.stdout)).into_iter().map(|c| vec![c]).collect();
    // `remote` (SSH tunnels to Unix sockets) is not a command on Windows.
    let least = if cfg!(windows) { 13 } else { 14 };
    assert!(pending.len() >= least, "{pending:?}");
    let mut seen = Vec::new();
    while let Some(path) = pending.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = hark(&args);
        let help = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        let first = help.lines().next().unwrap_or_default();
        assert!(!first.is_empty() && !first.starts_with("Usage:"), "{args:?} has no description:\n{help}");
        assert!(help.contains(&format!("Usage: hark {}", path.join(" "))), "{args:?}:\n{help}");
        pending.extend(listed_commands(&help).into_iter().map(|sub| [path.clone(), vec![sub]].concat()));
        seen.push(path.join(" "));
    }
    for expected in ["answer", "chat", "tui", "phone pair", "phone status", "setup", "hook", "mcp", "completions"] {
        assert!(seen.iter().any(|s| s == expected), "{expected} not among {seen:?}");
    }
    #[cfg(unix)]
    assert!(seen.iter().any(|s| s == "remote add"), "{seen:?}");
    // The internal ones stay out of the list.
    assert!(!seen.iter().any(|s| s == "man"), "{seen:?}");
}

#[test]
fn a_misspelt_option_is_named_with_the_right_one() {
    let out = hark(&["chat", "--sesion", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("unexpected argument '--sesion'"), "{stderr}");
    assert!(stderr.contains("similar argument exists: '--session'"), "{stderr}");
    assert!(stderr.contains("Usage: hark chat"), "{stderr}");

    // `answer` takes the session as its first argument, not as an option: the mistake is still named.
    let out = hark(&["answer", "--sesion", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("unexpected argument '--sesion'"), "{stderr}");
    assert!(stderr.contains("Usage: hark answer <SESSION> <CALL_ID> <ANSWERS_JSON>"), "{stderr}");

    for (args, says) in [
        (&["setup", "--und", "codex"][..], "similar argument exists: '--undo'"),
        (&["phone", "statu"][..], "similar subcommand exists: 'status'"),
        (&["sesions"][..], "unrecognized subcommand 'sesions'\n\n  tip: some similar subcommands exist: 'questions', 'version', 'sessions'"),
        (&["mcp", "--budget", "soon"][..], "invalid value 'soon' for '--budget <SECONDS>'"),
        (&["hook", "gemini"][..], "[possible values: claude-code, codex]"),
    ] {
        let out = hark(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(text(&out.stderr).contains(says), "{args:?}: {}", text(&out.stderr));
    }
}

/// A shell program checked by `shell -n` (parse only), or `None` when that shell is not installed.
fn shell_accepts(shell: &str, script: &str) -> Option<Output> {
    let mut child =
        match Command::new(shell).arg("-n").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()
        {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => panic!("could not run {shell}: {e}"),
        };
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    Some(child.wait_with_output().unwrap())
}

#[test]
#[cfg_attr(windows, ignore = "bash, which the completions are checked with, is not a Windows program")]
fn completions_are_accepted_by_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = hark(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains("hark") && script.contains("answer"), "{shell}: {script}");
        match shell_accepts(shell, &script) {
            Some(checked) => assert!(checked.status.success(), "{shell} -n: {}", text(&checked.stderr)),
            None => assert_ne!(shell, "bash", "bash must be installed"),
        }
    }
    let out = hark(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{}",
        text(&out.stderr)
    );
}

/// What bash offers after the words typed, with hark's completion loaded.
fn bash_offers(words: &[&str]) -> Vec<String> {
    let script = text(&hark(&["completions", "bash"]).stdout);
    let program = format!(
        "{script}\nCOMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}\n\
         _hark hark \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        words = words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
        cword = words.len() - 1,
    );
    let out = Command::new("bash").arg("-c").arg(program).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
#[cfg_attr(windows, ignore = "bash, which runs the completion, is not a Windows program")]
fn bash_completes_commands_options_and_their_values() {
    assert!(bash_offers(&["hark", "an"]).contains(&"answer".to_string()));
    assert_eq!(bash_offers(&["hark", "--vers"]), ["--version"]);
    let setup = bash_offers(&["hark", "setup", ""]);
    assert!(setup.contains(&"claude-code".to_string()) && setup.contains(&"codex".to_string()), "{setup:?}");
    assert!(bash_offers(&["hark", "chat", "--sess"]).contains(&"--session".to_string()));
    let providers = bash_offers(&["hark", "chat", "--provider", ""]);
    assert_eq!(providers, ["demo", "openai"]);
    let scripts = bash_offers(&["hark", "tui", "--script", ""]);
    assert!(scripts.contains(&"blocking".to_string()), "{scripts:?}");
    // The internal page is not offered.
    assert!(!bash_offers(&["hark", "m"]).contains(&"man".to_string()));
}

/// groff reads `page` without a warning, when it is installed (it is what `man` renders pages with).
fn groff_accepts(name: &str, page: &str) {
    let groff = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    match groff {
        Ok(mut child) => {
            child.stdin.take().unwrap().write_all(page.as_bytes()).unwrap();
            let checked = child.wait_with_output().unwrap();
            assert!(
                checked.status.success() && checked.stderr.is_empty(),
                "groff on {name}: {}",
                text(&checked.stderr)
            );
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => eprintln!("skipped: groff is not installed"),
        Err(e) => panic!("could not run groff: {e}"),
    }
}

/// fish, when installed, offers the commands with what they do and an option's values.
#[test]
fn fish_completes_commands_and_values() {
    let script = text(&hark(&["completions", "fish"]).stdout);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hark.fish");
    std::fs::write(&file, script).unwrap();
    let offers = |line: &str| {
        let program = format!("source {}; complete -C '{line}'", file.display());
        match Command::new("fish").arg("-c").arg(program).output() {
            Ok(out) => Some(text(&out.stdout)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => panic!("could not run fish: {e}"),
        }
    };
    let Some(commands) = offers("hark se") else {
        eprintln!("skipped: fish is not installed");
        return;
    };
    assert!(commands.contains("sessions\tList the stored sessions"), "{commands}");
    assert!(commands.contains("setup\tRegister this hark"), "{commands}");
    assert_eq!(offers("hark chat --provider ").unwrap_or_default(), "demo\nopenai\n");
}

#[test]
fn the_manual_pages_name_their_command_and_render() {
    let out = hark(&["man"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(page.contains(".TH hark 1 "), "{page}");
    assert!(page.contains(".SH NAME\nhark \\- Chat with an agent"), "{page}");
    groff_accepts("hark.1", &page);

    // With a folder, the page of every command hark.1 refers to is written there too.
    let dir = tempfile::tempdir().unwrap();
    let out = hark(&["man", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("hark.1")).unwrap(), page);
    let referred: Vec<String> = page
        .lines()
        .filter_map(|line| line.strip_prefix("hark\\-")?.strip_suffix("(1)").map(|name| format!("hark-{name}")))
        .collect();
    assert!(referred.contains(&"hark-answer".to_string()), "{referred:?}");
    for name in referred {
        let sub = std::fs::read_to_string(dir.path().join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("hark.1 refers to {name}(1): {e}"));
        assert!(sub.contains(&format!(".SH NAME\n{} \\- ", name.replace('-', "\\-"))), "{name}: {sub}");
        groff_accepts(&name, &sub);
    }
    assert!(dir.path().join("hark-phone-pair.1").exists());
    assert!(!dir.path().join("hark-man.1").exists() && !dir.path().join("hark-help.1").exists());
}

#[test]
fn version_and_help_commands_print_to_stdout() {
    let out = hark(&["version"]);
    assert_eq!(text(&out.stdout), format!("hark {}\n", env!("CARGO_PKG_VERSION")));
    let out = hark(&["help", "answer"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: hark answer"), "{}", text(&out.stdout));
}
