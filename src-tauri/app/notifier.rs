//! OS notifications for questions nobody is looking at. The policy (when, what, which buttons) is
//! `hark_core::notify`; this module shows its decisions with notify-rust, keeps one notification per
//! session (closing the old one before showing its replacement), and turns actions into answers
//! through the same path as the panel. Actions are heard on one connection of the app's own
//! (`notify_signals`), subscribed before the first notice: no thread blocks per notice, and no click
//! made the instant a notice appears is lost.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hark_core::front_door::FrontDoor;
use hark_core::notify::{self, ActionChoice, Notice, NotificationKind, NotifyContext};
use hark_core::question::{Intent, Question};
use hark_core::service::{Outcome, QuestionEvent};
use hark_core::sync::lock;
use tauri::{AppHandle, Manager};

use crate::hub::Hub;
use crate::state::Launched;
use crate::toast::Signal;

/// What one session's notification is about, and how to take it down.
struct Shown {
    call_id: String,
    generation: u64,
    #[cfg(all(unix, not(target_os = "macos")))]
    handle: Arc<notify_rust::NotificationHandle>,
}

pub struct Notifier {
    app: AppHandle,
    hub: Arc<Hub>,
    focused: AtomicBool,
    /// Set when the app quits: nothing new is shown (and the window, busy quitting, is not asked).
    quitting: AtomicBool,
    generation: AtomicU64,
    shown: Mutex<HashMap<String, Shown>>,
    #[cfg(all(unix, not(target_os = "macos")))]
    icon: Option<String>,
    /// The server's signals, subscribed to before the first notification is shown.
    #[cfg(all(unix, not(target_os = "macos")))]
    signals: tokio::sync::OnceCell<Option<Arc<crate::notify_signals::Signals>>>,
}

impl Notifier {
    pub fn new(app: AppHandle, hub: Arc<Hub>) -> Arc<Notifier> {
        #[cfg(target_os = "macos")]
        crate::toast::name_the_app(crate::IDENTIFIER);
        Arc::new(Notifier {
            #[cfg(all(unix, not(target_os = "macos")))]
            icon: write_icon(hub.data_dir()),
            app,
            hub,
            focused: AtomicBool::new(false),
            quitting: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            shown: Mutex::new(HashMap::new()),
            #[cfg(all(unix, not(target_os = "macos")))]
            signals: tokio::sync::OnceCell::new(),
        })
    }

    /// Asked of the window itself when it matters; the tracked focus events are the fallback (a window
    /// can have focus from start-up without ever reporting a focus change).
    fn window_focused(&self) -> bool {
        match self.app.get_webview_window(crate::window::MAIN) {
            Some(w) => {
                let visible = w.is_visible().unwrap_or(true);
                visible && w.is_focused().unwrap_or_else(|_| self.focused.load(Ordering::SeqCst))
            }
            None => self.focused.load(Ordering::SeqCst),
        }
    }

    /// Quitting: nothing new is shown from now on.
    pub fn stop_showing(&self) {
        self.quitting.store(true, Ordering::SeqCst);
    }

    /// Takes every notification down (quitting: their buttons would answer nothing). A notification
    /// server that does not answer cannot hold the quit up: after `within` the rest are left to it.
    pub async fn close_all(&self, within: std::time::Duration) {
        self.stop_showing();
        let sessions: Vec<String> = lock(&self.shown).keys().cloned().collect();
        let closing = async {
            for session in sessions {
                self.close(&session, None).await;
            }
        };
        if tokio::time::timeout(within, closing).await.is_err() {
            eprintln!("hark-desktop: the notification server did not answer; quitting without closing notifications");
        }
    }

    pub fn set_focused(&self, focused: bool) {
        self.focused.store(focused, Ordering::SeqCst);
    }

    /// Reacts to one question event of any session.
    pub async fn on_event(self: &Arc<Self>, event: &QuestionEvent) {
        match event {
            QuestionEvent::Requested { request } => {
                let (session, call) = (&request.session_id, &request.call_id);
                self.consider(NotificationKind::Asked, session, call, &request.intent, &request.questions).await;
            }
            // The wait ran out: the question goes on as continued (its pending result is being
            // recorded as this arrives), answerable from the notification.
            QuestionEvent::Resolved { session_id, call_id, outcome: Outcome::TimedOut } => {
                match self.hub.service().asked(session_id, call_id) {
                    Some(questions) => {
                        // Plan reviews have no deadline, so only a plain question times out.
                        let kind = NotificationKind::Continued;
                        self.consider(kind, session_id, call_id, &Intent::Question, &questions).await
                    }
                    None => self.close(session_id, Some(call_id)).await,
                }
            }
            QuestionEvent::Resolved { session_id, call_id, .. }
            | QuestionEvent::ReplyQueued { session_id, call_id, .. } => {
                self.close(session_id, Some(call_id)).await;
            }
            QuestionEvent::ReplyReleased { .. } => {}
        }
    }

