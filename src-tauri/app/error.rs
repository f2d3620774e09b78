//! Errors that cross IPC. They serialize to `{ name, code, message }` like every Hark error.

use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    DataDir(#[from] hark_core::data_dir::DataDirError),
}

impl Serialize for CommandError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CommandError::DataDir(e) => e.serialize(s),
        }
    }
}
