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
}

/// What a window's page shows when it starts.
#[derive(Debug, Clone, Default)]
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
}

impl AppState {
    pub fn prepare(chosen: Result<PathBuf, DataDirError>, launch: LaunchOptions) -> Self {
        let data_dir = chosen.and_then(|dir| data_dir::prepare(&dir)).map_err(|e| e.boundary());
        let hub = match &data_dir {
            Ok(dir) => Hub::start(dir, launch).map(Arc::new),
            Err(e) => Err(e.clone()),
        };
        Self { data_dir, hub, launched: Mutex::new(Launched::default()), last_shown: Mutex::new(None) }
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

    pub fn launched(&self) -> Launched {
        hark_core::sync::lock(&self.launched).clone()
    }

    pub fn set_launched(&self, launched: Launched) {
        *hark_core::sync::lock(&self.launched) = launched;
    }

    /// What a window about to be built shows: `first`, or else the session last shown. The launch's
    /// own session and error were for the first window and are not shown again.
    pub fn set_first_shown(&self, mut first: Launched) {
        if first.session.is_none() {
            first.session = hark_core::sync::lock(&self.last_shown).clone();
        }
        self.set_launched(first);
    }

    pub fn set_last_shown(&self, session: &str) {
        *hark_core::sync::lock(&self.last_shown) = Some(session.to_string());
    }
}
