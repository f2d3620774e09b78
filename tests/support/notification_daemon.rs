//! A real notification daemon that draws its notifications (GNOME's `notification-daemon`, from
//! Debian) on the test's Xvfb screen, so a screenshot shows what a person sees, and its buttons are
//! pressed with the pointer (`xdotool`), as a person presses them. No window manager runs, so its
//! popup is a plain top-level window titled "Notification".

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const PROGRAM: &str = "/usr/lib/notification-daemon/notification-daemon";
const NAME: &str = "org.freedesktop.Notifications";

/// The running daemon; dropping it stops it (by its pid, through the syscall).
pub struct NotificationDaemon {
    child: Child,
}

/// Where a popup is on the screen.
#[derive(Debug, Clone, Copy)]
pub struct Popup {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl NotificationDaemon {
    /// Starts the daemon and waits (bounded) until it owns the notifications' name on the session bus.
    pub async fn start() -> NotificationDaemon {
        assert!(
            Path::new(PROGRAM).is_file(),
            "{PROGRAM} is missing: make test-system-deps installs notification-daemon"
        );
        let child = Command::new(PROGRAM).spawn().expect("start notification-daemon");
        let daemon = NotificationDaemon { child };
        let bus = zbus::Connection::session().await.expect("the session bus");
        let dbus = zbus::fdo::DBusProxy::new(&bus).await.expect("the bus's own interface");
        let name = zbus::names::BusName::try_from(NAME).expect("a bus name");
        let started = Instant::now();
        while !dbus.name_has_owner(name.clone()).await.unwrap_or(false) {
            assert!(started.elapsed() < Duration::from_secs(20), "notification-daemon did not take {NAME}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        daemon
    }

    /// Waits (bounded) for the daemon's popup to be on the screen.
    pub async fn popup(&self, within: Duration) -> Popup {
        let started = Instant::now();
        loop {
            if let Some(popup) = visible_popup() {
                // The window is mapped; give its first frame time to be drawn.
                tokio::time::sleep(Duration::from_millis(300)).await;
                return popup;
            }
            assert!(started.elapsed() < within, "no notification popup on the screen after {within:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for NotificationDaemon {
    fn drop(&mut self) {
        let _ = crate::support::process::signal_process(self.child.id(), libc::SIGTERM);
        let _ = self.child.wait();
    }
}

fn xdotool(args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool").args(args).output().expect("run xdotool (make test-system-deps installs it)");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn visible_popup() -> Option<Popup> {
    let ids = xdotool(&["search", "--onlyvisible", "--name", "^Notification$"])?;
    let id = ids.lines().next()?.trim().to_string();
    let shell = xdotool(&["getwindowgeometry", "--shell", &id])?;
    let field = |name: &str| {
        shell.lines().find_map(|l| l.strip_prefix(&format!("{name}=")).and_then(|v| v.trim().parse::<i32>().ok()))
    };
    Some(Popup { x: field("X")?, y: field("Y")?, width: field("WIDTH")?, height: field("HEIGHT")? })
}

impl Popup {
    /// Presses the pointer at (`dx`, `dy`) from the popup's top-left corner.
    pub fn click(&self, dx: i32, dy: i32) {
        let (x, y) = ((self.x + dx).to_string(), (self.y + dy).to_string());
        xdotool(&["mousemove", "--sync", &x, &y]).expect("move the pointer");
        xdotool(&["click", "1"]).expect("click");
    }

    /// Cuts the popup (with a margin) out of a screenshot of the whole screen, beside it as `name`.
    pub fn crop(&self, screen: &Path, name: &str) -> PathBuf {
        let out = screen.with_file_name(format!("{name}.png"));
        let margin = 12;
        let geometry = format!(
            "{}x{}+{}+{}",
            self.width + 2 * margin,
            self.height + 2 * margin,
            (self.x - margin).max(0),
            (self.y - margin).max(0)
        );
        let status = Command::new("convert")
            .arg(screen)
            .args(["-crop", &geometry, "+repage"])
            .arg(&out)
            .status()
            .expect("run ImageMagick's convert");
        assert!(status.success(), "cropping the screenshot failed");
        out
    }
}
