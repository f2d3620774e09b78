//! What the shell holds for the life of the process.

use std::path::PathBuf;

use hark_core::data_dir::{self, DataDirError};

pub struct AppState {
    /// The prepared data directory, or why it could not be used. An unusable directory is not a
    /// panic: the window opens and says what is wrong.
    pub data_dir: Result<PathBuf, DataDirError>,
}

impl AppState {
    pub fn prepare(platform_default: Option<PathBuf>) -> Self {
        let data_dir = data_dir::choose(None, platform_default).and_then(|dir| data_dir::prepare(&dir));
        Self { data_dir }
    }
}