    async fn consider(
        self: &Arc<Self>,
        kind: NotificationKind,
        session: &str,
        call_id: &str,
        intent: &Intent,
        questions: &[Question],
    ) {
        if self.quitting.load(Ordering::SeqCst) {
            return;
        }
        let settings = self.hub.settings();
        let quiet = NotifyContext {
            enabled: settings.notifications,
            do_not_disturb: settings.do_not_disturb,
            window_focused: self.window_focused(),
            server_has_actions: true,
            server_has_inline_reply: false,
        };
        if !notify::should_notify(&quiet) {
            return;
        }
        let (server_has_actions, server_has_inline_reply) = server_capabilities().await;
        let title = self
            .hub
            .store()
            .list_sessions()
            .ok()
            .and_then(|all| all.into_iter().find(|s| s.id == session).map(|s| s.title))
            .unwrap_or_default();
        let ctx = NotifyContext { server_has_actions, server_has_inline_reply, ..quiet };
        let (notice, answerable) = match intent {
            // A review's notice only opens the window: no questions to map an action back to.
            Intent::PlanReview { plan } => (notify::review_notice(&ctx, session, &title, call_id, plan), Vec::new()),
            Intent::Question => {
                let notice = match self.hub.client_of(session) {
                    Some(client) => notify::client_notice(&ctx, kind, session, &client, call_id, questions),
                    None => notify::notice(&ctx, kind, session, &title, call_id, questions),
                };
                (notice, questions.to_vec())
            }
            Intent::Approval { agent, .. } => {
                (notify::approval_notice(&ctx, session, &title, agent, call_id, questions), questions.to_vec())
            }
            Intent::Form { server, message, .. } => {
                (notify::form_notice(&ctx, session, server, message, call_id, questions), questions.to_vec())
            }
        };
        if let Some(notice) = notice {
            self.show(notice, answerable).await;
        }
    }

    /// Brings the window up and asks it to show the question.
    fn focus(&self, session: &str, call_id: &str) {
        crate::window::show(&self.app, Launched::question(session, call_id, None));
    }

    /// What the person did on the notification for `call_id`: an option or typed reply answers it
    /// (first wins, like the panel; one answered elsewhere first opens the window with the reason),
    /// anything else focuses.
    async fn act(&self, session: &str, call_id: &str, choice: ActionChoice) {
        match choice {
            // Taken as the panel takes it (a notification does not track phases: no path).
            ActionChoice::Answer(batch) => match self.hub.door().answer(session, call_id, batch, None).await {
                Ok(_) => crate::events::sessions_changed(&self.app),
                // Answered elsewhere first, a reply already queued, the session unusable...: the click
                // must not vanish, so the window comes up on the question and says why.
                Err(e) => {
                    let notice =
                        hark_core::error::BoundaryError { message: notify::refusal_text(&e.code, &e.message), ..e };
                    crate::window::show(&self.app, Launched::question(session, call_id, Some(notice)));
                }
            },
            ActionChoice::Focus => self.focus(session, call_id),
            ActionChoice::Choose => {
                let waiting = self.hub.door().inbox().await.map(|entries| entries.len()).unwrap_or(0);
                if notify::answer_opens_inbox(waiting) {
                    crate::window::show(&self.app, Launched::inbox());
                } else {
                    self.focus(session, call_id);
                }
            }
            ActionChoice::Ignore => {}
        }
    }
}

/// The app icon as a file the notification server can read (servers take a path or a theme name).
#[cfg(all(unix, not(target_os = "macos")))]
fn write_icon(dir: &std::path::Path) -> Option<String> {
    let path = dir.join("hark-icon.png");
    if !path.exists() {
        std::fs::write(&path, include_bytes!("../../icons/128x128.png")).ok()?;
    }
    Some(path.display().to_string())
}

/// Whether the notification server draws action buttons, and takes typed inline replies.
#[cfg(all(unix, not(target_os = "macos")))]
async fn server_capabilities() -> (bool, bool) {
    let caps = tauri::async_runtime::spawn_blocking(notify_rust::get_capabilities).await.ok().and_then(Result::ok);
    let has = |name: &str| caps.as_ref().is_some_and(|caps| caps.iter().any(|c| c == name));
    // Core offers a reply only beside actions (`notify::notice`): each capability as the server says.
    (has("actions"), has("inline-reply"))
}

