//! What the shell holds for the life of the process.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use hark_core::data_dir::{self, DataDirError};
use hark_core::error::{BoundaryError, CodedError};

use crate::error::CommandError;
use crate::hub::Hub;
use crate::launch::LaunchOptions;

pub struct AppState {
    /// The prepared data directory, or why it could not be used. An unusable directory is not a
    /// panic: the window opens and says what is wrong.
    pub data_dir: Result<PathBuf, BoundaryError>,
    /// The host of that directory (store, question service, live agents), or why it could not start
    /// (another process hosts it, a corrupt store — reported and never replaced).
    pub hub: Result<Arc<Hub>, BoundaryError>,
    /// What the launch options opened, for the window to show first; or why they could not. A
    /// window built later (the first one was closed) finds here what it was opened for.
    pub launched: Mutex<Launched>,
    /// The session the window last opened, shown again when the window is built anew for nothing
    /// in particular (the tray's Open).
    last_shown: Mutex<Option<String>>,
    /// What a window being built opens on, until its page reads it.
    opening: Mutex<Opening>,
}

/// What a window's page shows when it starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launched {
    pub session: Option<String>,
    /// A question of `session` to open.
    pub call_id: Option<String>,
    /// Why the window is asked to show it (an answer from a notification that was not taken).
    pub notice: Option<BoundaryError>,
    pub error: Option<BoundaryError>,
    /// Open on the inbox of every waiting question (the tray's "Open inbox", "Answer…" with several
    /// waiting).
    pub inbox: bool,
}

impl Launched {
    pub fn session(session: impl Into<String>) -> Self {
        Launched { session: Some(session.into()), ..Launched::default() }
    }

    pub fn inbox() -> Self {
        Launched { inbox: true, ..Launched::default() }
    }

    pub fn question(session: &str, call_id: &str, notice: Option<BoundaryError>) -> Self {
        Launched { call_id: Some(call_id.to_string()), notice, ..Launched::session(session) }
    }

    /// Whether it names something to show (a show naming nothing only brings the window up).
    fn names_something(&self) -> bool {
        self.session.is_some() || self.inbox || self.error.is_some()
    }
}

/// What the window opens on while it is being built. Its page reads what to show first once, when it
/// starts (`app_info`), and hears no event before that; so a show that comes meanwhile (the tray's
/// Open, then at once a notification's Answer) changes what the page will read rather than sending
/// an event nobody hears: the last target wanted wins. A show naming nothing changes no target.
#[derive(Debug, Default)]
pub struct Opening {
    /// What the page of the window being built will read; `None` once it has (or no window is
    /// being built).
    pending: Option<Launched>,
}

/// Where a show goes.
#[derive(Debug, PartialEq)]
pub enum Route {
    /// No window: build one, whose page reads the target.
    Build,
    /// A window is being built: its page will read the target (already recorded).
    Pending,
    /// A window's page has started: bring the window up and tell the page.
    Tell(Launched),
}

impl Opening {
    /// A show of `wanted`, while a window exists or not.
    pub fn show(&mut self, wanted: Launched, window_exists: bool) -> Route {
        if !window_exists {
            self.pending = Some(wanted);
            return Route::Build;
        }
        match &mut self.pending {
            Some(pending) => {
                if wanted.names_something() {
                    *pending = wanted;
                }
                Route::Pending
            }
            None => Route::Tell(wanted),
        }
    }

    /// A window is being built for `first` (the first window, at start-up).
    pub fn building(&mut self, first: Launched) {
        self.pending = Some(first);
    }

    /// The page started: what its window was built for, when it is the first to read it.
    pub fn started(&mut self) -> Option<Launched> {
        self.pending.take()
    }

    /// The window is gone: whatever brings it back builds a new one.
    pub fn closed(&mut self) {
        self.pending = None;
    }
}

