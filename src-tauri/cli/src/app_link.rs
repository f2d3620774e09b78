//! The running desktop app, as the agents' front doors (`hark mcp`, `hark hook`) reach it: through
//! its control socket's front door, starting it when none runs, so a question always finds the
//! person's window.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use std::sync::Arc;

use hark_core::control::{self, ControlError, Request};
use hark_core::front_door::Remote;

/// How long a started app may take to answer on its socket.
const APP_START: Duration = Duration::from_secs(60);

/// The front door to the app serving `dir`, which starts the app first when none answers.
pub(crate) fn door(dir: &Path) -> Remote {
    Remote::starting(dir, Arc::new(|dir: PathBuf| Box::pin(async move { start_app(&dir).await })))
}

/// Names the desktop app to start when none runs (an install that keeps it elsewhere).
const DESKTOP_ENV: &str = "HARK_DESKTOP";

/// Starts the desktop app (`HARK_DESKTOP`, else the one next to this binary, else `hark-desktop` on
/// the PATH) detached from this process and waits until it answers on its control socket.
async fn start_app(dir: &Path) -> Result<(), ControlError> {
    let unavailable = |detail: String| ControlError::Io { path: control_path(dir), detail };
    let beside = || {
        std::env::current_exe()
            .ok()
            .map(|exe| exe.with_file_name(format!("hark-desktop{}", std::env::consts::EXE_SUFFIX)))
            .filter(|p| p.is_file())
    };
    let program = std::env::var_os(DESKTOP_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(beside)
        .unwrap_or_else(|| PathBuf::from("hark-desktop"));
    let mut command = std::process::Command::new(&program);
    // The app outlives this call and serves every agent: it gets what a window needs, not the
    // calling agent's environment (its keys and tokens).
    command
        .env_clear()
        .envs(std::env::vars_os().filter(|(name, _)| hark_core::safe_env::for_desktop(name)))
        .env(hark_core::data_dir::DATA_DIR_ENV, dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        // Its own process group: the client's Ctrl-C or exit does not take the app down with it.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut app = command.spawn().map_err(|e| unavailable(format!("could not start {}: {e}", program.display())))?;
    let started = Instant::now();
    while started.elapsed() < APP_START {
        match control::call(dir, &Request::Settings).await {
            Ok(_) => return Ok(()),
            Err(ControlError::Unavailable { .. }) => {}
            Err(e) => return Err(e),
        }
        // An app that could not start (no display, another one took the data directory) says so at
        // once rather than after the whole wait.
        if let Ok(Some(status)) = app.try_wait() {
            return match control::call(dir, &Request::Settings).await {
                Ok(_) => Ok(()),
                Err(_) => Err(unavailable(format!("{} exited ({status}) before it answered", program.display()))),
            };
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(unavailable(format!("{} started but did not answer within {} s", program.display(), APP_START.as_secs())))
}

fn control_path(dir: &Path) -> PathBuf {
    #[cfg(unix)]
    {
        control::socket_path(dir)
    }
    #[cfg(windows)]
    {
        PathBuf::from(control::pipe_name(dir))
    }
}
