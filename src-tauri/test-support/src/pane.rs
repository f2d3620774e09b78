//! A real terminal for `hark tui`: tmux runs it in a pane of its own server, 80×24 with `NO_COLOR`;
//! keys go in with `send-keys` and the screen comes back with `capture-pane`. Each step's screen is
//! saved as text. Shared by the CLI's TUI tests and the desktop's end-to-end tests.
//!
//! This is the one place that still polls: the screen belongs to another process (tmux), which emits
//! no events a test could wait on.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One tmux server of its own (its socket named after the test), holding one pane.
pub struct Pane {
    socket: String,
    name: &'static str,
    step: usize,
    /// Where each step's screen is saved.
    captures: PathBuf,
}

impl Pane {
    /// Runs `HARK tui ARGS` in `workspace` with the data directory `data`, in a new 80×24 pane;
    /// its screens are saved in `captures`.
    pub fn start(
        name: &'static str,
        hark: &Path,
        data: &Path,
        workspace: &Path,
        args: &[&str],
        captures: PathBuf,
    ) -> Pane {
        let mut command = format!(
            "cd {} && env HARK_DATA_DIR={} NO_COLOR=1 TERM=xterm-256color {} tui",
            quote(workspace),
            quote(data),
            quote(hark)
        );
        for arg in args {
            command.push(' ');
            command.push_str(&quote(Path::new(arg)));
        }
        Pane::run(name, &command, captures)
    }

    /// Runs the shell command line `command` in a new 80×24 pane; its screens are saved in
    /// `captures`. `name` tells this test's panes apart.
    pub fn run(name: &'static str, command: &str, captures: PathBuf) -> Pane {
        let socket = format!("hark-tui-{}-{name}", std::process::id());
        // The pane stays after the program exits, so its last screen can still be read.
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-s", "tui", "-x", "80", "-y", "24"])
            .arg(format!("{command}; echo '[exited]'; sleep 600"))
            .status()
            .expect("run tmux (make test installs it)");
        assert!(status.success(), "tmux could not start the pane");
        Pane { socket, name, step: 0, captures }
    }

    pub fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux").args(["-L", &self.socket]).args(args).output().expect("run tmux")
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "tui"]).stdout).into_owned()
    }

    /// Sends tmux key names (`Enter`, `Tab`, `Escape`, `C-c`, or a character).
    pub fn keys(&self, keys: &[&str]) {
        for key in keys {
            assert!(self.tmux(&["send-keys", "-t", "tui", key]).status.success(), "send {key}");
            // Each key is its own read for the program, as when a person types.
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    pub fn type_text(&self, text: &str) {
        assert!(self.tmux(&["send-keys", "-t", "tui", "-l", text]).status.success());
    }

    /// Waits until the screen shows `text` (a terminal gives no events to wait on), then saves it.
    pub fn wait_for(&mut self, text: &str, step: &str) -> String {
        self.wait_until(&format!("{text:?}"), |screen| screen.contains(text), step)
    }

    /// Waits until the screen is as `shows` says (`what`, for the failure), then saves it.
    pub fn wait_until(&mut self, what: &str, shows: impl Fn(&str) -> bool, step: &str) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if shows(&screen) {
                self.save(step, &screen);
                return screen;
            }
            if started.elapsed() > Duration::from_secs(20) {
                self.save(step, &screen);
                panic!("the screen never showed {what}; it shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn save(&mut self, step: &str, screen: &str) {
        self.step += 1;
        let dir = &self.captures;
        std::fs::create_dir_all(dir).expect("the captures folder");
        std::fs::write(dir.join(format!("{}-{}-{step}.txt", self.name, self.step)), screen).expect("save the screen");
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        // Ends this test's own tmux server and the pane's processes with it.
        let _ = self.tmux(&["kill-server"]);
    }
}

pub fn quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
