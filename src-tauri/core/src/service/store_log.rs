//! The session store is the production [`SessionLog`].

use super::log::{LogError, SessionLog};
use crate::session::{Event, Store, StoreError};

impl From<StoreError> for LogError {
    fn from(e: StoreError) -> Self {
        LogError { code: e.code().to_string(), message: e.to_string() }
    }
}

impl SessionLog for Store {
    fn append(&self, session: &str, event: Event) -> Result<(), LogError> {
        Store::append(self, session, event).map(|_| ()).map_err(LogError::from)
    }
}
