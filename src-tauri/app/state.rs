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
    /// What the launch options opened, for the window to show first; or why they could not.
    pub launched: Mutex<Launched>,
}

#[derive(Debug, Clone, Default)]
pub struct Launched {
    pub session: Option<String>,
    pub error: Option<BoundaryError>,
}

impl AppState {
    pub fn prepare(chosen: Result<PathBuf, DataDirError>, launch: LaunchOptions) -> Self {
        let data_dir = chosen.and_then(|dir| data_dir::prepare(&dir)).map_err(|e| e.boundary());
        let hub = match &data_dir {
            Ok(dir) => Hub::start(dir, launch).map(Arc::new),
            Err(e) => Err(e.clone()),
        };
        Self { data_dir, hub, launched: Mutex::new(Launched::default()) }
    }

    pub fn data_dir(&self) -> Result<&PathBuf, CommandError> {
        self.data_dir.as_ref().map_err(|e| CommandError::Startup(e.clone()))
    }

    pub fn hub(&self) -> Result<Arc<Hub>, CommandError> {
        self.hub.as_ref().map(Arc::clone).map_err(|e| CommandError::Startup(e.clone()))
    }

    pub fn launched(&self) -> Launched {
        hark_core::sync::lock(&self.launched).clone()
    }

    pub fn set_launched(&self, launched: Launched) {
        *hark_core::sync::lock(&self.launched) = launched;
    }
}
