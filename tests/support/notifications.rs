//! A notification server of our own on the session bus (`org.freedesktop.Notifications`): it
//! records `Notify` and `CloseNotification` calls, answers `GetCapabilities`, and emits
//! `ActionInvoked` / `NotificationClosed` when a test says so — so "answer from a notification" is
//! exercised over real D-Bus against the real app.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zbus::object_server::SignalEmitter;
use zbus::OwnedVariant;

const PATH: &str = "/org/freedesktop/Notifications";
const NAME: &str = "org.freedesktop.Notifications";

#[derive(Debug, Clone)]
pub struct Notified {
    pub id: u32,
    pub app_name: String,
    pub replaces_id: u32,
    pub icon: String,
    pub summary: String,
    pub body: String,
    /// `(action key, label)` pairs, in order.
    pub actions: Vec<(String, String)>,
}

#[derive(Default)]
struct Log {
    next_id: u32,
    notified: Vec<Notified>,
    closed_by_app: Vec<u32>,
}

/// What the server does when the app closes a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnClose {
    /// Closes it and says so (`NotificationClosed`), as servers should.
    Signal,
    /// Records the call but never says it closed, so the app keeps listening for its actions.
    Silent,
    /// Never answers the call at all (a hung server).
    Hang,
}

struct Server {
    log: Arc<Mutex<Log>>,
    actions: bool,
    /// Advertises `inline-reply` (KDE Plasma, swaync): text typed into a notice.
    inline_reply: bool,
    on_close: OnClose,
    /// An action to invoke on the next notification before `Notify` even returns (a click faster
    /// than any person's: the app must already listen).
    click_at_once: Arc<Mutex<Option<String>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    fn get_capabilities(&self) -> Vec<String> {
        let mut caps = vec!["body".to_string(), "persistence".to_string()];
        if self.actions {
            caps.push("actions".to_string());
        }
        if self.inline_reply {
            caps.push("inline-reply".to_string());
        }
        caps
    }

    #[allow(clippy::too_many_arguments)]
    async fn notify(
        &self,
        app_name: String,
        replaces_id: u32,
        app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, OwnedVariant>,
        _expire_timeout: i32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> u32 {
        let id = {
            let mut log = self.log.lock().expect("log");
            log.next_id += 1;
            let id = if replaces_id != 0 { replaces_id } else { log.next_id };
            let pairs = actions.chunks(2).map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or_default())).collect();
            log.notified.push(Notified { id, app_name, replaces_id, icon: app_icon, summary, body, actions: pairs });
            id
        };
        let click = self.click_at_once.lock().expect("click").take();
        if let Some(action) = click {
            let _ = Self::action_invoked(&emitter, id, &action).await;
        }
        id
    }

    async fn close_notification(&self, id: u32, #[zbus(signal_emitter)] emitter: SignalEmitter<'_>) {
        self.log.lock().expect("log").closed_by_app.push(id);
        match self.on_close {
            // Reason 3: closed by a call to CloseNotification.
            OnClose::Signal => {
                let _ = Self::notification_closed(&emitter, id, 3).await;
            }
            OnClose::Silent => {}
            OnClose::Hang => std::future::pending::<()>().await,
        }
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        ("hark-test-server".into(), "hark".into(), "1".into(), "1.2".into())
    }

    #[zbus(signal)]
    async fn action_invoked(emitter: &SignalEmitter<'_>, id: u32, action_key: &str) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_replied(emitter: &SignalEmitter<'_>, id: u32, text: &str) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(emitter: &SignalEmitter<'_>, id: u32, reason: u32) -> zbus::Result<()>;
}

/// The running server; dropping it leaves the bus name free for the next test.
pub struct NotificationServer {
    conn: zbus::Connection,
    log: Arc<Mutex<Log>>,
    click_at_once: Arc<Mutex<Option<String>>>,
}

impl NotificationServer {
    /// Starts serving on the session bus. `actions` says whether to advertise the `actions` capability.
    pub async fn start(actions: bool) -> NotificationServer {
        Self::start_with(actions, OnClose::Signal).await
    }

    /// [`NotificationServer::start`], with what it does when the app closes a notification.
    pub async fn start_with(actions: bool, on_close: OnClose) -> NotificationServer {
        Self::serve(Server {
            log: Arc::default(),
            actions,
            inline_reply: false,
            on_close,
            click_at_once: Arc::default(),
        })
        .await
    }

    /// A server with actions that also takes typed replies (`inline-reply`), as KDE Plasma's does.
    pub async fn start_with_inline_reply() -> NotificationServer {
        Self::serve(Server {
            log: Arc::default(),
            actions: true,
            inline_reply: true,
            on_close: OnClose::Signal,
            click_at_once: Arc::default(),
        })
        .await
    }

    async fn serve(server: Server) -> NotificationServer {
        let (log, click_at_once) = (Arc::clone(&server.log), Arc::clone(&server.click_at_once));
        let conn = zbus::connection::Builder::session()
            .name(NAME)
            .serve_at(PATH, server)
            .build()
            .await
            .expect("own org.freedesktop.Notifications on the session bus");
        NotificationServer { conn, log, click_at_once }
    }

    /// The next notification gets `action` invoked before the server even replies to `Notify`.
    pub fn click_at_once(&self, action: &str) {
        *self.click_at_once.lock().expect("click") = Some(action.to_string());
    }

    pub fn notified(&self) -> Vec<Notified> {
        self.log.lock().expect("log").notified.clone()
    }

    pub fn closed_by_app(&self) -> Vec<u32> {
        self.log.lock().expect("log").closed_by_app.clone()
    }

    /// Waits (up to `within`) for a notification matching `pred`.
    pub async fn wait_for(&self, what: &str, within: Duration, pred: impl Fn(&Notified) -> bool) -> Notified {
        let start = Instant::now();
        loop {
            if let Some(n) = self.notified().into_iter().rev().find(|n| pred(n)) {
                return n;
            }
            assert!(start.elapsed() < within, "no notification {what} within {within:?}; got {:#?}", self.notified());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn wait_closed(&self, id: u32, within: Duration) {
        let start = Instant::now();
        while !self.closed_by_app().contains(&id) {
            assert!(start.elapsed() < within, "notification {id} was not closed within {within:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The person clicked `action` on notification `id`.
    pub async fn invoke(&self, id: u32, action: &str) {
        let iface = self.conn.object_server().interface::<_, Server>(PATH).await.expect("our interface");
        Server::action_invoked(iface.signal_emitter(), id, action).await.expect("emit ActionInvoked");
    }

    /// The person typed `text` into notification `id`'s inline reply.
    pub async fn reply(&self, id: u32, text: &str) {
        let iface = self.conn.object_server().interface::<_, Server>(PATH).await.expect("our interface");
        Server::notification_replied(iface.signal_emitter(), id, text).await.expect("emit NotificationReplied");
    }
}

/// Takes X input focus away from every window, as when the person switches to another app. (No window
/// manager runs under Xvfb, so the app keeps focus otherwise.)
pub fn unfocus_all_windows() {
    let script = "import ctypes\n\
x = ctypes.cdll.LoadLibrary('libX11.so.6')\n\
x.XOpenDisplay.restype = ctypes.c_void_p\n\
d = ctypes.c_void_p(x.XOpenDisplay(None))\n\
assert d.value, 'cannot open the X display'\n\
x.XSetInputFocus(d, ctypes.c_ulong(0), 1, ctypes.c_ulong(0))\n\
x.XSync(d, 0)\n";
    let status = std::process::Command::new("python3").arg("-c").arg(script).status().expect("run python3");
    assert!(status.success(), "could not move X focus away from the app");
}