impl AppState {
    pub fn prepare(chosen: Result<PathBuf, DataDirError>, launch: LaunchOptions) -> Self {
        let data_dir = chosen.and_then(|dir| data_dir::prepare(&dir)).map_err(|e| e.boundary());
        let hub = match &data_dir {
            Ok(dir) => Hub::start(dir, launch).map(Arc::new),
            Err(e) => Err(e.clone()),
        };
        Self {
            data_dir,
            hub,
            launched: Mutex::new(Launched::default()),
            last_shown: Mutex::new(None),
            opening: Mutex::new(Opening::default()),
        }
    }

    pub fn data_dir(&self) -> Result<&PathBuf, CommandError> {
        self.data_dir.as_ref().map_err(|e| CommandError::Startup(e.clone()))
    }

    pub fn hub(&self) -> Result<Arc<Hub>, CommandError> {
        self.hub.as_ref().map(Arc::clone).map_err(|e| CommandError::Startup(e.clone()))
    }

    /// The front door the window's session and question commands go through, as every other
    /// front door's do (the host is this process's).
    pub fn door(&self) -> Result<hark_core::front_door::InProcess, CommandError> {
        Ok(self.hub()?.door())
    }

    pub fn set_launched(&self, launched: Launched) {
        *hark_core::sync::lock(&self.launched) = launched;
    }

    /// Where a show of `wanted` goes (see [`Opening`]). A window built for nothing in particular
    /// opens on the session last shown; the launch's own session and error were for the first window
    /// and are not shown again.
    pub fn route_show(&self, mut wanted: Launched, window_exists: bool) -> Route {
        if !window_exists && wanted.session.is_none() {
            wanted.session = hark_core::sync::lock(&self.last_shown).clone();
        }
        hark_core::sync::lock(&self.opening).show(wanted, window_exists)
    }

    /// The first window is being built at start-up, for what the launch opened.
    pub fn first_window(&self) {
        let launched = hark_core::sync::lock(&self.launched).clone();
        hark_core::sync::lock(&self.opening).building(launched);
    }

    /// A page starts: what it shows first. What its window was built for, kept for a reload of
    /// the page, which shows it again.
    pub fn page_started(&self) -> Launched {
        if let Some(first) = hark_core::sync::lock(&self.opening).started() {
            self.set_launched(first);
        }
        hark_core::sync::lock(&self.launched).clone()
    }

    pub fn window_closed(&self) {
        hark_core::sync::lock(&self.opening).closed();
    }

    pub fn set_last_shown(&self, session: &str) {
        *hark_core::sync::lock(&self.last_shown) = Some(session.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_show_while_the_window_is_built_changes_what_its_page_opens_on() {
        let mut opening = Opening::default();
        // The tray's Open: no window, one is built for nothing in particular.
        assert_eq!(opening.show(Launched::default(), false), Route::Build);
        // At once a notification's Answer, while it is being built: the page will open on it.
        let answer = Launched::question("s-1", "call-1", None);
        assert_eq!(opening.show(answer.clone(), true), Route::Pending);
        // A show naming nothing (Open again) does not take the target away; a later target wins.
        assert_eq!(opening.show(Launched::default(), true), Route::Pending);
        let inbox = Launched::inbox();
        assert_eq!(opening.show(inbox.clone(), true), Route::Pending);
        assert_eq!(opening.started(), Some(inbox));
        // Once the page started it hears events: the next show is told to it.
        assert_eq!(opening.started(), None, "read once");
        assert_eq!(opening.show(answer.clone(), true), Route::Tell(answer.clone()));
        // Closed, then shown again: a new window is built for it.
        opening.closed();
        assert_eq!(opening.show(answer.clone(), false), Route::Build);
        assert_eq!(opening.started(), Some(answer));
    }

    #[test]
    fn a_reload_shows_what_its_window_was_built_for_and_a_target_naming_no_session_gets_the_last_one() {
        let state = AppState::prepare(Err(DataDirError::Unknown), crate::launch::LaunchOptions::default());
        state.set_last_shown("s-last");
        assert_eq!(state.route_show(Launched::inbox(), false), Route::Build);
        let first = state.page_started();
        assert_eq!((first.session.as_deref(), first.inbox), (Some("s-last"), true));
        assert_eq!(state.page_started(), first, "a reload reads it again");
    }
}