/// Toasts draw buttons (notify-rust has no reply field for them); banners draw a menu of buttons or
/// a reply field (`toast::controls` picks).
#[cfg(not(all(unix, not(target_os = "macos"))))]
async fn server_capabilities() -> (bool, bool) {
    (true, cfg!(target_os = "macos"))
}

impl Notifier {
    /// Keeps `notice` as its session's notification and acts on what the person does with it.
    fn hear(
        self: &Arc<Self>,
        notice: Notice,
        questions: Vec<Question>,
        #[cfg(all(unix, not(target_os = "macos")))] handle: Arc<notify_rust::NotificationHandle>,
        heard: Option<tokio::sync::oneshot::Receiver<Signal>>,
    ) {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let shown = Shown {
            call_id: notice.call_id.clone(),
            generation,
            #[cfg(all(unix, not(target_os = "macos")))]
            handle,
        };
        lock(&self.shown).insert(notice.session_id.clone(), shown);
        // Not heard: it shows, and is taken down when its question ends, but answers nothing.
        let Some(heard) = heard else { return };
        let me = Arc::clone(self);
        tauri::async_runtime::spawn(async move {
            let chosen = heard.await.ok().and_then(|signal| crate::toast::meaning(signal, &questions));
            let taken = {
                let mut shown = lock(&me.shown);
                let current = shown.get(&notice.session_id).map(|s| s.generation) == Some(generation);
                if current {
                    shown.remove(&notice.session_id)
                } else {
                    None
                }
            };
            if let Some(choice) = chosen {
                me.act(&notice.session_id, &notice.call_id, choice).await;
            }
            // The notice was used: it asks nothing more. It is resident, so a server that honours
            // that keeps it on screen after a button was pressed until Hark takes it down.
            #[cfg(all(unix, not(target_os = "macos")))]
            if let Some(used) = taken {
                used.handle.close_async().await;
            }
            #[cfg(not(all(unix, not(target_os = "macos"))))]
            drop(taken);
        });
    }

    /// Takes down the session's notification (only if it is about `call_id`, when given). Toasts and
    /// banners cannot be taken down from here: a click on one whose question was settled meanwhile
    /// is refused with the reason, as on a server that keeps a closed notice up.
    pub async fn close(&self, session: &str, call_id: Option<&str>) {
        let taken = {
            let mut shown = lock(&self.shown);
            match shown.get(session) {
                Some(s) if call_id.is_none_or(|c| c == s.call_id) => shown.remove(session),
                _ => None,
            }
        };
        // Its waiter stays: a server that leaves the notice up still reports a click on it, which is
        // then refused with the reason (the question was settled here).
        #[cfg(all(unix, not(target_os = "macos")))]
        if let Some(s) = taken {
            s.handle.close_async().await;
        }
        #[cfg(not(all(unix, not(target_os = "macos"))))]
        drop(taken);
    }
}

#[cfg(all(unix, not(target_os = "macos")))]
impl Notifier {
    async fn show(self: &Arc<Self>, notice: Notice, questions: Vec<Question>) {
        self.close(&notice.session_id, None).await;
        let mut n = notify_rust::Notification::new();
        // The body may be read as markup by the server; the summary is always plain text.
        let body = notify::escape_markup(&notice.body);
        n.appname("Hark").summary(&notice.title).body(&body).timeout(notify_rust::Timeout::Never);
        n.hint(notify_rust::Hint::Resident(true));
        if let Some(icon) = &self.icon {
            n.icon(icon);
        }
        for action in &notice.actions {
            n.action(&action.id, &action.label);
        }
        let signals = self.signals.get_or_init(crate::notify_signals::Signals::listen).await.clone();
        let handle = match n.show_async().await {
            Ok(h) => Arc::new(h),
            Err(e) => {
                eprintln!("hark-desktop: notification not shown: {e}");
                return;
            }
        };
        // Without a bus of our own (there is one: the notification was just shown over it), the
        // notification shows but answers nothing.
        let heard = signals.map(|signals| signals.wait(handle.id()));
        self.hear(notice, questions, handle, heard);
    }
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
impl Notifier {
    async fn show(self: &Arc<Self>, notice: Notice, questions: Vec<Question>) {
        self.close(&notice.session_id, None).await;
        match crate::toast::show(&notice) {
            Ok(heard) => self.hear(notice, questions, Some(heard)),
            Err(e) => eprintln!("hark-desktop: notification not shown: {e}"),
        }
    }
}
