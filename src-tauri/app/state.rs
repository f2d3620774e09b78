//! What the shell holds for the life of the process.

use std::path::PathBuf;
use std::sync::Arc;

use hark_core::data_dir;
use hark_core::session::Store;

use crate::error::{CommandError, WireError};

pub struct AppState {
    /// The prepared data directory, or why it could not be used. An unusable directory is not a
    /// panic: the window opens and says what is wrong.
    pub data_dir: Result<PathBuf, WireError>,
    /// The session store in that directory, or why it could not be opened (e.g. a corrupt file, which
    /// is reported and never replaced).
    pub store: Result<Arc<Store>, WireError>,
}

impl AppState {
    pub fn prepare(platform_default: Option<PathBuf>) -> Self {
        let data_dir = data_dir::choose(None, platform_default)
            .and_then(|dir| data_dir::prepare(&dir))
            .map_err(|e| WireError::of(&e));
        let store = match &data_dir {
            Ok(dir) => Store::open(dir).map(Arc::new).map_err(|e| WireError::of(&e)),
            Err(e) => Err(e.clone()),
        };
        Self { data_dir, store }
    }

    pub fn data_dir(&self) -> Result<&PathBuf, CommandError> {
        self.data_dir.as_ref().map_err(|e| CommandError::Startup(e.clone()))
    }

    pub fn store(&self) -> Result<&Store, CommandError> {
        self.store.as_deref().map_err(|e| CommandError::Startup(e.clone()))
    }
}
